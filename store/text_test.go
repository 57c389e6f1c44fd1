package store

import (
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/goldfish-gql/goldfish/values"
)

// containsFolded is the keyword test the text index must never miss: any
// string value (list elements included) contains word, ignoring case.
func containsFolded(v values.Value, word string) bool {
	switch v.Kind() {
	case values.KindString:
		return strings.Contains(strings.ToLower(v.AsString()), strings.ToLower(word))
	case values.KindList:
		for _, e := range v.AsList() {
			if containsFolded(e, word) {
				return true
			}
		}
	}
	return false
}

// TestTextCandidates: across commits that insert, change, recycle and
// revive nodes (and across rebuilds, with the rebuild threshold lowered),
// every live node holding the word is a candidate, every candidate is
// live, and candidates come in ScanNodes order.
func TestTextCandidates(t *testing.T) {
	defer func(n int) { textRebuildAfter = n }(textRebuildAfter)
	rapid.Check(t, func(t *rapid.T) {
		textRebuildAfter = rapid.IntRange(0, 6).Draw(t, "rebuildAfter")
		g := New()
		words := []string{"abc", "ABCd", "xabcx", "zz", "bcd", "é-abc", "Ébc"}
		str := rapid.Map(rapid.SliceOfN(rapid.SampledFrom(words), 1, 3), func(ws []string) string { return strings.Join(ws, " ") })
		val := rapid.OneOf(
			rapid.Map(str, values.String),
			rapid.Map(rapid.SliceOfN(str, 0, 2), func(ss []string) values.Value {
				vs := make([]values.Value, len(ss))
				for i, s := range ss {
					vs[i] = values.String(s)
				}
				return values.List(vs...)
			}),
			rapid.Just(values.Int(7)),
		)
		var ids []ID
		for range rapid.IntRange(1, 5).Draw(t, "commits") {
			tx := g.Begin()
			for range rapid.IntRange(1, 4).Draw(t, "ops") {
				switch op := rapid.IntRange(0, 3).Draw(t, "op"); {
				case op == 0 || len(ids) == 0:
					n, err := tx.InsertNode(tx.NewID(), []string{"A"}, values.Props{{Key: "k", Val: val.Draw(t, "v")}})
					if err != nil {
						t.Fatal(err)
					}
					ids = append(ids, n.ID)
				case op == 1:
					_, _ = tx.SetProps(rapid.SampledFrom(ids).Draw(t, "id"), values.Props{{Key: "k", Val: val.Draw(t, "v")}})
				case op == 2:
					_ = tx.RecycleNode(rapid.SampledFrom(ids).Draw(t, "id"))
				default:
					_ = tx.Revive(rapid.SampledFrom(ids).Draw(t, "id"))
				}
			}
			snap := tx.Commit()
			if rapid.Bool().Draw(t, "build now") {
				snap.BuildTextIndex()
			}
			for _, w := range []string{"abc", "BCD", "xab", "é-a", "ébc", "qqq"} {
				got, ok := snap.TextCandidates(w)
				if !ok {
					snap.st.text.wait() // a background build may have started
					got, ok = snap.TextCandidates(w)
				}
				if !ok {
					continue
				}
				in := map[ID]bool{}
				for i, n := range got {
					if cur, live := snap.Node(n.ID); !live || cur != n {
						t.Fatalf("%q: candidate %d is not a live record of this version", w, n.ID)
					}
					if i > 0 && !nodeLess(got[i-1], n) {
						t.Fatalf("%q: candidates out of canonical order", w)
					}
					in[n.ID] = true
				}
				snap.ScanNodes(func(n *Node) bool {
					for _, p := range n.Props {
						if containsFolded(p.Val, w) && !in[n.ID] {
							t.Fatalf("%q: node %d holds it (%s) but is not a candidate", w, n.ID, p.Val.Literal())
						}
					}
					return true
				})
			}
		}
	})
}

func TestTextCandidatesDeclines(t *testing.T) {
	g := New()
	tx := g.Begin()
	if _, err := tx.InsertNode(tx.NewID(), []string{"A"}, values.Props{{Key: "k", Val: values.String("abc")}}); err != nil {
		t.Fatal(err)
	}
	if _, ok := tx.Snapshot().TextCandidates("abc"); ok {
		t.Fatal("a Tx's working view must scan")
	}
	snap := tx.Commit()
	if _, ok := snap.TextCandidates("ab"); ok {
		t.Fatal("a word under three bytes must scan")
	}
	if _, ok := snap.TextCandidates("ABC"); ok {
		t.Fatal("without an index the first keyword seed scans (and starts a build)")
	}
	snap.st.text.wait()
	got, ok := snap.TextCandidates("ABC")
	if !ok || len(got) != 1 {
		t.Fatalf("want the one node, got %d (ok %v)", len(got), ok)
	}
	old := snap
	snap = commitValue(t, g, "xabcx")
	if got, ok := snap.TextCandidates("abc"); !ok || len(got) != 2 {
		t.Fatalf("a node inserted after the build must be a candidate: got %d (ok %v)", len(got), ok)
	}
	keep := textRebuildAfter
	textRebuildAfter = 0
	defer func() { textRebuildAfter = keep }()
	snap = commitValue(t, g, "abc!")
	if got, ok := snap.TextCandidates("abc"); !ok || len(got) != 3 {
		t.Fatalf("past the rebuild threshold the old index and the log serve: got %d (ok %v)", len(got), ok)
	}
	snap.st.text.wait()
	if idx := snap.st.text.idx.Load(); idx.version != snap.Version() {
		t.Fatalf("the rebuild is from version %d, want %d", idx.version, snap.Version())
	}
	if _, ok := old.TextCandidates("abc"); ok {
		t.Fatal("a snapshot older than the index must scan")
	}
}

// TestTextCandidatesConcurrent: readers build and use the index while the
// writer commits (run with -race).
func TestTextCandidatesConcurrent(t *testing.T) {
	g := New()
	done := make(chan struct{})
	errs := make(chan string, 4)
	for range 3 {
		go func() {
			for {
				select {
				case <-done:
					errs <- ""
					return
				default:
				}
				snap := g.Snapshot()
				got, ok := snap.TextCandidates("word")
				if ok && len(got) != snap.NodeCount() {
					errs <- "a node holding the word is missing"
					return
				}
			}
		}()
	}
	for i := range 300 {
		tx := g.Begin()
		if _, err := tx.InsertNode(tx.NewID(), []string{"A"}, values.Props{{Key: "k", Val: values.String("a word " + strings.Repeat("x", i%7))}}); err != nil {
			t.Fatal(err)
		}
		tx.Commit()
	}
	close(done)
	for range 3 {
		if e := <-errs; e != "" {
			t.Fatal(e)
		}
	}
}

// commitValue commits one node whose property k holds v.
func commitValue(t *testing.T, g *Graph, v string) *Snapshot {
	t.Helper()
	tx := g.Begin()
	if _, err := tx.InsertNode(tx.NewID(), []string{"A"}, values.Props{{Key: "k", Val: values.String(v)}}); err != nil {
		t.Fatal(err)
	}
	return tx.Commit()
}
