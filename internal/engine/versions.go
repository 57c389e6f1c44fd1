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
		entries = append(entries, values.VersionEntry{Version: v, How: entryHow(made.Kind), Agent: made.Agent, Time: made.Time, Change: made.Change.String()})
	}
	return entries, false, lo, nil
}

// versionChange is what a version's entry did, kept with the version
// until its line is asked for: a Commit's or an Absorb's counts, and the
// vocabulary it defined and the actions it ran, or a purge's count; the
// words are made only when a list of versions asks for them.
type versionChange struct {
	counts values.Counts
	// note is the words the counts do not say: "registered view open",
	// "(ran settle)", "purged 2 recycled elements".
	note string
	// purged marks a purge's change (note says it).
	purged bool
}

// changeOf is what a Commit or an Absorb did: its counts, without the
// bindings and echoes a version does not keep, and the vocabulary it
// defined and the actions it ran.
func changeOf(res *values.CommitResult) *versionChange {
	if res == nil {
		return nil
	}
	c := &versionChange{counts: res.Total}
	c.counts.Bindings, c.counts.NodesEchoed, c.counts.EdgesEchoed = 0, 0, 0
	var defined, ran []string
	for _, st := range res.Stmts {
		if st.Defined != "" {
			defined = append(defined, st.Defined)
		}
		if st.Action != "" {
			ran = append(ran, st.Action)
		}
	}
	if len(defined) > 0 {
		c.note = strings.Join(defined, " ")
	}
	if len(ran) > 0 {
		c.note = strings.TrimSpace(c.note + " (ran " + strings.Join(ran, ", ") + ")")
	}
	return c
}

// purgeChange is what a purge of n recycled elements did.
func purgeChange(n int) *versionChange {
	if n == 1 {
		return &versionChange{note: "purged 1 recycled element", purged: true}
	}
	return &versionChange{note: fmt.Sprintf("purged %d recycled elements", n), purged: true}
}

// String says the change as a Commit's summary does: "registered view
// open +2 nodes +1 edge 3 properties set (ran settle)"; "" when it is not
// known (nil).
func (c *versionChange) String() string {
	if c == nil {
		return ""
	}
	if c.purged {
		return c.note
	}
	counts := c.counts.Summary()
	defined, ran, _ := strings.Cut(c.note, "(ran ")
	parts := make([]string, 0, 3)
	for _, p := range []string{strings.TrimSpace(defined), counts} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	if ran != "" {
		parts = append(parts, "(ran "+ran)
	}
	return strings.Join(parts, " ")
}
