package cabinet

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math/bits"
	"os"
)

// preflight checks a cabinet file's bbolt structure before bbolt maps it:
// the meta page bbolt will pick, then every page reachable from it, with
// exactly the rules bbolt's own readers rely on without checking. bbolt
// trusts its file: at Open it rebuilds the free list (we open it with
// NoFreelistSync) by walking every page in a goroutine of its own, where a
// bad page id, page type, element offset or key order panics or faults
// beyond any recover, a cycle of pages recurses until the stack is
// exhausted, and a truncated file faults (SIGBUS) through the mapping.
// Reading the file here with plain reads instead, a damaged file becomes
// ErrDamaged naming it.
//
// What a file that passes guarantees to bbolt (v1.5, internal/common and
// the readers in cursor.go, node.go, bucket.go, tx_check.go, db.go):
//   - the meta page it selects is valid, its page size is the one bbolt
//     uses, and its root, free list and high-water mark lie within the file;
//   - every reachable page lies below the high-water mark with its
//     overflow, names its own id, is a branch or a leaf (FastCheck and the
//     cursor panic on anything else) and is referenced exactly once (no
//     cycles, no page shared by two trees, none also on the free list);
//   - every element header, key and value lies within its page, keys are
//     non-empty (node.read asserts it) and ordered as Tx.Check demands (the
//     Open-time walk panics on any order error), branch pages are not empty;
//   - a bucket value holds a whole bucket header, an inline bucket a whole
//     leaf page with the same element rules, and no inline bucket holds a
//     sub-bucket (its pages would be invisible to the free-list rebuild);
//   - a stored free list is a free-list page whose ids lie within the file.
//
// A missing or empty file passes (bbolt creates it).
func preflight(f *os.File, path string) (fileInfo, error) {
	st, err := f.Stat()
	if err != nil {
		return fileInfo{}, fmt.Errorf("cabinet: %w", err)
	}
	size := st.Size()
	if size == 0 {
		return fileInfo{}, nil
	}
	w := &walker{f: f, size: size}
	info, err := w.run()
	if err != nil {
		var d *damage
		if errors.As(err, &d) {
			return fileInfo{}, fmt.Errorf("%w: %s %s (restore it from a backup)", ErrDamaged, path, d.what)
		}
		return fileInfo{}, fmt.Errorf("cabinet: reading %s: %w", path, err)
	}
	return info, nil
}

// fileInfo is what preflight learnt about a file: enough to decide
// whether compacting it would give space back.
type fileInfo struct {
	size      int64  // bytes in the file
	pageSize  int64  // bbolt's page size
	hwm       uint64 // pages below the high-water mark
	reachable uint64 // of those, pages in use (meta, free list, trees)
}

// damage is a structural fault preflight found.
type damage struct{ what string }

func (d *damage) Error() string { return d.what }

func broken(format string, args ...any) error {
	return &damage{what: fmt.Sprintf(format, args...)}
}

// bbolt's on-disk layout (internal/common/page.go, meta.go, bucket.go).
const (
	pageHeaderSize   = 16 // id u64, flags u16, count u16, overflow u32
	branchElemSize   = 16 // pos u32, ksize u32, pgid u64
	leafElemSize     = 16 // flags u32, pos u32, ksize u32, vsize u32
	bucketHeaderSize = 16 // root pgid u64, sequence u64
	metaSize         = 64 // magic, version, page size, flags, root bucket, free list, pgid, txid, checksum

	pageBranch   = 0x01
	pageLeaf     = 0x02
	pageMeta     = 0x04
	pageFreelist = 0x10
	elemBucket   = 0x01

	boltMagic      = 0xED0CDAED
	boltVersion    = 2
	noFreelist     = ^uint64(0)
	minPageSize    = 1 << 10
	maxPageSize    = 1 << 24 // the largest bbolt looks for a second meta page at
	metaProbeBytes = 0x1000  // bbolt reads this much to find the page size
)

type metaPage struct {
	valid                      bool
	pageSize                   uint64
	root, freelist, pgid, txid uint64
}

// parseMeta reads a meta page's fields from b (the page from its start)
// and validates it as bbolt's Meta.Validate does.
func parseMeta(b []byte) metaPage {
	if len(b) < pageHeaderSize+metaSize {
		return metaPage{}
	}
	m := b[pageHeaderSize : pageHeaderSize+metaSize]
	le := binary.LittleEndian
	h := fnv.New64a()
	h.Write(m[:56])
	return metaPage{
		valid: le.Uint32(m[0:]) == boltMagic && le.Uint32(m[4:]) == boltVersion && h.Sum64() == le.Uint64(m[56:]),
		// m[12:16] flags, m[24:32] root bucket sequence: unused by readers
		pageSize: uint64(le.Uint32(m[8:])),
		root:     le.Uint64(m[16:]),
		freelist: le.Uint64(m[32:]),
		pgid:     le.Uint64(m[40:]),
		txid:     le.Uint64(m[48:]),
	}
}

