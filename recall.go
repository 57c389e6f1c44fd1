package goldfish

import (
	"context"
	"encoding/binary"
	"slices"
	"sync"
	"time"

	"github.com/goldfish-gql/goldfish/exec"
	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/parser"
	"github.com/goldfish-gql/goldfish/planner"
	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/vocab"
)

// Shape is what a Recall returns: the emitted GQL text (a comment header
// and one INSERT statement), the cue, and the counts. Each call returns a
// Shape of its own: the caller may change it freely, and the next caller
// of the same Recall receives the same bytes whatever this one did.
type Shape struct {
	// Text is the emit: the header and notes as comments, then one
	// INSERT statement, so the whole text parses.
	Text string
	Cue  Cue
	// Seeds is the number of seeds, Rows the elements emitted (at most
	// M), Tokens the text's token count.
	Seeds, Rows, Tokens int
	// Version is the session version the Shape was read at.
	Version uint64
	// Truncated is set when M cut the walk short.
	Truncated bool
	// Trimmed is the number of nodes beyond the seeds the token target T
	// showed with their identity properties only (nick, loc, name,
	// title): Recall one by its nick for the rest.
	Trimmed int
	// Clamps are the fan-out clamp notes.
	Clamps  []string
	Notices []Notice
	// Status is 00000, 01000 (a clamp, a cut, a token alarm, a LIMIT
	// clamped to the seed budget) or 02000 (cue skip).
	Status Code
	// Attention is the envelope of what the reader should notice (nil
	// when it has nothing to say); Text holds it as comment lines.
	Attention *Attention
}

// shapeOf gives one caller its own copy of a computed or cached Shape.
func shapeOf(sh *exec.Shape) *Shape {
	return &Shape{Text: sh.Text, Cue: Cue(sh.Cue), Seeds: sh.Seeds, Rows: sh.Rows, Tokens: sh.Tokens,
		Version: sh.Version, Truncated: sh.Truncated, Trimmed: sh.Trimmed, Clamps: slices.Clone(sh.Clamps),
		Notices: slices.Clone(sh.Notices), Status: sh.Status}
}

// Cue says how a Recall found its seeds (SPEC §5).
type Cue string

// The cues.
const (
	CueMatch   Cue = "match"   // the token matched live nodes
	CuePeak    Cue = "peak"    // the token matched nothing; Peak_L seeded the walk
	CueOutline Cue = "outline" // the empty token: counts and exemplars
	CueSkip    Cue = "skip"    // no seed at all: an empty Shape
)

