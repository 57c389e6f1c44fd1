package btree

import (
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// TestClonesAreIndependent checks the tree against a sorted set under
// random inserts and deletes, on a tree and the clones taken of it along
// the way: a write to one never shows in another, each ascends in order
// and finds exactly its items, whatever the degree.
func TestClonesAreIndependent(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		degree := rapid.IntRange(2, 12).Draw(t, "degree")
		trees := []*BTreeG[int]{NewG(degree, func(a, b int) bool { return a < b })}
		models := []map[int]bool{{}}
		for range rapid.IntRange(1, 300).Draw(t, "steps") {
			i := rapid.IntRange(0, len(trees)-1).Draw(t, "tree")
			k := rapid.IntRange(0, 300).Draw(t, "key")
			switch rapid.IntRange(0, 9).Draw(t, "op") {
			case 0:
				trees = append(trees, trees[i].Clone())
				m := map[int]bool{}
				for x := range models[i] {
					m[x] = true
				}
				models = append(models, m)
			case 1, 2, 3:
				_, had := trees[i].Delete(k)
				if had != models[i][k] {
					t.Fatalf("tree %d: Delete(%d) found %v, the model %v", i, k, had, models[i][k])
				}
				delete(models[i], k)
			default:
				_, had := trees[i].ReplaceOrInsert(k)
				if had != models[i][k] {
					t.Fatalf("tree %d: ReplaceOrInsert(%d) found %v, the model %v", i, k, had, models[i][k])
				}
				models[i][k] = true
			}
		}
		for i, tr := range trees {
			var got, want []int
			tr.Ascend(func(x int) bool { got = append(got, x); return true })
			for x := range models[i] {
				want = append(want, x)
			}
			slices.Sort(want)
			if !slices.Equal(got, want) || tr.Len() != len(want) {
				t.Fatalf("tree %d holds %v (Len %d), want %v", i, got, tr.Len(), want)
			}
			for _, x := range want {
				if !tr.Has(x) {
					t.Fatalf("tree %d: Has(%d) false", i, x)
				}
			}
		}
	})
}