type walker struct {
	f    io.ReaderAt
	size int64
	ps   uint64
	hwm  uint64
	seen []uint64 // bitmap of pages in use
	free []uint64 // bitmap of pages on a stored free list
	bufs [][]byte // one read buffer per tree depth
}

// readAt reads exactly len(b) bytes at off; bytes past the end of the
// file read as zero, as bbolt's probing sees them.
func (w *walker) readAt(b []byte, off int64) (int, error) {
	clear(b)
	n, err := w.f.ReadAt(b, off)
	if err == io.EOF {
		err = nil
	}
	return n, err
}

// pageSize finds the page size as bbolt's getPageSize does: from the
// first meta page if it is valid, else from the first valid meta page at
// 1 KiB, 2 KiB, … 16 MiB.
func (w *walker) pageSize() (uint64, error) {
	buf := make([]byte, metaProbeBytes)
	if n, err := w.readAt(buf, 0); err != nil {
		return 0, err
	} else if n == len(buf) {
		if m := parseMeta(buf); m.valid {
			return m.pageSize, nil
		}
	}
	for i := 0; i <= 14; i++ {
		pos := int64(1024) << i
		if pos >= w.size-1024 {
			break
		}
		n, err := w.readAt(buf, pos)
		if err != nil {
			return 0, err
		}
		if n == len(buf) || int64(n) == w.size-pos {
			if m := parseMeta(buf); m.valid {
				return m.pageSize, nil
			}
		}
	}
	return 0, broken("is not a cabinet file (no valid bbolt meta page)")
}

func (w *walker) run() (fileInfo, error) {
	ps, err := w.pageSize()
	if err != nil {
		return fileInfo{}, err
	}
	if ps < minPageSize || ps > maxPageSize || ps&(ps-1) != 0 {
		return fileInfo{}, broken("has a meta page with page size %d", ps)
	}
	w.ps = ps
	if uint64(w.size) < 2*ps {
		return fileInfo{}, broken("is truncated: %d bytes, shorter than its two meta pages", w.size)
	}
	// bbolt's DB.meta: the meta page with the higher txid if it is valid,
	// else the other one.
	var m [2]metaPage
	for i := range m {
		buf := make([]byte, pageHeaderSize+metaSize)
		if _, err := w.readAt(buf, int64(uint64(i)*ps)); err != nil {
			return fileInfo{}, err
		}
		m[i] = parseMeta(buf)
	}
	a, b := m[0], m[1]
	if b.txid > a.txid {
		a, b = b, a
	}
	meta := a
	if !a.valid {
		meta = b
	}
	if !meta.valid {
		return fileInfo{}, broken("has no valid bbolt meta page")
	}
	switch {
	case meta.pageSize != ps:
		return fileInfo{}, broken("has meta pages of two page sizes (%d and %d)", ps, meta.pageSize)
	case meta.pgid > uint64(w.size)/ps:
		return fileInfo{}, broken("is truncated: %d bytes, its pages need %d", w.size, meta.pgid*ps)
	case meta.root < 2 || meta.root >= meta.pgid:
		return fileInfo{}, broken("has a root page %d outside its %d pages", meta.root, meta.pgid)
	case meta.freelist != noFreelist && (meta.freelist < 2 || meta.freelist >= meta.pgid):
		return fileInfo{}, broken("has a free-list page %d outside its %d pages", meta.freelist, meta.pgid)
	}
	w.hwm = meta.pgid
	words := (w.hwm + 63) / 64
	w.seen = make([]uint64, words)
	w.mark(0, 0)
	w.mark(1, 0)
	if meta.freelist != noFreelist {
		w.free = make([]uint64, words)
		if err := w.freelist(meta.freelist); err != nil {
			return fileInfo{}, err
		}
	}
	if err := w.bucket(meta.root); err != nil {
		return fileInfo{}, err
	}
	var n uint64
	for _, x := range w.seen {
		n += uint64(bits.OnesCount64(x))
	}
	return fileInfo{size: w.size, pageSize: int64(ps), hwm: w.hwm, reachable: n}, nil
}

