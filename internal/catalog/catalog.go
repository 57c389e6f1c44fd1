// Package catalog is the catalogue's content (docs/design.md#sessions-slices-and-model-snap): one SESSION node
// per session, built from the metadata the cabinet keeps with every log
// entry, the queue of changes Commits leave for the catalogue's next
// read, and the catalogue a restricted caller may see.
package catalog

import (
	"maps"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/store/cabinet"
	"github.com/goldfish-gql/goldfish/values"
)

// Name is the session that lists the others (docs/design.md#sessions-slices-and-model-snap): one node
//
//	(:SESSION {name: "mission", version: 12, nodes: 40, edges: 55, recycled: 3,
//	           kinds: ["NOTE:4", "TSK:36"], last_commit: DATETIME "…"})
//
// per session, kept current with every Commit, Purge and Drop (queued, and
// applied when the catalogue is read). Read it with Recall like any other
// session (MATCH (s:SESSION) LIMIT 4); it refuses Commit. It is derived,
// not persisted: Open builds it from the metadata the cabinet writes with
// every log entry, so listing sessions hydrates none. Its version is
// derived from the cabinet's durable state (see Queue): the sum of the
// sessions' versions plus the cabinet's dropped counter, so it never goes
// back across a reopen and one version always shows one content.
// DB.Sessions does not list it.
const Name = values.CatalogName

// Label is the label of the catalogue's nodes.
const Label = values.SessionLabel

// ID is the catalogue node of the session name.
func ID(name string) store.ID { return store.DeterministicNodeID(Label, name) }

// Props are the properties of a session's catalogue node.
func Props(m cabinet.Meta) values.Props {
	kinds := make([]values.Value, 0, len(m.Kinds))
	for _, k := range m.Kinds {
		kinds = append(kinds, values.String(k.Kind+":"+strconv.Itoa(k.Count)))
	}
	p := map[string]values.Value{
		"name":     values.String(m.Name),
		"version":  values.Int(int64(m.Version)),
		"nodes":    values.Int(int64(m.Nodes)),
		"edges":    values.Int(int64(m.Edges)),
		"recycled": values.Int(int64(m.Recycled)),
		"kinds":    values.List(kinds...),
	}
	if !m.LastCommit.IsZero() {
		p["last_commit"] = values.DateTimeValue(m.LastCommit.UTC().Format(time.RFC3339Nano))
	}
	return values.MakeProps(p)
}

// A session's catalogue node reads as values.SessionInfo.
type (
	Info      = values.SessionInfo
	KindCount = values.KindCount
)

// InfoOf reads a session's catalogue node.
func InfoOf(n *store.Node, persisted bool) Info {
	get := func(k string) int64 { v, _ := n.Props.Get(k); return v.AsInt() }
	name, _ := n.Props.Get("name")
	info := Info{Name: name.AsString(), Version: uint64(get("version")), Nodes: int(get("nodes")),
		Edges: int(get("edges")), Recycled: int(get("recycled")), Persisted: persisted}
	if v, ok := n.Props.Get("last_commit"); ok {
		info.LastCommit, _ = time.Parse(time.RFC3339Nano, v.AsString())
	}
	kinds, _ := n.Props.Get("kinds")
	for _, k := range kinds.AsList() {
		s := k.AsString()
		for i := len(s) - 1; i >= 0; i-- {
			if s[i] == ':' {
				c, _ := strconv.Atoi(s[i+1:])
				info.Kinds = append(info.Kinds, KindCount{Kind: s[:i], Count: c})
				break
			}
		}
	}
	return info
}

// Queue holds the catalogue changes not yet applied: the latest
// metadata of each session committed since the last read of the
// catalogue (nil: dropped). Commits only queue (a map store); whoever
// reads the catalogue applies the queue first, in one catalogue version.
// A Commit thus does not pay for a catalogue write it does not need, and
// the catalogue a reader sees is as current as a write-through one.
//
// The queue also keeps the catalogue's line: the version its next
// Apply publishes, a function of the cabinet's durable state, so that
// the catalogue's version never goes back across a reopen and one
// version always shows one content (docs/design.md#persistence-and-history). The line is Σ over the
// listed sessions of their weight (cabinet.Meta.Weight: the version plus
// the version the counts are of) plus the cabinet's dropped counter D,
// which a drop raises by the dropped session's weight plus one
// (cabinet.Cabinet.Dropped). Every change of what the catalogue shows
// raises it: a session's weight only grows while it lives, and a drop
// takes its weight w away and adds w+1. Load starts it from the
// cabinet; Put and Delete then apply the same increments as the cabinet,
// from what this process saw, so the line never runs ahead of the
// durable state: it equals it once every change reached the queue, and
// lags it by what has not (a Commit not yet published, another host's
// Commit or drop not yet seen). A reopen therefore starts at least where
// the line was, and higher if the content differs.
type Queue struct {
	// Lazy says the cabinet writes a session's counts after its entry
	// (many hosts on PostgreSQL): a Put without MetaVersion (a Commit of
	// this host, published once its entry is durable) then keeps the
	// counts' version the line counts, rather than run ahead of the
	// cabinet. Set before Load.
	Lazy bool

	mu      sync.Mutex // guards pending, known, dropped
	pending map[string]*cabinet.Meta
	known   map[string]weight // the sessions as the line counts them, queued changes included
	dropped uint64            // D as the line counts it
	apply   sync.Mutex        // one application at a time, so changes land in order
}

// weight is what one session counts for in the line: its version and the
// version its counts are of, each only growing while the session lives.
type weight struct{ version, meta uint64 }

func (w weight) sum() uint64 { return w.version + w.meta }

