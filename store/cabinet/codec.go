package cabinet

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"sort"
	"time"

	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/values"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Every record (entry, meta, snapshot, snapshot head) is: a 4-byte magic,
// the payload, a 4-byte big-endian CRC-32C of magic+payload.
var (
	magicEntry = []byte("GFL1")
	magicMeta  = []byte("GFM1")
	magicSnap  = []byte("GFS1")
	magicHead  = []byte("GFH1")
	magicAttn  = []byte("GFA1")
)

func seal(b []byte) []byte {
	return binary.BigEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

// unseal checks magic and CRC and returns the payload.
func unseal(b, magic []byte) ([]byte, error) {
	if len(b) < len(magic)+4 || string(b[:len(magic)]) != string(magic) {
		return nil, errors.New("bad record header")
	}
	n := len(b) - 4
	if crc32.Checksum(b[:n], castagnoli) != binary.BigEndian.Uint32(b[n:]) {
		return nil, errors.New("checksum mismatch")
	}
	return b[len(magic):n], nil
}

// reader decodes a payload; the first error sticks.
type reader struct {
	b   []byte
	err error
}

func (r *reader) fail(what string) {
	if r.err == nil {
		r.err = fmt.Errorf("truncated or malformed %s", what)
	}
}

func (r *reader) uvarint() uint64 { return readInt(r, binary.Uvarint) }

func (r *reader) varint() int64 { return readInt(r, binary.Varint) }

// readInt reads one varint with decode, failing the reader on a bad one.
func readInt[T uint64 | int64](r *reader, decode func([]byte) (T, int)) T {
	if r.err != nil {
		return 0
	}
	v, n := decode(r.b)
	if n <= 0 {
		r.fail("integer")
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) count() int {
	n := r.uvarint()
	if n > uint64(len(r.b)) { // every counted item takes at least one byte
		r.fail("count")
		return 0
	}
	return int(n)
}

func (r *reader) u64() uint64 {
	if r.err != nil {
		return 0
	}
	if len(r.b) < 8 {
		r.fail("word")
		return 0
	}
	v := binary.BigEndian.Uint64(r.b)
	r.b = r.b[8:]
	return v
}

func (r *reader) byte1() byte {
	if r.err != nil {
		return 0
	}
	if len(r.b) < 1 {
		r.fail("byte")
		return 0
	}
	v := r.b[0]
	r.b = r.b[1:]
	return v
}

func (r *reader) str() string {
	n := r.uvarint()
	if r.err != nil {
		return ""
	}
	if n > uint64(len(r.b)) {
		r.fail("string")
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

// istr reads a string like str, returning the copy held in intern (and
// allocating only for a string not seen before).
func (r *reader) istr(intern map[string]string) string {
	n := r.uvarint()
	if r.err != nil {
		return ""
	}
	if n > uint64(len(r.b)) {
		r.fail("string")
		return ""
	}
	b := r.b[:n]
	r.b = r.b[n:]
	if s, ok := intern[string(b)]; ok {
		return s
	}
	s := string(b)
	intern[s] = s
	return s
}

func appendStr(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// AppendValue appends the canonical binary encoding of v: a kind byte,
// then nothing (NULL), one byte (BOOLEAN), a zig-zag varint (INTEGER), the
// 8 IEEE bytes (FLOAT, exact: -0 stays -0), the text (STRING, DATE,
// DATETIME) or the count and elements (LIST). v must pass store's
// Value.Check, as every value a Commit accepts does: the decoder refuses
// lists nested deeper than values.MaxNesting, so a deeper one written here
// would make its session unreadable.
func AppendValue(b []byte, v values.Value) []byte {
	b = append(b, byte(v.Kind()))
	switch v.Kind() {
	case values.KindBool:
		if v.AsBool() {
			b = append(b, 1)
		} else {
			b = append(b, 0)
		}
	case values.KindInt:
		b = binary.AppendVarint(b, v.AsInt())
	case values.KindFloat:
		b = binary.BigEndian.AppendUint64(b, math.Float64bits(v.AsFloat()))
	case values.KindString, values.KindDate, values.KindDateTime:
		b = appendStr(b, v.AsString())
	case values.KindList:
		l := v.AsList()
		b = binary.AppendUvarint(b, uint64(len(l)))
		for _, e := range l {
			b = AppendValue(b, e)
		}
	}
	return b
}

// value reads one value whose enclosing lists are depth deep, refusing a
// list nested deeper than values.MaxNesting (no Commit writes one), so a
// damaged record cannot recurse without bound.
func (r *reader) value(depth int) values.Value {
	switch k := values.ValueKind(r.byte1()); k {
	case values.KindNull:
		return values.Null()
	case values.KindBool:
		return values.Bool(r.byte1() != 0)
	case values.KindInt:
		return values.Int(r.varint())
	case values.KindFloat:
		return values.Float(math.Float64frombits(r.u64()))
	case values.KindString:
		return values.String(r.str())
	case values.KindDate:
		return values.DateValue(r.str())
	case values.KindDateTime:
		return values.DateTimeValue(r.str())
	case values.KindList:
		if depth >= values.MaxNesting {
			r.fail("value (lists nested too deep)")
			return values.Null()
		}
		n := r.count()
		l := make([]values.Value, 0, n)
		for i := 0; i < n && r.err == nil; i++ {
			l = append(l, r.value(depth+1))
		}
		return values.List(l...)
	default:
		r.fail("value kind")
		return values.Null()
	}
}

func appendProps(b []byte, p values.Props) []byte {
	b = binary.AppendUvarint(b, uint64(len(p)))
	for _, pr := range p {
		b = appendStr(b, pr.Key)
		b = AppendValue(b, pr.Val)
	}
	return b
}

// props reads properties, their keys interned in intern, into windows of
// a shared arena (*arena; one allocation per many nodes).
func (r *reader) props(intern map[string]string, arena *[]values.Prop) values.Props {
	n := r.count()
	if n == 0 {
		return nil
	}
	a := *arena
	if cap(a)-len(a) < n {
		a = make([]values.Prop, 0, max(n, 1024))
	}
	start := len(a)
	for i := 0; i < n && r.err == nil; i++ {
		k := r.istr(intern)
		a = append(a, values.Prop{Key: k, Val: r.value(0)})
	}
	*arena = a
	return a[start:len(a):len(a)]
}

// EncodeEntry encodes a log entry; parameters in name order.
func EncodeEntry(e Entry) []byte {
	b := append(make([]byte, 0, 64+len(e.Text)), magicEntry...)
	b = binary.BigEndian.AppendUint64(b, e.Version)
	b = append(b, byte(e.Kind), e.Mint)
	b = binary.AppendVarint(b, e.Time.UnixNano())
	b = appendStr(b, e.Text)
	names := make([]string, 0, len(e.Params))
	for k := range e.Params {
		names = append(names, k)
	}
	sort.Strings(names)
	b = binary.AppendUvarint(b, uint64(len(names)))
	for _, k := range names {
		b = appendStr(b, k)
		b = AppendValue(b, e.Params[k])
	}
	if e.Agent != "" {
		b = appendStr(b, e.Agent)
	}
	if z := compressEntry(b); z != nil {
		return z
	}
	return seal(b)
}

// DecodeEntry decodes and checks a log entry.
func DecodeEntry(b []byte) (Entry, error) {
	var p []byte
	var err error
	if bytes.HasPrefix(b, magicEntryZ) {
		p, err = inflateEntry(b)
	} else {
		p, err = unseal(b, magicEntry)
	}
	if err != nil {
		return Entry{}, err
	}
	r := &reader{b: p}
	e := Entry{Version: r.u64(), Kind: EntryKind(r.byte1()), Mint: r.byte1()}
	e.Time = time.Unix(0, r.varint()).UTC()
	e.Text = r.str()
	if n := r.count(); n > 0 {
		e.Params = make(map[string]values.Value, n)
		for i := 0; i < n && r.err == nil; i++ {
			k := r.str()
			e.Params[k] = r.value(0)
		}
	}
	if r.err == nil && len(r.b) != 0 {
		e.Agent = r.str() // absent in entries written before agents were kept
	}
	if r.err == nil && len(r.b) != 0 {
		r.fail("entry (trailing bytes)")
	}
	if r.err == nil && e.Kind != EntryDelta && e.Kind != EntryPurge && e.Kind != EntryAbsorb {
		r.fail("entry kind")
	}
	return e, r.err
}

func encodeMeta(m Meta) []byte {
	b := append([]byte(nil), magicMeta...)
	b = appendStr(b, m.Name)
	b = binary.BigEndian.AppendUint64(b, m.Version)
	b = binary.AppendUvarint(b, uint64(m.Nodes))
	b = binary.AppendUvarint(b, uint64(m.Edges))
	b = binary.AppendUvarint(b, uint64(m.Recycled))
	b = binary.AppendVarint(b, m.LastCommit.UnixNano())
	b = binary.AppendUvarint(b, uint64(len(m.Kinds)))
	for _, k := range m.Kinds {
		b = appendStr(b, k.Kind)
		b = binary.AppendUvarint(b, uint64(k.Count))
	}
	return seal(b)
}

func decodeMeta(b []byte) (Meta, error) {
	p, err := unseal(b, magicMeta)
	if err != nil {
		return Meta{}, err
	}
	r := &reader{b: p}
	m := Meta{Name: r.str(), Version: r.u64(), Nodes: int(r.uvarint()), Edges: int(r.uvarint()), Recycled: int(r.uvarint())}
	if t := r.varint(); t != 0 {
		m.LastCommit = time.Unix(0, t).UTC()
	}
	n := r.count()
	for i := 0; i < n && r.err == nil; i++ {
		m.Kinds = append(m.Kinds, KindCount{Kind: r.str(), Count: int(r.uvarint())})
	}
	return m, r.err
}

const flagRecycled = 1

// EncodeSnapshot encodes every node and edge of snap, live and recycled,
// with engine ids, plus the version, the next counter id and the
// snapshot's extension state (the vocabulary), in that order.
func EncodeSnapshot(snap *store.Snapshot) []byte {
	b := append(make([]byte, 0, 1<<16), magicSnap...)
	b = binary.BigEndian.AppendUint64(b, snap.Version())
	b = binary.BigEndian.AppendUint64(b, uint64(snap.NextID()))
	var nodes, edges int
	snap.ScanAllNodes(func(*store.Node) bool { nodes++; return true })
	snap.ScanAllEdges(func(*store.Edge) bool { edges++; return true })
	b = binary.AppendUvarint(b, uint64(nodes))
	snap.ScanAllNodes(func(n *store.Node) bool {
		b = binary.AppendUvarint(b, uint64(n.ID))
		b = append(b, flag(n.Recycled))
		b = binary.AppendUvarint(b, uint64(len(n.Labels)))
		for _, l := range n.Labels {
			b = appendStr(b, l)
		}
		b = appendProps(b, n.Props)
		return true
	})
	b = binary.AppendUvarint(b, uint64(edges))
	snap.ScanAllEdges(func(e *store.Edge) bool {
		b = binary.AppendUvarint(b, uint64(e.ID))
		b = append(b, flag(e.Recycled))
		b = appendStr(b, e.Type)
		b = binary.AppendUvarint(b, uint64(e.From))
		b = binary.AppendUvarint(b, uint64(e.To))
		b = appendProps(b, e.Props)
		return true
	})
	var ext []byte
	if x := snap.Ext(); x != nil {
		ext = x.AppendExt(nil)
	}
	b = binary.AppendUvarint(b, uint64(len(ext)))
	b = append(b, ext...)
	return seal(b)
}

func flag(recycled bool) byte {
	if recycled {
		return flagRecycled
	}
	return 0
}

// DecodeSnapshot checks a snapshot and restores it as a graph whose
// published snapshot has the same version, elements (ids, labels,
// properties, recycled flags) and next counter id, and its extension
// state still encoded (a store.RawExt, for its owner to decode).
func DecodeSnapshot(b []byte) (*store.Graph, error) {
	p, err := unseal(b, magicSnap)
	if err != nil {
		return nil, err
	}
	r := &reader{b: p}
	version, nextID := r.u64(), store.ID(r.u64())
	nn := r.count()
	nslab := make([]store.Node, nn)
	nodes := make([]*store.Node, 0, nn)
	intern := map[string]string{} // labels, edge types, property keys
	var arena []values.Prop
	// Every node's labels in one array; a node's Labels is set to its
	// window once the array no longer moves.
	var labels []string
	labelEnd := make([]int, 0, nn)
	for i := 0; i < nn && r.err == nil; i++ {
		n := &nslab[i]
		n.ID, n.Recycled = store.ID(r.uvarint()), r.byte1()&flagRecycled != 0
		nl := r.count()
		for j := 0; j < nl && r.err == nil; j++ {
			labels = append(labels, r.istr(intern))
		}
		labelEnd = append(labelEnd, len(labels))
		n.Props = r.props(intern, &arena)
		nodes = append(nodes, n)
	}
	for i, end := range labelEnd {
		start := 0
		if i > 0 {
			start = labelEnd[i-1]
		}
		nodes[i].Labels = labels[start:end:end]
	}
	ne := r.count()
	eslab := make([]store.Edge, ne)
	edges := make([]*store.Edge, 0, ne)
	for i := 0; i < ne && r.err == nil; i++ {
		e := &eslab[i]
		e.ID, e.Recycled = store.ID(r.uvarint()), r.byte1()&flagRecycled != 0
		e.Type = r.istr(intern)
		e.From, e.To = store.ID(r.uvarint()), store.ID(r.uvarint())
		e.Props = r.props(intern, &arena)
		edges = append(edges, e)
	}
	var ext []byte
	if r.err == nil && len(r.b) > 0 { // absent in a snapshot of the first format, migrated as it was
		if n := r.count(); n > 0 && r.err == nil {
			ext, r.b = append([]byte(nil), r.b[:n]...), r.b[n:]
		}
	}
	if r.err == nil && len(r.b) != 0 {
		r.fail("snapshot (trailing bytes)")
	}
	if r.err != nil {
		return nil, r.err
	}
	if version == 0 {
		if nn+ne+len(ext) > 0 {
			return nil, errors.New("snapshot at version 0 holds elements")
		}
		return store.New(), nil
	}
	g, err := store.Restore(version, uint64(nextID), nodes, edges)
	if err != nil {
		return nil, fmt.Errorf("restoring: %w", err)
	}
	if ext != nil {
		g.SetExt(store.RawExt(ext))
	}
	return g, nil
}

// snapHead describes a stored snapshot: the snapshot record (as
// EncodeSnapshot writes it) is cut into chunks, stored under their
// numbers 0 … chunks-1 beside the head.
type snapHead struct {
	version uint64 // the snapshot's version
	chunks  uint64 // number of chunks
	size    uint64 // bytes of the snapshot record, all chunks together
}

func encodeHead(h snapHead) []byte {
	b := append([]byte(nil), magicHead...)
	b = binary.BigEndian.AppendUint64(b, h.version)
	b = binary.AppendUvarint(b, h.chunks)
	b = binary.AppendUvarint(b, h.size)
	return seal(b)
}

func decodeHead(b []byte) (snapHead, error) {
	p, err := unseal(b, magicHead)
	if err != nil {
		return snapHead{}, err
	}
	r := &reader{b: p}
	h := snapHead{version: r.u64(), chunks: r.uvarint(), size: r.uvarint()}
	if r.err == nil && len(r.b) != 0 {
		r.fail("snapshot head (trailing bytes)")
	}
	return h, r.err
}

// sealChunk appends to the chunk's bytes a CRC-32C of them together with
// the snapshot version and chunk number, so that a chunk of another
// snapshot, or from another place, fails its check.
func sealChunk(version, n uint64, p []byte) []byte {
	return binary.BigEndian.AppendUint32(append(make([]byte, 0, len(p)+4), p...), chunkCRC(version, n, p))
}

// openChunk checks a sealed chunk and returns its bytes.
func openChunk(version, n uint64, b []byte) ([]byte, error) {
	if len(b) < 4 {
		return nil, errors.New("chunk too short")
	}
	p := b[:len(b)-4]
	if chunkCRC(version, n, p) != binary.BigEndian.Uint32(b[len(p):]) {
		return nil, errors.New("checksum mismatch")
	}
	return p, nil
}

func chunkCRC(version, n uint64, p []byte) uint32 {
	var id [16]byte
	binary.BigEndian.PutUint64(id[:], version)
	binary.BigEndian.PutUint64(id[8:], n)
	return crc32.Update(crc32.Checksum(id[:], castagnoli), castagnoli, p)
}

// sealAttention wraps a session's attention record (the root package's
// own encoding) with a magic and a CRC.
func sealAttention(data []byte) []byte {
	return seal(append(append(make([]byte, 0, len(magicAttn)+len(data)+4), magicAttn...), data...))
}

// openAttention checks an attention record and returns what it holds.
func openAttention(b []byte) ([]byte, error) {
	p, err := unseal(b, magicAttn)
	if err != nil {
		return nil, err
	}
	return bytes.Clone(p), nil
}
