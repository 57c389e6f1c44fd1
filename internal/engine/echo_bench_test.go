package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/goldfish-gql/goldfish/values"
)

// BenchmarkEchoCommit commits a 50-row Shape's text back into its session
// (every row an echo: nothing applies) and the same text into an empty
// session (every row created), interleaved in one run so both see the
// same machine state. An echo costs a nick lookup or one seek of the
// index of live nodes and a search of one adjacency, where a created
// row costs the store's writes and a new version: the echo commit should
// cost no more than the empty-session one (echo/empty ≤ 1).
//
//	go test -run '^$' -bench Echo -benchtime 2000x ./internal/engine
func BenchmarkEchoCommit(b *testing.B) {
	ctx := context.Background()
	db, _ := openTest(bigBudget, WithShapeCacheBytes(0))
	s, _ := db.Session(ctx, "home")
	// A session of a few thousand nodes around the recalled task, so the
	// echo lookups run on indexes of a realistic size.
	var parts []string
	parts = append(parts, `(t:TSK {nick: "t0", status: "open", title: "the task"})`)
	for i := range 3000 {
		parts = append(parts, fmt.Sprintf(`(m%d:MOD {loc: "src/f%d.go", lines: %d})`, i, i, i%400))
		if i < 40 {
			parts = append(parts, fmt.Sprintf(`(t)-[:touches {why: "w%d"}]->(m%d)`, i, i))
		}
		if i > 0 {
			parts = append(parts, fmt.Sprintf(`(m%d)-[:imports]->(m%d)`, i, i/2))
		}
	}
	if _, err := s.commitText(ctx, "INSERT "+strings.Join(parts, ",\n"), nil); err != nil {
		b.Fatal(err)
	}
	r, err := s.Recall(ctx, `MATCH (t:TSK {nick: "t0"})`, values.RecallOptions{M: 50, F: 16}, nil)
	if err != nil {
		b.Fatal(err)
	}
	if r.Rows != 50 {
		b.Log(r.Text)
		b.Fatalf("the values.Shape has %d rows, want 50", r.Rows)
	}
	shape := r.Text
	version := s.Version()
	// The empty sessions are made before the clock runs: one per commit,
	// since a second commit into one would be echoes too.
	empties := make([]*Session, b.N)
	for i := range empties {
		empties[i], _ = db.Session(ctx, fmt.Sprintf("empty%d", i))
	}
	// Plan the text once, so neither side pays for it.
	warm, _ := db.Session(ctx, "warm")
	if _, err := warm.commitText(ctx, shape, nil); err != nil {
		b.Fatal(err)
	}
	var echo, empty time.Duration
	b.ResetTimer()
	for i := range b.N {
		t0 := time.Now()
		res, err := s.commitText(ctx, shape, nil)
		t1 := time.Now()
		if err != nil || res.Applied || res.Total.NodesEchoed+res.Total.EdgesEchoed != 50 {
			b.Fatalf("echo commit: %v %+v", err, res)
		}
		res, err = empties[i].commitText(ctx, shape, nil)
		t2 := time.Now()
		if err != nil || !res.Applied || res.Total.NodesCreated+res.Total.EdgesCreated != 50 {
			b.Fatalf("empty-session commit: %v %+v", err, res)
		}
		echo += t1.Sub(t0)
		empty += t2.Sub(t1)
	}
	b.StopTimer()
	if s.Version() != version {
		b.Fatalf("the echo commits moved the version from %d to %d", version, s.Version())
	}
	b.ReportMetric(float64(echo.Nanoseconds())/float64(b.N), "echo-ns/commit")
	b.ReportMetric(float64(empty.Nanoseconds())/float64(b.N), "empty-ns/commit")
	b.ReportMetric(float64(echo)/float64(empty), "echo/empty")
}
