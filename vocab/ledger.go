package vocab

import (
	"cmp"
	"maps"
	"slices"
	"strings"

	"github.com/goldfish-gql/goldfish/store"
)

// The ledger is what the Commits of a session wrote, versioned with its
// graph in the State so a reader of any version sees the facts of that
// version (the attention envelope, docs/design.md#the-vocabulary-and-attention, reads them): how many elements
// the Commits changed, how often each (kind, property) pair was written
// raw and inside actions, and which views and actions were dropped when.
// It is a function of the Commits alone, so replaying the log rebuilds
// it exactly.

// WriteCount is how many Commits wrote one property key on elements of
// one kind (a node's kind, an edge's type): Raw counts those that wrote
// it with a statement of their own, InAction those whose CALL of an
// action wrote it. A Commit counts at most once on each side.
type WriteCount struct {
	Kind, Key     string
	Raw, InAction uint64
}

// MaxTombstones is how many dropped names the ledger keeps per kind
// (views, actions): the most recent drops, so a session that registers
// and drops names without end keeps a bounded state.
const MaxTombstones = 256

// ledger is a State's record of the Commits. It is immutable like the
// State: Record copies the struct and only the nodes of the write table
// on the paths to the pairs a Commit wrote.
type ledger struct {
	changed uint64
	pairs   int // entries of writes
	writes  *trieNode
	// gen numbers the ledgers of a lineage: the nodes a Record makes
	// carry the new ledger's gen, and only they are changed in place
	// (every node an older State can reach has a smaller gen).
	gen uint64
	// droppedViews and droppedActions map a dropped name to the version
	// its drop made; a new registration of the name removes it.
	droppedViews, droppedActions map[string]uint64
	// win is the last Commits that wrote or called (window.go).
	win window
}

// The write table is a hash trie over (kind, key): each level takes the
// next trieBits bits of the pair's hash, and a leaf holds up to leafMax
// pairs before it splits. Recording a pair copies the nodes on its path,
// O(log of the pairs) of them, never the table: a Commit costs in
// proportion to what it wrote, whatever the session wrote before.
const (
	trieBits     = 4
	trieFan      = 1 << trieBits
	leafMax      = 8
	trieMaxDepth = 64 / trieBits // a leaf this deep holds all pairs of its hash
)

type trieNode struct {
	kids  [trieFan]*trieNode // an inner node's children
	items []entry            // a leaf's pairs, sorted by (Kind, Key)
	inner bool
	gen   uint64
}

type entry struct {
	WriteCount
	h uint64
}

func writeHash(kind, key string) uint64 {
	// FNV-1a, with a separator no byte of the names can fake.
	h := uint64(14695981039346656037)
	for i := 0; i < len(kind); i++ {
		h = (h ^ uint64(kind[i])) * 1099511628211
	}
	h = (h ^ 0x100) * 1099511628211
	for i := 0; i < len(key); i++ {
		h = (h ^ uint64(key[i])) * 1099511628211
	}
	return h
}

func comparePair(aKind, aKey, bKind, bKey string) int {
	if c := strings.Compare(aKind, bKind); c != 0 {
		return c
	}
	return strings.Compare(aKey, bKey)
}

// own returns n if l's Record made it, else a copy of it (a new leaf for
// nil) that l's Record may change.
func (l *ledger) own(n *trieNode) *trieNode {
	if n == nil {
		return &trieNode{gen: l.gen}
	}
	if n.gen == l.gen {
		return n
	}
	c := *n
	c.gen = l.gen
	if !c.inner {
		// One spare slot: a new pair is the common reason to copy a leaf.
		c.items = append(make([]entry, 0, len(n.items)+1), n.items...)
	}
	return &c
}

// at returns the trie under n (at depth) with an entry for (kind, key),
// a new one of zero counts if it had none, and that entry; the entry is
// l's to change until the next call.
func (l *ledger) at(n *trieNode, kind, key string, h uint64, depth int) (*trieNode, *entry) {
	n = l.own(n)
	if n.inner {
		i := (h >> (depth * trieBits)) % trieFan
		var e *entry
		n.kids[i], e = l.at(n.kids[i], kind, key, h, depth+1)
		return n, e
	}
	k, found := slices.BinarySearchFunc(n.items, entry{}, func(e, _ entry) int {
		return comparePair(e.Kind, e.Key, kind, key)
	})
	if found {
		return n, &n.items[k]
	}
	if len(n.items) >= leafMax && depth < trieMaxDepth {
		items := n.items
		n.items, n.inner = nil, true
		for _, it := range items {
			var e *entry
			i := (it.h >> (depth * trieBits)) % trieFan
			n.kids[i], e = l.at(n.kids[i], it.Kind, it.Key, it.h, depth+1)
			*e = it
			l.pairs--
		}
		return l.at(n, kind, key, h, depth)
	}
	// Cloned: the names outlive the Δ text they may point into.
	n.items = slices.Insert(n.items, k, entry{WriteCount: WriteCount{Kind: strings.Clone(kind), Key: strings.Clone(key)}, h: h})
	l.pairs++
	return n, &n.items[k]
}

