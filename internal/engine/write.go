package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/goldfish-gql/goldfish/exec"
	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/internal/params"
	"github.com/goldfish-gql/goldfish/store/cabinet"
	"github.com/goldfish-gql/goldfish/values"
	"github.com/goldfish-gql/goldfish/vocab"
)

// The one write path. Every change of a session, a Commit or Ingest (and
// so a registration or a CALL of the vocabulary), an Absorb and a Purge,
// goes through Session.write: take the session's writer, refuse a
// session that takes no write, apply the change (with many hosts,
// claiming its version first: hostsWrite), note what it did to the
// vocabulary, queue its log entry, release the writer, wait until the
// entry is durable, and publish the version to readers and to the
// catalogue. What differs between the verbs is only how they apply.

// change is one write as the write path takes it.
type change struct {
	// what names the change in errors ("Δ", "Absorb", "Purge"); waiting
	// is the hint when the caller's context ends before it got the
	// session's writer.
	what, waiting string
	// entry is its log entry; the path fills its version and time.
	entry cabinet.Entry
	// apply makes the change on s.graph. claim, when not nil, must be
	// called with the new version before the version is published (the
	// many-host claim); apply reports whether anything applied.
	apply func(claim func(version uint64) error) (applied bool, err error)
	// after, when set, runs once the change applied, before its version
	// is queued, with the writer held.
	after func()
	// summary, when set, says what the applied change did (a version's
	// line in Versions).
	summary func() *versionChange
}

// write runs c through the write path; see above.
func (s *Session) write(ctx context.Context, c *change) error {
	if s.wmu.LockContext(ctx) != nil {
		return gqlstatus.Interrupted(ctx, c.what).WithHint(c.waiting)
	}
	if err := s.refuseWrite(); err != nil {
		s.wmu.Unlock()
		return err
	}
	var before *vocab.State
	applied := false
	run := func(claim func(uint64) error) error {
		before = exec.Vocabulary(s.graph.Snapshot())
		var err error
		applied, err = c.apply(claim)
		return err
	}
	var err error
	if s.db.hosts != nil {
		err = s.hostsWrite(ctx, c.what, &c.entry, run)
	} else {
		err = run(nil)
	}
	if err != nil || !applied {
		s.wmu.Unlock()
		return err
	}
	snap := s.graph.Snapshot()
	s.noteCommit(before, exec.Vocabulary(snap), snap.Version(), c.entry.Agent)
	if c.after != nil {
		c.after()
	}
	var change *versionChange
	if c.summary != nil {
		change = c.summary()
	}
	w := s.durable(c.entry, change)
	s.wmu.Unlock()
	return s.await(w)
}

// timed starts the timing of a write when t is set; the returned func
// ends it, giving Execute what parsing and planning did not take.
func timed(t *values.Timing) func() {
	if t == nil {
		return func() {}
	}
	*t = values.Timing{}
	t0 := time.Now()
	return func() { t.Execute = time.Since(t0) - t.Parse - t.Plan }
}

// beginWrite admits a write of the session (begin), checks the name of
// the agent that makes it and starts its timing; end ends all three.
func (s *Session) beginWrite(ctx context.Context, o values.CommitOptions) (end func(), err error) {
	if err := s.begin(ctx); err != nil {
		return nil, err
	}
	if o.Agent != "" {
		if err := values.ValidAgentName(o.Agent); err != nil {
			s.end()
			return nil, err
		}
	}
	stop := timed(o.Timing)
	return func() { stop(); s.end() }, nil
}

// Commit applies text as one atomic Δ under the id rule mint.
func (s *Session) Commit(ctx context.Context, text string, args map[string]any, mint Mint, o values.CommitOptions) (*values.CommitResult, error) {
	end, err := s.beginWrite(ctx, o)
	if err != nil {
		return nil, err
	}
	defer end()
	if err := exec.CheckDeltaText(text, s.db.cfg.Budget); err != nil {
		return nil, err // before the parse: an oversized text costs nothing
	}
	plan, err := s.db.compile(text, planCached, o.Timing)
	if err != nil {
		return nil, err
	}
	vals, err := params.Commit(args, s.db.cfg.Budget.Bytes)
	if err != nil {
		return nil, err
	}
	xo := exec.CommitOptions{Mint: mint, Budget: s.db.cfg.Budget, Agent: o.Agent}
	var res *values.CommitResult
	err = s.write(ctx, &change{what: "Δ",
		waiting: "nothing applied: the Δ was waiting for the session's other Commits; allow it more time",
		entry:   cabinet.Entry{Kind: cabinet.EntryDelta, Mint: entryMint(mint), Text: text, Params: vals, Agent: o.Agent},
		apply: func(claim func(uint64) error) (bool, error) {
			xo.BeforePublish = claim
			var err error
			res, err = exec.Commit(ctx, s.graph, plan, vals, xo)
			return err == nil && res.Applied, err
		},
		summary: func() *versionChange { return changeOf(res) }})
	if name, ok := exec.FailedAction(err); ok {
		s.noteFailure(name, err)
	}
	if err != nil && (res == nil || res.Applied) {
		return nil, err // not durable, or never applied: no result to show
	}
	return res, err
}

// Purge removes the session's recycled elements for good (docs/design.md#persistence-and-history: never
// done by a Recall). It is durable like a Commit and, when it removed
// anything, makes a new version. It returns the number removed.
func (s *Session) Purge(ctx context.Context) (int, error) {
	if err := s.begin(ctx); err != nil {
		return 0, err
	}
	defer s.end()
	n := 0
	err := s.write(ctx, &change{what: "Purge", waiting: "nothing was purged; allow the call more time",
		entry: cabinet.Entry{Kind: cabinet.EntryPurge},
		apply: func(claim func(uint64) error) (bool, error) {
			var err error
			n, _, err = purgeBefore(s.graph, claim)
			return n > 0, err
		},
		after:   s.compactIfShrunk,
		summary: func() *versionChange { return purgeChange(n) }})
	if err != nil {
		return 0, err
	}
	if n > 0 {
		// What the purge removed for good goes from the history too: it
		// starts at the purge's version (history.go).
		s.older.reset()
		if s.db.cab != nil && !s.catalog {
			s.cutAt.Store(s.past.oldest())
			if err := s.flushCut(ctx, true); err != nil {
				return n, fmt.Errorf("the purge is durable, but the history before it is not cut yet (the next flush cuts it): %w", err)
			}
		}
	}
	return n, nil
}
