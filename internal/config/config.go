// Package config is a database's configuration: what the root package's
// options set and the engine opens with. It sits apart from both so that
// an option may come from another package of the module (the PostgreSQL
// package supplies the option of its cabinet): an embedder that never
// names PostgreSQL links none of it.
package config

import (
	"context"
	"time"

	"github.com/goldfish-gql/goldfish/store/cabinet"
	"github.com/goldfish-gql/goldfish/values"
)

// Config is a database's configuration, as its options resolve it.
type Config struct {
	// Budget is every Commit's R cap; Ceilings bound Recall's budgets.
	Budget   values.Budget
	Ceilings values.Ceilings
	// PlanBytes and ShapeBytes size the plan and Shape caches (a
	// ShapeBytes of 0 turns the Shape cache off).
	PlanBytes, ShapeBytes int64
	// CabinetPath is the bbolt cabinet file; Cabinet an already opened
	// cabinet (a test double around a real one), which Close closes.
	CabinetPath string
	Cabinet     cabinet.Cabinet
	// ReadOnly opens the cabinet file read-only (cabinet.Options): every
	// write is refused with 25006, and what agents read is not saved.
	ReadOnly bool
	// FlushEntries and FlushBytes are the automatic flush's triggers.
	FlushEntries int
	FlushBytes   int64
	// Shared, when set, keeps the sessions in a cabinet other hosts share
	// (a backend package's option sets it).
	Shared *Shared
	// MemoryBudget bounds the resident sessions' estimated memory.
	MemoryBudget int64
}

// Shared is a cabinet that many hosts share, and how this host follows
// the others' Commits.
type Shared struct {
	// Name says what the cabinet is, in messages ("PostgreSQL"), and
	// Option the option that chose it ("postgres.Cabinet").
	Name, Option string
	// Open opens it.
	Open func(ctx context.Context) (cabinet.Shared, error)
	// PollInterval bounds how old this host's knowledge of the other
	// hosts' Commits may be when it serves a Recall (0: 1s); Poll follows
	// them by polling even where the cabinet can notify; Retries is how
	// often a Commit another host beat is planned again (0: 10).
	PollInterval time.Duration
	Poll         bool
	Retries      int
}
