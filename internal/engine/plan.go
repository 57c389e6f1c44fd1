package engine

import (
	"math"
	"time"

	"github.com/dgraph-io/ristretto/v2"

	"github.com/goldfish-gql/goldfish/exec"
	"github.com/goldfish-gql/goldfish/parser"
	"github.com/goldfish-gql/goldfish/planner"
	"github.com/goldfish-gql/goldfish/values"
)

// Every text the engine runs, a Commit's, a Recall's token, a logged Δ
// replayed, a slice, a registered action read back from a snapshot,
// becomes a plan here: one entry from text to plan, so a rule of the
// parser or the planner holds for all of them alike.

// cacheGetBuffer is the number of Gets a ristretto cache records before
// handing them to its admission policy. Each handover wakes the policy's
// goroutine; the policy only counts how often keys are read, so larger
// batches lose nothing.
const cacheGetBuffer = 1024

func newPlanCache(bytes int64) (*ristretto.Cache[string, *planner.Plan], error) {
	// ristretto wants about ten counters per entry it can hold; even the
	// shortest text's plan (one node pattern) takes hundreds of bytes.
	return ristretto.NewCache(&ristretto.Config[string, *planner.Plan]{
		NumCounters: max(bytes/50, 1024), MaxCost: bytes, BufferItems: cacheGetBuffer})
}

// planUse says how a text's plan is found and kept.
type planUse uint8

const (
	// planCached reads and fills the plan cache.
	planCached planUse = iota
	// planFresh always parses and plans (real times for Prepare), then
	// caches the plan for the call that follows.
	planFresh
	// planOnce parses and plans without the cache: a text read once (a
	// slice), which would only push plans that are used again out.
	planOnce
)

// compile turns text into its plan: the one entry from text to plan.
// When t is not nil it records the parse and plan times (both zero on a
// plan-cache hit).
func (db *DB) compile(text string, use planUse, t *values.Timing) (*planner.Plan, error) {
	if use == planCached {
		if p, ok := db.plans.Get(text); ok {
			return p, nil
		}
	}
	p, err := compileText(text, t)
	if err != nil {
		return nil, err
	}
	if use != planOnce {
		db.plans.Set(text, p, int64(len(text))+int64(p.Size()))
	}
	if use == planFresh {
		db.plans.Wait()
	}
	return p, nil
}

// compileText parses and plans text, recording the times in t when t is
// not nil: the one place text meets the parser.
func compileText(text string, t *values.Timing) (*planner.Plan, error) {
	t0 := time.Now()
	script, err := parser.Parse(text)
	if err != nil {
		return nil, err
	}
	t1 := time.Now()
	p, err := planner.Build(script)
	if err != nil {
		return nil, err
	}
	if t != nil {
		t.Parse, t.Plan = t1.Sub(t0), time.Since(t1)
	}
	return p, nil
}

// compileLogged plans a logged Δ the parser's pre-scan now refuses: the
// bounds on a list's items and an expression's size came after some
// texts were logged, and what the log holds was accepted once and must
// replay (the byte and nesting bounds are the same as when it was
// written, and hold). Not cached: such a text is rare and large.
func compileLogged(text string) (*planner.Plan, error) {
	script, err := parser.ParseWith(text, parser.Limits{MaxItems: math.MaxInt32, MaxExprSize: math.MaxInt32, MaxLabelTerms: math.MaxInt32})
	if err != nil {
		return nil, err
	}
	return planner.Build(script)
}

// CheckText makes the checks compile's parse makes before it reads a
// text (parser.Check).
func CheckText(text string) error { return parser.Check(text) }

// plan is compile through the plan cache, untimed.
func (db *DB) plan(text string) (*planner.Plan, error) { return db.compile(text, planCached, nil) }

// Prepare parses and plans text (always, bypassing the plan cache, so the
// times are real; the plan is cached for the call that follows) and says
// whether it is a Recall.
func (s *Session) Prepare(text string) (isRecall bool, t values.Timing, err error) {
	if err := s.db.enter(); err != nil {
		return false, t, err
	}
	defer s.db.exit()
	if err := exec.CheckDeltaText(text, s.db.cfg.Budget); err != nil {
		return false, t, err // neither verb takes it: not worth its parse
	}
	plan, err := s.db.compile(text, planFresh, &t)
	if err != nil {
		return false, t, err
	}
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
	if len(text) > s.db.cfg.Budget.Bytes {
		return false // neither verb takes it: Commit refuses it unparsed
	}
	plan, err := s.db.plan(text)
	return err == nil && plan.Read()
}
