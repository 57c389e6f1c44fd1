package goldfish

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/goldfish-gql/goldfish/exec"
	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/parser"
	"github.com/goldfish-gql/goldfish/planner"
	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/store/cabinet"
	"github.com/goldfish-gql/goldfish/vocab"
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

// The two bounds are one: this does not compile when they differ.
var _ = [1]struct{}{}[MaxSliceBytes-exec.MaxSliceBytes]

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
	if err := s.begin(ctx); err != nil {
		return nil, err
	}
	defer s.end()
	if s.dropped.Load() {
		return nil, s.errDropped()
	}
	if s.catalog {
		return nil, gqlstatus.Errorf(gqlstatus.ReadOnlySession, "the %s session is kept by the engine and is no slice's source", CatalogName).
			WithHint("read it with Recall; export slices of the sessions themselves")
	}
	if err := ctx.Err(); err != nil {
		return nil, gqlstatus.Interrupted(ctx, "ExportSlice")
	}
	byNicks := len(opts.Nicks) > 0
	switch blank := strings.TrimSpace(q) == ""; {
	case byNicks && !blank:
		return nil, gqlstatus.Errorf(gqlstatus.InvalidOption, "ExportSlice takes q or nicks, not both").
			WithHint("leave q empty to anchor the slice at the nicks")
	case !byNicks && blank:
		return nil, gqlstatus.Errorf(gqlstatus.InvalidOption, "ExportSlice needs anchors: give q, a Recall's token, or nicks").
			WithHint(`e.g. MATCH (t:TSK {nick: "TSK_login"})`)
	}
	capL := opts.L != 0
	o, err := RecallOptions{M: opts.M, K: opts.K, L: opts.L, F: opts.F}.resolve(s.db.cfg.ceilings)
	if err != nil {
		return nil, err
	}
	var plan *planner.Plan
	var params map[string]store.Value
	if !byNicks {
		if plan, err = s.db.plan(q); err != nil {
			return nil, err
		}
		if !plan.Read() {
			return nil, gqlstatus.Errorf(gqlstatus.WrongVerb, "ExportSlice takes a Recall's token: one MATCH of node patterns with optional WHERE and LIMIT").
				WithHint("send INSERT, SET, REMOVE and DELETE to Commit; name the anchors with q or with nicks")
		}
		params = map[string]store.Value{}
		if err := recallParams(params, opts.Params, s.db.cfg.budget.Bytes); err != nil {
			return nil, err
		}
	}
	sl, err := exec.ExportSlice(ctx, s.snapshot(), plan, params, exec.SliceOptions{
		M: o.M, K: o.K, L: o.L, F: o.F, MaxL: s.db.cfg.ceilings.L, CapL: capL, Nicks: opts.Nicks, Session: s.name})
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
	if _, err := AbsorbPolicy(s).exec(); err != nil {
		return "", err
	}
	return AbsorbPolicy(s), nil
}

func (p AbsorbPolicy) exec() (exec.AbsorbPolicy, error) {
	switch p {
	case AbsorbKeep:
		return exec.AbsorbKeep, nil
	case AbsorbReject:
		return exec.AbsorbReject, nil
	case AbsorbRemint:
		return exec.AbsorbRemint, nil
	}
	return 0, gqlstatus.Errorf(gqlstatus.InvalidOption, "%q is not an Absorb policy", string(p)).
		WithHint("absorb with keep, reject or remint")
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
	return s.absorb(ctx, slice, policy, CommitOptions{})
}

// AbsorbWith is Absorb with options: the absorbing agent, timing.
func (s *Session) AbsorbWith(ctx context.Context, slice string, policy AbsorbPolicy, o CommitOptions) (*AbsorbResult, error) {
	return s.absorb(ctx, slice, policy, o)
}

// sliceBounds are what the database's slices may hold.
func (db *DB) sliceBounds() exec.SliceBounds {
	c := db.cfg.ceilings
	return exec.SliceBounds{Rows: c.M * c.L, PerAnchor: c.M, Bytes: MaxSliceBytes, Catalog: CatalogName}
}