// weightOf is the weight m says (lazy: see Queue.Lazy).
func weightOf(m cabinet.Meta, lazy bool) weight {
	w := weight{m.Version, m.MetaVersion}
	if w.meta == 0 && !lazy {
		w.meta = m.Version
	}
	return w
}

// Load builds the catalogue in g (new, at version 0) from the cabinet's
// metadata and dropped counter, in one version: the line, Σ weights + D
// (none when both are 0).
func (q *Queue) Load(g *store.Graph, metas []cabinet.Meta, dropped uint64) {
	q.apply.Lock()
	defer q.apply.Unlock()
	q.mu.Lock()
	q.known, q.dropped = make(map[string]weight, len(metas)), dropped
	for _, m := range metas {
		q.known[m.Name] = weightOf(m, false) // what the cabinet holds: its own weight
	}
	line := q.lineLocked()
	q.mu.Unlock()
	if line == 0 {
		return
	}
	tx := g.Begin()
	defer tx.Rollback()
	for _, m := range metas {
		if _, err := tx.InsertNode(ID(m.Name), []string{Label}, Props(m)); err != nil {
			panic("goldfish: building the catalogue: " + err.Error()) // names are unique: a bug
		}
	}
	tx.CommitAt(line)
}

// Line is the version the catalogue's next Apply publishes if it finds
// changes (the current version when all changes are applied).
func (q *Queue) Line() uint64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.lineLocked()
}

func (q *Queue) lineLocked() uint64 {
	line := q.dropped
	for _, w := range q.known {
		line += w.sum()
	}
	return line
}

// Put queues the creation or update of a session's catalogue node. A
// version older than the one the line counts can only be a later
// incarnation of the name (dropped and made again, by another host,
// between two reads of its head): it is counted as the drop it implies.
// Counts of an older version than the line counts keep the counted one.
func (q *Queue) Put(m cabinet.Meta) {
	q.mu.Lock()
	defer q.mu.Unlock()
	w := weightOf(m, q.Lazy)
	if old, ok := q.known[m.Name]; ok {
		if m.Version < old.version {
			q.dropped += old.sum() + 1
		} else {
			w.meta = max(w.meta, old.meta)
		}
	}
	q.setLocked(m.Name, &m)
	q.known[m.Name] = w
}

// Delete queues the removal of a session's catalogue node; the line
// gains the session's weight plus one, as the cabinet's counter does.
func (q *Queue) Delete(name string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if old, ok := q.known[name]; ok {
		q.dropped += old.sum() + 1
		delete(q.known, name)
	}
	q.setLocked(name, nil)
}

func (q *Queue) setLocked(name string, m *cabinet.Meta) {
	if q.pending == nil {
		q.pending = map[string]*cabinet.Meta{}
	}
	if q.known == nil {
		q.known = map[string]weight{}
	}
	q.pending[name] = m
}

// Apply applies the queued changes to the catalogue graph g in one
// version, the line (none when nothing is queued or nothing changes);
// one Apply runs at a time, so changes land in order.
func (q *Queue) Apply(g *store.Graph) {
	q.apply.Lock()
	defer q.apply.Unlock()
	q.mu.Lock()
	pending := q.pending
	q.pending = nil
	line := q.lineLocked()
	q.mu.Unlock()
	if len(pending) == 0 {
		return
	}
	tx := g.Begin()
	defer tx.Rollback()
	changed := false
	for _, name := range slices.Sorted(maps.Keys(pending)) {
		if m := pending[name]; m != nil {
			changed = putIn(tx, *m) || changed
		} else {
			changed = deleteIn(tx, name) || changed
		}
	}
	if !changed {
		return // the same content keeps its version
	}
	base := tx.Base().Version()
	if line <= base {
		// Cannot happen when every change reaches the queue through Put
		// and Delete: a change of content is a change of some session's
		// version or counts, or a drop, and each raises the line past
		// the version the previous content was published at. Should it
		// happen (a bug), one past is the least wrong: a version that
		// does not move would name two contents.
		line = base + 1
	}
	tx.CommitAt(line)
}

// putIn creates or updates the catalogue node of one session; it reports
// whether the node changed.
func putIn(tx *store.Tx, m cabinet.Meta) bool {
	id, props := ID(m.Name), Props(m)
	var err error
	if n, ok := tx.Snapshot().Node(id); ok {
		if n.Props.Equal(props) {
			return false
		}
		_, err = tx.SetProps(id, props)
	} else {
		if _, ok := tx.Snapshot().RecycledNode(id); ok {
			_ = tx.Purge(id)
		}
		_, err = tx.InsertNode(id, []string{Label}, props)
	}
	if err != nil {
		panic("goldfish: updating the catalogue: " + err.Error())
	}
	return true
}

// deleteIn removes a session's catalogue node; it reports whether there
// was one.
func deleteIn(tx *store.Tx, name string) bool {
	id := ID(name)
	if tx.RecycleNode(id) != nil {
		return false // not listed
	}
	_ = tx.Purge(id)
	return true
}

// Visible is the catalogue of the sessions visible says a caller
// may see, built in one version: a read of the catalogue through it shows
// nothing of the other sessions, not even by the version.
func Visible(snap *store.Snapshot, visible func(string) bool) *store.Snapshot {
	g := store.New()
	tx := g.Begin()
	defer tx.Rollback()
	snap.ScanLabel(Label, func(n *store.Node) bool {
		if name, _ := n.Props.Get("name"); visible(name.AsString()) {
			if _, err := tx.InsertNode(n.ID, n.Labels, n.Props); err != nil {
				panic("goldfish: building a visible catalogue: " + err.Error()) // ids are unique: a bug
			}
		}
		return true
	})
	tx.Commit()
	return g.Snapshot()
}