// RecallOptions are the budgets of one Recall. Zero values take the
// defaults (M=50, k=2, L=4, F=8, T=4000, view interior, peaks on); values above the
// database's ceilings are refused (22Q01).
//
// A LIMIT in the token is that Recall's L: LIMIT n seeds at most n nodes,
// and on the outline (MATCH ()) shows at most n exemplars per kind. It may
// lower L freely and raise it up to the L ceiling; when L is set here, it
// bounds the LIMIT too. A LIMIT above its bound is clamped to it, with a
// 01000 notice in the Shape (and a comment in its text) naming both: a
// LIMIT says "at most n", which the clamped seed set still meets.
type RecallOptions struct {
	M, K, L, F int
	// T is the token target: when a Shape's body would be over T tokens
	// (by the estimate), the nodes beyond the seeds are shown with their
	// identity properties only (nick, loc, name, title), those farthest
	// from the seeds first, ring by ring, until the body fits or every
	// node past the seeds is trimmed. Seeds and pinned nodes are always
	// shown whole and no node is dropped for T (M bounds the rows); an
	// edge between two trimmed nodes at the same hop is left out (the
	// walk reached neither through it). The header's trimmed=N and a
	// 01000 notice say what was trimmed.
	// 0 takes the default, 4,000 (SPEC §3); there is no ceiling: a
	// large T only keeps more text, and the 8,000-token alarm still
	// speaks.
	T int
	// View is "interior" (default) or "shell": hierarchical edges and
	// identity properties only.
	View string
	// Pinned kinds are added to the Shape first, within M.
	Pinned []string
	// NoPeaks switches the Peak_L fallback off: a token that matches
	// nothing then gives cue skip.
	NoPeaks bool
	// ExactTokens counts the Shape's tokens with the o200k tokenizer
	// rather than the fast estimate.
	ExactTokens bool
	// Params are the values of the token's $parameters.
	Params map[string]any
	// Agent names who reads ("" for nobody): the session then counts the
	// Recall as that agent's and keeps what it read (Agents), and the
	// envelope says what changed since its previous Recall. The rules
	// are ValidAgentName's.
	Agent string
	// Depth is how much the envelope shows of the vocabulary: "lean"
	// (the default: names, values and signatures, at most 300 tokens in
	// all) or "full" (with intents, counters and salience). An agent's
	// first Recall of a session is shown at full once.
	Depth string
	// Only keeps just the sections it names, any of "shape", "views",
	// "actions" and "attention" (none: all). Broken views show whatever
	// it says, and the envelope's you_elided names the sections left out
	// that changed since the agent last saw them.
	Only []string
	// Sessions, on the catalogue only, says which sessions' nodes the
	// Recall may see (nil: all): a server sets it to what a caller may
	// read. The Recall then reads a catalogue of those nodes alone, at
	// version 1, so neither its rows nor its version tell of the others.
	Sessions func(name string) bool
}

// Ceilings bound what a Recall may ask for.
type Ceilings struct{ M, K, L, F int }

// DefaultRecall are the default budgets of SPEC §3.
var DefaultRecall = RecallOptions{M: 50, K: 2, L: 4, F: 8, T: 4000}

// DefaultCeilings are the highest budgets a Recall may ask for unless the
// database is opened WithCeilings.
var DefaultCeilings = Ceilings{M: 200, K: 4, L: 32, F: 64}

// WithCeilings sets the highest M, k, L and F a Recall may ask for.
func WithCeilings(c Ceilings) Option { return func(cfg *config) { cfg.ceilings = c } }

