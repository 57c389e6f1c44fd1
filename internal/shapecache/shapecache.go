// Package shapecache keeps computed Shapes by their exact key: the
// session's incarnation and version, the token, its parameter values and
// every option of the Recall. A Commit moves the version and a dropped
// session's successor has another incarnation, so older entries become
// unreachable, never stale.
package shapecache

import (
	"bytes"
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
	c *ristretto.Cache[[]byte, *exec.Shape]
	// bytes is the cost of the Shapes held: added when a Shape is kept,
	// taken off when ristretto evicts or rejects it.
	bytes   atomic.Int64
	mu      sync.Mutex
	pending []pendingShape // at most shapeBatch
	handed  []pendingShape // the last batch handed to ristretto
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
	sc := &Cache{}
	gone := func(it *ristretto.Item[*exec.Shape]) { sc.bytes.Add(-it.Cost) }
	c, err := ristretto.NewCache(&ristretto.Config[[]byte, *exec.Shape]{
		NumCounters: 1 << 17, MaxCost: maxBytes, BufferItems: cacheGetBuffer, OnEvict: gone, OnReject: gone})
	if err != nil {
		return nil, err
	}
	sc.c = c
	return sc, nil
}

// Get finds the Shape under key.
func (sc *Cache) Get(key []byte) (*exec.Shape, bool) {
	if sh, ok := sc.c.Get(key); ok {
		return sh, true
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

// Set keeps sh under key (copied); cost is its size in bytes.
func (sc *Cache) Set(key []byte, sh *exec.Shape, cost int64) {
	sc.bytes.Add(cost)
	sc.mu.Lock()
	sc.pending = append(sc.pending, pendingShape{bytes.Clone(key), sh, cost})
	if len(sc.pending) < shapeBatch {
		sc.mu.Unlock()
		return
	}
	batch := sc.pending
	sc.pending, sc.handed = make([]pendingShape, 0, shapeBatch), batch
	sc.mu.Unlock()
	for _, p := range batch {
		sc.hand(p)
	}
}

// hand gives ristretto one Shape; one it drops is no longer held.
func (sc *Cache) hand(p pendingShape) {
	if !sc.c.Set(p.key, p.sh, p.cost) {
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
