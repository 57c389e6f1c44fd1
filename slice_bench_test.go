package goldfish_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goldfish-gql/goldfish"
)

// BenchmarkSliceExportAbsorb measures a slice of 200 rows: ExportSlice of
// four anchors (each a task with 24 neighbours, one edge between two of
// them: 50 rows, its M), then Absorb with keep into an empty session of
// the same database (the ids kept; the session dropped after, outside
// the timings). It reports each step's p50 and the slice's rows.
func BenchmarkSliceExportAbsorb(b *testing.B) {
	ctx := context.Background()
	db, _ := goldfish.Open()
	defer db.Close()
	src, _ := db.Session(ctx, "src")
	var t strings.Builder
	t.WriteString("INSERT ")
	for a := 0; a < 4; a++ {
		if a > 0 {
			t.WriteString(",\n")
		}
		fmt.Fprintf(&t, "(t%d:TSK {nick: \"TSK_%d\", title: \"task %d\", status: \"open\"})", a, a, a)
		for l := 0; l < 24; l++ {
			fmt.Fprintf(&t, ",\n(t%d)-[:touches]->(m%d_%d:MOD {loc: \"pkg%d/file%d.go\", lines: %d})", a, a, l, a, l, 10*l)
		}
		fmt.Fprintf(&t, ",\n(m%d_0)-[:imports]->(m%d_1)", a, a)
	}
	if _, err := src.Commit(ctx, t.String(), nil); err != nil {
		b.Fatal(err)
	}
	q := `MATCH (t:TSK) LIMIT 4`
	opts := goldfish.SliceOptions{F: 24}
	sl, err := src.ExportSlice(ctx, q, opts)
	if err != nil {
		b.Fatal(err)
	}
	if sl.Rows != 200 || sl.Truncated {
		b.Fatalf("the slice holds %d rows (truncated %v), want 200", sl.Rows, sl.Truncated)
	}
	var export, absorb []time.Duration
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		t0 := time.Now()
		sl, err := src.ExportSlice(ctx, q, opts)
		t1 := time.Now()
		if err != nil {
			b.Fatal(err)
		}
		name := fmt.Sprintf("dst%d", i)
		dst, err := db.Session(ctx, name)
		if err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		res, err := dst.Absorb(ctx, sl.Text, goldfish.AbsorbKeep)
		t3 := time.Now()
		if err != nil || res.Total.NodesCreated+res.Total.EdgesCreated != 200 {
			b.Fatalf("absorb: %v", err)
		}
		export, absorb = append(export, t1.Sub(t0)), append(absorb, t3.Sub(t2))
		if err := db.Drop(ctx, name); err != nil {
			b.Fatal(err)
		}
	}
	p50 := func(d []time.Duration) float64 {
		slices.Sort(d)
		return float64(d[len(d)/2].Nanoseconds()) / 1000
	}
	b.ReportMetric(p50(export), "export-p50-µs")
	b.ReportMetric(p50(absorb), "absorb-p50-µs")
	b.ReportMetric(float64(sl.Rows), "rows")
	b.ReportMetric(float64(len(sl.Text)), "slice-bytes")
}
