package goldfish

import (
	"context"

	"github.com/goldfish-gql/goldfish/values"
)

// A Recall's values (package values declares them; these are the same
// types).
type (
	// Shape is what a Recall returns: its rows, the facts its header
	// states, and its text (values.Shape says what a caller may change).
	Shape = values.Shape
	// ShapeNode and ShapeEdge are a Shape's rows.
	ShapeNode = values.ShapeNode
	ShapeEdge = values.ShapeEdge
	// ElidedValue is a property a Shape's text writes as $elidedN.
	ElidedValue = values.ElidedValue
	// Outline is what the outline (MATCH ()) counts.
	Outline = values.Outline
	// Cue says how a Recall found its seeds.
	Cue = values.Cue
	// RecallOptions are the budgets of one Recall (zero values take the
	// defaults).
	RecallOptions = values.RecallOptions
)

// The values a Shape's rows hold: a property value, a property and a
// node's or an edge's properties (sorted by key), with the kinds of a
// value.
type (
	Value     = values.Value
	ValueKind = values.ValueKind
	Prop      = values.Prop
	Props     = values.Props
)

// The kinds of a Value.
const (
	KindNull     = values.KindNull
	KindBool     = values.KindBool
	KindInt      = values.KindInt
	KindFloat    = values.KindFloat
	KindString   = values.KindString
	KindDate     = values.KindDate
	KindDateTime = values.KindDateTime
	KindList     = values.KindList
)

// MatchCountWork is the most matches a Recall counts, beyond its seeds, to
// say how many nodes its token matched (Shape.Matched): past it the count
// is a lower bound.
const MatchCountWork = values.MatchCountWork

// The cues.
const (
	CueMatch   = values.CueMatch   // the token matched live nodes
	CueTask    = values.CueTask    // the token matched nothing; the live tasks (TSK, not Settled) seeded the walk
	CuePeak    = values.CuePeak    // the token matched nothing and no task is live; Peak_L seeded the walk
	CueOutline = values.CueOutline // the empty token: counts and exemplars
	CueSkip    = values.CueSkip    // no seed at all: an empty Shape
)

// NoWalk as RecallOptions.K (or SliceOptions.K) asks for k = 0: the
// seeds alone, with the edges between them, and no hop. K's zero value
// keeps meaning the default k = 2, as every other budget's zero value
// means its default.
const NoWalk = values.NoWalk

// DefaultRecall are the default budgets of a Recall.
var DefaultRecall = values.DefaultRecall

// Recall reads the session with the codebook token q (a MATCH of node
// patterns with optional WHERE and LIMIT; MATCH () for the outline) and
// returns the Shape: the same bytes for the same q on the same version.
func (s *Session) Recall(ctx context.Context, q string, opts RecallOptions) (*Shape, error) {
	return s.e.Recall(ctx, q, opts, nil)
}

// RecallTimed is Recall that also reports where the time went.
func (s *Session) RecallTimed(ctx context.Context, q string, opts RecallOptions) (*Shape, Timing, error) {
	var t Timing
	sh, err := s.e.Recall(ctx, q, opts, &t)
	return sh, t, err
}

// PastVersions is how many of its latest versions a session keeps
// readable for RecallOptions.AtVersion.
const PastVersions = values.PastVersions

// IdentityKey reports whether a property is one of a node's identity:
// nick, loc, name, title (what view=shell and a trimmed row show).
func IdentityKey(key string) bool { return values.IdentityKey(key) }
