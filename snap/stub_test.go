package snap

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/ingest/golang"
)

// dumpRef is a node of a Dump: its identity and its whole line.
type dumpRef struct {
	ref  golang.Ref
	line string
}

// readDump splits a Dump into its nodes and its edges (the line and the
// identities of its ends).
func readDump(t *testing.T, dump string) (nodes []dumpRef, edges [][3]string) {
	t.Helper()
	for _, line := range strings.Split(dump, "\n") {
		from, i, ok := scanNode(line, 0)
		if !ok {
			continue
		}
		if i == len(line) {
			nodes = append(nodes, dumpRef{from, line})
			continue
		}
		typ, j, ok := scanEdgeBody(line, i)
		to, k, ok2 := scanNode(line, j)
		if !ok || !ok2 || k != len(line) {
			t.Fatalf("cannot read the edge %s", line)
		}
		edges = append(edges, [3]string{from.Kind + " " + from.Loc, typ, to.Kind + " " + to.Loc})
	}
	return nodes, edges
}

// TestSnapStubs checks the snap against one session that ingests the
// whole tree: every node is in exactly one interior; every edge is in
// exactly one, either between its own nodes or, when it crosses parts,
// to or from a STUB that carries the other end's loc, kind and session;
// and the stub is found by a Recall of its loc, as is the node it stands
// for in the session it names. The other way round, every function has a
// CALLERS node per other part holding calls of it, with their count and
// that part's session, and no other CALLERS node.
func TestSnapStubs(t *testing.T) {
	ctx := context.Background()
	for _, n := range []int{10, 16, 48} {
		db, err := goldfish.Open()
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		whole, _ := db.Session(ctx, "whole")
		if _, err := golang.IngestDir(ctx, whole, "testdata/tree", golang.Options{}); err != nil {
			t.Fatal(err)
		}
		wantNodes, wantEdges := readDump(t, whole.Dump())
		rep, err := Go(ctx, db, "testdata/tree", Options{Prefix: "shop", PartNodes: n})
		if err != nil {
			t.Fatal(err)
		}
		var gotNodes []string
		var gotEdges [][3]string
		stubs := 0
		owner := map[string]string{}  // "KIND loc" of a node → the interior holding it
		callers := map[string]int{}   // "interior <- FN loc <- calling interior" → callers, by the CALLERS nodes
		callerAt := map[string]bool{} // "CALLERS loc" → seen
		for _, p := range rep.Parts {
			s, _ := db.Session(ctx, p.Session)
			nodes, edges := readDump(t, s.Dump())
			stub := map[string]golang.Ref{} // "STUB loc" → the node it stands for
			outside := map[string]bool{}    // "STUB loc" of the functions outside the tree
			for _, nd := range nodes {
				if nd.ref.Kind == "CALLERS" {
					fn, from, ok := strings.Cut(nd.ref.Loc, " <- ")
					k, err := strconv.Atoi(between(nd.line, `callers: `, `,`))
					if !ok || err != nil || k < 1 || from != between(nd.line, `session: "`, `"`) || from == p.Session {
						t.Errorf("%s: CALLERS node %s", p.Session, nd.line)
					}
					callers[p.Session+" <- "+fn+" <- "+from] = k
					callerAt["CALLERS "+nd.ref.Loc] = true
					continue
				}
				if nd.ref.Kind != "STUB" {
					gotNodes = append(gotNodes, nd.line)
					owner[nd.ref.Kind+" "+nd.ref.Loc] = p.Session
					continue
				}
				stubs++
				kind := between(nd.line, `kind: "`, `"`)
				other := between(nd.line, `session: "`, `"`)
				if other == "" {
					// A function outside the tree: its package, no session;
					// the one session of the tree has no node for it.
					if between(nd.line, `pkg: "`, `"`) == "" || strings.HasPrefix(nd.ref.Loc, "example.com/") {
						t.Errorf("%s: stub %s names no session and no package outside the tree", p.Session, nd.line)
					}
					outside["STUB "+nd.ref.Loc] = true
					continue
				}
				stub["STUB "+nd.ref.Loc] = golang.Ref{Kind: kind, Loc: nd.ref.Loc}
				if other == p.Session {
					t.Errorf("%s: a stub for its own node %s", p.Session, nd.line)
				}
				// Found by its loc here, and what it stands for found
				// there.
				q := `MATCH (n {loc: $loc})`
				sh, err := s.Recall(ctx, q, goldfish.RecallOptions{M: 1, Params: map[string]any{"loc": nd.ref.Loc}})
				if err != nil || sh.Cue != goldfish.CueMatch || !strings.Contains(sh.Text, ":STUB {") {
					t.Errorf("%s: Recall of the stub %s: %v %v", p.Session, nd.ref.Loc, err, sh)
				}
				os, err := db.Session(ctx, other)
				if err != nil {
					t.Fatalf("stub %s names session %q: %v", nd.line, other, err)
				}
				sh, err = os.Recall(ctx, `MATCH (n:`+kind+` {loc: $loc})`, goldfish.RecallOptions{M: 1, Params: map[string]any{"loc": nd.ref.Loc}})
				if err != nil || sh.Cue != goldfish.CueMatch {
					t.Errorf("%s: the stub %s stands for nothing in %s: %v %v", p.Session, nd.line, other, err, sh)
				}
			}
			for _, e := range edges {
				if outside[e[2]] {
					continue
				}
				if callerAt[e[0]] {
					if fn, _, _ := strings.Cut(strings.TrimPrefix(e[0], "CALLERS "), " <- "); e[1] != "calls" || e[2] != "FN "+fn {
						t.Errorf("%s: the edge %q of a CALLERS node", p.Session, e)
					}
					continue
				}
				for _, end := range []int{0, 2} {
					if r, ok := stub[e[end]]; ok {
						e[end] = r.Kind + " " + r.Loc
					}
				}
				gotEdges = append(gotEdges, e)
			}
		}
		var wantLines []string
		for _, nd := range wantNodes {
			wantLines = append(wantLines, nd.line)
		}
		slices.Sort(gotNodes)
		if !slices.Equal(gotNodes, wantLines) {
			t.Errorf("n=%d: the interiors' nodes\n%s\nthe tree's\n%s", n, strings.Join(gotNodes, "\n"), strings.Join(wantLines, "\n"))
		}
		less := func(a, b [3]string) int { return strings.Compare(strings.Join(a[:], "|"), strings.Join(b[:], "|")) }
		slices.SortFunc(gotEdges, less)
		slices.SortFunc(wantEdges, less)
		if !slices.Equal(gotEdges, wantEdges) {
			t.Errorf("n=%d: the interiors' edges\n%q\nthe tree's\n%q", n, gotEdges, wantEdges)
		}
		if stubs == 0 {
			t.Errorf("n=%d: no stubs", n)
		}
		want := map[string]int{}
		for _, e := range wantEdges {
			if to, from := owner[e[2]], owner[e[0]]; e[1] == "calls" && to != from {
				want[to+" <- "+strings.TrimPrefix(e[2], "FN ")+" <- "+from]++
			}
		}
		if !mapsEqual(callers, want) {
			t.Errorf("n=%d: the CALLERS nodes say\n%v\nthe tree's calls across parts are\n%v", n, callers, want)
		}
		if len(want) == 0 {
			t.Errorf("n=%d: no calls across parts", n)
		}
	}
}

