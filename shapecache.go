package goldfish

import (
	"bytes"
	"sync"

	"github.com/dgraph-io/ristretto/v2"

	"github.com/goldfish-gql/goldfish/exec"
)

// shapeBatch is how many Shapes a shapeCache hands ristretto at a time.
const shapeBatch = 32

// shapeCache caches Recall results (ristretto) and hands them to ristretto
// in batches. ristretto takes each Set through a channel that its policy
// goroutine reads; when that goroutine is parked, the send wakes it, and
// waking a thread costs about as much as a warm Recall on a small
// machine (measured: ~7 µs per Set, a tenth of a cold Recall on the
// standard-library session). A batch wakes it once. A Shape is found in
// the pending list until its batch is handed over, and in the handed
// list until the next handover (ristretto takes a batch in microseconds;
// should it not have, a miss only costs a Recall).
type shapeCache struct {
	c       *ristretto.Cache[[]byte, *exec.Shape]
	mu      sync.Mutex
	pending []pendingShape // at most shapeBatch
	handed  []pendingShape // the last batch handed to ristretto
}

type pendingShape struct {
	key  []byte
	sh   *exec.Shape
	cost int64
}

// cacheGetBuffer is the number of Gets a ristretto cache records before
// handing them to its admission policy. Each handover wakes the policy's
// goroutine: with ristretto's usual 64, that wake-up (a futex call) cost
// a Recall 0.7 µs on average, 3% of a cache miss. The policy only counts
// how often keys are read, so larger batches lose nothing.
const cacheGetBuffer = 1024

func newShapeCache(maxBytes int64) (*shapeCache, error) {
	c, err := ristretto.NewCache(&ristretto.Config[[]byte, *exec.Shape]{
		NumCounters: 1 << 17, MaxCost: maxBytes, BufferItems: cacheGetBuffer})
	if err != nil {
		return nil, err
	}
	return &shapeCache{c: c}, nil
}

func (sc *shapeCache) get(key []byte) (*exec.Shape, bool) {
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

// set keeps sh under key (copied); cost is its size in bytes.
func (sc *shapeCache) set(key []byte, sh *exec.Shape, cost int64) {
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
		sc.c.Set(p.key, p.sh, p.cost)
	}
}

// wait hands the pending Shapes over and waits until ristretto has taken
// every Set (tests and benchmarks that need hits from ristretto itself).
func (sc *shapeCache) wait() {
	sc.mu.Lock()
	batch := sc.pending
	sc.pending, sc.handed = nil, nil
	sc.mu.Unlock()
	for _, p := range batch {
		sc.c.Set(p.key, p.sh, p.cost)
	}
	sc.c.Wait()
}

func (sc *shapeCache) close() { sc.c.Close() }
