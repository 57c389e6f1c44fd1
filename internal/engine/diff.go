package engine

import (
	"context"
	"fmt"

	"github.com/goldfish-gql/goldfish/exec"
	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/store/cabinet"
	"github.com/goldfish-gql/goldfish/values"
)

// Diff and History (docs/design.md#persistence-and-history, History) read the past versions a session
// keeps (past.go): the change between two versions as one Δ
// (exec.DiffSnapshots), and the versions that changed one node.

// DefaultDiffRows is a diff's row bound when DiffOptions.MaxRows is 0.
const DefaultDiffRows = values.DefaultDiffRows

// DefaultHistory is how many entries History lists when its limit is 0.
const DefaultHistory = values.DefaultHistory

// oldestReadable is the oldest version whose snapshot the session can
// read: a diff or a history reaches no further back.
func (s *Session) oldestReadable(ctx context.Context) (uint64, error) {
	if err := ctx.Err(); err != nil {
		return 0, gqlstatus.Interrupted(ctx, "Diff")
	}
	return s.readableFrom(s.snapshot().Version()), nil
}

// pastReadable refuses the catalogue and a dropped session, as other reads
// of the past do.
func (s *Session) pastReadable(verb string) error {
	if s.dropped.Load() {
		return s.errDropped()
	}
	if s.catalog {
		return gqlstatus.Errorf(gqlstatus.ReadOnlySession, "the %s session keeps no past versions, so it has no %s", CatalogName, verb).
			WithHint("read the catalogue with Recall; diff the sessions themselves")
	}
	return nil
}

// Diff writes the Δ that takes version from of the session to version
// to (from 0: the empty graph). Refused: from > to (22Q06), a version
// not readable (22Q08), the catalogue (42Q02), and what
// exec.DiffSnapshots refuses (a diff over its bound, 22Q02).
func (s *Session) Diff(ctx context.Context, from, to uint64, opt values.DiffOptions) (*values.Diff, error) {
	if err := s.begin(ctx); err != nil {
		return nil, err
	}
	defer s.end()
	if err := s.pastReadable("diff"); err != nil {
		return nil, err
	}
	if from > to {
		return nil, gqlstatus.Errorf(gqlstatus.InvalidOption, "a diff goes from an older version to a newer one: from %d is after to %d", from, to).
			WithHint("swap them: Diff(from, to) with from ≤ to")
	}
	var snapTo, snapFrom *store.Snapshot
	if to == 0 { // from the empty graph to itself (snapshotAt reads 0 as the newest)
		snapTo, snapFrom = store.New().Snapshot(), store.New().Snapshot()
	} else {
		var err error
		if snapTo, snapFrom, err = s.pair(ctx, from, to); err != nil {
			return nil, err
		}
	}
	return exec.DiffSnapshots(ctx, snapFrom, snapTo, exec.DiffOptions{Session: s.name, MaxRows: opt.MaxRows,
		Budget: s.db.cfg.Budget, Nicks: opt.Nicks, Kinds: opt.Kinds})
}

// pair reads the snapshots of to and from (0: the empty graph), both
// readable.
func (s *Session) pair(ctx context.Context, from, to uint64) (snapTo, snapFrom *store.Snapshot, err error) {
	if snapTo, err = s.snapshotAt(ctx, to); err != nil {
		return nil, nil, err
	}
	if from == 0 {
		return snapTo, store.New().Snapshot(), nil
	}
	lo, err := s.oldestReadable(ctx)
	if err != nil {
		return nil, nil, err
	}
	if from < lo {
		return nil, nil, gqlstatus.Errorf(gqlstatus.VersionNotKept, "the session keeps versions %d to %d readable; version %d is not kept", lo, s.snapshot().Version(), from).
			WithHint("diff from one of the versions kept, or from 0 (the empty graph)")
	}
	if snapFrom, err = s.snapshotAt(ctx, from); err != nil {
		return nil, nil, err
	}
	return snapTo, snapFrom, nil
}

// DumpAt is Dump at a readable version (0: the empty graph), for a test
// or a conformance check that a diff committed elsewhere gives it.
func (s *Session) DumpAt(ctx context.Context, v uint64) (string, error) {
	if err := s.begin(ctx); err != nil {
		return "", err
	}
	defer s.end()
	if err := s.pastReadable("dump at a version"); err != nil {
		return "", err
	}
	if v == 0 {
		return dump(store.New().Snapshot()), nil
	}
	snap, err := s.snapshotAt(ctx, v)
	if err != nil {
		return "", err
	}
	return dump(snap), nil
}

