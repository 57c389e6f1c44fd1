// Package catalog is the catalogue's content (SPEC §8): one SESSION node
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
)

// Name is the session that lists the others (SPEC §8): one node
//
//	(:SESSION {name: "mission", version: 12, nodes: 40, edges: 55, recycled: 3,
//	           kinds: ["NOTE:4", "TSK:36"], last_commit: DATETIME "…"})
//
// per session, kept current with every Commit, Purge and Drop (queued, and
// applied when the catalogue is read, so its version counts the reads
// that found changes, not the Commits). Read it with
// Recall like any other session (MATCH (s:SESSION) LIMIT 4); it refuses
// Commit. It is derived, not persisted: Open builds it from the metadata
// the cabinet writes with every log entry, so listing sessions hydrates
// none. Its version counts its own changes since Open. DB.Sessions does
// not list it.
const Name = "catalog"

// Label is the label of the catalogue's nodes.
const Label = "SESSION"

// ID is the catalogue node of the session name.
func ID(name string) store.ID { return store.DeterministicNodeID(Label, name) }

// Props are the properties of a session's catalogue node.
func Props(m cabinet.Meta) store.Props {
	kinds := make([]store.Value, 0, len(m.Kinds))
	for _, k := range m.Kinds {
		kinds = append(kinds, store.String(k.Kind+":"+strconv.Itoa(k.Count)))
	}
	p := map[string]store.Value{
		"name":     store.String(m.Name),
		"version":  store.Int(int64(m.Version)),
		"nodes":    store.Int(int64(m.Nodes)),
		"edges":    store.Int(int64(m.Edges)),
		"recycled": store.Int(int64(m.Recycled)),
		"kinds":    store.List(kinds...),
	}
	if !m.LastCommit.IsZero() {
		p["last_commit"] = store.DateTime(m.LastCommit.UTC().Format(time.RFC3339Nano))
	}
	return store.MakeProps(p)
}

// KindCount is the number of live nodes of one kind.
type KindCount struct {
	Kind  string
	Count int
}

// Info describes one session, as its catalogue node says.
type Info struct {
	Name       string
	Version    uint64
	Nodes      int
	Edges      int
	Recycled   int
	Kinds      []KindCount
	LastCommit time.Time
	Persisted  bool
}

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
type Queue struct {
	mu      sync.Mutex // guards pending
	pending map[string]*cabinet.Meta
	apply   sync.Mutex // one application at a time, so changes land in order
}

// Put queues the creation or update of a session's catalogue node.
func (q *Queue) Put(m cabinet.Meta) { q.set(m.Name, &m) }

// Delete queues the removal of a session's catalogue node.
func (q *Queue) Delete(name string) { q.set(name, nil) }

func (q *Queue) set(name string, m *cabinet.Meta) {
	q.mu.Lock()
	if q.pending == nil {
		q.pending = map[string]*cabinet.Meta{}
	}
	q.pending[name] = m
	q.mu.Unlock()
}

// Apply applies the queued changes to the catalogue graph g in one
// version (none when nothing is queued); one Apply runs at a time, so
// changes land in order.
func (q *Queue) Apply(g *store.Graph) {
	q.apply.Lock()
	defer q.apply.Unlock()
	q.mu.Lock()
	pending := q.pending
	q.pending = nil
	q.mu.Unlock()
	if len(pending) == 0 {
		return
	}
	tx := g.Begin()
	defer tx.Rollback()
	for _, name := range slices.Sorted(maps.Keys(pending)) {
		if m := pending[name]; m != nil {
			putIn(tx, *m)
		} else {
			deleteIn(tx, name)
		}
	}
	tx.Commit()
}

// putIn creates or updates the catalogue node of one session.
func putIn(tx *store.Tx, m cabinet.Meta) {
	id, props := ID(m.Name), Props(m)
	var err error
	if _, ok := tx.Snapshot().Node(id); ok {
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
}

// deleteIn removes a session's catalogue node.
func deleteIn(tx *store.Tx, name string) {
	id := ID(name)
	if tx.RecycleNode(id) != nil {
		return
	}
	_ = tx.Purge(id)
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
