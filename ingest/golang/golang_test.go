package golang_test

import (
	"context"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/ingest/golang"
)

func ingestTwice(t *testing.T, dir string, opts golang.Options) (first, second golang.Stats, dump string) {
	t.Helper()
	db, err := goldfish.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s, err := db.Session(context.Background(), "code")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	first, err = golang.IngestDir(ctx, s, dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	dump = s.Dump()
	v := s.Version()
	second, err = golang.IngestDir(ctx, s, dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	if second.Applied != 0 {
		t.Errorf("re-ingest applied %d of %d Δs; want 0", second.Applied, second.Deltas)
	}
	if s.Version() != v {
		t.Errorf("re-ingest moved the version from %d to %d", v, s.Version())
	}
	if again := s.Dump(); again != dump {
		t.Errorf("re-ingest changed the dump")
	}
	info, err := s.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := info.Nodes+info.Edges, first.Elements(); got != want {
		t.Errorf("session holds %d elements, the Δs carry %d", got, want)
	}
	return first, second, dump
}

func TestIngestTree(t *testing.T) {
	first, _, dump := ingestTwice(t, "testdata/tree", golang.Options{})
	if first.Packages != 2 || first.Files != 2 {
		t.Errorf("packages %d files %d; want 2 and 2 (the _windows file is not for this platform)", first.Packages, first.Files)
	}
	for _, want := range []string{
		`(:PKG {dir: "geom", files: 1, loc: "example.com/tree/geom", name: "geom"})`,
		`-[:imports]->(:PKG {dir: "geom"`,
		`(:FN {at: "geom/geom.go:13", doc: "Dist is the distance between two points.", loc: "example.com/tree/geom.Dist", name: "Dist", sig: "func Dist(a, b Point) float64"})`,
		`sig: "func Dist(a, b Point) float64"})-[:calls]->(:FN {at: "geom/geom.go:15", loc: "example.com/tree/geom.sq"`,
		`loc: "example.com/tree/shapes.describe", name: "describe", sig: "func describe(c Circle) string"})-[:calls]->(:FN {at: "geom/geom.go:13", doc: "Dist is the distance between two points.", loc: "example.com/tree/geom.Dist"`,
		`loc: "example.com/tree/shapes.Circle.String"`,
		`-[:has_method]->(:FN {at: "shapes/shapes.go:16", loc: "example.com/tree/shapes.Circle.Area"`,
		`(:CONST {at: "geom/geom.go:7", doc: "Pi is a constant.", loc: "example.com/tree/geom.Pi", name: "Pi", sig: "const Pi = math.Pi"})`,
		`loc: "example.com/tree/shapes.describe", name: "describe", sig: "func describe(c Circle) string"})-[:refs]->(:VAR {at: "shapes/shapes.go:9", loc: "example.com/tree/shapes.Origin"`,
		`loc: "example.com/tree/shapes.Circle.Area", name: "Area", recv: "Circle", sig: "func (c Circle) Area() float64"})-[:refs]->(:CONST {at: "geom/geom.go:7"`,
		`loc: "example.com/tree/geom.init@geom.go:20"`,
		`(:TYPE {at: "geom/geom.go:10", doc: "Point is a point.", loc: "example.com/tree/geom.Point", name: "Point", sig: "type Point struct"})`,
		`(:FILE {lines: 22, loc: "geom/geom.go", name: "geom.go"})-[:contains]->(:FN`,
		`loc: "example.com/tree/geom._@geom.go:22#2"`,
	} {
		if !strings.Contains(dump, want) {
			t.Errorf("dump lacks %s", want)
		}
	}
	if strings.Contains(dump, "windowsOnly") {
		t.Errorf("a file for another platform was ingested")
	}
	if t.Failed() {
		t.Log(dump)
	}
}

func TestIngestStdlibIdempotent(t *testing.T) {
	if testing.Short() {
		t.Skip("reads the standard library")
	}
	src := filepath.Join(runtime.GOROOT(), "src")
	first, _, _ := ingestTwice(t, src, golang.Options{Only: []string{"strings", "strconv", "unicode/utf8", "bufio"}})
	if first.Packages < 4 || first.Calls == 0 || first.Imports == 0 {
		t.Errorf("stats %+v", first)
	}
}

// TestLoadGraph: the graph holds what Load's Δs carry, each node once and
// every edge between nodes it holds.
func TestLoadGraph(t *testing.T) {
	for _, tc := range []struct {
		dir  string
		opts golang.Options
	}{
		{"testdata/tree", golang.Options{}},
		{filepath.Join(runtime.GOROOT(), "src"), golang.Options{Only: []string{"strings", "bufio"}}},
	} {
		tree, err := golang.Load(tc.dir, tc.opts)
		if err != nil {
			t.Fatal(err)
		}
		g, err := golang.LoadGraph(tc.dir, tc.opts)
		if err != nil {
			t.Fatal(err)
		}
		a, b := tree.Stats, g.Stats
		a.Deltas, a.Load, b.Load = 0, 0, 0
		b.Edges -= b.External // Load leaves the calls out of the tree out
		if a != b {
			t.Errorf("%s: Load's stats %+v, LoadGraph's %+v", tc.dir, a, b)
		}
		nodes := map[golang.Ref]bool{}
		for _, n := range g.External {
			nodes[n.Ref()] = true
		}
		for _, p := range g.Packages {
			nodes[p.Node.Ref()] = true
			for _, f := range p.Files {
				nodes[f.Node.Ref()] = true
				for _, d := range f.Decls {
					nodes[d.Ref()] = true
				}
			}
		}
		if len(nodes) != g.Stats.Nodes+len(g.External) {
			t.Errorf("%s: %d distinct nodes of %d", tc.dir, len(nodes), g.Stats.Nodes)
		}
		for _, e := range g.Edges {
			if !nodes[e.From] || !nodes[e.To] {
				t.Errorf("%s: edge %+v to a node the graph lacks", tc.dir, e)
			}
		}
	}
}
