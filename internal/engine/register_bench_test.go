package engine

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkRegister: one CREATE OR REPLACE of a view, or of an action
// whose parameters all have defaults (so its IF is evaluated at
// registration), on a session of 1,000 elements, each Commit a new text
// (so it is parsed, planned and compiled). Registration evaluates the view
// (or the IF) once on the new state; the bound is 2× the cost of
// registering without that evaluation.
//
//	go test -run '^$' -bench Register -benchtime 5000x ./internal/engine
func BenchmarkRegister(b *testing.B) {
	for _, kind := range []string{"view", "action"} {
		b.Run(kind, func(b *testing.B) {
			ctx := context.Background()
			db, _ := openTest()
			defer db.Close()
			s := benchSessionAs(b, db, "register", 1000)
			text := func(i int) string {
				if kind == "view" {
					return fmt.Sprintf(`CREATE OR REPLACE VIEW heavy INTENT 'how many tasks weigh over %d' AS 'size(nodes("TSK").filter(t, t.weight > %d))'`, i, i%97)
				}
				return fmt.Sprintf(`CREATE OR REPLACE ACTION weigh(nick STRING = 'TSK_0', w INTEGER = %d) INTENT 'set a task weight'
					IF 'size(nodes("TSK").filter(t, t.nick == nick)) == 1' { MATCH (t:TSK {nick: $nick}) SET t.weight = $w }`, i)
			}
			if _, err := s.commitText(ctx, text(0), nil); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := range b.N {
				if _, err := s.commitText(ctx, text(i+1), nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
