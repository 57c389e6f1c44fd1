package engine

import (
	"context"
	"slices"
	"sync"

	"github.com/goldfish-gql/goldfish/exec"
	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/internal/catalog"
	"github.com/goldfish-gql/goldfish/internal/params"
	"github.com/goldfish-gql/goldfish/internal/shapecache"
	"github.com/goldfish-gql/goldfish/values"
	"github.com/goldfish-gql/goldfish/vocab"
)

// resolveRecall fills o's defaults and refuses budgets above their
// ceilings.
func resolveRecall(o values.RecallOptions, c values.Ceilings) (values.RecallOptions, error) {
	check := func(name string, v *int, def, ceiling int) error {
		switch {
		case *v == 0:
			*v = def
		case *v < 0:
			return gqlstatus.Errorf(gqlstatus.RecallBudget, "budget %s=%d is negative", name, *v).
				WithHint("budgets are positive; leave one at 0 for its default")
		case *v > ceiling:
			return gqlstatus.Errorf(gqlstatus.RecallBudget, "budget %s=%d is above its ceiling %d", name, *v, ceiling).
				WithHint("narrow the token, use view=shell, or split the session; ceilings are not raised per call")
		}
		return nil
	}
	d := values.DefaultRecall
	if err := check("M", &o.M, min(d.M, c.M), c.M); err != nil {
		return o, err
	}
	switch {
	case o.K == values.NoWalk:
		o.K = 0 // the seeds alone
	case o.K < 0:
		return o, gqlstatus.Errorf(gqlstatus.RecallBudget, "budget k=%d is negative", o.K).
			WithHint("k is a number of hops: NoWalk (-1) asks for none, the seeds alone; leave it at 0 for its default")
	default:
		if err := check("k", &o.K, min(d.K, c.K), c.K); err != nil {
			return o, err
		}
	}
	if err := check("L", &o.L, min(d.L, c.L), c.L); err != nil {
		return o, err
	}
	if err := check("F", &o.F, min(d.F, c.F), c.F); err != nil {
		return o, err
	}
	if o.After < 0 {
		return o, gqlstatus.Errorf(gqlstatus.RecallBudget, "after=%d is negative", o.After).
			WithHint("after is how many of a seed's neighbours an earlier page showed: 0 or more")
	}
	switch {
	case o.T == 0:
		o.T = d.T
	case o.T < 0:
		return o, gqlstatus.Errorf(gqlstatus.RecallBudget, "token target T=%d is negative", o.T).
			WithHint("T is a positive number of tokens; leave it at 0 for its default")
	}
	switch o.View {
	case "", values.ViewInterior:
		o.View = values.ViewInterior
	case values.ViewShell:
	default:
		return o, gqlstatus.Errorf(gqlstatus.InvalidOption, "view %q is not a view", o.View).
			WithHint("use interior or shell")
	}
	if _, err := vocab.ParseDepth(o.Depth); err != nil {
		return o, gqlstatus.Errorf(gqlstatus.InvalidOption, "%v", err)
	}
	if _, err := vocab.ParseSections(o.Only); err != nil {
		return o, gqlstatus.Errorf(gqlstatus.InvalidOption, "only: %v", err).
			WithHint("e.g. only shape,views; none keeps every section")
	}
	return o, nil
}

// Recall reads the session with the codebook token q (a MATCH of node
// patterns with optional WHERE and LIMIT; MATCH () for the outline) and
// returns the Shape: the same bytes for the same q on the same version.
// t, when not nil, receives where the time went. The Shape is the
// caller's, but for what it shares with the session (see Shape). Close
// stops a Recall in flight (closing.go).
func (s *Session) Recall(ctx context.Context, q string, opts values.RecallOptions, t *values.Timing) (*values.Shape, error) {
	rctx, release := s.db.reading(ctx)
	sh, err := s.recall(rctx, q, opts, t)
	release()
	return sh, s.db.closedUnder(ctx, err, "Recall")
}

