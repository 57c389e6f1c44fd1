package planner

import (
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/parser"
)

// TestRefusedByName: what the grammar recognises outside the subset is
// refused with 42001, the feature's name and advice of its own.
func TestRefusedByName(t *testing.T) {
	for _, c := range []struct{ text, msg, hint string }{
		{`MATCH (n) RETURN n NEXT MATCH (m) RETURN m`, "RETURN is outside", "drop RETURN"},
		{`MATCH (n) GROUP BY n.x`, "GROUP BY is outside", "outline"},
		{`MATCH ANY SHORTEST (a)-[:R]->(b) SET b.x = 1`, "path search prefix ANY SHORTEST is outside", "k hops"},
		{`MATCH TRAIL (a)-[:R]->(b) SET b.x = 1`, "path mode TRAIL is outside", "k hops"},
		{`CREATE GRAPH g ANY`, "CREATE GRAPH is outside", "a session is the graph"},
		{`SESSION SET GRAPH g`, "SESSION SET is outside", "sessions are opened"},
		{`MATCH (n) SET n.x = CASE WHEN n.y THEN 1 END`, "CASE expression is outside", "one statement per case"},
		{`MATCH (n) WHERE exists(n.name) SET n.x = 1`, "EXISTS predicate is outside", "IS NOT NULL"},
		{`MATCH (n) WHERE n.a =~ 'x' SET n.x = 1`, "=~ is outside", "STARTS WITH"},
		{`MATCH (n:A|B) INSERT (:X)-[:R]->(:Y) FINISH`, "FINISH is outside", "drop FINISH"},
		{`SHOW DATABASES`, "SHOW DATABASES is outside", "MATCH ()"},
		{`MATCH (a)~[:T]~(b) SET b.x = 1`, "undirected edge ~[ ]~ is outside", "-[:TYPE]-"},
		{`MATCH (n) WHERE n.x BETWEEN 1 AND 2 SET n.y = 1`, "BETWEEN is outside", ">= low AND"},
		{`INSERT (:X {t: DURATION 'P1D'})`, "DURATION literal is outside", "seconds"},
		{`INSERT (:X {t: LOCAL DATETIME '2026-01-31T12:00'})`, "LOCAL DATETIME literal is outside", "offset"},
		// functions: named, with what to do instead
		{`MATCH (n) WHERE element_id(n) = 'x' SET n.y = 1`, "function element_id() is outside", "nick"},
		{`MATCH (n) WHERE id(n) = 1 SET n.y = 1`, "function id() is outside", "nick"},
		{`MATCH (n) WHERE 'A' IN labels(n) SET n.y = 1`, "function labels() is outside", "n:Label"},
		{`MATCH (a)-[e]->(b) WHERE type(e) = 'R' SET b.y = 1`, "function type() is outside", "-[:TYPE]->"},
		{`MATCH (n) WHERE size(n.l) > 1 SET n.y = 1`, "function size() is outside", "length"},
		{`MATCH (n) WHERE coalesce(n.a, 1) = 1 SET n.y = 1`, "function coalesce() is outside", "IS NULL"},
		{`MATCH (n) WHERE toString(n.a) = '1' SET n.y = 1`, "function toString() is outside", "type you mean"},
		{`MATCH (n) WHERE toLower(n.a) = 'x' SET n.y = 1`, "function toLower() is outside", "CONTAINS"},
		{`MATCH (n) WHERE apoc.coll.sum(n.l) = 1 SET n.y = 1`, "function apoc.coll.sum() is outside", "libraries"},
		{`MATCH (n) WHERE count(*) > 1 SET n.y = 1`, "aggregate COUNT() is outside", "outline"},
		{`MATCH (n) WHERE collect(n) = [] SET n.y = 1`, "aggregate COLLECT() is outside", "outline"},
		{`MATCH (n) WHERE all(x IN n.l WHERE x > 0) SET n.y = 1`, "function all() is outside", "IN"},
		// the refusal wins over what else the statement holds
		{`MATCH (n) WHERE nope(n) = 1 AND id(n) = 2 SET m.y = 1`, "function id() is outside", "nick"},
	} {
		_, err := plan(t, c.text)
		ge, ok := err.(*gqlstatus.Error)
		if !ok || ge.Code != gqlstatus.Syntax || !strings.Contains(ge.Msg, c.msg) ||
			!strings.Contains(ge.Msg, "outside the goldfish subset of GQL") || !strings.Contains(ge.Hint, c.hint) || !ge.Pos.Valid() {
			t.Errorf("%s:\n got %v\n want 42001 %q, hint ~ %q", c.text, err, c.msg, c.hint)
		}
	}
}

