package goldfish

import (
	"context"

	"github.com/goldfish-gql/goldfish/internal/engine"
	"github.com/goldfish-gql/goldfish/values"
)

// Slices (docs/design.md#sessions-slices-and-model-snap, Path B) are how elements move from one session to
// another: ExportSlice writes the neighbourhoods of a few anchors with
// their engine ids, Absorb commits them into another session as one Δ.
//
// A slice's text is GQL that goldfish's own parser reads:
//
//	// goldfish slice session=mission version=12 anchors=1 k=2 rows=3/50 sum=5f0c8e6d1a2b3c4d
//	// anchors: tsk_1
//	INSERT
//	  (tsk_1:TSK {nick: "TSK_login", status: "open"}),
//	  (mod_2:MOD {loc: "auth/login.go"}),
//	  (tsk_1)-[e_3:touches]->(mod_2)
//
// Each element's engine id is in its variable, after the last '_': a
// node's variable is its kind's prefix (as in a Shape), an edge's "e".
// Variables are never stored, so an id cannot become a property nor
// reach a Shape, which names its elements tsk1, mod2. The header's sum
// covers the whole text: a slice is absorbed as it was exported, and a
// damaged or edited one is refused with a position.

// MaxSliceBytes is the most bytes a slice may hold (the parser's text
// limit, so every slice parses). A slice holds at most M × anchors rows,
// with M and the number of anchors at most their Recall ceilings; with
// DefaultCeilings that is 200 × 32 = 6,400 rows (and 50 × 4 = 200 with
// the default budgets).
const MaxSliceBytes = values.MaxSliceBytes

// A slice's values (package values declares them).
type (
	// SliceOptions are the budgets of one ExportSlice: each anchor's
	// neighbourhood is walked as a Recall walks its seeds, and zero
	// values take the Recall defaults (M=50, k=2, L=4, F=8), values above
	// the database's ceilings being refused (22Q01). L bounds the
	// anchors: the seeds of q (a LIMIT in q as in a Recall) or the nicks
	// named.
	SliceOptions = values.SliceOptions
	// Slice is what ExportSlice returns. Each call returns a Slice of its
	// own.
	Slice = values.Slice
	// AbsorbPolicy says what Absorb does with a slice's engine ids.
	AbsorbPolicy = values.AbsorbPolicy
	// AbsorbResult reports an Absorb: what its Δ did, as a Commit reports
	// it, and per element. It is the caller's own.
	AbsorbResult = values.AbsorbResult
	// SkippedElement is a slice element Absorb left out, and why.
	SkippedElement = values.SkippedElement
)

// ExportSlice writes the slice of the session around its anchors: the
// seeds of q, a Recall's token (at most L of them, found as a Recall
// finds its seeds, never by peaks), or the nodes opts.Nicks names. Each
// anchor's neighbourhood is walked as a Recall walks (k hops, M rows, F
// per node); the slice is their union, with the edges between its nodes
// while rows remain: at most M × |anchors| rows, with engine ids.
//
// Refused: a q that is not a Recall's token (42Q04), the outline MATCH ()
// (42Q04: a slice never takes a whole session), the catalogue (42Q02), a
// nick no live node has (42002), more nicks than L or budgets above their
// ceilings (22Q01), a slice over MaxSliceBytes (22Q02).
func (s *Session) ExportSlice(ctx context.Context, q string, opts SliceOptions) (*Slice, error) {
	return s.e.ExportSlice(ctx, q, opts)
}

// The policies (values.AbsorbKeep and the others say what each does).
const (
	AbsorbKeep   = values.AbsorbKeep
	AbsorbReject = values.AbsorbReject
	AbsorbRemint = values.AbsorbRemint
)

// ParseAbsorbPolicy reads "keep", "reject" or "remint".
func ParseAbsorbPolicy(s string) (AbsorbPolicy, error) {
	if _, err := engine.ParseAbsorbPolicy(s); err != nil {
		return "", err
	}
	return AbsorbPolicy(s), nil
}

// Absorb commits a slice that ExportSlice wrote (of this database or of
// another) into the session as one atomic Δ under policy: all of it
// applies, in one version, durable and replayed on hydrate like any
// Commit, or none of it. It names no agent (AbsorbWith does).
//
// The Δ is held to the slice bound rather than R: a slice holds at most
// M × anchors rows, with M and L at most their ceilings, and
// MaxSliceBytes. Text that is not a slice (a Shape, hand-written text, a
// slice edited or damaged) is refused with a position (42001), a slice
// over its bound with 22Q02, one exported from the catalogue, or an
// Absorb into it, with 42Q02.
func (s *Session) Absorb(ctx context.Context, slice string, policy AbsorbPolicy) (*AbsorbResult, error) {
	return s.AbsorbWith(ctx, slice, policy, CommitOptions{})
}

// AbsorbWith is Absorb with options: the absorbing agent, timing.
func (s *Session) AbsorbWith(ctx context.Context, slice string, policy AbsorbPolicy, o CommitOptions) (*AbsorbResult, error) {
	return s.e.Absorb(ctx, slice, policy, o)
}
