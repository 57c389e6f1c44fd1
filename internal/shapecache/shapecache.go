// Package shapecache keeps computed Shapes by their exact key: the
// session's incarnation and version, the token, its parameter values and
// every option of the Recall. A Commit moves the version and a dropped
// session's successor has another incarnation, so older entries become
// unreachable, never stale.
package shapecache

import (
	"bytes"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/dgraph-io/ristretto/v2"

	"github.com/goldfish-gql/goldfish/exec"
)

// shapeBatch is how many Shapes a Cache hands ristretto at a time.
const shapeBatch = 32

// Cache caches Recall results (ristretto) and hands them to ristretto in
// batches. ristretto takes each Set through a channel that its policy
// goroutine reads; when that goroutine is parked, the send wakes it, and
// waking a thread costs about as much as a warm Recall. A batch wakes it
// once. A Shape is found in
// the pending list until its batch is handed over, and in the handed
// list until the next handover (ristretto takes a batch in microseconds;
// should it not have, a miss only costs a Recall).
type Cache struct {
	c *ristretto.Cache[[]byte, *held]
	// bytes is the cost of the Shapes held: added when a Shape is kept,
	// taken off when it leaves ristretto (evicted, rejected or deleted)
	// or the pending list.
	bytes   atomic.Int64
	mu      sync.Mutex
	pending []pendingShape // at most shapeBatch
	handed  []pendingShape // the last batch handed to ristretto
	// newest is, by session incarnation, the keys of the Shapes kept at
	// the newest version a Recall of that session cached.
	newest map[uint64]*newestKeys
}

// newestKeys is what a Cache knows of one session's Shapes: the newest
// version it keeps a Shape of and the keys of (at most maxTracked of)
// those Shapes.
type newestKeys struct {
	version uint64
	keys    [][]byte
}

// maxTracked bounds the keys a Cache tracks per session. Past it, the
// oldest key is no longer tracked: its Shape stays until ristretto
// evicts it, as every Shape did before versions were tracked.
const maxTracked = 256

// held is a Shape in ristretto with its cost, which ristretto's exit
// callback, given only the value, takes off the bytes held.
type held struct {
	sh   *exec.Shape
	cost int64
}

type pendingShape struct {
	key  []byte
	sh   *exec.Shape
	cost int64
}

// cacheGetBuffer is the number of Gets the cache records before handing
// them to its admission policy. Each handover wakes the policy's
// goroutine, a cost on every hit; the policy only counts how often keys
// are read, so larger batches lose nothing.
const cacheGetBuffer = 1024

// New makes a cache of at most maxBytes.
func New(maxBytes int64) (*Cache, error) {
	sc := &Cache{newest: map[uint64]*newestKeys{}}
	// OnExit is called once for each value that leaves: evicted,
	// rejected, deleted or replaced (and with nil for a Del that found
	// nothing).
	gone := func(h *held) {
		if h != nil {
			sc.bytes.Add(-h.cost)
		}
	}
	c, err := ristretto.NewCache(&ristretto.Config[[]byte, *held]{
		NumCounters: 1 << 17, MaxCost: maxBytes, BufferItems: cacheGetBuffer, OnExit: gone})
	if err != nil {
		return nil, err
	}
	sc.c = c
	return sc, nil
}

// Get finds the Shape under key.
func (sc *Cache) Get(key []byte) (*exec.Shape, bool) {
	if h, ok := sc.c.Get(key); ok {
		return h.sh, true
	}
	sc.mu.Lock()
	defer sc.mu.Unlock()
	for _, list := range [2][]pendingShape{sc.pending, sc.handed} {
		for i := range list {
			if bytes.Equal(list[i].key, key) {
				return list[i].sh, true
			}
		}
	}
	return nil, false
}

