package exec

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/google/cel-go/common/types/ref"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/planner"
	"github.com/goldfish-gql/goldfish/shapewalk"
	"github.com/goldfish-gql/goldfish/store"
)

// Cue says how a Recall found its seed set.
type Cue string

const (
	CueMatch   Cue = "match"   // the token matched live nodes
	CuePeak    Cue = "peak"    // the token matched nothing; Peak_L seeded the walk
	CueOutline Cue = "outline" // the empty token: counts and exemplars
	CueSkip    Cue = "skip"    // no seed at all: an empty Shape
)

// View is the grain of a Shape.
type View string

const (
	ViewInterior View = "interior" // the full walk, all properties
	ViewShell    View = "shell"    // hierarchical edges and identity properties only
)

// RecallOptions are the budgets and switches of one Recall, already checked
// against their ceilings.
type RecallOptions struct {
	M, K, L, F int
	// MaxL is the L ceiling: a LIMIT in the token may raise the seed count
	// up to it, unless the caller set L itself (CapL), which then caps it.
	MaxL    int
	CapL    bool
	View    View
	Pinned  []string
	NoPeaks bool
	// T is the token target (0: none): a body estimated over T tokens
	// shows the nodes beyond the seeds with their identity properties
	// only, farthest hop first, until it fits (SPEC §3, §5 emit).
	T int
	// ExactTokens counts the Shape's tokens with the o200k tokenizer
	// instead of the fast estimate.
	ExactTokens bool
	Hierarchy   shapewalk.Hierarchy
	// Session names the session in the header.
	Session string
	// Peaks, when set, keeps the session's peaks per version: they are a
	// whole-session computation, so a miss should pay for it once.
	Peaks *PeakCache
}

// PeakCache holds one session's peaks for its latest version.
type PeakCache struct {
	mu      sync.Mutex
	version uint64
	n       int
	nodes   []*store.Node
}

