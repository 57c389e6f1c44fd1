package planner

import (
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/parser"
)

func plan(t *testing.T, text string) (*Plan, error) {
	t.Helper()
	script, err := parser.Parse(text)
	if err != nil {
		t.Fatalf("parse %q: %v", text, err)
	}
	return Build(script)
}

// TestRefusals: every recognised form outside the subset is refused with
// 42001, its name, and advice on what to write instead.
func TestRefusals(t *testing.T) {
	for _, c := range []struct{ text, feature, advice string }{
		{`MATCH (n:TSK) RETURN n`, "RETURN", "drop RETURN"},
		{`OPTIONAL MATCH (n:TSK) SET n.a = 1`, "OPTIONAL MATCH", "write MATCH"},
		{`MATCH (n:TSK) ORDER BY n.a`, "ORDER BY", "canonical order"},
		{`CREATE (:TSK)`, "CREATE", "write INSERT"},
		{`MERGE (:TSK {loc: "a"})`, "MERGE", "Ingest"},
		{`UNWIND [1, 2] AS x INSERT (:A)`, "UNWIND", "one INSERT per element"},
		{`MATCH (a)-[:r*1..3]->(b) SET b.x = 1`, "quantified path", "k hops"},
		{`MATCH (n) WHERE count(n) > 1 SET n.x = 1`, "aggregate COUNT()", "outline"},
		{`MATCH p = (a)-[:r]->(b) SET b.x = 1`, "path variable", "name the nodes"},
		{`MATCH (a:TSK)-[:r]->(b)`, "node patterns only", "drop the relationship pattern"},
		{`MATCH (a:TSK), (b:NOTE) WHERE a.x = b.x`, "one seed variable", "split it"},
	} {
		_, err := plan(t, c.text)
		ge, ok := err.(*gqlstatus.Error)
		if !ok || ge.Code != gqlstatus.Syntax {
			t.Errorf("%s: got %v, want 42001", c.text, err)
			continue
		}
		if !strings.Contains(ge.Msg, c.feature) || !strings.Contains(ge.Hint, c.advice) {
			t.Errorf("%s: message %q / hint %q lacks %q / %q", c.text, ge.Msg, ge.Hint, c.feature, c.advice)
		}
		if !ge.Pos.Valid() {
			t.Errorf("%s: no position", c.text)
		}
	}
}

func TestReferencesAndValues(t *testing.T) {
	for _, c := range []struct {
		text string
		code gqlstatus.Code
	}{
		{`MATCH (n:TSK) SET m.a = 1`, gqlstatus.InvalidReference},
		{`MATCH (n:TSK) DELETE m`, gqlstatus.InvalidReference},
		{`MATCH (n:TSK) WHERE nope(n) SET n.a = 1`, gqlstatus.InvalidReference},
		{`MATCH (n:TSK) LIMIT -1 SET n.a = 1`, gqlstatus.NegativeLimit},
		{`MATCH (n:TSK) LIMIT "x" SET n.a = 1`, gqlstatus.InvalidValueType},
		{`INSERT (:A {a: 1, a: 2})`, gqlstatus.DuplicateAssignment},
		{`MATCH (n)-[r]->(m) SET r:Label`, gqlstatus.InvalidValueType},
		{`INSERT (a)-[:r]-(b)`, gqlstatus.Syntax},
		{`COMMIT`, gqlstatus.InvalidTransactionState},
		{`START TRANSACTION; INSERT (:A)`, gqlstatus.InvalidTransactionState},
		{`INSERT (:A); START TRANSACTION; COMMIT`, gqlstatus.InvalidTransactionState},
		{`START TRANSACTION; START TRANSACTION; COMMIT`, gqlstatus.ActiveTransaction},
		{`START TRANSACTION; INSERT (:A); COMMIT; INSERT (:B)`, gqlstatus.InvalidTransactionState},
	} {
		_, err := plan(t, c.text)
		ge, ok := err.(*gqlstatus.Error)
		if !ok || ge.Code != c.code {
			t.Errorf("%s: got %v, want %s", c.text, err, c.code)
		}
	}
}

// TestRecallPlans checks what the planner makes of read statements: the
// outline, conditions placed on their seed, the normalised key, and the
// keyword token recognised so seeding can skip CEL.
func TestRecallPlans(t *testing.T) {
	p, err := plan(t, `MATCH ()`)
	if err != nil || !p.Read() || !p.Stmts[0].Recall.Empty {
		t.Fatalf("MATCH () is not the outline: %+v, %v", p, err)
	}
	p, err = plan(t, `match (t:TSK {status: "open"}), (n:NOTE) where n contains "cookie" and t.n > 1 limit 2`)
	if err != nil || !p.Read() {
		t.Fatal(err)
	}
	rp := p.Stmts[0].Recall
	if rp.Empty || len(rp.Seeds) != 2 || len(rp.Filters[0]) != 1 || len(rp.Filters[1]) != 1 || rp.Limit == nil {
		t.Fatalf("conditions not placed on their seeds: %+v", rp)
	}
	if !rp.Filters[1][0].keyword || rp.Filters[1][0].word != "cookie" {
		t.Fatalf("keyword token not recognised: %+v", rp.Filters[1][0])
	}
	q, _ := plan(t, "MATCH   (t:TSK {status: 'open'}), (n:NOTE)\n WHERE n CONTAINS 'cookie' AND t.n > 1 /* same */ LIMIT 2")
	if q.Stmts[0].Recall.Key != rp.Key {
		t.Fatalf("normalised keys differ:\n%s\n%s", q.Stmts[0].Recall.Key, rp.Key)
	}
	if c, _ := plan(t, `MATCH (t:TSK) SET t.a = 1`); c.Read() {
		t.Fatal("a SET is not a Recall")
	}
}