// TestLabelTestNeedsAnElement: IS Label and :Label test a node's labels
// or an edge's type; on any other value they are refused, not silently
// false.
func TestLabelTestNeedsAnElement(t *testing.T) {
	for _, text := range []string{
		`MATCH (n) WHERE n.x IS Foo SET n.y = 1`,
		`MATCH (n) WHERE n.x:Foo SET n.y = 1`,
		`MATCH (n) WHERE $p IS Foo SET n.y = 1`,
		`MATCH (n) WHERE n.x IS NOT Foo|Bar SET n.y = 1`,
	} {
		_, err := plan(t, text)
		ge, ok := err.(*gqlstatus.Error)
		if !ok || ge.Code != gqlstatus.Syntax || !strings.Contains(ge.Msg, "label test needs a node or edge variable") {
			t.Errorf("%s: %v", text, err)
		}
	}
	for _, text := range []string{
		`MATCH (n) WHERE n.done IS TRUE SET n.y = 1`,
		`MATCH (n) WHERE n IS Foo|!Bar AND n:% SET n.y = 1`,
		`MATCH (a)-[e]->(b) WHERE e IS !T SET b.y = 1`,
	} {
		if _, err := plan(t, text); err != nil {
			t.Errorf("%s: %v", text, err)
		}
	}
}

func TestReadOnlyTransaction(t *testing.T) {
	_, err := plan(t, "START TRANSACTION READ ONLY;\nINSERT (:A);\nCOMMIT")
	ge, ok := err.(*gqlstatus.Error)
	if !ok || ge.Code != gqlstatus.ReadOnlyTransaction || ge.Stmt != 2 || ge.Pos.Line != 2 {
		t.Fatalf("got %v", err)
	}
	if _, err := plan(t, "START TRANSACTION READ ONLY; CALL act(); COMMIT"); err == nil {
		t.Error("an action inside a read-only transaction was planned")
	}
	for _, text := range []string{
		"START TRANSACTION READ ONLY; COMMIT",
		"START TRANSACTION READ WRITE; INSERT (:A); COMMIT WORK",
		"START TRANSACTION; INSERT (:A); ROLLBACK WORK",
	} {
		if _, err := plan(t, text); err != nil {
			t.Errorf("%s: %v", text, err)
		}
	}
}

// TestRecallKeys: a Recall's key tells apart what its Shape depends on:
// the label expression of a seed, and the parser's warnings.
func TestRecallKeys(t *testing.T) {
	key := func(text string) string {
		p, err := plan(t, text)
		if err != nil || !p.Read() {
			t.Fatalf("%s: %v", text, err)
		}
		return p.Stmts[0].Recall.Key
	}
	keys := map[string]string{}
	for _, text := range []string{
		"MATCH (n:A)", "MATCH (n:A|B)", "MATCH (n:!A)", "MATCH (n:%)", "MATCH (n:(A|B)&C)",
		"MATCH (n:A)-->(b)", "MATCH (n:A)-->(c)",
	} {
		k := key(text)
		if prev, dup := keys[k]; dup {
			t.Errorf("%q and %q share the Recall key %q", prev, text, k)
		}
		keys[k] = text
	}
	if key("MATCH (n:A) // a comment") != key("MATCH (n:A)") {
		t.Error("a plain comment changed the Recall key")
	}
	if key("MATCH (n:A)\n-->(b)") != key("MATCH (n:A)") {
		t.Error("a comment on its own line changed the Recall key")
	}
}

// TestNotices: the parser's warnings reach the plan, each on the
// statement whose text holds it.
func TestNotices(t *testing.T) {
	p, err := plan(t, "MATCH (a:A) SET a.x = 1;\nMATCH (b:B)-->(c) SET b.y = 1")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Notices) != 1 || len(p.Stmts[0].Notices) != 0 || len(p.Stmts[1].Notices) != 1 ||
		p.Stmts[1].Notices[0].Code != gqlstatus.Warning || p.Stmts[1].Notices[0].Pos.Line != 2 {
		t.Fatalf("notices %v / %v / %v", p.Notices, p.Stmts[0].Notices, p.Stmts[1].Notices)
	}
}

// TestArrowsRead: a text the parser read with "--" as edges is refused,
// and the refusal says how it was read.
func TestArrowsRead(t *testing.T) {
	script, err := parser.Parse("MATCH (n) WHERE exists { (n)-->() } SET n.x = 1")
	if err != nil || !script.ArrowsRead {
		t.Fatalf("parse: %v (arrows %v)", err, script != nil && script.ArrowsRead)
	}
	_, err = Build(script)
	ge, ok := err.(*gqlstatus.Error)
	if !ok || !strings.Contains(ge.Msg, "EXISTS predicate is outside") || !strings.Contains(ge.Hint, `reads the "--" at line 1, column 29 as an edge`) {
		t.Fatalf("got %v", err)
	}
}
