package shapecache

import (
	"fmt"
	"sync"
	"testing"

	"github.com/goldfish-gql/goldfish/exec"
	"github.com/goldfish-gql/goldfish/values"
)

// TestShapeCacheBatches: a Shape is found as soon as it is set, while it
// waits in its batch and after ristretto has taken the batch; concurrent
// sets and gets find only the Shape set under a key (run with -race).
func TestShapeCacheBatches(t *testing.T) {
	sc, err := New(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	shapes := map[string]*exec.Shape{}
	for i := range 3*shapeBatch + 5 {
		k := fmt.Sprintf("key%d", i)
		shapes[k] = &exec.Shape{Shape: values.Shape{Text: k}}
		key := []byte(k)
		sc.Set(1, 1, key, shapes[k], 64)
		key[0] = 'X' // the cache keeps a copy of the key
		if sh, ok := sc.Get([]byte(k)); !ok || sh != shapes[k] {
			t.Fatalf("%s not found right after set", k)
		}
	}
	if len(sc.pending) != 5 {
		t.Fatalf("%d pending, want 5 (three full batches handed over)", len(sc.pending))
	}
	sc.Wait()
	if len(sc.pending) != 0 {
		t.Fatalf("%d pending after wait", len(sc.pending))
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range shapeBatch {
				k := fmt.Sprintf("g%d-%d", g, i)
				sc.Set(uint64(g+2), 1, []byte(k), &exec.Shape{Shape: values.Shape{Text: k}}, 64)
				// Other goroutines' sets may hand this batch over and the
				// next one before ristretto takes it: then a miss, never
				// a wrong Shape.
				if sh, ok := sc.Get([]byte(k)); ok && sh.Text != k {
					t.Errorf("%s finds the Shape of %s", k, sh.Text)
				}
			}
		}()
	}
	wg.Wait()
	hits := 0
	for k, want := range shapes {
		if h, ok := sc.c.Get([]byte(k)); ok && h.sh == want {
			hits++
		}
	}
	// ristretto's admission may turn some away; most must be there.
	if hits < len(shapes)/2 {
		t.Fatalf("ristretto holds %d of %d handed-over Shapes", hits, len(shapes))
	}
}
