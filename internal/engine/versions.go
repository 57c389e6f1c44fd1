package engine

import (
	"context"
	"fmt"
	"strings"

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
		entries = append(entries, values.VersionEntry{Version: v, How: entryHow(made.Kind), Agent: made.Agent, Time: made.Time, Change: made.Change})
	}
	return entries, false, lo, nil
}

// changeSummary is what a Commit or an Absorb did, for its version's line:
// its counts as the shell prints them ("+2 nodes +1 edge 3 properties
// set"), without the bindings and echoes a version does not keep, and
// the vocabulary it defined.
func changeSummary(res *values.CommitResult) string {
	if res == nil {
		return ""
	}
	c := res.Total
	c.Bindings, c.NodesEchoed, c.EdgesEchoed = 0, 0, 0
	var parts []string
	for _, st := range res.Stmts {
		if st.Defined != "" {
			parts = append(parts, st.Defined)
		}
	}
	if s := c.Summary(); s != "" {
		parts = append(parts, s)
	}
	var ran []string
	for _, st := range res.Stmts {
		if st.Action != "" {
			ran = append(ran, st.Action)
		}
	}
	if len(ran) > 0 {
		parts = append(parts, "(ran "+strings.Join(ran, ", ")+")")
	}
	return strings.Join(parts, " ")
}

// purgeSummary is what a purge of n recycled elements did.
func purgeSummary(n int) string {
	if n == 1 {
		return "purged 1 recycled element"
	}
	return fmt.Sprintf("purged %d recycled elements", n)
}