func (s *Session) recall(ctx context.Context, q string, opts values.RecallOptions, t *values.Timing) (*values.Shape, error) {
	if err := s.begin(ctx); err != nil {
		return nil, err
	}
	defer s.end()
	if s.dropped.Load() {
		return nil, s.errDropped()
	}
	// The agent's record is found (or its name checked) before any work;
	// the Recall is counted once it has its Shape.
	var agent *agentRecord
	if opts.Agent != "" {
		a, err := s.agents.find(opts.Agent)
		if err != nil {
			return nil, err
		}
		agent = a
	}
	if err := exec.CheckRecallText(q, s.db.cfg.Budget); err != nil {
		return nil, err // before the parse: an oversized token costs nothing
	}
	plan, err := s.db.compile(q, planCached, t)
	if err != nil {
		return nil, err
	}
	if !plan.Read() {
		return nil, gqlstatus.Errorf(gqlstatus.WrongVerb, "a Recall is one MATCH of node patterns with optional WHERE and LIMIT").
			WithHint("send INSERT, SET, REMOVE and DELETE to Commit")
	}
	capL, kDefault := opts.L != 0, opts.K == 0
	o, err := resolveRecall(opts, s.db.cfg.Ceilings)
	if err != nil {
		return nil, err
	}
	if len(o.Pinned) == 0 {
		// The session's pinned kinds, unless the call names its own
		// (which replace them): before the cache key, which keys by
		// the kinds in effect.
		o.Pinned = s.pinnedKinds()
	} else if o.Pinned, err = NormalizePinned(o.Pinned); err != nil {
		// A call's own kinds keep the rules of the session's: a
		// bounded list of valid kinds, and one cache key however
		// they are ordered or repeated.
		return nil, err
	}
	if s.db.hosts != nil { // other hosts' Commits first (hosts.go)
		if err := s.fresh(ctx); err != nil {
			return nil, err
		}
	}
	snap := s.snapshot()
	peaks, cacheable := &s.peaks, true
	if s.catalog && o.Sessions != nil {
		// A catalogue of its own for this caller: neither cached nor
		// sharing the catalogue's peaks, which are of other nodes.
		snap, peaks, cacheable = catalog.Visible(snap, o.Sessions), &exec.PeakCache{}, false
	}
	// The envelope is today's, whatever version the Shape is of.
	voc, err := s.vocabularyAt(ctx, snap)
	if err != nil {
		return nil, err
	}
	if o.AtVersion != 0 {
		if snap, err = s.snapshotAt(ctx, o.AtVersion); err != nil {
			return nil, err
		}
		if snap.Version() != s.snapshot().Version() {
			peaks = nil // the session's peaks are of its newest version
		}
	}
	var key *[]byte
	if s.db.shapes != nil && cacheable {
		// The hit path builds the key straight from the caller's values,
		// with no conversion map and a pooled buffer: a hit costs a hash
		// of the text, a hash of the key and two cache probes.
		key = shapecache.KeyPool.Get().(*[]byte)
		defer shapecache.KeyPool.Put(key)
		*key, err = shapecache.AppendKey((*key)[:0], s.incarnation, snap.Version(), plan.Stmts[0].Recall.Key, plan.Params,
			o, shapecache.Flags{CapL: capL, KDefault: kDefault}, s.db.cfg.Budget.Bytes)
		if err != nil {
			return nil, err
		}
		if sh, ok := s.db.shapes.Get(*key); ok {
			if t != nil {
				t.Cached = true
			}
			if o.AtVersion != 0 {
				sh = sh.Past()
			}
			return s.withEnvelope(ctx, sh, voc, o, agent)
		}
	}
	// exec reads the parameters during the call and keeps none of them,
	// so their map is pooled.
	vals := paramMaps.Get().(map[string]values.Value)
	defer func() { clear(vals); paramMaps.Put(vals) }()
	if err := params.Recall(vals, o.Params, s.db.cfg.Budget.Bytes); err != nil {
		return nil, err
	}
	sh, err := exec.Recall(ctx, snap, plan, vals, exec.RecallOptions{RecallOptions: o, MaxL: s.db.cfg.Ceilings.L, CapL: capL, KDefault: kDefault,
		Session: s.name, Peaks: peaks})
	if t != nil && sh != nil {
		t.Execute, t.Emit = sh.ExecTime, sh.EmitTime
	}
	if err != nil {
		return nil, err
	}
	if key != nil {
		s.db.shapes.Set(s.incarnation, snap.Version(), *key, sh, int64(sh.Size()))
	}
	if o.AtVersion != 0 {
		sh = sh.Past()
	}
	return s.withEnvelope(ctx, sh, voc, o, agent)
}

// withEnvelope gives the caller its Shape with the session's vocabulary
// and the attention envelope composed in (per call: they depend on the
// agent and its history, the Shape cache holds the graph part), and
// counts the Recall: the session's Recall count, the agent's record, the
// views a read of views alone raises.
func (s *Session) withEnvelope(ctx context.Context, sh *exec.Shape, voc *vocabRead, o values.RecallOptions, agent *agentRecord) (*values.Shape, error) {
	tick := s.attn.tick.Add(1)
	depth, _ := vocab.ParseDepth(o.Depth)
	only, _ := vocab.ParseSections(o.Only)
	quiet := voc == nil || voc.prepared.Quiet(s.attn.currentSettings())
	if o.Agent == "" && quiet && only == vocab.AllSections {
		out := shapeOf(sh)
		out.Text, _, _, _ = sh.Compose(nil, 0, true) // the plain text cannot fail: finish counted it
		return out, nil
	}
	if o.Agent != "" {
		agent = s.agents.record(o.Agent, agent)
	}
	if only == vocab.SectionViews && voc != nil {
		// Asking for the views alone is a use of them: raised first, the
		// read shows what it asked for.
		s.raiseViews(voc.prepared.ViewNames(), tick)
	}
	env := s.envelope(ctx, voc, tick, o.Agent, agent, depth, only, targetFor(o, sh.Tokens, only))
	out := shapeOf(sh)
	text, tok, alarm, err := sh.Compose(env.Text, env.Milli, only&vocab.SectionShape != 0)
	if err != nil {
		return nil, err
	}
	out.Text, out.Tokens, out.Attention = text, tok, env.Attention
	if alarm != nil {
		out.Notices = append(out.Notices, *alarm)
		if out.Status == gqlstatus.Success {
			out.Status = gqlstatus.Warning
		}
	}
	if o.Agent != "" {
		s.agents.note(o.Agent, agent, sh.Version, tick, &env.Seen)
	}
	if !quiet && !s.agents.dirty.Load() {
		s.agents.dirty.Store(true) // the Recall count moved
	}
	return out, nil
}

var paramMaps = sync.Pool{New: func() any { return map[string]values.Value{} }}

// shapeOf gives one caller its own copy of a computed or cached Shape:
// the value, with the lists a caller may change its own (the rows are
// shared, and read-only).
func shapeOf(sh *exec.Shape) *values.Shape {
	out := sh.Shape
	out.Clamps, out.Notices = slices.Clone(sh.Clamps), slices.Clone(sh.Notices)
	return &out
}
