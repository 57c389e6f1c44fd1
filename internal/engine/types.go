package engine

import (
	"github.com/goldfish-gql/goldfish/exec"
	"github.com/goldfish-gql/goldfish/values"
)

// The engine hands out the values of package values (the root package
// re-exports them): a Recall's Shape, a Commit's result, the envelope,
// the vocabulary, the settings. These names are the engine's for them.
type (
	// Result is what a Δ did.
	Result = values.CommitResult
	// Counts are a statement's or a Δ's element counts.
	Counts = values.Counts
	// AbsorbResult is what an Absorb's Δ did.
	AbsorbResult = values.AbsorbResult
	// Shape is a Recall's Shape.
	Shape = values.Shape
	// Attention is a Recall's attention envelope.
	Attention = values.Attention
	// Settings are a session's attention settings.
	Settings = values.AttentionSettings
	// Mint is a Commit's id rule.
	Mint = exec.Mint
	// Timing says where the time of one call went.
	Timing = values.Timing
	// CommitOptions are the options of one write: the agent that makes
	// it, and where to record its times.
	CommitOptions = values.CommitOptions
	// Budget is the R cap of one Δ.
	Budget = values.Budget
	// Ceilings bound what a Recall may ask for.
	Ceilings = values.Ceilings
	// RecallOptions are one Recall's options; resolveRecall fills their
	// defaults and checks them.
	RecallOptions = values.RecallOptions
	// SliceOptions are one ExportSlice's budgets and anchors.
	SliceOptions = values.SliceOptions
	// DiffOptions narrow and bound one Diff.
	DiffOptions = values.DiffOptions
	// The reads of a session.
	Vocabulary   = values.Vocabulary
	View         = values.View
	Action       = values.Action
	ActionParam  = values.ActionParam
	History      = values.History
	HistoryEntry = values.HistoryEntry
	VersionEntry = values.VersionEntry
	KindSchema   = values.KindSchema
	NameCount    = values.NameCount
	Names        = values.Names
	NodeData     = values.NodeData
	EdgeData     = values.EdgeData
	AgentInfo    = values.AgentInfo
	MemoryStats  = values.MemoryStats
)

// The id rules of a Commit.
const (
	MintDefault = exec.MintDefault
	MintIngest  = exec.MintIngest
)

// MatchCountWork is the most matches a Recall counts to say what its
// token matched beyond its seeds.
const MatchCountWork = values.MatchCountWork

// CueTask is the cue of a miss the live tasks seeded.
const CueTask = values.CueTask

// DefaultSettings are the attention settings of a session that set none.
var DefaultSettings = values.DefaultAttentionSettings

// SettingNames are the attention settings' names.
var SettingNames = values.AttentionSettingNames
