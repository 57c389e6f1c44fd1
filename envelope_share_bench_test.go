package goldfish_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish"
)

// BenchmarkEnvelopeShare reports what the attention envelope takes of a
// Recall's tokens for a session of 10, 80 and 200 actions (distinct
// intents, none invoked): an agent's first read (depth=full once) and
// its next (lean), each against the same read of the Shape alone. The
// figures are token estimates, the same on every run:
//
//	go test -run '^$' -bench EnvelopeShare -benchtime 1x .
func BenchmarkEnvelopeShare(b *testing.B) {
	ctx := context.Background()
	for _, items := range []int{10, 80, 200} {
		b.Run(fmt.Sprintf("items=%d", items), func(b *testing.B) {
			db, err := goldfish.Open()
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			s, err := db.Session(ctx, "s")
			if err != nil {
				b.Fatal(err)
			}
			if _, err := s.Commit(ctx, `INSERT (:TSK {nick: "t1", status: "open"}), (:TSK {nick: "t2", status: "done"})`, nil); err != nil {
				b.Fatal(err)
			}
			var stmts []string
			for i := range items {
				stmts = append(stmts, fmt.Sprintf(`CREATE ACTION a%d(nick STRING, note STRING = '') INTENT 'record note%d for task%d' { MATCH (t:TSK {nick: $nick}) SET t.n%d = $note }`, i, i, i, i))
			}
			for i := 0; i < len(stmts); i += 50 {
				if _, err := s.Commit(ctx, strings.Join(stmts[i:min(i+50, len(stmts))], ";\n"), nil); err != nil {
					b.Fatal(err)
				}
			}
			q := `MATCH (t:TSK {nick: "t1"})`
			var shape, first, lean int
			for i := 0; b.Loop(); i++ {
				rows, err := s.Recall(ctx, q, goldfish.RecallOptions{Only: []string{"shape"}})
				if err != nil {
					b.Fatal(err)
				}
				agent := fmt.Sprint("agent", i)
				f, err := s.Recall(ctx, q, goldfish.RecallOptions{Agent: agent})
				if err != nil {
					b.Fatal(err)
				}
				l, err := s.Recall(ctx, q, goldfish.RecallOptions{Agent: agent})
				if err != nil {
					b.Fatal(err)
				}
				shape, first, lean = rows.Tokens, f.Tokens, l.Tokens
			}
			b.ReportMetric(float64(shape), "shape-tokens")
			b.ReportMetric(float64(first), "first-tokens")
			b.ReportMetric(float64(first-shape)/float64(first), "first-share")
			b.ReportMetric(float64(lean), "lean-tokens")
			b.ReportMetric(float64(lean-shape)/float64(lean), "lean-share")
		})
	}
}
