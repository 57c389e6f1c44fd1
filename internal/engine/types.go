package engine

import (
	"time"

	"github.com/goldfish-gql/goldfish/exec"
	"github.com/goldfish-gql/goldfish/internal/params"
	"github.com/goldfish-gql/goldfish/vocab"
)

// The results of the layers below, as the engine hands them to the
// facade: the root package converts them into its own types, and names
// them only through these, so the engine is its one door downwards.
type (
	// Result is what a Δ did.
	Result = exec.Result
	// Counts are a statement's or a Δ's element counts.
	Counts = exec.Counts
	// AbsorbResult is what an Absorb's Δ did.
	AbsorbResult = exec.AbsorbResult
	// Shape is a Recall's emit and counts.
	Shape = exec.Shape
	// Attention is a Recall's attention envelope.
	Attention = vocab.Attention
	// Settings are a session's attention settings.
	Settings = vocab.Settings
	// Mint is a Commit's id rule.
	Mint = exec.Mint
	// Day is a DATE as the engine hands it up: a calendar day.
	Day = params.Day
)

// The id rules of a Commit.
const (
	MintDefault = exec.MintDefault
	MintIngest  = exec.MintIngest
)

// MatchCountWork is the most matches a Recall counts to say what its
// token matched beyond its seeds.
const MatchCountWork = exec.MatchCountWork

// CueTask is the cue of a miss the live tasks seeded.
const CueTask = exec.CueTask

// DefaultSettings are the attention settings of a session that set none.
var DefaultSettings = vocab.DefaultSettings

// SettingNames are the attention settings' names.
var SettingNames = vocab.SettingNames

// Timing says where the time of one call went (the facade's Timing).
type Timing struct {
	Parse, Plan, Execute, Emit time.Duration
	Cached                     bool
}

// CommitOptions are the options of one write: the agent that makes it,
// and where to record its times.
type CommitOptions struct {
	Agent  string
	Timing *Timing
}

// Budget is the R cap of one Δ.
type Budget = exec.Budget

// Ceilings bound what a Recall may ask for.
type Ceilings struct{ M, K, L, F int }

// PostgresOptions configure a database kept in PostgreSQL (the facade's
// PostgresOptions).
type PostgresOptions struct {
	Schema       string
	PollInterval time.Duration
	Poll         bool
	Retries      int
}
