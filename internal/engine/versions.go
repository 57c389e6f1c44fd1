package engine

import (
	"context"
	"fmt"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/values"
)

// Versions lists the session's readable versions, newest first, at most
// limit of them (DefaultHistory when 0), with more set when older
// readable ones exist; oldest is the oldest readable version. Refused:
// the catalogue (42Q02), a dropped session.
func (s *Session) Versions(ctx context.Context, limit int) (entries []values.VersionEntry, more bool, oldest uint64, err error) {
	if err := s.begin(ctx); err != nil {
		return nil, false, 0, err
	}
	defer s.end()
	if err := s.pastReadable("list of versions"); err != nil {
		return nil, false, 0, err
	}
	if limit <= 0 {
		limit = DefaultHistory
	}
	lo, err := s.oldestReadable(ctx)
	if err != nil {
		return nil, false, 0, err
	}
	newest := s.snapshot().Version()
	for v := newest; v > 0 && v >= lo; v-- {
		if err := ctx.Err(); err != nil {
			return nil, false, 0, gqlstatus.Interrupted(ctx, "Versions")
		}
		if len(entries) == limit {
			return entries, true, lo, nil
		}
		made, err := s.madeBy(ctx, v)
		if err != nil {
			break // the past moved on meanwhile: list what is left
		}
		entries = append(entries, values.VersionEntry{Version: v, How: entryHow(made.Kind), Agent: made.Agent, Time: made.Time, Change: made.Change.String()})
	}
	return entries, false, lo, nil
}

// versionChange is what a version's entry did, kept with the version
// until its line is asked for (the words are made only then): a Commit's
// or an Absorb's result, reduced to what CommitResult.Change says, or a
// purge's count.
type versionChange struct {
	did    values.CommitResult
	purged int // a purge's count; -1 for a Commit or an Absorb
}

// changeOf is what a Commit or an Absorb did: its counts, without the
// bindings and echoes a version does not keep, and the statements that
// defined vocabulary or ran an action.
func changeOf(res *values.CommitResult) *versionChange {
	if res == nil {
		return nil
	}
	c := &versionChange{purged: -1}
	c.did.Total = res.Total
	c.did.Total.Bindings, c.did.Total.NodesEchoed, c.did.Total.EdgesEchoed = 0, 0, 0
	for _, st := range res.Stmts {
		if st.Defined != "" || st.Action != "" {
			c.did.Stmts = append(c.did.Stmts, values.StmtResult{Defined: st.Defined, Action: st.Action})
		}
	}
	return c
}

// purgeChange is what a purge of n recycled elements did.
func purgeChange(n int) *versionChange { return &versionChange{purged: n} }

// String says the change as a Commit's summary does ("registered view
// open +2 nodes +1 edge 3 properties set (ran settle)", "purged 2
// recycled elements"); "" when it is not known (nil).
func (c *versionChange) String() string {
	switch {
	case c == nil:
		return ""
	case c.purged == 1:
		return "purged 1 recycled element"
	case c.purged >= 0:
		return fmt.Sprintf("purged %d recycled elements", c.purged)
	}
	return c.did.Change()
}