// put adds a counter to a ledger being built (by Decode).
func (l *ledger) put(w WriteCount) {
	var e *entry
	l.writes, e = l.at(l.writes, w.Kind, w.Key, writeHash(w.Kind, w.Key), 0)
	e.Raw, e.InAction = w.Raw, w.InAction
}

func (n *trieNode) appendTo(out []WriteCount) []WriteCount {
	if n == nil {
		return out
	}
	for _, e := range n.items {
		out = append(out, e.WriteCount)
	}
	if n.inner {
		for _, k := range n.kids {
			out = k.appendTo(out)
		}
	}
	return out
}

// Write is one (kind, key) pair a Commit wrote, on one side.
type Write struct {
	Kind, Key string
	InAction  bool
}

// Delta gathers what one Commit did, for State.Record: the distinct
// elements it changed and the distinct pairs it wrote. It stays small for
// a small Commit (no map until it holds more than a few entries). The
// zero Delta is empty and ready.
type Delta struct {
	ids    []store.ID
	idSet  map[store.ID]struct{}
	writes []Write
	wset   map[Write]struct{}
	// The first entries live here, so a small Commit allocates nothing
	// for its Delta beyond the Delta.
	idBuf [4]store.ID
	wBuf  [4]Write
	// agent committed; calls are the actions whose CALL applied.
	agent string
	calls []string
}

// SetAgent names who made the Commit (the window keeps it).
func (d *Delta) SetAgent(agent string) { d.agent = agent }

// Called records that a CALL of the named action applied.
func (d *Delta) Called(action string) {
	if !slices.Contains(d.calls, action) {
		d.calls = append(d.calls, action)
	}
}

// deltaLinear is how many entries a Delta scans before it keeps a map.
const deltaLinear = 16

// Touch records that the Commit created, deleted or changed element id.
func (d *Delta) Touch(id store.ID) {
	if d.idSet != nil {
		d.idSet[id] = struct{}{}
		return
	}
	if slices.Contains(d.ids, id) {
		return
	}
	if d.ids == nil {
		d.ids = d.idBuf[:0]
	}
	if len(d.ids) < deltaLinear {
		d.ids = append(d.ids, id)
		return
	}
	d.idSet = make(map[store.ID]struct{}, 2*deltaLinear)
	for _, x := range d.ids {
		d.idSet[x] = struct{}{}
	}
	d.idSet[id] = struct{}{}
	d.ids = nil
}

// Wrote records that the Commit wrote key on an element of kind kind,
// raw or inside an action.
func (d *Delta) Wrote(kind, key string, inAction bool) {
	w := Write{Kind: kind, Key: key, InAction: inAction}
	if d.wset != nil {
		if _, ok := d.wset[w]; !ok {
			d.wset[w] = struct{}{}
			d.writes = append(d.writes, w)
		}
		return
	}
	if slices.Contains(d.writes, w) {
		return
	}
	if d.writes == nil {
		d.writes = d.wBuf[:0]
	}
	d.writes = append(d.writes, w)
	if len(d.writes) > deltaLinear {
		d.wset = make(map[Write]struct{}, 2*len(d.writes))
		for _, x := range d.writes {
			d.wset[x] = struct{}{}
		}
	}
}

// Changed is how many distinct elements the Delta holds.
func (d *Delta) Changed() int {
	if d.idSet != nil {
		return len(d.idSet)
	}
	return len(d.ids)
}

// Writes returns the distinct pairs the Delta holds, in the order first
// written.
func (d *Delta) Writes() []Write { return d.writes }

// Empty reports whether the Delta recorded nothing.
func (d *Delta) Empty() bool {
	return d == nil || d.Changed() == 0 && len(d.writes) == 0 && len(d.calls) == 0
}

