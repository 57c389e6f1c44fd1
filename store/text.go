package store

import (
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/goldfish-gql/goldfish/values"
)

// ---- text index: trigrams of string values, for the keyword token ------
//
// A keyword seed (n CONTAINS 'word') matches a node when one of its string
// values contains the word, ignoring case. Without an index that is a scan
// of the whole session. The text index maps each trigram of the
// lower-cased string values (list elements included) to the ascending
// slots of the nodes holding it; the nodes holding every trigram of a word
// are a superset of its matches, which the caller then tests exactly.
//
// The index is built from one published snapshot, in the background, when
// a keyword seed first needs it (that seed and those until the build ends
// scan, as they would without an index; BuildTextIndex builds in the
// caller), and serves that version and every later one: the
// nodes inserted or changed since (the state's change log, a list of
// slots) are added to every candidate list, and stale postings are
// harmless because candidates are tested against the snapshot's own
// records. When the log since the build outgrows textRebuildAfter, a
// keyword seed starts a rebuild and meanwhile uses the old index with the
// longer log. A snapshot older than the index scans.

// textRebuildAfter bounds the changed nodes a keyword seed tests besides
// the index's candidates before it rebuilds the index.
var textRebuildAfter = 4096 // a variable so tests can exercise rebuilds

type textIndex struct {
	version uint64 // the snapshot it was built from
	logLen  int    // len of that snapshot's change log
	live    int    // live nodes indexed
	post    map[uint32][]uint32
}

// textHolder is shared by every state of one graph.
type textHolder struct {
	mu       sync.Mutex    // guards building
	building chan struct{} // closed when the build in flight ends; nil when none
	idx      atomic.Pointer[textIndex]
}

// start builds the index from s in the background unless a build is in
// flight or an index of s or a later version exists.
func (h *textHolder) start(s *Snapshot) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if idx := h.idx.Load(); h.building != nil || (idx != nil && idx.version >= s.version) {
		return
	}
	done := make(chan struct{})
	h.building = done
	go func() {
		h.publish(buildText(s), done)
		close(done)
	}()
}

// publish keeps idx unless a later one is kept; build is the channel of
// the background build that made it (nil for BuildTextIndex).
func (h *textHolder) publish(idx *textIndex, build chan struct{}) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if old := h.idx.Load(); old == nil || old.version < idx.version {
		h.idx.Store(idx)
	}
	if build != nil && h.building == build {
		h.building = nil
	}
}

// wait returns once no build is in flight.
func (h *textHolder) wait() {
	h.mu.Lock()
	b := h.building
	h.mu.Unlock()
	if b != nil {
		<-b
	}
}

// BuildTextIndex builds the keyword index from s now, in the caller (after
// a bulk load, say), unless one of s or a later version exists; it waits
// for a build in flight first. A no-op on a Tx's working view.
func (s *Snapshot) BuildTextIndex() {
	h := s.st.text
	if s.working || h == nil {
		return
	}
	h.wait()
	if idx := h.idx.Load(); idx != nil && idx.version >= s.version {
		return
	}
	h.publish(buildText(s), nil)
}

// trigram packs three bytes.
func trigram(b []byte) uint32 { return uint32(b[0])<<16 | uint32(b[1])<<8 | uint32(b[2]) }

func buildText(s *Snapshot) *textIndex {
	idx := &textIndex{version: s.version, logLen: len(s.st.changed), post: map[uint32][]uint32{}}
	var buf []byte
	for slot := uint32(1); slot <= s.st.nslots; slot++ {
		r := s.st.rec(slot)
		if r == nil || r.n == nil || r.n.Recycled {
			continue
		}
		idx.live++
		for _, p := range r.n.Props {
			buf = idx.addValue(buf, p.Val, slot)
		}
	}
	return idx
}

func (idx *textIndex) addValue(buf []byte, v values.Value, slot uint32) []byte {
	switch v.Kind() {
	case values.KindString:
		buf = appendFolded(buf[:0], v.AsString())
		for i := 0; i+3 <= len(buf); i++ {
			t := trigram(buf[i:])
			// Slots arrive in ascending order, so a repeat is the last.
			if p := idx.post[t]; len(p) == 0 || p[len(p)-1] != slot {
				idx.post[t] = append(p, slot)
			}
		}
	case values.KindList:
		for _, e := range v.AsList() {
			buf = idx.addValue(buf, e, slot)
		}
	}
	return buf
}

// appendFolded appends s lower-cased the way the keyword test folds it.
func appendFolded(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return append(b, strings.ToLower(s)...)
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	return b
}

// TextCandidates returns, in canonical order (as ScanNodes), the live
// nodes of s whose string values may contain word ignoring case: every
// node that does is among them, so the caller tests each. It returns
// false when the index cannot narrow the search: a word under three
// bytes, a word whose rarest trigram is in more than an eighth of the
// nodes (a scan in canonical order meets its matches soon), a Tx's
// working view, or a snapshot older than the index. Then the caller scans.
func (s *Snapshot) TextCandidates(word string) ([]*Node, bool) {
	w := appendFolded(nil, word)
	if len(w) < 3 || s.working || s.st.text == nil {
		return nil, false
	}
	idx := s.st.text.idx.Load()
	if idx == nil {
		s.st.text.start(s)
		return nil, false
	}
	if idx.version > s.version {
		return nil, false
	}
	if len(s.st.changed)-idx.logLen > textRebuildAfter {
		s.st.text.start(s)
	}
	lists := make([][]uint32, 0, len(w)-2)
	for i := 0; i+3 <= len(w); i++ {
		lists = append(lists, idx.post[trigram(w[i:])])
	}
	slices.SortFunc(lists, func(a, b []uint32) int { return len(a) - len(b) })
	if len(lists[0]) > max(1024, idx.live/8) {
		return nil, false
	}
	slots := intersectSorted(lists)
	slots = append(slots, s.st.changed[idx.logLen:]...)
	slices.Sort(slots)
	slots = slices.Compact(slots)
	out := make([]*Node, 0, len(slots))
	for _, slot := range slots {
		if r := s.st.rec(slot); r != nil && r.n != nil && !r.n.Recycled {
			out = append(out, r.n)
		}
	}
	slices.SortFunc(out, func(a, b *Node) int {
		if nodeLess(a, b) {
			return -1
		}
		if nodeLess(b, a) {
			return 1
		}
		return 0
	})
	return out, true
}

// intersectSorted returns the values in every list (lists[0] the
// shortest), each list ascending.
func intersectSorted(lists [][]uint32) []uint32 {
	out := slices.Clone(lists[0])
	for _, l := range lists[1:] {
		k, lo := 0, 0
		for _, v := range out {
			i, found := slices.BinarySearch(l[lo:], v)
			lo += i
			if found {
				out[k] = v
				k++
			}
		}
		out = out[:k]
		if k == 0 {
			break
		}
	}
	return out
}