// History lists the versions that changed the node nick names (at the
// newest version, else at the latest readable version that had it) or
// its edges, newest first, each with who made it, when, and the change
// as the version's diff narrowed to the node: at most limit entries
// (DefaultHistory when 0), More set when older ones exist. A session in
// a cabinet finds them with its history index (history_index.go), in
// time that grows with the versions that touched the node, not with
// the history; one in memory reads the versions it keeps. A call cut
// short (its ctx, a version that cannot be read) is an error, never a
// shorter history. Refused: a nick no readable version has (42002), the
// catalogue (42Q02).
func (s *Session) History(ctx context.Context, nick string, limit int) (*values.History, error) {
	if err := s.begin(ctx); err != nil {
		return nil, err
	}
	defer s.end()
	if err := s.pastReadable("history"); err != nil {
		return nil, err
	}
	if limit <= 0 {
		limit = DefaultHistory
	}
	lo, err := s.oldestReadable(ctx)
	if err != nil {
		return nil, err
	}
	cur := s.snapshot()
	newest := cur.Version()
	h := &values.History{Nick: nick, Oldest: lo}
	var (
		id    store.ID
		found bool
		cands []uint64 // the versions that may have touched it, ascending
		pair  func(v uint64) (before, after *store.Snapshot, err error)
		made  func(v uint64) versionMade
	)
	if n, ok := cur.NodeByNick(nick); ok {
		id, found = n.ID, true
	}
	if s.db.cab != nil && newest > 0 {
		x, err := s.historyIndexFor(ctx, newest)
		if err != nil {
			return nil, err
		}
		defer x.mu.Unlock()
		if !found {
			id, found = x.nicks[nick]
		}
		cands = x.touches[id]
		pair = func(v uint64) (*store.Snapshot, *store.Snapshot, error) {
			if b, a, ok := s.keptPair(v); ok {
				return b, a, nil
			}
			return x.pair(ctx, s, v)
		}
		made = func(v uint64) versionMade {
			if pv, ok := s.past.version(v); ok {
				return pv.made
			}
			return x.madeAt(v)
		}
	} else {
		// In memory every readable version is kept (past.go): each is
		// a candidate, and a pair is two lookups.
		for v := newest; v >= lo && v > 0 && !found; v-- {
			snap, err := s.snapshotAt(ctx, v)
			if err != nil {
				return nil, err
			}
			if n, ok := snap.NodeByNick(nick); ok {
				id, found = n.ID, true
			}
		}
		for v := max(lo, 1); v <= newest; v++ {
			cands = append(cands, v)
		}
		pair = func(v uint64) (*store.Snapshot, *store.Snapshot, error) {
			if b, a, ok := s.keptPair(v); ok {
				return b, a, nil
			}
			return nil, nil, s.notKept(v-1, newest)
		}
		made = func(v uint64) versionMade { pv, _ := s.past.version(v); return pv.made }
	}
	if !found {
		return nil, gqlstatus.Errorf(gqlstatus.InvalidReference, "no node has the nick %s at any version readable (%d to %d)", values.String(nick).Literal(), lo, newest).
			WithHint("name a node by its nick (nicks are case-sensitive); Recall to find them")
	}
	for i := len(cands) - 1; i >= 0; i-- {
		v := cands[i]
		if v > newest {
			continue // an index another call extended further
		}
		if v < lo || v-1 < lo && v-1 != 0 {
			break // the version before is not kept: its change is unknown
		}
		if err := ctx.Err(); err != nil {
			return nil, gqlstatus.Interrupted(ctx, fmt.Sprintf("the history of %s in session %q", values.String(nick).Literal(), s.name))
		}
		before, after, err := pair(v)
		if err != nil {
			return nil, err
		}
		if !touched(before, after, id) {
			continue
		}
		if len(h.Entries) == limit {
			h.More = true
			break
		}
		d, err := exec.DiffSnapshots(ctx, before, after, exec.DiffOptions{Session: s.name, IDs: []store.ID{id}, Budget: s.db.cfg.Budget})
		if err != nil {
			if c := gqlstatus.CodeOf(err, gqlstatus.Internal); c != gqlstatus.CommitBudget && c != gqlstatus.InvalidReference {
				return nil, err
			}
			// One version's change too large, or one no Δ can write:
			// the entry says so and the history goes on.
			d = &values.Diff{From: v - 1, To: v, Text: fmt.Sprintf("// goldfish diff session=%s from=%d to=%d: not written: %s\n", s.name, v-1, v, err)}
		}
		m := made(v)
		h.Entries = append(h.Entries, values.HistoryEntry{Version: v, How: entryHow(m.Kind), Agent: m.Agent, Time: m.Time, Change: d})
	}
	return h, nil
}

