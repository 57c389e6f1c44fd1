package btree

import (
	"sync"
	"testing"
)

// TestReadWhileCloned: readers of a tree may read it while the writer
// clones it and writes the clone (a store transaction begins from the
// version readers hold); run with -race, it fails if a read touches what
// Clone replaces in the tree it clones from.
func TestReadWhileCloned(t *testing.T) {
	tr := NewG(4, func(a, b int) bool { return a < b })
	for i := range 200 {
		tr.ReplaceOrInsert(i)
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, ok := tr.Get(100); !ok {
					t.Error("Get(100) missed")
					return
				}
				n := 0
				tr.AscendGreaterOrEqual(50, func(int) bool { n++; return n < 10 })
			}
		}()
	}
	for i := range 200 {
		c := tr.Clone()
		c.ReplaceOrInsert(1000 + i)
		c.Delete(i)
	}
	close(stop)
	wg.Wait()
}
