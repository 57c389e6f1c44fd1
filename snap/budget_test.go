package snap

import (
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish/ingest/golang"
)

// TestPartBudget: at every budget, no part holds more nodes than the
// budget, stubs and CALLERS nodes included, unless it holds a single
// node of its own (whose edges or callers alone need more); and the
// CALLERS nodes the bins reckoned while filling the parts (model.setKeys)
// are never fewer than the parts hold.
func TestPartBudget(t *testing.T) {
	small := []int{}
	for n := MinPartNodes; n <= 64; n++ {
		small = append(small, n)
	}
	for _, tc := range []struct {
		dir     string
		budgets []int
	}{
		{"testdata/tree", small},
		{"testdata/bank", small},
		// A split package calling itself across its pieces, and groups.
		{filepath.Join(runtime.GOROOT(), "src", "net", "http"), []int{150, 400, 1000, 2500}},
	} {
		dir := tc.dir
		if testing.Short() && !strings.HasPrefix(dir, "testdata") {
			continue
		}
		g, err := golang.LoadGraph(dir, golang.Options{})
		if err != nil {
			t.Fatal(err)
		}
		withCallers := 0
		for _, n := range tc.budgets {
			var rep Report
			layout(g, n, "t", &rep)
			m := newModel(g)
			defs := partition(m, n, "t")
			sort.SliceStable(defs, func(i, j int) bool { // as layout orders them
				return g.Packages[defs[i].pkgs[0]].Path < g.Packages[defs[j].pkgs[0]].Path
			})
			if len(defs) != len(rep.Parts) {
				t.Fatalf("%s n=%d: %d parts, then %d", dir, n, len(rep.Parts), len(defs))
			}
			for i, p := range rep.Parts {
				if own := p.Nodes - p.Stubs - p.Callers; p.Nodes > n && own > 1 {
					t.Errorf("%s n=%d: %s holds %d nodes (%d stubs, %d CALLERS)", dir, n, p.Session, p.Nodes, p.Stubs, p.Callers)
				}
				b := newBin(m)
				b.add(defs[i].nodes)
				if len(b.back) < p.Callers {
					t.Errorf("%s n=%d: %s holds %d CALLERS nodes, reckoned %d", dir, n, p.Session, p.Callers, len(b.back))
				}
				withCallers += p.Callers
			}
		}
		if withCallers == 0 {
			t.Errorf("%s: no CALLERS node at any budget", dir)
		}
	}
}

// TestBinGrown: the size a bin reckons it would have with some nodes
// added is the size it has once they are, stubs and CALLERS included,
// whichever nodes come in (whole packages, files, single declarations; in
// path order and backwards, so callees come before their callers and
// after), with one key per caller and with the keys of a partition.
func TestBinGrown(t *testing.T) {
	for _, dir := range []string{"testdata/tree", "testdata/bank", filepath.Join(runtime.GOROOT(), "src", "net", "http")} {
		if testing.Short() && !strings.HasPrefix(dir, "testdata") {
			continue
		}
		g, err := golang.LoadGraph(dir, golang.Options{})
		if err != nil {
			t.Fatal(err)
		}
		m := newModel(g)
		for _, keys := range []string{"per caller", "partition"} {
			if keys == "per caller" {
				m.setKeys(1, &dirNode{dir: ".", pkg: -1})
			} else {
				partition(m, 40, "t")
			}
			for _, unit := range []string{"package", "file", "declaration"} {
				var sets [][]int
				for pi := range m.pkgs {
					switch unit {
					case "package":
						sets = append(sets, m.pkgs[pi])
					case "file":
						sets = append(sets, m.pkgs[pi][:1]) // the PKG node
						sets = append(sets, m.files[pi]...)
					default:
						for _, x := range m.pkgs[pi] {
							sets = append(sets, []int{x})
						}
					}
				}
				for _, backwards := range []bool{false, true} {
					b := newBin(m)
					for i := range sets {
						xs := sets[i]
						if backwards {
							xs = sets[len(sets)-1-i]
						}
						want := b.grown(xs)
						b.add(xs)
						if b.size() != want {
							t.Fatalf("%s, keys %s, by %s (backwards %v): adding %d nodes grew the bin to %d; grown said %d",
								dir, keys, unit, backwards, len(xs), b.size(), want)
						}
					}
					if len(b.back) != 0 || len(b.ext) != len(g.External) {
						t.Errorf("%s by %s: the whole tree in a bin needs %d CALLERS nodes and %d stubs (%d functions outside)", dir, unit, len(b.back), len(b.ext), len(g.External))
					}
				}
			}
		}
	}
}
