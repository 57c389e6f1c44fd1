package engine

import (
	"context"

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
		entries = append(entries, values.VersionEntry{Version: v, How: entryHow(made.Kind), Agent: made.Agent, Time: made.Time})
	}
	return entries, false, lo, nil
}
