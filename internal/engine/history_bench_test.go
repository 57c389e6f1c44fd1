package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goldfish-gql/goldfish/values"
)

// historyNodes and historyEdgesPer make the benchmark's session about
// 100k elements: 25k nodes and three edges from each.
const (
	historyNodes    = 25_000
	historyEdgesPer = 3
	historyCommits  = 1000
)

// historySession commits, through the log, a session of about 100k
// elements in Δs of 100 nodes and their 300 edges (each to a node of
// the same Δ), then historyCommits small Commits (a property set, an
// edge added), so that the cabinet's history holds every version.
func historySession(b testing.TB, db *DB) *Session {
	b.Helper()
	ctx := context.Background()
	s, _ := db.Session(ctx, "hist")
	rng := rand.New(rand.NewPCG(3, 4))
	const per = 100
	for lo := 0; lo < historyNodes; lo += per {
		var t strings.Builder
		t.WriteString("INSERT ")
		for i := lo; i < lo+per; i++ {
			kind := benchKinds[i%len(benchKinds)]
			fmt.Fprintf(&t, "(n%d:%s {nick: \"%s_%d\", title: \"element %d of the bench session\", weight: %d}), ", i, kind, kind, i, i, i%97)
		}
		for i := lo; i < lo+per; i++ {
			for j := range historyEdgesPer {
				fmt.Fprintf(&t, "(n%d)-[:%s]->(n%d), ", i, [...]string{"touches", "calls", "contains"}[j], lo+rng.IntN(per))
			}
		}
		if _, err := s.commitText(ctx, strings.TrimSuffix(t.String(), ", "), nil); err != nil {
			b.Fatal(err)
		}
	}
	for i := range historyCommits {
		a, c := rng.IntN(historyNodes/len(benchKinds))*len(benchKinds), rng.IntN(historyNodes)
		text := fmt.Sprintf(`MATCH (t:TSK {nick: "TSK_%d"}), (c {nick: "%s_%d"}) SET t.weight = %d INSERT (t)-[:refs]->(c)`,
			a, benchKinds[c%len(benchKinds)], c, i)
		if _, err := s.commitText(ctx, text, nil); err != nil {
			b.Fatal(err)
		}
	}
	return s
}

// BenchmarkRecallAtVersion measures a Recall (seed by nick, k=2, M=50,
// the Shape cache off) of a session of about 100k elements at its newest
// version and as of a random one of its last 1000 versions (docs/design.md#persistence-and-history
// History): kept, the versions this process made; rebuilt, after a
// reopen, once a first Recall has rebuilt them from the cabinet's
// history. That first Recall, a replay of the history from the version
// it starts at (here the empty graph: history=all and one flush, at the
// newest version), is timed and logged (-v).
//
//	go test -run '^$' -bench RecallAtVersion -benchtime 2000x ./internal/engine/
func BenchmarkRecallAtVersion(b *testing.B) {
	ctx := context.Background()
	path := filepath.Join(b.TempDir(), "hist.gf")
	big := func(c *Config) { c.Budget = values.Budget{Rows: 5000, Bytes: 4 << 20} }
	db, err := openTest(WithCabinet(path), WithShapeCacheBytes(0), big)
	if err != nil {
		b.Fatal(err)
	}
	t0 := time.Now()
	s := historySession(b, db)
	b.Logf("built %d versions in %v", s.Version(), time.Since(t0))
	if err := s.Flush(ctx); err != nil {
		b.Fatal(err)
	}
	newest := s.Version()
	const q = `MATCH (t:TSK {nick: $nick})`
	nicks := benchNicks(historyNodes)
	at := func(i int) uint64 { return newest - uint64(rand.New(rand.NewPCG(uint64(i), 7)).IntN(historyCommits)) }
	recallAt := func(s *Session, v func(int) uint64) func(int) error {
		return func(i int) error {
			_, err := s.recallShape(ctx, q, values.RecallOptions{Params: nicks[i%len(nicks)], AtVersion: v(i)})
			return err
		}
	}
	b.Run("newest", func(b *testing.B) { recallLatencies(b, recallAt(s, func(int) uint64 { return 0 })) })
	b.Run("at-kept", func(b *testing.B) { recallLatencies(b, recallAt(s, at)) })
	db.Close()
	db, err = openTest(WithCabinet(path), WithShapeCacheBytes(0), big)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	s, _ = db.Session(ctx, "hist")
	// The first Recall at a version older than the snapshot rebuilds the
	// versions around it: timed three times (a b.Run of it would run it
	// for every iteration of the others).
	var took []time.Duration
	for range 3 {
		s.older.reset()
		t0 = time.Now()
		if _, err := s.recallShape(ctx, q, values.RecallOptions{Params: nicks[0], AtVersion: newest - historyCommits + 1}); err != nil {
			b.Fatal(err)
		}
		took = append(took, time.Since(t0))
	}
	slices.Sort(took)
	b.Logf("the first Recall at the oldest of the last %d versions after a reopen (a rebuild from the history): median %v of %v", historyCommits, took[1], took)
	b.Run("newest-reopened", func(b *testing.B) { recallLatencies(b, recallAt(s, func(int) uint64 { return 0 })) })
	b.Run("at-rebuilt", func(b *testing.B) { recallLatencies(b, recallAt(s, at)) })
}
