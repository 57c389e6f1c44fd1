package server

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"

	"github.com/goldfish-gql/goldfish"
)

// BenchmarkReadGraph measures the memory tool read_graph's own work on a
// memory of 50 entities (three observations each) and 49 relations: the
// Recall of the outline (answered by the Shape cache after the first
// call) and its two renderings, the text for the model and the
// {entities, relations} of structuredContent. The MCP round trip around
// it is BenchmarkMemoryRead's.
//
//	go test -run '^$' -bench BenchmarkReadGraph -count 6 ./server/
func BenchmarkReadGraph(b *testing.B) {
	ctx := context.Background()
	db, err := goldfish.Open()
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	s, err := New(db, Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	sess, err := db.Session(ctx, s.opts.MemorySession)
	if err != nil {
		b.Fatal(err)
	}
	for i := range 50 {
		q := fmt.Sprintf(`INSERT (:%s {nick: "person_%d", observations: ["joined in %d", "likes item %d", "writes Go"]})`,
			[]string{"person", "project", "place"}[i%3], i, 2000+i, i*7)
		if i > 0 {
			q += fmt.Sprintf(`; MATCH (a {nick: "person_%d"}), (b {nick: "person_%d"}) INSERT (a)-[:knows]->(b)`, i, i-1)
		}
		if _, err := sess.Commit(ctx, q, nil); err != nil {
			b.Fatal(err)
		}
	}
	res, g, err := s.readGraph(ctx, Everything)
	if err != nil || res.IsError || len(g.Entities) == 0 {
		b.Fatalf("read_graph: %v %v: %d entities, %d relations", err, res, len(g.Entities), len(g.Relations))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, _, err := s.readGraph(ctx, Everything); err != nil {
			b.Fatal(err)
		}
	}
}
