package shapewalk

import "github.com/goldfish-gql/goldfish/store"

// The walk's small tables: node slot to position in the Shape, the edges
// already in it, and membership bits that answer most lookups without a
// probe.

// idSet maps ids to int32 values for the length of one walk. An entry
// belongs to the walk whose generation it carries, so starting a walk
// costs a counter increment, not a clear of the table.
type idSet struct {
	ents []idEnt
	gen  uint32
	mask int
}

type idEnt struct {
	key store.ID
	val int32
	gen uint32 // the walk that wrote the entry; another walk's is empty
}

func (s *idSet) init(capacity int) {
	size := 16
	for size < 2*capacity+2 {
		size <<= 1
	}
	s.gen++
	if cap(s.ents) < size || s.gen == 0 {
		s.ents = make([]idEnt, size)
		s.gen = 1
	}
	s.ents = s.ents[:size]
	s.mask = size - 1
}

func (s *idSet) get(id store.ID) (int32, bool) {
	for i := int(mix(uint64(id))) & s.mask; ; i = (i + 1) & s.mask {
		e := &s.ents[i]
		if e.gen != s.gen {
			return -1, false
		}
		if e.key == id {
			return e.val, true
		}
	}
}

func (s *idSet) put(id store.ID, v int32) {
	for i := int(mix(uint64(id))) & s.mask; ; i = (i + 1) & s.mask {
		e := &s.ents[i]
		if e.gen != s.gen || e.key == id {
			*e = idEnt{key: id, val: v, gen: s.gen}
			return
		}
	}
}

func bloomBit(id store.ID) uint64 { return 1 << (mix(uint64(id)) >> 58) }

// edgeKey identifies an edge within one snapshot by its record
// (store.Edge.RecordKey): both adjacency entries of an edge hold the same
// record, and using it spares loading the record for its id.
func edgeKey(e *store.Edge) store.ID { return store.ID(e.RecordKey()) }

// index returns the position in nodes of the node in slot. Most slots a
// walk asks about (neighbours of Shape nodes) are not in the Shape: the
// member bitmap answers for nearly all of them without a table probe.
func (w *walker) index(slot uint32) (int32, bool) {
	if w.member[slot>>6&7]&(1<<(slot&63)) == 0 {
		return -1, false
	}
	return w.slotSet.get(slotKey(slot))
}

// slotKey maps a node slot into the idSet key space.
func slotKey(slot uint32) store.ID { return store.ID(slot) }