// resolve fills defaults and refuses budgets above their ceilings.
func (o RecallOptions) resolve(c Ceilings) (RecallOptions, error) {
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
	d := DefaultRecall
	if err := check("M", &o.M, min(d.M, c.M), c.M); err != nil {
		return o, err
	}
	if err := check("k", &o.K, min(d.K, c.K), c.K); err != nil {
		return o, err
	}
	if err := check("L", &o.L, min(d.L, c.L), c.L); err != nil {
		return o, err
	}
	if err := check("F", &o.F, min(d.F, c.F), c.F); err != nil {
		return o, err
	}
	switch {
	case o.T == 0:
		o.T = d.T
	case o.T < 0:
		return o, gqlstatus.Errorf(gqlstatus.RecallBudget, "token target T=%d is negative", o.T).
			WithHint("T is a positive number of tokens; leave it at 0 for its default")
	}
	switch o.View {
	case "", string(exec.ViewInterior):
		o.View = string(exec.ViewInterior)
	case string(exec.ViewShell):
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
func (s *Session) Recall(ctx context.Context, q string, opts RecallOptions) (*Shape, error) {
	return s.recall(ctx, q, opts, nil)
}

// RecallTimed is Recall that also reports where the time went.
func (s *Session) RecallTimed(ctx context.Context, q string, opts RecallOptions) (*Shape, Timing, error) {
	var t Timing
	sh, err := s.recall(ctx, q, opts, &t)
	return sh, t, err
}

func (s *Session) recall(ctx context.Context, q string, opts RecallOptions, t *Timing) (*Shape, error) {
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
	plan, err := s.db.planTimed(q, t)
	if err != nil {
		return nil, err
	}
	if !plan.Read() {
		return nil, gqlstatus.Errorf(gqlstatus.WrongVerb, "a Recall is one MATCH of node patterns with optional WHERE and LIMIT").
			WithHint("send INSERT, SET, REMOVE and DELETE to Commit")
	}
	capL := opts.L != 0
	o, err := opts.resolve(s.db.cfg.ceilings)
	if err != nil {
		return nil, err
	}
	if s.db.hosts != nil { // other hosts' Commits first (postgres.go)
		if err := s.fresh(ctx); err != nil {
			return nil, err
		}
	}
	snap := s.snapshot()
	peaks := &s.peaks
	if s.catalog && o.Sessions != nil {
		// A catalogue of its own for this caller: neither cached nor
		// sharing the catalogue's peaks, which are of other nodes.
		snap, peaks = visibleCatalog(snap, o.Sessions), &exec.PeakCache{}
	}
	voc, err := s.vocabularyAt(ctx, snap)
	if err != nil {
		return nil, err
	}
	var key *[]byte
	if s.db.shapes != nil && peaks == &s.peaks {
		// The hit path builds the key straight from the caller's values,
		// with no conversion map and a pooled buffer: a hit costs a hash
		// of the text, a hash of the key and two cache probes.
		key = keyPool.Get().(*[]byte)
		defer keyPool.Put(key)
		*key, err = appendShapeKey((*key)[:0], s.incarnation, snap.Version(), plan.Stmts[0].Recall.Key, plan.Params, o, capL, s.db.cfg.budget.Bytes)
		if err != nil {
			return nil, err
		}
		if sh, ok := s.db.shapes.get(*key); ok {
			if t != nil {
				t.Cached = true
			}
			return s.withEnvelope(sh, voc, o, agent)
		}
	}
	// exec reads the parameters during the call and keeps none of them,
	// so their map is pooled.
	params := paramMaps.Get().(map[string]store.Value)
	defer func() { clear(params); paramMaps.Put(params) }()
	if err := recallParams(params, o.Params, s.db.cfg.budget.Bytes); err != nil {
		return nil, err
	}
	sh, err := exec.Recall(ctx, snap, plan, params, exec.RecallOptions{
		M: o.M, K: o.K, L: o.L, F: o.F, T: o.T, MaxL: s.db.cfg.ceilings.L, CapL: capL, View: exec.View(o.View), Pinned: o.Pinned,
		NoPeaks: o.NoPeaks, ExactTokens: o.ExactTokens, Session: s.name, Peaks: peaks,
	})
	if t != nil && sh != nil {
		t.Execute, t.Emit = sh.ExecTime, sh.EmitTime
	}
	if err != nil {
		return nil, err
	}
	if key != nil {
		s.db.shapes.set(*key, sh, int64(len(sh.Text))+64)
	}
	return s.withEnvelope(sh, voc, o, agent)
}

// withEnvelope gives the caller its Shape with the session's vocabulary
// and the attention envelope composed in (per call: they depend on the
// agent and its history, the Shape cache holds the graph part), and
// counts the Recall: the session's Recall count, the agent's record, the
// views a read of views alone raises.
func (s *Session) withEnvelope(sh *exec.Shape, voc *vocabRead, o RecallOptions, agent *agentRecord) (*Shape, error) {
	tick := s.attn.tick.Add(1)
	depth, _ := vocab.ParseDepth(o.Depth)
	only, _ := vocab.ParseSections(o.Only)
	quiet := voc == nil || voc.prepared.Quiet(s.attn.currentSettings())
	if o.Agent == "" && quiet && only == vocab.AllSections {
		return shapeOf(sh), nil
	}
	var seen vocab.Seen
	if o.Agent != "" {
		agent = s.agents.record(o.Agent, agent)
		seen = agent.load()
	}
	if only == vocab.SectionViews && voc != nil {
		// Asking for the views alone is a use of them: raised first, the
		// read shows what it asked for.
		s.raiseViews(voc.prepared.ViewNames(), tick)
	}
	env := s.envelope(voc, tick, o.Agent, seen, depth, only)
	out := shapeOf(sh)
	text, tok, alarm, err := sh.Compose(env.Text, env.Milli, only&vocab.SectionShape != 0)
	if err != nil {
		return nil, err
	}
	out.Text, out.Tokens, out.Attention = text, tok, attentionOf(env.Attention)
	if alarm != nil {
		out.Notices = append(out.Notices, *alarm)
		if out.Status == gqlstatus.Success {
			out.Status = gqlstatus.Warning
		}
	}
	if o.Agent != "" {
		s.agents.note(o.Agent, agent, sh.Version, &env.Seen)
	}
	if !quiet && !s.agents.dirty.Load() {
		s.agents.dirty.Store(true) // the Recall count moved
	}
	return out, nil
}

var keyPool = sync.Pool{New: func() any { b := make([]byte, 0, 256); return &b }}

var paramMaps = sync.Pool{New: func() any { return map[string]store.Value{} }}

// Prepare parses and plans text (always, bypassing the plan cache, so the
// times are real; the plan is cached for the call that follows) and says
// whether it is a Recall. The shell's :timing uses it.
func (s *Session) Prepare(text string) (isRecall bool, t Timing, err error) {
	if err := s.db.enter(); err != nil {
		return false, t, err
	}
	defer s.db.exit()
	t0 := time.Now()
	script, err := parser.Parse(text)
	t.Parse = time.Since(t0)
	if err != nil {
		return false, t, err
	}
	t0 = time.Now()
	plan, err := planner.Build(script)
	t.Plan = time.Since(t0)
	if err != nil {
		return false, t, err
	}
	s.db.cachePlan(text, plan)
	s.db.plans.Wait()
	return plan.Read(), t, nil
}

// IsRecall reports whether text is a Recall (one MATCH of node patterns
// with optional WHERE and LIMIT) rather than a Δ. Text that does not parse
// is not a Recall; Commit reports its error.
func (s *Session) IsRecall(text string) bool {
	if s.db.enter() != nil {
		return false
	}
	defer s.db.exit()
	plan, err := s.db.plan(text)
	return err == nil && plan.Read()
}

// appendShapeKey appends the Shape cache key: the session's incarnation,
// its version, the normalised token, the parameter values and every
// option. Each variable-length part is written with its length first and
// every option has a fixed place, so two different requests never share
// a key (a pinned kind "K,J" is not the kinds "K" and "J", a pinned kind
// "nopeaks" is not NoPeaks). A Commit bumps the version and a dropped
// session's successor has another incarnation, so older entries become
// unreachable, never stale.
func appendShapeKey(b []byte, incarnation, version uint64, token string, names []string, o RecallOptions, capL bool, paramBytes int) ([]byte, error) {
	b = binary.AppendUvarint(b, incarnation)
	b = binary.AppendUvarint(b, version)
	b = appendField(b, token)
	var lit [64]byte
	pc := newParamConverter(paramBytes)
	for _, n := range names {
		raw, ok := o.Params[n]
		if !ok {
			b = append(b, 0) // missing: exec reports it
			continue
		}
		v, err := pc.recall(n, raw)
		if err != nil {
			return b, err
		}
		b = append(b, 1)
		b = appendField(b, v.AppendLiteral(lit[:0]))
	}
	for _, v := range [...]int{o.M, o.K, o.L, o.F, o.T} {
		b = binary.AppendUvarint(b, uint64(v))
	}
	b = appendField(b, o.View)
	b = binary.AppendUvarint(b, uint64(len(o.Pinned)))
	for _, p := range o.Pinned {
		b = appendField(b, p)
	}
	var flags byte
	if capL {
		flags |= 1
	}
	if o.NoPeaks {
		flags |= 2
	}
	if o.ExactTokens {
		flags |= 4
	}
	return append(b, flags), nil
}

// appendField appends s with its length first.
func appendField[T string | []byte](b []byte, s T) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}