func between(s, open, close string) string {
	i := strings.Index(s, open)
	if i < 0 {
		return ""
	}
	s = s[i+len(open):]
	return s[:strings.Index(s, close)]
}

// TestScanDump reads what Session.Dump writes, the awkward cases too.
func TestScanDump(t *testing.T) {
	for _, tc := range []struct {
		line      string
		from, typ string
		to        string
	}{
		{`(:FN {line: 3, loc: "a.F", name: "F"})`, "FN a.F", "", ""},
		{`(:FN:Extra {loc: "a\"b\\c", sig: "func F(x, y int) (int, error)"})`, "FN a\"b\\c", "", ""},
		{"(:`odd kind` {`a key`: [1, [2, \"]\"]], d: DATE '2026-01-31', loc: \"x\"})", "odd kind x", "", ""},
		{`(:NOTE {text: "no loc"})`, "NOTE ", "", ""},
		{`(:PKG {loc: "p"})-[:imports]->(:STUB {kind: "PKG", loc: "q", session: "s.q"})`, "PKG p", "imports", "STUB q"},
		{`(:A {loc: "x"})-[:t {w: 1, s: "]->("}]->(:B {loc: "y"})`, "A x", "t", "B y"},
		{`({n: 1})`, " ", "", ""},
	} {
		from, i, ok := scanNode(tc.line, 0)
		if !ok {
			t.Errorf("%s: not read", tc.line)
			continue
		}
		if got := from.Kind + " " + from.Loc; got != tc.from {
			t.Errorf("%s: node %q, want %q", tc.line, got, tc.from)
		}
		if tc.typ == "" {
			if i != len(tc.line) {
				t.Errorf("%s: ends at %d", tc.line, i)
			}
			continue
		}
		typ, j, ok := scanEdgeBody(tc.line, i)
		to, k, ok2 := scanNode(tc.line, j)
		if !ok || !ok2 || typ != tc.typ || to.Kind+" "+to.Loc != tc.to || k != len(tc.line) {
			t.Errorf("%s: edge %q to %q", tc.line, typ, to)
		}
	}
	for _, bad := range []string{"", "version 3", "(:FN {loc: \"x\"", "(:FN {loc: \"x})", "(:FN {loc \"x\"})"} {
		if _, _, ok := scanNode(bad, 0); ok {
			t.Errorf("%q read as a node", bad)
		}
	}
}