// readSlice reads a slice's text: its header, its INSERT through the
// parser and planner (not the plan cache: a slice is read once), and
// every check of exec.ReadSlice.
func readSlice(text string, b exec.SliceBounds) (*exec.SliceData, error) {
	return exec.ReadSlice(text, func(text string) (*planner.Plan, error) {
		script, err := parser.Parse(text)
		if err != nil {
			return nil, err
		}
		return planner.Build(script)
	}, b)
}

func (s *Session) absorb(ctx context.Context, slice string, policy AbsorbPolicy, o CommitOptions) (*AbsorbResult, error) {
	if err := s.begin(ctx); err != nil {
		return nil, err
	}
	defer s.end()
	if o.Agent != "" {
		if err := ValidAgentName(o.Agent); err != nil {
			return nil, err
		}
	}
	if t := o.Timing; t != nil {
		*t = Timing{}
		t0 := time.Now()
		defer func() { t.Execute = time.Since(t0) - t.Parse }()
	}
	p, err := policy.exec()
	if err != nil {
		return nil, err
	}
	if s.catalog {
		s.wmu.Lock()
		err := s.refuseWrite()
		s.wmu.Unlock()
		return nil, err
	}
	t0 := time.Now()
	b := s.db.sliceBounds()
	d, err := readSlice(slice, b)
	if o.Timing != nil {
		o.Timing.Parse = time.Since(t0)
	}
	if err != nil {
		return nil, err
	}
	if s.wmu.LockContext(ctx) != nil {
		return nil, gqlstatus.Interrupted(ctx, "Absorb").WithHint("nothing applied: the Absorb was waiting for the session's other Commits; allow it more time")
	}
	if err := s.refuseWrite(); err != nil {
		s.wmu.Unlock()
		return nil, err
	}
	e := cabinet.Entry{Kind: cabinet.EntryAbsorb, Mint: uint8(p), Text: slice, Agent: o.Agent}
	xo := exec.AbsorbOptions{Policy: p, Budget: exec.Budget{Rows: b.Rows, Bytes: b.Bytes}}
	var before *vocab.State
	var res *exec.AbsorbResult
	absorb := func() error {
		before = exec.Vocabulary(s.graph.Snapshot())
		res, err = exec.Absorb(ctx, s.graph, d, xo)
		return err
	}
	if s.db.hosts != nil {
		// Other hosts commit too: claim the version, and absorb again on
		// the new state when another host took it (postgres.go).
		err = s.hostsWrite(ctx, "Absorb", &e, func(claim func(uint64) error) error {
			xo.BeforePublish = claim
			return absorb()
		})
	} else {
		err = absorb()
	}
	if err != nil || !res.Applied {
		s.wmu.Unlock()
		return absorbResultOf(res, policy), err
	}
	s.noteCommit(before, exec.Vocabulary(s.graph.Snapshot()), res.Version)
	w := s.durable(e)
	s.wmu.Unlock()
	if err := s.await(w); err != nil {
		return nil, err
	}
	return absorbResultOf(res, policy), nil
}

func absorbResultOf(r *exec.AbsorbResult, policy AbsorbPolicy) *AbsorbResult {
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

// replayAbsorb applies a logged Absorb again: the same slice, the same
// policy, on the state it was absorbed into, so the same elements with
// the same ids. The bounds of the day it was absorbed held it; none
// applies now.
func replayAbsorb(ctx context.Context, g *store.Graph, e cabinet.Entry, want uint64) error {
	p := exec.AbsorbPolicy(e.Mint)
	if !p.Valid() {
		return fmt.Errorf("absorb entry with unknown policy %d", e.Mint)
	}
	d, err := readSlice(e.Text, exec.SliceBounds{})
	if err != nil {
		return err
	}
	res, err := exec.Absorb(ctx, g, d, exec.AbsorbOptions{Policy: p, Budget: exec.Budget{Rows: math.MaxInt, Bytes: math.MaxInt}})
	if err != nil {
		return err
	}
	if !res.Applied || res.Version != want {
		return fmt.Errorf("replayed absorb made version %d (applied %v)", res.Version, res.Applied)
	}
	return nil
}