// get returns the first l peaks of snap, computing at least max(l, 32) of
// them once per version. A computation ctx stops is not kept.
func (c *PeakCache) get(ctx context.Context, snap *store.Snapshot, l int, h shapewalk.Hierarchy) ([]*store.Node, error) {
	if c == nil || h != nil {
		return shapewalk.PeaksContext(ctx, snap, l, h)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.nodes == nil || c.version != snap.Version() || c.n < l {
		n := max(l, 32)
		nodes, err := shapewalk.PeaksContext(ctx, snap, n, nil)
		if err != nil {
			return nil, err
		}
		c.n, c.nodes, c.version = n, nodes, snap.Version()
	}
	return c.nodes[:min(l, len(c.nodes))], nil
}

// Shape is the result of a Recall: the emitted GQL text and what it holds.
type Shape struct {
	// Text is the text a caller was given (Compose writes it); Recall
	// leaves it empty, so that a Shape's header is written once.
	Text    string
	Cue     Cue
	Seeds   int
	Rows    int
	Tokens  int
	Version uint64
	// Truncated is set when M cut the walk short.
	Truncated bool
	// Trimmed is the number of nodes the token target T showed with
	// their identity properties only.
	Trimmed int
	Clamps  []string
	Notices []gqlstatus.Notice
	// Status is 00000, 01000 (a clamp, a cut, a token alarm, a LIMIT
	// clamped) or 02000 (skip).
	Status gqlstatus.Code
	// ExecTime (seed and walk) and EmitTime (text and tokens) are what
	// computing this Shape cost.
	ExecTime, EmitTime time.Duration

	// What Compose needs to write the text again with a preamble.
	session    string
	k, m       int
	exact      bool
	rest       string // the notes and the body
	restMilli  int64
	notesLen   int // the notes' bytes at the start of rest
	notesMilli int64
	plain      *plainText // the text with no preamble, once written
}

// Recall seeds, walks and emits over one snapshot.
func Recall(ctx context.Context, snap *store.Snapshot, plan *planner.Plan, params map[string]store.Value, opt RecallOptions) (*Shape, error) {
	if !plan.Read() {
		return nil, gqlstatus.Errorf(gqlstatus.WrongVerb, "a Recall is one MATCH of node patterns with optional WHERE and LIMIT").
			WithHint("send INSERT, SET, REMOVE and DELETE to Commit")
	}
	st := plan.Stmts[0]
	rp := st.Recall
	celParams, err := paramValues(plan, params)
	if err != nil {
		return nil, err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	x := &executor{plan: plan, params: celParams}
	x.meter.start(ctx, "Recall", 0)
	if err := x.check(); err != nil {
		return nil, err
	}
	walk := shapewalk.Options{K: walkK(opt.K), M: opt.M, F: opt.F, Shell: opt.View == ViewShell,
		Pinned: opt.Pinned, Hierarchy: opt.Hierarchy}
	e := emitter{snap: snap, opt: opt, shape: &Shape{Version: snap.Version(), Status: gqlstatus.Success}, start: time.Now()}
	// The parser's warnings about the token's text (a comment that hid a
	// likely arrow) travel with the Shape, as notices and as header notes.
	for _, n := range st.Notices {
		e.shape.Notices = append(e.shape.Notices, n)
		e.notes = append(e.notes, n.String())
	}
	limit, err := x.seedLimit(rp, celParams, opt, &e)
	if err != nil {
		return nil, err
	}
	if rp.Empty {
		kinds, types := shapewalk.Outline(snap, limit)
		var exemplars []*store.Node
		for _, k := range kinds {
			exemplars = append(exemplars, k.Exemplars...)
		}
		e.shape.Cue = CueOutline
		e.opt.K = 0 // the outline does not walk
		e.outline(kinds, types)
		outline := walk
		outline.K = walkK(0) // exemplars only
		outline.Pinned = nil
		w, err := e.walk(ctx, snap, exemplars, outline)
		if err != nil {
			return nil, x.interruptedBy(err)
		}
		e.emit(e.timed(w), len(exemplars))
		return e.finish()
	}
	seeds, err := x.seed(snap, st, rp, limit)
	if err != nil {
		return nil, err
	}
	e.shape.Cue = CueMatch
	if len(seeds) == 0 && limit > 0 && !opt.NoPeaks {
		if seeds, err = opt.Peaks.get(ctx, snap, limit, opt.Hierarchy); err != nil {
			return nil, x.interruptedBy(err)
		}
		e.shape.Cue = CuePeak
	}
	if len(seeds) == 0 {
		e.shape.Cue = CueSkip
		e.shape.Status = gqlstatus.NoData
		msg := "no seed: the token matched nothing and the session has no peaks"
		switch {
		case limit == 0:
			msg = "no seed: LIMIT 0"
		case opt.NoPeaks:
			msg = "no seed: the token matched nothing"
		}
		e.shape.Notices = append(e.shape.Notices, gqlstatus.Notice{Code: gqlstatus.NoData, Msg: msg})
		e.notes = append(e.notes, string(gqlstatus.NoData)+": "+msg)
		return e.finish()
	}
	w, err := e.walk(ctx, snap, seeds, walk)
	if err != nil {
		return nil, x.interruptedBy(err)
	}
	e.emit(e.timed(w), len(seeds))
	return e.finish()
}

// seedLimit returns the seed budget of one Recall: L, or the token's LIMIT.
//
// LIMIT n in a Recall is its seed count L for that call: at most n seeds,
// and on the outline (MATCH ()) at most n exemplars per kind. A LIMIT may
// lower L freely and raise it up to the L ceiling, unless the caller set
// L itself, which then bounds the LIMIT as well. A LIMIT above its bound
// is clamped to the bound, with a 01000 notice that names the LIMIT and
// the bound, on every Recall form alike: a LIMIT is an upper bound ("at
// most n"), which the clamped seed set still meets, so refusing the
// whole Recall would only cost the reader a round trip, and the notice
// tells it that the set may be cut. Budgets asked for as options (M, k,
// L, F) are refused above their ceilings instead (22Q01): they are the
// caller's configuration, not part of the token. LIMIT takes an INTEGER
// (22G03 otherwise) of 0 or more (22G02 otherwise); LIMIT 0 seeds
// nothing, and on the outline gives the counts alone.
func (x *executor) seedLimit(rp *planner.RecallPlan, params []ref.Val, opt RecallOptions, e *emitter) (int, error) {
	if rp.Limit == nil {
		return opt.L, nil
	}
	v, err := x.eval(*rp.Limit, &planner.Row{Params: params})
	if err != nil {
		return 0, err
	}
	if v.Kind() != store.KindInt {
		return 0, x.errAt(gqlstatus.InvalidValueType, rp.Limit.Pos, "LIMIT takes an integer, not %s", v.Kind())
	}
	n := v.AsInt()
	if n < 0 {
		return 0, x.errAt(gqlstatus.NegativeLimit, rp.Limit.Pos, "LIMIT is negative (%d)", n).WithHint("write LIMIT 0 or more")
	}
	bound, what := max(opt.MaxL, opt.L), "the L ceiling"
	if opt.CapL || opt.MaxL == 0 {
		bound, what = opt.L, "this call's L"
	}
	if n <= int64(bound) {
		return int(n), nil
	}
	per := "seeds"
	switch {
	case rp.Empty && bound == 1:
		per = "exemplar per kind"
	case rp.Empty:
		per = "exemplars per kind"
	case bound == 1:
		per = "seed"
	}
	msg := fmt.Sprintf("LIMIT %d is over %s (%d): at most %d %s", n, what, bound, bound, per)
	e.shape.Notices = append(e.shape.Notices, gqlstatus.Notice{Code: gqlstatus.Warning, Msg: msg, Pos: rp.Limit.Pos})
	e.notes = append(e.notes, "limit: "+msg) // a warning, as the clamp notes are
	return bound, nil
}

// interruptedBy turns the context's error, as shapewalk returns it, into
// the call's error.
func (x *executor) interruptedBy(err error) error {
	if x.ctx.Err() != nil {
		return x.interrupted()
	}
	return err
}

// seed finds the first limit live nodes, in canonical order, that match any
// of the plan's node patterns and their conditions. Each index scan of a
// pattern (see candidateScans) stops once it has limit hits and has passed
// their tie group; the hits of all scans are then sorted and cut to limit.
// A scan lists its nodes in observable order, so its first limit hits,
// ties included, hold every hit of its that can be among the first limit
// of all; the cost follows the scans that find the seeds, not the
// session's size.
func (x *executor) seed(snap *store.Snapshot, st *planner.Statement, rp *planner.RecallPlan, limit int) ([]*store.Node, error) {
	if limit == 0 {
		return nil, nil
	}
	row := &planner.Row{Vars: make([]planner.Element, len(st.Vars)), Params: x.params}
	for _, g := range rp.Global {
		ok, err := x.test(g, row)
		if err != nil || !ok {
			return nil, err
		}
	}
	var found []*store.Node
	b := &binder{x: x, snap: snap}
	for i, np := range rp.Seeds {
		scans, n, err := x.seedScans(b, row, np, rp.Filters[i])
		if err != nil {
			return nil, x.located(err)
		}
		for j := range n {
			var hits []*store.Node
			var lastKey string
			err := b.scan(&scans[j], func(n *store.Node) error {
				if len(hits) >= limit {
					// Past L: keep only the nodes tied with the last hit on
					// observables, for the structural tie-break.
					if lastKey == "" {
						lastKey = hits[len(hits)-1].ObservableKey()
					}
					if n.ObservableKey() != lastKey {
						return errStop
					}
				}
				ok, err := x.seedMatches(b, row, np, rp.Filters[i], n)
				if err != nil || !ok {
					return err
				}
				hits = append(hits, n)
				return nil
			})
			if err != nil && err != errStop {
				return nil, x.located(err)
			}
			for _, n := range hits {
				if !containsNode(found, n) {
					found = append(found, n)
				}
			}
		}
	}
	shapewalk.Sort(snap, found)
	if len(found) > limit {
		found = found[:limit]
	}
	return found, nil
}

// seedScans returns a seed pattern's index scans: a bare (n) whose
// condition is the keyword token goes through the store's text index
// (which lists a superset of the matches in observable order; each is
// tested), anything else through the binder's index choice.
func (x *executor) seedScans(b *binder, row *planner.Row, np *planner.NodePlan, filters []*planner.Program) ([maxScans]candidateScan, int, error) {
	if len(np.Labels) == 0 && len(np.Props) == 0 && np.Slot >= 0 {
		for _, f := range filters {
			w, ok := f.KeywordOf(np.Slot, row)
			if !ok {
				continue
			}
			nodes, ok := b.snap.TextCandidates(w)
			if !ok {
				break
			}
			return [maxScans]candidateScan{{kind: scanList, nodes: nodes}}, 1, nil
		}
	}
	return b.candidateScans(row, np)
}

func containsNode(list []*store.Node, n *store.Node) bool {
	for _, m := range list {
		if m.ID == n.ID {
			return true
		}
	}
	return false
}

var errStop = errors.New("enough seeds")

func (x *executor) seedMatches(b *binder, row *planner.Row, np *planner.NodePlan, filters []*planner.Program, n *store.Node) (bool, error) {
	ok, err := b.nodeMatches(row, np, n)
	if err != nil || !ok {
		return false, err
	}
	if np.Slot < 0 {
		return true, nil
	}
	row.Vars[np.Slot] = planner.Element{Node: n}
	defer func() { row.Vars[np.Slot] = planner.Element{} }()
	if np.Where != nil {
		if ok, err := x.test(np.Where, row); err != nil || !ok {
			return false, err
		}
	}
	for _, f := range filters {
		if ok, err := x.test(f, row); err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

// walkK is a resolved k as the walk takes it: the engine has filled the
// default, so k = 0 here is a value, the seeds alone (the walk reads 0 as
// its own default and a negative k as no hop).
func walkK(k int) int {
	if k == 0 {
		return -1
	}
	return k
}