func TestSessionNames(t *testing.T) {
	long := strings.Repeat("very/long/", 8)
	got := sessionNames("std", []string{"net/http", "net.http", "golang.org/x/net-2", "a b/ü", long + "one", long + "two", "net/http"})
	want := []string{"std.net.http", "std.net.http_2", "std.golang.org.x.net-2", "std.a_b._"}
	if !slices.Equal(got[:4], want) {
		t.Errorf("names %q; want %q", got[:4], want)
	}
	if got[4] == got[5] || len(got[4]) != goldfish.MaxSessionName || !strings.HasPrefix(got[4], "std.very.long.") {
		t.Errorf("long names %q and %q", got[4], got[5])
	}
	if got[6] != "std.net.http_3" {
		t.Errorf("a third net/http is %q", got[6])
	}
	for _, n := range got {
		if err := goldfish.ValidSessionName(n); err != nil {
			t.Error(err)
		}
	}
	for _, tc := range []struct {
		paths []string
		want  string
	}{
		{[]string{"net/http"}, "net/http"},
		{[]string{"net/http/cgi", "net/http/pprof", "net/http"}, "net/http"},
		{[]string{"net/httpx", "net/http"}, "net"},
		{[]string{"bufio", "bytes"}, ""},
		{nil, ""},
	} {
		if got := commonPrefix(tc.paths); got != tc.want {
			t.Errorf("commonPrefix(%q) = %q; want %q", tc.paths, got, tc.want)
		}
	}
}

// FuzzScanDump: reading a line never panics, and what it reads as a node
// ends inside the line.
func FuzzScanDump(f *testing.F) {
	for _, s := range []string{
		`(:FN {line: 3, loc: "a.F", name: "F"})`,
		"(:`odd kind` {`a key`: [1, [2, \"]\"]], d: DATE '2026-01-31', loc: \"x\"})",
		`(:A {loc: "x"})-[:t {w: 1, s: "]->("}]->(:B {loc: "y"})`,
		`(:A {loc: "\u00e9\\"})`, `(`, `(:`, `({`, `(:A {loc: `, `(:A {loc: "`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		_, i, ok := scanNode(line, 0)
		if !ok {
			return
		}
		if i > len(line) {
			t.Fatalf("node ends at %d of %d", i, len(line))
		}
		if _, j, ok := scanEdgeBody(line, i); ok {
			if _, k, ok := scanNode(line, j); ok && k > len(line) {
				t.Fatalf("far node ends at %d of %d", k, len(line))
			}
		}
	})
}

func mapsEqual[K, V comparable](a, b map[K]V) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
