package engine

import (
	"testing"

	"github.com/goldfish-gql/goldfish/parser"
)

// TestIsRecallByTheAST: a client tells a Recall from a Δ by the parser
// alone (parser.IsRecall, no planner, no engine); it agrees with the
// engine's IsRecall on every text the planner plans, and where they
// differ the text fails to plan, so whichever verb it is sent to answers
// the same error.
func TestIsRecallByTheAST(t *testing.T) {
	db, err := openTest()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s, err := db.Session(t.Context(), "s")
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{
		`MATCH (t:TSK)`, `MATCH (t:TSK {status: "open"}) LIMIT 1`, `MATCH ()`, `match (n) where n contains 'x'`,
		`MATCH (a:A), (b:B) WHERE a.x = b.y LIMIT 2;`, `MATCH (n:N) LIMIT $l`, `// a comment
MATCH (n)`, `START TRANSACTION; MATCH (n:T); COMMIT`, `START TRANSACTION READ ONLY; MATCH (n:T); COMMIT`,
		`MATCH (n:T); MATCH (m:T)`, `INSERT (:T {nick: "a"})`, `MATCH (t:T {nick: "a"}) SET t.x = 1`,
		`MATCH (t:T) DETACH DELETE t`, `MATCH (t:T) REMOVE t.x`, `CALL settle("a")`,
		`CREATE VIEW v AS 'count("T")'`, `DROP VIEW v`, `MATCH (a)-[:r]->(b)`, `MATCH (a)-[:r]->(b) SET a.x = 1`,
		`OPTIONAL MATCH (n)`, `MATCH (n) RETURN n`, `MATCH (n) LIMIT -1`, `MATCH (n) LIMIT 'x'`, `LIMIT 3`,
		`MATCH (n:T) --> (m)`, `MATCH (n`, ``, `;`, `ROLLBACK`, `MATCH (n:T); ROLLBACK`, `START TRANSACTION; MATCH (n:T)`,
		`MATCH (n:T) ORDER BY n.x`, `MATCH (n) WHERE EXISTS { MATCH (n) }`, `MATCH p = (a)-[*1..3]->(b)`,
	} {
		byAST := parser.IsRecall(text)
		byPlan := s.IsRecall(text)
		if byAST == byPlan {
			continue
		}
		if _, err := db.plan(text); err == nil {
			t.Errorf("%q: the AST says Recall %v, the planner %v, and the text plans", text, byAST, byPlan)
		}
	}
}
