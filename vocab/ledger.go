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
// version (SPEC §9's attention envelope reads them): how many elements
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
// State: Record copies the struct and only the parts of the write table
// a Commit touches.
type ledger struct {
	changed uint64
	pairs   int // entries of writes
	writes  *writeRoot
	// droppedViews and droppedActions map a dropped name to the version
	// its drop made; a new registration of the name removes it.
	droppedViews, droppedActions map[string]uint64
}

// The write table is a two-level trie of fixed fan-out over a hash of
// (kind, key): a Commit copies the root, one middle node and one leaf
// per pair it writes, so recording costs O(pairs written + the pairs of
// their leaves), not O(all pairs the session ever wrote), and every
// older State keeps the table it had.
const writeFan = 16

type writeRoot [writeFan]*writeMid

type writeMid [writeFan][]WriteCount // leaves, sorted by (Kind, Key)

func writeHash(kind, key string) uint32 {
	// FNV-1a, with a separator no string of the pair can fake.
	h := uint32(2166136261)
	for i := 0; i < len(kind); i++ {
		h = (h ^ uint32(kind[i])) * 16777619
	}
	h = (h ^ 0x100) * 16777619
	for i := 0; i < len(key); i++ {
		h = (h ^ uint32(key[i])) * 16777619
	}
	return h
}

func comparePair(aKind, aKey, bKind, bKey string) int {
	if c := strings.Compare(aKind, bKind); c != 0 {
		return c
	}
	return strings.Compare(aKey, bKey)
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
func (d *Delta) Empty() bool { return d == nil || d.Changed() == 0 && len(d.writes) == 0 }

// Record returns the State after a Commit that did what d holds: its
// changed elements added to Changed, each pair it wrote counted once on
// its side. An empty d returns s itself.
func (s *State) Record(d *Delta) *State {
	if d.Empty() {
		return s
	}
	c := s.clone()
	l := c.ledgerCopy()
	l.changed = addSat(l.changed, uint64(d.Changed()))
	if len(d.writes) > 0 {
		root := new(writeRoot)
		if l.writes != nil {
			*root = *l.writes
		}
		var freshMid [writeFan]bool
		var freshLeaf [writeFan * writeFan]bool
		for _, w := range d.writes {
			h := writeHash(w.Kind, w.Key)
			i, j := h%writeFan, (h/writeFan)%writeFan
			if !freshMid[i] {
				m := new(writeMid)
				if root[i] != nil {
					*m = *root[i]
				}
				root[i], freshMid[i] = m, true
			}
			mid := root[i]
			leaf := mid[j]
			if !freshLeaf[i*writeFan+j] {
				// One spare slot: a new pair is the common reason to copy.
				leaf = append(make([]WriteCount, 0, len(leaf)+1), leaf...)
				freshLeaf[i*writeFan+j] = true
			}
			k, found := slices.BinarySearchFunc(leaf, w, func(e WriteCount, w Write) int {
				return comparePair(e.Kind, e.Key, w.Kind, w.Key)
			})
			if !found {
				// Cloned: the names outlive the Δ text they may point into.
				leaf = slices.Insert(leaf, k, WriteCount{Kind: strings.Clone(w.Kind), Key: strings.Clone(w.Key)})
				l.pairs++
			}
			if w.InAction {
				leaf[k].InAction = addSat(leaf[k].InAction, 1)
			} else {
				leaf[k].Raw = addSat(leaf[k].Raw, 1)
			}
			mid[j] = leaf
		}
		l.writes = root
	}
	c.led = l
	return c
}

// put adds a counter to a ledger being built (by Decode: its table is
// its own, not yet any State's).
func (l *ledger) put(w WriteCount) {
	if l.writes == nil {
		l.writes = new(writeRoot)
	}
	h := writeHash(w.Kind, w.Key)
	i, j := h%writeFan, (h/writeFan)%writeFan
	if l.writes[i] == nil {
		l.writes[i] = new(writeMid)
	}
	leaf := l.writes[i][j]
	k, _ := slices.BinarySearchFunc(leaf, w, func(e, w WriteCount) int { return comparePair(e.Kind, e.Key, w.Kind, w.Key) })
	l.writes[i][j] = slices.Insert(leaf, k, w)
	l.pairs++
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
	out := make([]WriteCount, 0, s.led.pairs)
	for _, m := range s.led.writes {
		if m == nil {
			continue
		}
		for _, leaf := range m {
			out = append(out, leaf...)
		}
	}
	slices.SortFunc(out, func(a, b WriteCount) int { return comparePair(a.Kind, a.Key, b.Kind, b.Key) })
	return out
}

// Gaps returns the pairs written raw by at least minRaw Commits and at
// least ratio times as often raw as inside actions: what raw Commits do
// that an action could. They are sorted by Raw, most first, then by
// (Kind, Key).
func (s *State) Gaps(minRaw uint64, ratio float64) []WriteCount {
	var out []WriteCount
	for _, w := range s.Writes() {
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
