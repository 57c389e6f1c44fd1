package exec

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"time"

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
// them once per version.
func (c *PeakCache) get(snap *store.Snapshot, l int, h shapewalk.Hierarchy) []*store.Node {
	if c == nil || h != nil {
		return shapewalk.Peaks(snap, l, h)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.nodes == nil || c.version != snap.Version() || c.n < l {
		c.n = max(l, 32)
		c.nodes = shapewalk.Peaks(snap, c.n, nil)
		c.version = snap.Version()
	}
	return c.nodes[:min(l, len(c.nodes))]
}

// Shape is the result of a Recall: the emitted GQL text and what it holds.
type Shape struct {
	Text    string
	Cue     Cue
	Seeds   int
	Rows    int
	Tokens  int
	Version uint64
	// Truncated is set when M cut the walk short.
	Truncated bool
	Clamps    []string
	Notices   []gqlstatus.Notice
	// Status is 00000, 01000 (a clamp, a cut or a token alarm) or 02000 (skip).
	Status gqlstatus.Code
	// ExecTime (seed and walk) and EmitTime (text and tokens) are what
	// computing this Shape cost.
	ExecTime, EmitTime time.Duration
}

// Recall seeds, walks and emits over one snapshot.
func Recall(ctx context.Context, snap *store.Snapshot, plan *planner.Plan, params map[string]store.Value, opt RecallOptions) (*Shape, error) {
	if !plan.Read() {
		return nil, gqlstatus.Errorf(gqlstatus.Syntax, "a Recall is one MATCH of node patterns with optional WHERE and LIMIT").
			WithHint("send INSERT, SET, REMOVE and DELETE to Commit")
	}
	st := plan.Stmts[0]
	rp := st.Recall
	celParams, err := paramValues(plan, params)
	if err != nil {
		return nil, err
	}
	x := &executor{ctx: ctx, plan: plan, params: celParams}
	walk := shapewalk.Options{K: opt.K, M: opt.M, F: opt.F, Shell: opt.View == ViewShell,
		Pinned: opt.Pinned, Hierarchy: opt.Hierarchy}
	e := emitter{snap: snap, opt: opt, shape: &Shape{Version: snap.Version(), Status: gqlstatus.Success}, start: time.Now()}
	if rp.Empty {
		kinds, types := shapewalk.Outline(snap, opt.L)
		var exemplars []*store.Node
		for _, k := range kinds {
			exemplars = append(exemplars, k.Exemplars...)
		}
		e.shape.Cue = CueOutline
		e.opt.K = 0 // the outline does not walk
		e.outline(kinds, types)
		outline := walk
		outline.K = -1 // exemplars only: 0 would mean the default k
		outline.Pinned = nil
		e.emit(e.timed(e.walk(snap, exemplars, outline)), len(exemplars))
		return e.finish()
	}
	limit := opt.L
	if rp.Limit != nil {
		v, err := x.eval(*rp.Limit, &planner.Row{Params: celParams})
		if err != nil {
			return nil, err
		}
		if v.Kind() != store.KindInt {
			return nil, x.errAt(gqlstatus.InvalidValueType, rp.Limit.Pos, "LIMIT takes an integer, not %s", v.Kind())
		}
		switch n := v.AsInt(); {
		case n < 0:
			return nil, x.errAt(gqlstatus.NegativeLimit, rp.Limit.Pos, "LIMIT is negative (%d)", n).WithHint("write LIMIT 0 or more")
		case n > int64(max(opt.MaxL, opt.L)):
			return nil, x.errAt(gqlstatus.InvalidValueType, rp.Limit.Pos, "LIMIT %d is above the ceiling of the seed budget L (%d)", n, max(opt.MaxL, opt.L)).
				WithHint("narrow the token instead; the seed set is small by design")
		case opt.CapL && n > int64(opt.L):
			// the caller's L caps the token's LIMIT
		default:
			limit = int(n)
		}
	}
	seeds, err := x.seed(snap, st, rp, limit)
	if err != nil {
		return nil, err
	}
	e.shape.Cue = CueMatch
	if len(seeds) == 0 && limit > 0 && !opt.NoPeaks {
		seeds = opt.Peaks.get(snap, limit, opt.Hierarchy)
		e.shape.Cue = CuePeak
	}
	if len(seeds) == 0 {
		e.shape.Cue = CueSkip
		e.shape.Status = gqlstatus.NoData
		msg := "no seed: the token matched nothing and the session has no peaks"
		if opt.NoPeaks || limit == 0 {
			msg = "no seed: the token matched nothing"
		}
		e.shape.Notices = append(e.shape.Notices, gqlstatus.Notice{Code: gqlstatus.NoData, Msg: msg})
		e.notes = append(e.notes, "02000: "+msg)
		return e.finish()
	}
	e.emit(e.timed(e.walk(snap, seeds, walk)), len(seeds))
	return e.finish()
}

// seed finds the first limit live nodes, in canonical order, that match any
// of the plan's node patterns and their conditions. Each pattern's index
// scan stops once it has limit hits and has passed their tie group, so the
// cost follows the scan that finds the seeds, not the session's size.
func (x *executor) seed(snap *store.Snapshot, st *planner.Statement, rp *planner.RecallPlan, limit int) ([]*store.Node, error) {
	if limit == 0 {
		return nil, nil
	}
	row := &planner.Row{Vars: make([]planner.Element, len(st.Vars)), Params: x.params}
	for _, g := range rp.Global {
		ok, err := g.Test(row)
		if err != nil {
			return nil, x.located(err)
		}
		if !ok {
			return nil, nil
		}
	}
	var found []*store.Node
	b := &binder{x: x, snap: snap}
	for i, np := range rp.Seeds {
		var hits []*store.Node
		var lastKey []byte
		err := x.seedCandidates(b, row, np, rp.Filters[i], func(n *store.Node) error {
			if len(hits) >= limit {
				// Past L: keep only the nodes tied with the last hit on
				// observables, for the structural tie-break.
				if lastKey == nil {
					lastKey = snap.ObservableKey(hits[len(hits)-1])
				}
				if !bytes.Equal(snap.ObservableKey(n), lastKey) {
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
	shapewalk.Sort(snap, found)
	if len(found) > limit {
		found = found[:limit]
	}
	return found, nil
}

// seedCandidates enumerates a seed pattern's candidates in canonical
// order: a bare (n) whose condition is the keyword token goes through the
// store's text index (which lists a superset of the matches; each is
// tested), anything else through the binder's index choice.
func (x *executor) seedCandidates(b *binder, row *planner.Row, np *planner.NodePlan, filters []*planner.Program, fn func(*store.Node) error) error {
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
			for _, n := range nodes {
				if err := fn(n); err != nil {
					return err
				}
			}
			return nil
		}
	}
	return b.candidates(row, np, fn)
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
		if ok, err := np.Where.Test(row); err != nil || !ok {
			return false, err
		}
	}
	for _, f := range filters {
		if ok, err := f.Test(row); err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}
