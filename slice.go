package goldfish

import (
	"context"

	"github.com/goldfish-gql/goldfish/internal/engine"
)

// Slices (SPEC §8, Path B) are how elements move from one session to
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
const MaxSliceBytes = 1 << 20

// SliceOptions are the budgets of one ExportSlice: each anchor's
// neighbourhood is walked as a Recall walks its seeds, and zero values
// take the Recall defaults (M=50, k=2, L=4, F=8), values above the
// database's ceilings being refused (22Q01). L bounds the anchors: the
// seeds of q (a LIMIT in q as in a Recall) or the nicks named.
type SliceOptions struct {
	M, K, L, F int
	// Nicks, when set, name the anchors instead of q (q is then "").
	Nicks []string
	// Params are the values of q's $parameters.
	Params map[string]any
}

// Slice is what ExportSlice returns. Each call returns a Slice of its own.
type Slice struct {
	// Text is the slice: a comment header and one INSERT that carries
	// the engine ids (see Absorb).
	Text string
	// Anchors, Nodes and Edges count what the slice holds; Rows is
	// Nodes+Edges, at most Bound, which is M × Anchors.
	Anchors, Nodes, Edges, Rows, Bound int
	// Version is the session version the slice was read at.
	Version uint64
	// Truncated is set when M cut an anchor's walk short or the bound
	// left out edges between the slice's nodes.
	Truncated bool
	Notices   []Notice
	// Status is 00000, 01000 (a clamp, a cut, a LIMIT clamped) or 02000
	// (no anchor: q matched nothing, and the slice is empty).
	Status Code
}

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
	sl, err := s.e.ExportSlice(ctx, q, engine.SliceOptions{M: opts.M, K: opts.K, L: opts.L, F: opts.F, Nicks: opts.Nicks, Params: opts.Params})
	if err != nil {
		return nil, err
	}
	return &Slice{Text: sl.Text, Anchors: sl.Anchors, Nodes: sl.Nodes, Edges: sl.Edges, Rows: sl.Rows, Bound: sl.Bound,
		Version: sl.Version, Truncated: sl.Truncated, Notices: sl.Notices, Status: sl.Status}, nil
}

// AbsorbPolicy says what Absorb does with a slice's engine ids.
type AbsorbPolicy string

// The policies (SPEC §8).
const (
	// AbsorbKeep keeps the slice's ids. An element whose id the session
	// holds with the same content (kind, labels, properties; an edge's
	// type and ends too) is left as it is: absorbing a slice twice is a
	// no-op. One whose id the session holds otherwise (another element,
	// a deleted one not purged yet), or a node whose nick another live
	// node has, fails the whole Absorb with 40002, naming it.
	AbsorbKeep AbsorbPolicy = "keep"
	// AbsorbReject keeps the slice's ids as AbsorbKeep does but skips the
	// clashing elements, and the edges of a skipped node, and lists them
	// (AbsorbResult.Skipped).
	AbsorbReject AbsorbPolicy = "reject"
	// AbsorbRemint gives every element a fresh id and rewrites the edges
	// to the new ids (AbsorbResult.Reminted). A node whose nick a live
	// node has is skipped, with its edges, and listed: a nick is never
	// held twice, and never silently taken over by the slice.
	AbsorbRemint AbsorbPolicy = "remint"
)

// ParseAbsorbPolicy reads "keep", "reject" or "remint".
func ParseAbsorbPolicy(s string) (AbsorbPolicy, error) {
	if _, err := engine.ParseAbsorbPolicy(s); err != nil {
		return "", err
	}
	return AbsorbPolicy(s), nil
}

// AbsorbResult reports an Absorb: what its Δ did, as a Commit reports it
// (one statement, whose notices say what was skipped), and per element.
// It is the caller's own.
type AbsorbResult struct {
	CommitResult
	Policy AbsorbPolicy
	// Unchanged counts the slice's elements the session held already,
	// with the same ids and content (keep and reject).
	Unchanged int
	// Skipped lists the elements reject and remint left out, in slice
	// order.
	Skipped []SkippedElement
	// Reminted maps each slice variable remint wrote to the element's
	// variable in this session: the same prefix and its new engine id.
	Reminted map[string]string
}

// SkippedElement is a slice element Absorb left out, and why.
type SkippedElement struct {
	// Element is its variable in the slice ("tsk_17"), Reason why it was
	// left out; Line and Column are where the slice writes it.
	Element, Reason string
	Line, Column    int
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
	et, done := engineTiming(o.Timing)
	res, err := s.e.Absorb(ctx, slice, string(policy), engine.CommitOptions{Agent: o.Agent, Timing: et})
	done()
	return absorbResultOf(res, policy), err
}

func absorbResultOf(r *engine.AbsorbResult, policy AbsorbPolicy) *AbsorbResult {
	if r == nil {
		return nil
	}
	out := &AbsorbResult{CommitResult: *commitResultOf(&r.Result), Policy: policy, Unchanged: r.Unchanged}
	for _, sk := range r.Skipped {
		out.Skipped = append(out.Skipped, SkippedElement{Element: sk.Var, Reason: sk.Reason, Line: sk.Pos.Line, Column: sk.Pos.Col})
	}
	if len(r.Reminted) > 0 {
		out.Reminted = make(map[string]string, len(r.Reminted))
		for _, m := range r.Reminted {
			out.Reminted[m.From] = m.To
		}
	}
	return out
}