// Set keeps sh under key (copied), a Shape of the session of
// incarnation inc at version; cost is its size in bytes.
//
// A Shape of a version newer than the session's last cached one drops
// the Shapes of that session's older versions. A Recall of the newest
// version can never hit them (the key holds the version), and each
// holds records of its own version, which would keep that whole
// version of the graph alive: under steady Commits every cached Shape
// is of an old version by the next Recall, and the cache would fill
// with versions no one reads. A Shape of an older version (a Recall at
// a past version) is kept and left to ristretto's eviction.
func (sc *Cache) Set(inc, version uint64, key []byte, sh *exec.Shape, cost int64) {
	sc.bytes.Add(cost)
	key = bytes.Clone(key)
	sc.mu.Lock()
	var stale [][]byte
	nk := sc.newest[inc]
	switch {
	case nk == nil:
		sc.newest[inc] = &newestKeys{version: version, keys: [][]byte{key}}
	case version > nk.version:
		stale = nk.keys
		nk.version, nk.keys = version, [][]byte{key}
	case version == nk.version:
		if len(nk.keys) == maxTracked {
			nk.keys = append(nk.keys[:0], nk.keys[1:]...)
		}
		nk.keys = append(nk.keys, key)
	}
	stale = sc.unpend(stale)
	sc.pending = append(sc.pending, pendingShape{key, sh, cost})
	var batch []pendingShape
	if len(sc.pending) == shapeBatch {
		batch = sc.pending
		sc.pending, sc.handed = make([]pendingShape, 0, shapeBatch), batch
	}
	sc.mu.Unlock()
	for _, k := range stale {
		sc.c.Del(k)
	}
	for _, p := range batch {
		sc.hand(p)
	}
}

// Forget drops every Shape tracked of the session of incarnation inc,
// which is served no more (unloaded or dropped).
func (sc *Cache) Forget(inc uint64) {
	sc.mu.Lock()
	var stale [][]byte
	if nk := sc.newest[inc]; nk != nil {
		stale = nk.keys
		delete(sc.newest, inc)
	}
	stale = sc.unpend(stale)
	sc.mu.Unlock()
	for _, k := range stale {
		sc.c.Del(k)
	}
}

// unpend takes the Shapes under keys out of the pending and handed
// lists (sc.mu held), so they are neither found nor handed to ristretto
// again, and returns keys for deletion from ristretto.
func (sc *Cache) unpend(keys [][]byte) [][]byte {
	if len(keys) == 0 {
		return nil
	}
	stale := func(p pendingShape) bool {
		return slices.ContainsFunc(keys, func(k []byte) bool { return bytes.Equal(p.key, k) })
	}
	sc.pending = slices.DeleteFunc(sc.pending, func(p pendingShape) bool {
		if stale(p) {
			sc.bytes.Add(-p.cost) // never handed to ristretto
			return true
		}
		return false
	})
	// handed is a batch ristretto was given, whose Sets may still be in
	// its buffer: a Del after them removes them, so only the entries are
	// taken out here (their cost comes off when ristretto drops them).
	// A copy: the batch's handover may still be reading it.
	sc.handed = slices.DeleteFunc(slices.Clone(sc.handed), stale)
	return keys
}

// hand gives ristretto one Shape; one it drops is no longer held.
func (sc *Cache) hand(p pendingShape) {
	if !sc.c.Set(p.key, &held{p.sh, p.cost}, p.cost) {
		sc.bytes.Add(-p.cost)
	}
}

// Wait hands the pending Shapes over and waits until ristretto has taken
// every Set (tests and benchmarks that need hits from ristretto itself).
func (sc *Cache) Wait() {
	sc.mu.Lock()
	batch := sc.pending
	sc.pending, sc.handed = nil, nil
	sc.mu.Unlock()
	for _, p := range batch {
		sc.hand(p)
	}
	sc.c.Wait()
}

// Close releases the cache.
func (sc *Cache) Close() { sc.c.Close() }

// Bytes is the cost of the Shapes the cache holds or is handing over.
func (sc *Cache) Bytes() int64 { return max(sc.bytes.Load(), 0) }
