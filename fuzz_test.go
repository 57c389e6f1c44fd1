package goldfish_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/goldfish-gql/goldfish"
)

// fuzzSetup is the session every fuzzed statement runs against.
const fuzzSetup = `INSERT (:TSK {nick: "a", status: "open", n: 1})-[:touches]->(:MOD {loc: "x.go", lines: [1, 2]}),
  (:NOTE {text: "cookie", at: DATE '2026-01-31'})`

// FuzzStatement runs arbitrary text as a Commit and as a Recall: whatever
// it is, the engine answers with a result or a GQLSTATUS error, never a
// panic, and a failed Commit leaves the version where it was.
func FuzzStatement(f *testing.F) {
	for _, s := range []string{
		`MATCH (t:TSK) SET t.n = t.n + 1`, `MATCH (t) WHERE t CONTAINS "COOK" DETACH DELETE t`,
		`MATCH (a)-[r]->(b) DELETE r, a`, `INSERT (:A {x: [1, "a", null]})`, `MATCH ()`,
		`MATCH (m:MOD) WHERE m.lines IN [[1, 2]] LIMIT 1`, `MATCH (n) WHERE n.n / 0 > 1 SET n.z = 1`,
		`START TRANSACTION; INSERT (:B); ROLLBACK`, `MATCH (t {nick: "a"}) SET t = {nick: 3}`,
		`MATCH (t:TSK) REMOVE t:TSK SET t:X:Y`, `MATCH (n) RETURN count(*)`, `CALL x()`,
		`MATCH (a), (b) WHERE a.n < b.n INSERT (a)-[:r]->(b)`, `MATCH (n) LIMIT -1 SET n.q = 1`,
		`MATCH (n:A|!B) WHERE n.d IS NOT TRUE AND n:% SET n.x = 0x1F`, `MATCH (a)-[e:!r]->(b) SET e.w = 1_000`,
		`START TRANSACTION READ ONLY; INSERT (:C); COMMIT WORK`, "MATCH (a)-->(b)\nSET a.x = 1",
		`MATCH (n) WHERE exists { (n)-->() } SET n.x = 1`, `MATCH ANY SHORTEST (a)-[]->+(b) SET b.x = CASE WHEN true THEN 1 END`,
		`INSERT (:D {"k": ZONED DATETIME '2026-01-31T12:00Z'})`, `MATCH (n) WHERE n.x IS Foo SET n.y = 1`,
	} {
		f.Add(s)
	}
	db, _ := goldfish.Open()
	defer db.Close()
	n := 0
	f.Fuzz(func(t *testing.T, text string) {
		n++ // a fresh session per input; one database, so no cache start-up per run
		s, _ := db.Session(context.Background(), fmt.Sprintf("fuzz%d", n))
		ctx := context.Background()
		if _, err := s.Commit(ctx, fuzzSetup, nil); err != nil {
			t.Fatal(err)
		}
		before := s.Version()
		var ge *goldfish.Error
		if _, err := s.Commit(ctx, text, map[string]any{"x": 1}); err != nil {
			if !errors.As(err, &ge) {
				t.Fatalf("%q: Commit error %T is not a GQLSTATUS error: %v", text, err, err)
			}
			if s.Version() != before {
				t.Fatalf("%q: a failed Commit moved the version from %d to %d", text, before, s.Version())
			}
		}
		if _, err := s.Recall(ctx, text, goldfish.RecallOptions{Params: map[string]any{"x": 1}}); err != nil && !errors.As(err, &ge) {
			t.Fatalf("%q: Recall error %T is not a GQLSTATUS error: %v", text, err, err)
		}
	})
}
