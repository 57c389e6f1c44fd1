package goldfish

import (
	"context"

	"github.com/goldfish-gql/goldfish/values"
)

// DefaultDiffRows is the most rows a Diff's Δ may write or bind when
// DiffOptions.MaxRows is 0 (the session's R bounds it too).
const DefaultDiffRows = values.DefaultDiffRows

// DefaultHistory is how many versions History lists when its limit is 0.
const DefaultHistory = values.DefaultHistory

// History's values (package values declares them).
type (
	// DiffOptions narrow and bound one Diff.
	DiffOptions = values.DiffOptions
	// Diff is the change between two versions of a session as one Δ.
	Diff = values.Diff
	// History is a node's history, newest first; HistoryEntry one
	// version that changed it.
	History      = values.History
	HistoryEntry = values.HistoryEntry
	// VersionEntry is one version of a session: what made it, who, when.
	VersionEntry = values.VersionEntry
)

// Diff returns the change from version from of the session to version
// to as one Δ (see Diff.Text); from 0 is the empty graph, so Diff(ctx,
// 0, n) is version n as INSERTs. Refused: from > to (22Q06), a
// version the session does not keep readable (22Q08), the catalogue
// (42Q02), a nick or kind to narrow by that no node has (42002), a node
// the Δ cannot find by content (42002), a diff over its bound or the
// session's R (22Q02, with how big it is and how to narrow it).
func (s *Session) Diff(ctx context.Context, from, to uint64, opt DiffOptions) (*Diff, error) {
	return s.e.Diff(ctx, from, to, opt)
}

// DumpAt is Dump at version v, one the session keeps readable (0: the
// empty graph): what a Diff committed elsewhere is checked against.
func (s *Session) DumpAt(ctx context.Context, v uint64) (string, error) {
	return s.e.DumpAt(ctx, v)
}

// History lists the versions that changed the node nick names (at the
// newest version, else at the latest readable one that had it) or its
// edges, newest first, with who made each, when, and the change: at most
// limit entries (DefaultHistory when 0), More set when there are older
// ones. Refused: a nick no readable version has (42002), the catalogue
// (42Q02).
func (s *Session) History(ctx context.Context, nick string, limit int) (*History, error) {
	return s.e.History(ctx, nick, limit)
}

// Versions lists the versions the session keeps readable, newest first:
// at most limit (DefaultHistory when 0), more set when older readable
// ones exist, oldest the oldest readable version. What a timeline of the
// session shows. Refused: the catalogue (42Q02).
func (s *Session) Versions(ctx context.Context, limit int) (entries []VersionEntry, more bool, oldest uint64, err error) {
	return s.e.Versions(ctx, limit)
}
