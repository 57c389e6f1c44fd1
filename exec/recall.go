package exec

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/cel-go/common/types/ref"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/planner"
	"github.com/goldfish-gql/goldfish/shapewalk"
	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/values"
)

// RecallOptions are the options of one Recall, already resolved (defaults
// filled, checked against their ceilings), and what exec needs besides.
type RecallOptions struct {
	values.RecallOptions
	// MaxL is the L ceiling: a LIMIT in the token may raise the seed count
	// up to it, unless the caller set L itself (CapL), which then caps it.
	MaxL int
	CapL bool
	// KDefault says K is the default, not the caller's: a point token
	// then walks one hop (values.RecallOptions.Whole).
	KDefault  bool
	Hierarchy shapewalk.Hierarchy
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

// Shape is the result of a Recall: the Shape value (values.Shape: its
// rows and header facts; Text empty, since the text a caller is given
// is written by Compose, with that call's envelope) and what Compose
// needs to write the text.
type Shape struct {
	values.Shape
	// ExecTime (seed and walk) and EmitTime (text and tokens) are what
	// computing this Shape cost.
	ExecTime, EmitTime time.Duration

	src        rowSource // what the rows are built from (rows.go)
	exact      bool
	after      int    // the header's after=N (RecallOptions.After)
	rest       string // the notes and the body
	restMilli  int64
	notesLen   int // the notes' bytes at the start of rest
	notesMilli int64
	plain      *plainText // the text with no preamble, once written
}

// Past returns the Shape as a Recall at its version writes it: the same
// body, the header saying at=Version (AsOf). The Shape itself, which a
// cache may share, is left as it is.
func (s *Shape) Past() *Shape {
	c := *s
	c.AsOf, c.plain, c.Text = true, nil, ""
	return &c
}

// Recall seeds, walks and emits over one snapshot.
func Recall(ctx context.Context, snap *store.Snapshot, plan *planner.Plan, params map[string]values.Value, opt RecallOptions) (*Shape, error) {
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
	walk := shapewalk.Options{K: walkK(opt.K), M: opt.M, F: opt.F, Shell: opt.View == values.ViewShell, After: opt.After,
		Pinned: opt.Pinned, Hierarchy: opt.Hierarchy}
	e := emitter{snap: snap, opt: opt, shape: &Shape{Shape: values.Shape{Version: snap.Version(), Status: gqlstatus.Success}}, start: time.Now()}
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
		e.shape.Cue = values.CueOutline
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
	found, err := x.seed(snap, st, rp, limit, true)
	if err != nil {
		return nil, err
	}
	if opt.KDefault && !opt.Whole && walk.K > 1 && pointToken(rp) {
		// A point question: the node and what it touches.
		walk.K, e.opt.K = 1, 1
	}
	seeds := found.nodes
	e.shape.Cue = values.CueMatch
	if found.matched > len(seeds) {
		e.matched(found, limit, opt)
	}
	var miss *values.Miss
	if len(seeds) == 0 && limit > 0 {
		miss = x.explainMiss(snap, rp, &planner.Row{Vars: make([]planner.Element, len(st.Vars)), Params: celParams})
	}
	if len(seeds) == 0 && limit > 0 && !opt.NoPeaks {
		// A codebook miss: the live tasks before topology (docs/design.md#seeds).
		tasks, err := x.liveTasks(snap, limit)
		if err != nil {
			return nil, err
		}
		seeds = tasks.nodes
		e.shape.Cue = values.CueTask
		if tasks.matched > len(seeds) {
			e.tasksLeftOut(tasks)
		}
	}
	if len(seeds) == 0 && limit > 0 && !opt.NoPeaks {
		if seeds, err = opt.Peaks.get(ctx, snap, limit, opt.Hierarchy); err != nil {
			return nil, x.interruptedBy(err)
		}
		e.shape.Cue = values.CuePeak
	}
	seeds, walk.Lead = tasksFirst(seeds)
	if len(seeds) == 0 {
		e.shape.Cue = values.CueSkip
		e.shape.Status = gqlstatus.NoData
		if miss != nil {
			miss.Instead = values.CueSkip
			e.missed(miss, 0)
			return e.finish()
		}
		msg := "no seed: LIMIT 0"
		e.shape.Notices = append(e.shape.Notices, gqlstatus.Notice{Code: gqlstatus.NoData, Msg: msg})
		e.notes = append(e.notes, string(gqlstatus.NoData)+": "+msg)
		return e.finish()
	}
	if miss != nil {
		// What is shown instead of a match is a reminder of where the
		// work stands, not an answer: the nodes alone, in brief when the
		// Shape is economical (a Recall of one by its nick shows it).
		miss.Instead = e.shape.Cue
		e.shape.Status = gqlstatus.NoMatch
		walk.K, e.opt.K = walkK(0), 0
		e.missed(miss, len(seeds))
	}
	w, err := e.walk(ctx, snap, seeds, walk)
	if err != nil {
		return nil, x.interruptedBy(err)
	}
	e.emit(e.timed(w), len(seeds))
	return e.finish()
}

// missed records a miss on the Shape: its Miss, and its notice and note
// first, before any other.
func (e *emitter) missed(m *values.Miss, shown int) {
	n := missNote(m, shown)
	e.shape.Miss = m
	e.shape.Notices = slices.Insert(e.shape.Notices, 0, n)
	e.notes = slices.Insert(e.notes, 0, string(n.Code)+": "+n.Msg)
}

// pointToken reports whether every node pattern of the token names its
// node by an identity property (nick, loc, name, title) equal to a value:
// a question about those nodes, not about a neighbourhood.
func pointToken(rp *planner.RecallPlan) bool {
	if len(rp.Seeds) == 0 {
		return false
	}
	for _, np := range rp.Seeds {
		if !slices.ContainsFunc(np.Props, func(pp planner.PropPlan) bool { return values.IdentityKey(pp.Key) }) {
			return false
		}
	}
	return true
}

// matched records that the token matched more nodes than the seeds it
// took: the header's matched=N, and a 01000 notice and note that say how
// to see the rest, so an agent never takes the seeds for all there is.
func (e *emitter) matched(found seeds, limit int, opt RecallOptions) {
	s := e.shape
	s.Matched, s.MatchedAtLeast = found.matched, found.more
	count := strconv.Itoa(found.matched)
	if found.more {
		count = "at least " + count
	}
	var b strings.Builder
	fmt.Fprintf(&b, "matched: %s nodes, %d seeded; for the rest narrow the token", count, len(found.nodes))
	if ceiling := max(opt.MaxL, opt.L); !opt.CapL && limit < ceiling {
		fmt.Fprintf(&b, ", LIMIT up to %d", ceiling)
	}
	b.WriteString(" or count them with a view")
	msg := b.String()
	s.Notices = append(s.Notices, gqlstatus.Notice{Code: gqlstatus.Warning, Msg: msg})
	e.notes = append(e.notes, msg)
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
	if v.Kind() != values.KindInt {
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

// values.MatchCountWork bounds the count of how many nodes a Recall's
// token matched, made when the seeds did not hold them all: it is exact up to
// MatchCountWork matches, and past them says "at least MatchCountWork".
// Enough to tell an agent "ten open tasks, four shown" exactly, and a
// token matching half a large session stops after a fixed amount of
// work. The bound is on matches, not on candidates examined: which index
// lists the candidates (the text index is built in the background; a
// property or a WHERE may serve the same condition) must not change a
// byte of the Shape, and a count by candidates would. A token whose
// matches are sparse among its candidates costs what a token matching
// fewer than L costs already: its scan to the end.

// seeds is a seed set and what the token matched: matched counts every
// live node the token matched, up to MatchCountWork (more: there were
// more, so it is a lower bound).
type seeds struct {
	nodes   []*store.Node
	matched int
	more    bool
}

// seed finds the first limit live nodes, in canonical order, that match any
// of the plan's node patterns and their conditions. Each index scan of a
// pattern (see candidateScans) stops once it has limit hits and has passed
// their tie group; the hits of all scans are then sorted and cut to limit.
// A scan lists its nodes in observable order, so its first limit hits,
// ties included, hold every hit of its that can be among the first limit
// of all; the cost follows the scans that find the seeds, not the
// session's size. With count, a scan that stopped early is counted to its
// end afterwards (see count), so the caller can say what was left out.
func (x *executor) seed(snap *store.Snapshot, st *planner.Statement, rp *planner.RecallPlan, limit int, count bool) (seeds, error) {
	if limit == 0 {
		return seeds{}, nil
	}
	row := &planner.Row{Vars: make([]planner.Element, len(st.Vars)), Params: x.params}
	for _, g := range rp.Global {
		ok, err := x.test(g, row)
		if err != nil || !ok {
			return seeds{}, err
		}
	}
	var found []*store.Node
	stopped := false // a scan stopped before its end
	b := &binder{x: x, snap: snap}
	for i, np := range rp.Seeds {
		scans, n, err := x.seedScans(b, row, np, rp.Filters[i])
		if err != nil {
			return seeds{}, x.located(err)
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
			if err == errStop {
				stopped = true
			} else if err != nil {
				return seeds{}, x.located(err)
			}
			for _, n := range hits {
				if !containsNode(found, n) {
					found = append(found, n)
				}
			}
		}
	}
	shapewalk.Sort(snap, found)
	out := seeds{nodes: found, matched: len(found)}
	if len(found) > limit {
		out.nodes = found[:limit]
	}
	if stopped && count {
		var err error
		if out.matched, out.more, err = x.count(b, row, rp); err != nil {
			return seeds{}, err
		}
	}
	return out, nil
}

// count counts the live nodes that match any of the plan's seed patterns,
// up to MatchCountWork; more says there were more.
// A condition that fails on some candidate (a type error the seeds never
// met) ends the count as a lower bound rather than failing the Recall:
// the seeds are what was asked for, the count only describes them.
func (x *executor) count(b *binder, row *planner.Row, rp *planner.RecallPlan) (n int, more bool, err error) {
	var seen map[store.ID]struct{} // several scans may list one node
	for i, np := range rp.Seeds {
		scans, ns, err := x.seedScans(b, row, np, rp.Filters[i])
		if err != nil {
			return n, true, nil
		}
		if seen == nil && (ns > 1 || len(rp.Seeds) > 1) {
			seen = make(map[store.ID]struct{})
		}
		for j := range ns {
			err := b.scan(&scans[j], func(c *store.Node) error {
				ok, err := x.seedMatches(b, row, np, rp.Filters[i], c)
				if err != nil || !ok {
					return err
				}
				if seen != nil {
					if _, dup := seen[c.ID]; dup {
						return nil
					}
					seen[c.ID] = struct{}{}
				}
				if n == values.MatchCountWork {
					more = true
					return errStop
				}
				n++
				return nil
			})
			switch {
			case err == errStop:
				return n, true, nil
			case err != nil && x.ctx.Err() != nil:
				return 0, false, x.interrupted()
			case err != nil:
				return n, true, nil
			}
		}
	}
	return n, more, nil
}

// seedScans returns a seed pattern's index scans: a bare (n) whose
// condition is the keyword token goes through the store's text index
// (which lists a superset of the matches in observable order; each is
// tested), anything else through the binder's index choice.
func (x *executor) seedScans(b *binder, row *planner.Row, np *planner.NodePlan, filters []*planner.Program) ([maxScans]candidateScan, int, error) {
	if w, ok := keywordOf(np, filters, row); ok {
		if nodes, ok := b.snap.TextCandidates(w); ok {
			return [maxScans]candidateScan{{kind: scanList, nodes: nodes}}, 1, nil
		}
	}
	return b.candidateScans(row, np)
}

// keywordOf returns the word of a bare (n) whose condition is the keyword
// token: the text index may serve it.
func keywordOf(np *planner.NodePlan, filters []*planner.Program, row *planner.Row) (string, bool) {
	if len(np.Labels) == 0 && len(np.Props) == 0 && np.Slot >= 0 {
		for _, f := range filters {
			if w, ok := f.KeywordOf(np.Slot, row); ok {
				return w, true
			}
		}
	}
	return "", false
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

// liveTasks returns the first limit live tasks (TSK nodes without the
// Settled label) in canonical order: the seeds of a codebook miss in a
// session with work in hand. The label scan lists them in observable
// order, so the seeds are known past the first limit and their tie
// group; the scan goes on to count the live tasks up to MatchCountWork.
func (x *executor) liveTasks(snap *store.Snapshot, limit int) (seeds, error) {
	var hits []*store.Node
	var lastKey string
	var err error
	count, full, more := 0, false, false // full: the seeds are known
	snap.ScanLabel(TaskKind, func(n *store.Node) bool {
		if err = x.spend(1); err != nil {
			return false
		}
		if n.Kind() != TaskKind || n.HasLabel(SettledLabel) {
			return true
		}
		if count == values.MatchCountWork {
			more = true // past the count's bound
			return false
		}
		count++
		if !full && len(hits) >= limit {
			if lastKey == "" {
				lastKey = hits[len(hits)-1].ObservableKey()
			}
			full = n.ObservableKey() != lastKey
		}
		if !full {
			hits = append(hits, n)
		}
		return true
	})
	if err != nil {
		return seeds{}, err
	}
	shapewalk.Sort(snap, hits)
	return seeds{nodes: hits[:min(limit, len(hits))], matched: count, more: more}, nil
}

// tasksLeftOut says, for the task cue, how many live tasks L left out,
// and what to do about it: name one, or settle those that are done.
func (e *emitter) tasksLeftOut(tasks seeds) {
	s := e.shape
	s.Matched, s.MatchedAtLeast = tasks.matched, tasks.more
	count := strconv.Itoa(tasks.matched)
	if tasks.more {
		count = "at least " + count
	}
	msg := fmt.Sprintf("task: %s live tasks, %d seeded; recall one by nick, or settle those that are done (SET t:Settled)", count, len(tasks.nodes))
	s.Notices = append(s.Notices, gqlstatus.Notice{Code: gqlstatus.Warning, Msg: msg})
	e.notes = append(e.notes, msg)
}

// tasksFirst returns seeds with the live tasks first, keeping the
// canonical order within each part, and how many tasks lead when other
// seeds follow them (0 otherwise): their neighbourhoods are walked first,
// so a topic seeded beside a task never takes M from it. seeds is not
// changed (the peaks are shared); a reordered set is a copy.
func tasksFirst(seeds []*store.Node) ([]*store.Node, int) {
	live := func(n *store.Node) bool { return n.Kind() == TaskKind && !n.HasLabel(SettledLabel) }
	lead := 0
	for _, n := range seeds {
		if live(n) {
			lead++
		}
	}
	if lead == 0 || lead == len(seeds) {
		return seeds, 0
	}
	seeds = slices.Clone(seeds)
	slices.SortStableFunc(seeds, func(a, b *store.Node) int {
		switch la, lb := live(a), live(b); {
		case la && !lb:
			return -1
		case lb && !la:
			return 1
		}
		return 0
	})
	return seeds, lead
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