// mark records pages id … id+overflow as in use; false if one already was
// (or is on the stored free list).
func (w *walker) mark(id uint64, overflow uint32) bool {
	for p := id; p <= id+uint64(overflow); p++ {
		bit := uint64(1) << (p % 64)
		if w.seen[p/64]&bit != 0 || (w.free != nil && w.free[p/64]&bit != 0) {
			return false
		}
		w.seen[p/64] |= bit
	}
	return true
}

// page reads page id and its overflow pages into the buffer for depth,
// after checking its header.
func (w *walker) page(id uint64, depth int) ([]byte, error) {
	if id < 2 || id >= w.hwm {
		return nil, broken("refers to page %d outside its %d pages", id, w.hwm)
	}
	for len(w.bufs) <= depth {
		w.bufs = append(w.bufs, make([]byte, w.ps))
	}
	buf := w.bufs[depth][:w.ps]
	if _, err := w.readAt(buf, int64(id*w.ps)); err != nil {
		return nil, err
	}
	le := binary.LittleEndian
	overflow := le.Uint32(buf[12:])
	switch {
	case le.Uint64(buf[0:]) != id:
		return nil, broken("has page %d naming itself %d", id, le.Uint64(buf[0:]))
	case uint64(overflow) >= w.hwm-id:
		return nil, broken("has page %d overflowing past its %d pages", id, w.hwm)
	case !w.mark(id, overflow):
		return nil, broken("has page %d in use twice", id)
	}
	if overflow > 0 {
		n := (uint64(overflow) + 1) * w.ps
		if uint64(cap(w.bufs[depth])) < n {
			w.bufs[depth] = make([]byte, n)
		}
		buf = w.bufs[depth][:n]
		if _, err := w.readAt(buf, int64(id*w.ps)); err != nil {
			return nil, err
		}
	}
	return buf, nil
}

// freelist checks a stored free-list page and records its ids.
func (w *walker) freelist(id uint64) error {
	p, err := w.page(id, 0)
	if err != nil {
		return err
	}
	le := binary.LittleEndian
	if flags := le.Uint16(p[8:]); flags != pageFreelist {
		return broken("has free-list page %d of type %#x", id, flags)
	}
	start, count := uint64(0), uint64(le.Uint16(p[10:]))
	if count == 0xFFFF { // the count is the first element
		start, count = 1, le.Uint64(p[pageHeaderSize:])
	}
	if count > (uint64(len(p))-pageHeaderSize)/8-start {
		return broken("has free-list page %d listing %d ids past its end", id, count)
	}
	for i := start; i < start+count; i++ {
		fid := le.Uint64(p[pageHeaderSize+8*i:])
		bit := uint64(1) << (fid % 64)
		switch {
		case fid < 2 || fid >= w.hwm:
			return broken("has free-list page %d listing page %d outside its %d pages", id, fid, w.hwm)
		case w.free[fid/64]&bit != 0 || w.seen[fid/64]&bit != 0:
			return broken("has free-list page %d listing page %d twice or in use", id, fid)
		}
		w.free[fid/64] |= bit
	}
	return nil
}

// bucket checks the tree of a (non-inline) bucket rooted at page root,
// then the trees of its sub-buckets.
func (w *walker) bucket(root uint64) error {
	todo := []uint64{root}
	for len(todo) > 0 {
		r := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if _, err := w.node(r, nil, nil, 0, &todo); err != nil {
			return err
		}
	}
	return nil
}

// node checks page id of a bucket's tree and, for a branch, its subtree:
// every key k must satisfy lo <= k < hi (nil: unbounded), in the order
// Tx.Check verifies. It returns the subtree's largest key (a copy) and
// queues the roots of sub-buckets found in its leaves.
func (w *walker) node(id uint64, lo, hi []byte, depth int, buckets *[]uint64) ([]byte, error) {
	p, err := w.page(id, depth)
	if err != nil {
		return nil, err
	}
	le := binary.LittleEndian
	flags, count := le.Uint16(p[8:]), int(le.Uint16(p[10:]))
	switch flags {
	case pageBranch:
		if count == 0 {
			return nil, broken("has an empty branch page %d", id)
		}
		keys, err := elements(p, count, branchElemSize, false)
		if err != nil {
			return nil, broken("has branch page %d %v", id, err)
		}
		running := lo
		var last []byte
		for i, k := range keys {
			if err := keyOrder(i, k, running, hi); err != nil {
				return nil, broken("has branch page %d %v", id, err)
			}
			next := hi
			if i+1 < len(keys) {
				next = keys[i+1]
			}
			child := le.Uint64(p[pageHeaderSize+i*branchElemSize+8:])
			if last, err = w.node(child, k, next, depth+1, buckets); err != nil {
				return nil, err
			}
			running = last
		}
		return last, nil
	case pageLeaf:
		keys, err := elements(p, count, leafElemSize, true)
		if err != nil {
			return nil, broken("has leaf page %d %v", id, err)
		}
		running := lo
		for i, k := range keys {
			if err := keyOrder(i, k, running, hi); err != nil {
				return nil, broken("has leaf page %d %v", id, err)
			}
			running = k
			root, err := bucketValue(p, i)
			if err != nil {
				return nil, broken("has leaf page %d %v", id, err)
			}
			if root != 0 {
				*buckets = append(*buckets, root)
			}
		}
		if len(keys) == 0 {
			return nil, nil
		}
		return bytes.Clone(keys[len(keys)-1]), nil
	}
	return nil, broken("has page %d of type %#x where a branch or leaf belongs", id, flags)
}

