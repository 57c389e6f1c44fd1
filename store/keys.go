package store

import (
	"encoding/binary"

	"github.com/cespare/xxhash/v2"

	"github.com/goldfish-gql/goldfish/values"
)

// Keys derived from content: deterministic ingest ids, and the
// observable key that orders nodes.

// DeterministicNodeID is the ingest id of a node: xxhash of
// (kind, 0x00, loc) with the top bit set.
func DeterministicNodeID(kind, loc string) ID {
	d := xxhash.New()
	d.WriteString(kind)
	d.Write([]byte{0})
	d.WriteString(loc)
	return ID(d.Sum64()) | DeterministicBit
}

// DeterministicEdgeID is the ingest id of an edge: xxhash of (from as 8
// big-endian bytes, typ, 0x00, to as 8 big-endian bytes) with the top bit
// set.
func DeterministicEdgeID(from ID, typ string, to ID) ID {
	var b [8]byte
	d := xxhash.New()
	binary.BigEndian.PutUint64(b[:], uint64(from))
	d.Write(b[:])
	d.WriteString(typ)
	d.Write([]byte{0})
	binary.BigEndian.PutUint64(b[:], uint64(to))
	d.Write(b[:])
	return ID(d.Sum64()) | DeterministicBit
}

const (
	propsKeyMax    = 72 // props part kept verbatim up to this many bytes
	propsKeyPrefix = 64 // otherwise: this many bytes + 8-byte xxhash
)

// appendObsPrefix appends kind and props parts of the observable key.
func appendObsPrefix(b []byte, kind string, props values.Props) []byte {
	b = values.AppendKeyString(b, kind)
	start := len(b)
	b = values.AppendPropsKey(b, props)
	if len(b)-start > propsKeyMax {
		h := xxhash.Sum64(b[start:])
		b = binary.BigEndian.AppendUint64(b[:start+propsKeyPrefix], h)
	}
	return b
}

func appendObservableKey(b []byte, labels []string, props values.Props) []byte {
	kind := ""
	if len(labels) > 0 {
		kind = labels[0]
	}
	b = appendObsPrefix(b, kind, props)
	var arr [8]string
	for _, l := range values.SortedExtraLabels(arr[:0], labels) {
		b = values.AppendKeyString(b, l)
	}
	return b
}

func observableKey(labels []string, props values.Props) string {
	return string(appendObservableKey(nil, labels, props))
}