// Record returns the State after a Commit that did what d holds: its
// changed elements added to Changed, each pair it wrote counted once on
// its side. An empty d returns s itself.
func (s *State) Record(d *Delta) *State {
	if d.Empty() {
		return s
	}
	// The new State and its ledger in one allocation.
	both := &struct {
		s State
		l ledger
	}{}
	if s != nil {
		both.s = *s
		if s.led != nil {
			both.l = *s.led
		}
	}
	c, l := &both.s, &both.l
	l.changed = addSat(l.changed, uint64(d.Changed()))
	l.gen++
	var rec windowCommit
	if len(d.writes)+len(d.calls) > 0 {
		rec = windowEntry(d)
	}
	for i, w := range d.writes {
		var e *entry
		l.writes, e = l.at(l.writes, w.Kind, w.Key, writeHash(w.Kind, w.Key), 0)
		if w.InAction {
			e.InAction = addSat(e.InAction, 1)
		} else {
			e.Raw = addSat(e.Raw, 1)
		}
		// The window names the pair with the table's own strings.
		rec.writes[i].Kind, rec.writes[i].Key = e.Kind, e.Key
	}
	if len(d.writes)+len(d.calls) > 0 {
		l.win = l.win.push(rec)
	}
	c.led = l
	return c
}

func addSat(a, b uint64) uint64 {
	if a+b < a {
		return ^uint64(0)
	}
	return a + b
}

// clone returns a shallow copy of s (a new State sharing all its parts).
func (s *State) clone() *State {
	if s == nil {
		return &State{}
	}
	c := *s
	return &c
}

// ledgerCopy returns a copy of the ledger of s, never nil, for a new
// State to own (its parts are still shared until replaced).
func (s *State) ledgerCopy() *ledger {
	if s == nil || s.led == nil {
		return &ledger{}
	}
	l := *s.led
	return &l
}

// HasLedger reports whether any Commit recorded anything in the ledger.
func (s *State) HasLedger() bool {
	return s != nil && s.led != nil &&
		(s.led.changed > 0 || s.led.pairs > 0 || len(s.led.droppedViews)+len(s.led.droppedActions) > 0)
}

// Changed is the number of elements the Commits so far changed: per
// Commit the distinct nodes and edges it created, deleted, or changed
// the properties or labels of, summed over the Commits (so the elements
// changed since version a are Changed at b minus Changed at a).
func (s *State) Changed() uint64 {
	if s == nil || s.led == nil {
		return 0
	}
	return s.led.changed
}

// Writes returns the write counters, sorted by (Kind, Key).
func (s *State) Writes() []WriteCount {
	if s == nil || s.led == nil || s.led.writes == nil {
		return nil
	}
	out := s.led.writes.appendTo(make([]WriteCount, 0, s.led.pairs))
	slices.SortFunc(out, func(a, b WriteCount) int { return comparePair(a.Kind, a.Key, b.Kind, b.Key) })
	return out
}

// Gaps returns the pairs written raw by at least minRaw of the last
// window Commits (window.go) and at least ratio times as often raw as
// inside actions there: what raw Commits do that an action could. They
// are sorted by Raw, most first, then by (Kind, Key).
func (s *State) Gaps(window, minRaw uint64, ratio float64) []WriteCount {
	var out []WriteCount
	for _, w := range s.Window(window).Writes {
		if w.Raw >= minRaw && float64(w.Raw) >= ratio*float64(w.InAction) {
			out = append(out, w)
		}
	}
	slices.SortStableFunc(out, func(a, b WriteCount) int { return cmp.Compare(b.Raw, a.Raw) })
	return out
}

// DroppedSince returns the names of the views and of the actions dropped
// after version v (by a Commit that made a version > v) and not
// registered again since, each sorted. Only the MaxTombstones most
// recent drops of each kind are remembered.
func (s *State) DroppedSince(v uint64) (views, actions []string) {
	if s == nil || s.led == nil {
		return nil, nil
	}
	return namesSince(s.led.droppedViews, v), namesSince(s.led.droppedActions, v)
}

func namesSince(m map[string]uint64, v uint64) []string {
	var out []string
	for name, at := range m {
		if at > v {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// tombstone returns m with name dropped at version, the oldest entries
// (ties by name) left out past MaxTombstones; m itself is not changed.
func tombstone(m map[string]uint64, name string, version uint64) map[string]uint64 {
	c := make(map[string]uint64, len(m)+1)
	maps.Copy(c, m)
	c[name] = version
	for len(c) > MaxTombstones {
		oldest, at := "", ^uint64(0)
		for n, v := range c {
			if v < at || v == at && n < oldest {
				oldest, at = n, v
			}
		}
		delete(c, oldest)
	}
	return c
}

// untombstone returns m without name (m itself when it has no such
// entry, else a copy).
func untombstone(m map[string]uint64, name string) map[string]uint64 {
	if _, ok := m[name]; !ok {
		return m
	}
	c := maps.Clone(m)
	delete(c, name)
	return c
}