// elements checks that count element headers of size elem, and the key
// (and value, for a leaf) each points at, lie within page p, and that no
// key is empty; it returns the keys.
func elements(p []byte, count, elem int, leaf bool) ([][]byte, error) {
	if pageHeaderSize+count*elem > len(p) {
		return nil, broken("holds %d elements, more than fit", count)
	}
	le := binary.LittleEndian
	keys := make([][]byte, count)
	for i := range count {
		at := uint64(pageHeaderSize + i*elem)
		var pos, ksize, vsize uint64
		if leaf {
			pos, ksize, vsize = uint64(le.Uint32(p[at+4:])), uint64(le.Uint32(p[at+8:])), uint64(le.Uint32(p[at+12:]))
		} else {
			pos, ksize = uint64(le.Uint32(p[at:])), uint64(le.Uint32(p[at+4:]))
		}
		if at+pos+ksize+vsize > uint64(len(p)) {
			return nil, broken("element %d runs past the page", i)
		}
		if ksize == 0 {
			return nil, broken("element %d has an empty key", i)
		}
		keys[i] = p[at+pos : at+pos+ksize]
	}
	return keys, nil
}

// keyOrder is bbolt's verifyKeyOrder: the first key of a page is at least
// the key its parent holds for it, every other key is above the one before,
// and all are below the parent's next key.
func keyOrder(i int, k, prev, hi []byte) error {
	if i == 0 && prev != nil && bytes.Compare(prev, k) > 0 {
		return broken("key %d sorts before its parent's key", i)
	}
	if i > 0 && bytes.Compare(prev, k) >= 0 {
		return broken("key %d does not sort after key %d", i, i-1)
	}
	if hi != nil && bytes.Compare(k, hi) >= 0 {
		return broken("key %d does not sort before its parent's next key", i)
	}
	return nil
}

// bucketValue checks leaf element i of p if it is a bucket: its value
// must hold a bucket header and, for an inline bucket (root 0), a whole
// leaf page without sub-buckets. It returns the bucket's root page (0
// for an inline bucket or a plain value).
func bucketValue(p []byte, i int) (uint64, error) {
	le := binary.LittleEndian
	at := pageHeaderSize + i*leafElemSize
	if le.Uint32(p[at:])&elemBucket == 0 {
		return 0, nil
	}
	start := uint64(at) + uint64(le.Uint32(p[at+4:])) + uint64(le.Uint32(p[at+8:]))
	v := p[start : start+uint64(le.Uint32(p[at+12:]))]
	if len(v) < bucketHeaderSize {
		return 0, broken("element %d is a bucket of %d bytes, shorter than its header", i, len(v))
	}
	if root := le.Uint64(v); root != 0 {
		return root, nil
	}
	inline := v[bucketHeaderSize:]
	if len(inline) < pageHeaderSize {
		return 0, broken("element %d is an inline bucket of %d bytes, shorter than its page", i, len(v))
	}
	if flags := le.Uint16(inline[8:]); flags != pageLeaf {
		return 0, broken("element %d is an inline bucket of page type %#x", i, flags)
	}
	count := int(le.Uint16(inline[10:]))
	keys, err := elements(inline, count, leafElemSize, true)
	if err != nil {
		return 0, broken("element %d is an inline bucket whose %v", i, err)
	}
	for j, k := range keys {
		if j > 0 && bytes.Compare(keys[j-1], k) >= 0 {
			return 0, broken("element %d is an inline bucket whose keys are out of order", i)
		}
		if le.Uint32(inline[pageHeaderSize+j*leafElemSize:])&elemBucket != 0 {
			return 0, broken("element %d is an inline bucket holding a bucket", i)
		}
	}
	return 0, nil
}
