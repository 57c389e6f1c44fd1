package exec

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/parser"
	"github.com/goldfish-gql/goldfish/planner"
	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/values"
)

func planText(text string) (*planner.Plan, error) {
	script, err := parser.Parse(text)
	if err != nil {
		return nil, err
	}
	return planner.Build(script)
}

// testSlice exports a slice of a graph built from text, around the seeds
// of q.
func testSlice(t testing.TB, text, q string, opt SliceOptions) *values.Slice {
	t.Helper()
	g := store.New()
	p, err := planText(text)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Commit(context.Background(), g, p, nil, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	var qp *planner.Plan
	if q != "" {
		if qp, err = planText(q); err != nil {
			t.Fatal(err)
		}
	}
	opt.Session = "src"
	sl, err := ExportSlice(context.Background(), g.Snapshot(), qp, nil, opt)
	if err != nil {
		t.Fatal(err)
	}
	return sl
}

// reseal gives a text whose first line is a slice header the sum of the
// rest, so a fuzzer's changes reach the checks after the sum's.
func reseal(text string) string {
	line, rest, ok := strings.Cut(text, "\n")
	at := strings.LastIndex(line, " sum=")
	if !ok || !strings.HasPrefix(line, sliceMagic) || at < 0 {
		return text
	}
	head := line[:at]
	return head + " sum=" + sliceSum(head, rest) + "\n" + rest
}

var fuzzBounds = SliceBounds{Rows: 6400, PerAnchor: 200, Bytes: values.MaxSliceBytes, Catalog: "catalog"}

// FuzzReadSlice feeds arbitrary text to the slice reader, as it is and
// resealed with a matching sum: it must answer with a slice or a
// GQLSTATUS error, never panic; what it accepts must hold together (ids
// distinct, edges between its nodes, anchors among them, the rows the
// header says), and absorb into an empty session or into one that holds
// it already under every policy without a panic, whole or not at all.
func FuzzReadSlice(f *testing.F) {
	src := `INSERT (t:TSK {nick: "TSK_login", status: "open", tags: ["a", 'b'], due: DATE '2026-01-31'})-[:touches {w: 1.5}]->(m:MOD {loc: "auth/login.go"}),
		(t)-[:has_note]->(:NOTE:Draft {text: "redirect \"loops\"\n"}), (u:TSK {nick: "TSK_logout"})-[:touches]->(m), (u)-[:blocks]->(t),
		(:` + "`odd kind`" + ` {nick: "x"})-[:` + "`odd type`" + `]->(u), ({bare: true})`
	for _, c := range []struct {
		q   string
		opt SliceOptions
	}{
		{`MATCH (t:TSK)`, SliceOptions{SliceOptions: values.SliceOptions{M: 50, K: 2, L: 4, F: 8}}},
		{`MATCH (t:TSK) LIMIT 1`, SliceOptions{SliceOptions: values.SliceOptions{M: 3, K: 1, L: 4, F: 1}}},
		{``, SliceOptions{SliceOptions: values.SliceOptions{M: 50, K: 2, L: 4, F: 8, Nicks: []string{"x"}}}},
		{`MATCH (t:NOPE)`, SliceOptions{SliceOptions: values.SliceOptions{M: 50, K: 2, L: 4, F: 8}}},
	} {
		sl := testSlice(f, src, c.q, c.opt)
		f.Add(sl.Text)
		f.Add(strings.Replace(sl.Text, "INSERT", "INSERT (:A);\nINSERT", 1))
		f.Add(sl.Text[:len(sl.Text)/2])
	}
	f.Add("")
	f.Add("// goldfish slice session=a version=1 anchors=1 k=2 rows=1/50 sum=0000000000000000\n// anchors: a_1\nINSERT\n  (a_1:A)\n")
	f.Add("// goldfish slice session=a version=1 anchors=1 k=2 rows=2/50 sum=0000000000000000\n// anchors: a_1\nINSERT\n  (a_1:A), (a_1)-[e_1:r]->(a_1)\n")
	f.Add("// goldfish session=a version=1 cue=match seeds=1 k=2 rows=1/50 tokens=9\nINSERT\n  (a1:A)\n")
	f.Fuzz(func(t *testing.T, text string) {
		for _, text := range []string{text, reseal(text)} {
			d, err := ReadSlice(text, planText, fuzzBounds)
			if err != nil {
				var ge *gqlstatus.Error
				if !errors.As(err, &ge) || ge.Code == "" || ge.Code == gqlstatus.Internal {
					t.Fatalf("not a GQLSTATUS error: %v", err)
				}
				continue
			}
			checkSliceData(t, d)
			for _, p := range []AbsorbPolicy{AbsorbKeep, AbsorbReject, AbsorbRemint} {
				g := store.New()
				for round := 0; round < 2; round++ {
					before := g.Snapshot()
					res, err := Absorb(context.Background(), g, d, AbsorbOptions{Policy: p, Budget: values.Budget{Rows: fuzzBounds.Rows, Bytes: fuzzBounds.Bytes}})
					if err != nil {
						var ge *gqlstatus.Error
						if !errors.As(err, &ge) || ge.Code == gqlstatus.Internal {
							t.Fatalf("%s: not a GQLSTATUS error: %v", p, err)
						}
						if g.Snapshot() != before {
							t.Fatalf("%s: a failed Absorb published a version", p)
						}
						continue
					}
					if res.Applied != (g.Snapshot().Version() == before.Version()+1) {
						t.Fatalf("%s: applied %v, version %d → %d", p, res.Applied, before.Version(), g.Snapshot().Version())
					}
					if _, err := g.Snapshot().Compact(); err != nil {
						t.Fatalf("%s: the graph fails its check after an Absorb: %v", p, err)
					}
				}
			}
		}
	})
}

func checkSliceData(t *testing.T, d *SliceData) {
	ids := map[store.ID]bool{}
	for _, n := range d.Nodes {
		if ids[n.ID] || n.ID == 0 {
			t.Fatalf("node id %d repeated or zero", n.ID)
		}
		ids[n.ID] = true
	}
	for _, e := range d.Edges {
		if ids[e.ID] || e.ID == 0 || e.From < 0 || e.From >= len(d.Nodes) || e.To < 0 || e.To >= len(d.Nodes) {
			t.Fatalf("edge %+v: id repeated or an end outside the slice", e)
		}
		ids[e.ID] = true
	}
	for _, a := range d.Anchors {
		if a < 0 || a >= len(d.Nodes) {
			t.Fatalf("anchor %d outside the slice", a)
		}
	}
	if d.Rows() > d.Bound {
		t.Fatalf("%d rows over the bound %d", d.Rows(), d.Bound)
	}
}

// TestReadSliceRoundTrip: what ExportSlice writes, ReadSlice reads back
// as it was: each node and edge with its id, labels, type, ends and
// properties.
func TestReadSliceRoundTrip(t *testing.T) {
	sl := testSlice(t, `INSERT (t:TSK:Open {nick: "a", l: [1, [2]], d: DATETIME '2026-01-31T10:00:00Z'})-[:r {w: -1}]->(t), (t)-[:s]->(:MOD)`,
		`MATCH (t:TSK)`, SliceOptions{SliceOptions: values.SliceOptions{M: 50, K: 2, L: 4, F: 8}})
	d, err := ReadSlice(sl.Text, planText, fuzzBounds)
	if err != nil {
		t.Fatalf("%v\n%s", err, sl.Text)
	}
	if d.Session != "src" || d.Version != 1 || d.K != 2 || d.Bound != 50 || len(d.Anchors) != 1 || d.Rows() != sl.Rows || len(d.Nodes) != 2 || len(d.Edges) != 2 {
		t.Fatalf("read %+v from\n%s", d, sl.Text)
	}
	g := store.New()
	if _, err := Absorb(context.Background(), g, d, AbsorbOptions{Policy: AbsorbKeep}); err != nil {
		t.Fatal(err)
	}
	again, err := ExportSlice(context.Background(), g.Snapshot(), mustPlan(t, `MATCH (t:TSK)`), nil, SliceOptions{SliceOptions: values.SliceOptions{M: 50, K: 2, L: 4, F: 8}, Session: "src"})
	if err != nil {
		t.Fatal(err)
	}
	if again.Text != sl.Text {
		t.Fatalf("absorbed and exported again:\n%s\nwant\n%s", again.Text, sl.Text)
	}
}

func mustPlan(t testing.TB, text string) *planner.Plan {
	p, err := planText(text)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