// keptPair returns the snapshots of versions v-1 (the empty graph for 0)
// and v when the session keeps both in memory.
func (s *Session) keptPair(v uint64) (before, after *store.Snapshot, ok bool) {
	after, ok = s.past.at(v)
	if !ok {
		if cur := s.snapshot(); cur.Version() == v {
			after, ok = cur, true
		}
	}
	if !ok {
		return nil, nil, false
	}
	if v == 1 {
		return store.New().Snapshot(), after, true
	}
	before, ok = s.past.at(v - 1)
	return before, after, ok
}

// touched reports whether node id or one of its edges differs between
// two versions.
func touched(a, b *store.Snapshot, id store.ID) bool {
	na, okA := a.Node(id)
	nb, okB := b.Node(id)
	if okA != okB {
		return true
	}
	if !okA {
		return false
	}
	if na != nb && (na.Kind() != nb.Kind() || len(na.Labels) != len(nb.Labels) || !na.Props.Equal(nb.Props) || !sameLabelSet(na.Labels, nb.Labels)) {
		return true
	}
	ea, eb := edgesOf(a, id), edgesOf(b, id)
	if len(ea) != len(eb) {
		return true
	}
	for eid, e := range eb {
		if old, ok := ea[eid]; !ok || !old.Props.Equal(e.Props) {
			return true
		}
	}
	return false
}

// edgesOf is the live edges of node id by id (a loop once).
func edgesOf(s *store.Snapshot, id store.ID) map[store.ID]*store.Edge {
	m := map[store.ID]*store.Edge{}
	s.Edges(id, store.Both, func(e *store.Edge) bool { m[e.ID] = e; return true })
	return m
}

func sameLabelSet(a, b []string) bool {
	for _, l := range a {
		found := false
		for _, m := range b {
			found = found || l == m
		}
		if !found {
			return false
		}
	}
	return true
}

func entryHow(k cabinet.EntryKind) string {
	switch k {
	case cabinet.EntryPurge:
		return "purge"
	case cabinet.EntryAbsorb:
		return "absorb"
	}
	return "commit"
}

// sinceDiffElements bounds the sessions whose envelope carries the change
// since an agent's last read: a diff reads both versions whole, about
// 0.6 µs per element (2.7 ms at 4,800 elements, 0.6 ms at 900, against
// tens of µs for the Recall), which a Recall of a small session affords
// and one of a large session does not (its agents have the counts, and
// :diff).
const sinceDiffElements = 1000

// sinceDiffRows bounds that diff: a few lines of the lean envelope.
const sinceDiffRows = 40

// sinceDiff is the diff from version from to version to for the
// envelope's since_your_last_read, "" when the session is too large, the
// version from is not kept, or the diff is over its bound or cannot be
// written. The rule depends on the session and its history only, never
// on what memory holds: a version not in memory is rebuilt (history.go),
// which for a small session replays little.
func (s *Session) sinceDiff(ctx context.Context, from, to uint64) string {
	if s.catalog || from == 0 {
		return ""
	}
	b, err := s.snapshotAt(ctx, to)
	if err != nil || b.NodeCount()+b.EdgeCount() > sinceDiffElements {
		return ""
	}
	a, err := s.snapshotAt(ctx, from)
	if err != nil || a.NodeCount()+a.EdgeCount() > sinceDiffElements {
		return ""
	}
	d, err := exec.DiffSnapshots(ctx, a, b, exec.DiffOptions{MaxRows: sinceDiffRows, Budget: s.db.cfg.Budget})
	if err != nil || d.Empty() {
		return ""
	}
	return d.Text
}
