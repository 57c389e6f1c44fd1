package parser

import (
	"errors"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/parser/ast"
)

// TestRefusedForms: the forms outside the subset parse, and the first one
// the statement holds is named at its position.
func TestRefusedForms(t *testing.T) {
	for _, c := range []struct {
		in, feature string
		col         int
	}{
		{`MATCH (n) RETURN n NEXT MATCH (m) RETURN m`, "RETURN", 11},
		{`MATCH (n) NEXT MATCH (m) SET m.x = 1`, "NEXT", 11},
		{`MATCH (n) GROUP BY n.x`, "GROUP BY", 11},
		{`MATCH (n) HAVING n.x > 1`, "HAVING", 11},
		{`MATCH (n) SET n.x = 1 FINISH`, "FINISH", 23},
		{`MATCH (n) INSERT (:X) INTERSECT MATCH (m)`, "INTERSECT", 23},
		{`MATCH (n) INSERT (:X) EXCEPT MATCH (m)`, "EXCEPT", 23},
		{`MATCH (n) INSERT (:X) OTHERWISE MATCH (m)`, "OTHERWISE", 23},
		{`MATCH (n) INSERT (:X) UNION MATCH (m)`, "UNION", 23},
		{`MATCH ANY (a)-[:R]->(b) SET b.x = 1`, "path search prefix ANY", 7},
		{`MATCH ALL (a)-[:R]->(b) SET b.x = 1`, "path search prefix ALL", 7},
		{`MATCH p = ANY SHORTEST (a)-[:R]->+(b) SET b.x = 1`, "path search prefix ANY SHORTEST", 11},
		{`MATCH ALL SHORTEST (a)-[:R]->*(b) SET b.x = 1`, "path search prefix ALL SHORTEST", 7},
		{`MATCH SHORTEST 3 (a)-[:R]->+(b) SET b.x = 1`, "path search prefix SHORTEST 3", 7},
		{`MATCH SHORTEST 2 GROUPS (a)-[:R]->+(b) SET b.x = 1`, "path search prefix SHORTEST 2 GROUPS", 7},
		{`MATCH ANY 3 (a)-[:R]->+(b) SET b.x = 1`, "path search prefix ANY 3", 7},
		{`MATCH WALK (a)-[:R]->(b) SET b.x = 1`, "path mode WALK", 7},
		{`MATCH TRAIL PATH (a)-[:R]->(b) SET b.x = 1`, "path mode TRAIL PATH", 7},
		{`MATCH SIMPLE PATHS (a)-[:R]->(b) SET b.x = 1`, "path mode SIMPLE PATHS", 7},
		{`MATCH ACYCLIC (a)-[:R]->(b) SET b.x = 1`, "path mode ACYCLIC", 7},
		{`MATCH DIFFERENT EDGES (a)-[:R]->(b) SET b.x = 1`, "match mode DIFFERENT EDGES", 7},
		{`MATCH ((a)-[:R]->(b)){1,3} SET b.x = 1`, "quantified path", 7},
		{`MATCH (a) ((x)-[:R]->(y)){2} (b) SET b.x = 1`, "quantified path", 11},
		{`MATCH ((a)-[:R]->(b)) SET b.x = 1`, "parenthesised path pattern", 7},
		{`MATCH (a)-[:X]->(b) | (a)-[:Y]->(b) SET b.x = 1`, "path pattern union |", 21},
		{`MATCH (a)-[:X]->(b) |+| (a)-[:Y]->(b) SET b.x = 1`, "path multiset alternation |+|", 21},
		{`MATCH p = shortestPath((a)-[*]-(b)) SET b.x = 1`, "shortestPath()", 11},
		{`MATCH -[e]-> SET e.x = 1`, "path starting with an edge", 7},
		{`MATCH n SET n.x = 1`, "node pattern without parentheses", 7},
		{`MATCH (a)-/:R/->(b) SET b.x = 1`, "simplified path pattern -/ /->", 10},
		{`CREATE GRAPH g ANY`, "CREATE GRAPH", 1},
		{`CREATE GRAPH IF NOT EXISTS g ANY`, "CREATE GRAPH", 1},
		{`CREATE OR REPLACE GRAPH g TYPED gt`, "CREATE GRAPH", 1},
		{`DROP GRAPH IF EXISTS g`, "DROP GRAPH", 1},
		{`CREATE SCHEMA /s`, "CREATE SCHEMA", 1},
		{`DROP SCHEMA /s`, "DROP SCHEMA", 1},
		{`CREATE GRAPH TYPE gt AS { (:A) }`, "CREATE GRAPH TYPE", 1},
		{`CREATE INDEX FOR (n:X) ON (n.a)`, "CREATE INDEX", 1},
		{`CREATE RANGE INDEX i FOR (n:X) ON (n.a)`, "CREATE INDEX", 1},
		{`CREATE CONSTRAINT c FOR (n:X) REQUIRE n.a IS UNIQUE`, "CREATE CONSTRAINT", 1},
		{`CREATE (n:X)`, "CREATE", 1},
		{`USE g MATCH (n) SET n.x = 1`, "USE", 1},
		{`SESSION SET GRAPH g`, "SESSION SET", 1},
		{`SESSION RESET`, "SESSION RESET", 1},
		{`SESSION CLOSE`, "SESSION CLOSE", 1},
		{`GRAPH g MATCH (n) SET n.x = 1`, "GRAPH clause", 1},
		{`MATCH (n) WHERE EXISTS { MATCH (n)-[:R]->(m) } SET n.x = 1`, "EXISTS predicate", 17},
		{`MATCH (n) WHERE exists(n.name) SET n.x = 1`, "EXISTS predicate", 17},
		{`MATCH (n) SET n.x = CASE WHEN n.y > 1 THEN 'a' ELSE 'b' END`, "CASE expression", 21},
		{`MATCH (n) SET n.x = CASE n.y WHEN 1, 2 THEN 'a' WHEN > 5 THEN 'b' END`, "CASE expression", 21},
		{`MATCH (n) WHERE n.x = COUNT { (n)-[:R]->() } SET n.y = 1`, "COUNT { } subquery", 23},
		{`EXPLAIN MATCH (n) RETURN n`, "EXPLAIN", 1},
		{`PROFILE MATCH (n) RETURN n`, "PROFILE", 1},
		{`MATCH (n) FOREACH (x IN [1] | SET n.y = x)`, "FOREACH", 11},
		{`MATCH (n) CALL { WITH n RETURN n } RETURN n`, "CALL { } subquery", 11},
		{`MATCH (n) CALL (n) { RETURN n } RETURN n`, "CALL { } subquery", 11},
		{`CALL db.labels() YIELD label RETURN label`, "YIELD", 18},
		{`MATCH (n) CALL f(n)`, "CALL inside a statement", 11},
		{`MATCH (n) WHERE [x IN n.l WHERE x > 1 | x * 2] = [] SET n.y = 1`, "list comprehension", 17},
		{`MATCH (n) WHERE [(n)-[:R]->(m) | m.x] = [] SET n.y = 1`, "pattern comprehension", 17},
		{`MATCH (n) SET n.y = n {.a, .b}`, "map projection", 21},
		{`MATCH (n) WHERE n.name =~ 'a.*' SET n.y = 1`, "regular expression match =~", 24},
		{`MATCH (n:$(x)) SET n.y = 1`, "dynamic label", 10},
		{`MATCH (n) SET n:$($label)`, "dynamic label", 17},
		{`MATCH (n:$any(['A', 'B'])) SET n.y = 1`, "dynamic label", 10},
		{`LOAD CSV FROM 'file:///x.csv' AS row INSERT (:X)`, "LOAD CSV", 1},
		{`SHOW INDEXES`, "SHOW INDEXES", 1},
		{`MATCH (n) WHERE n.l[0] = 1 SET n.y = 1`, "subscript [ ]", 20},
		{`MATCH (n) WHERE n.l[1..2] = [1] SET n.y = 1`, "list slice [ .. ]", 20},
		{`MATCH (n) WHERE n.x ^ 2 > 1 SET n.y = 1`, "operator ^", 21},
		{`MATCH (n) WHERE n.x BETWEEN 1 AND 2 SET n.y = 1`, "BETWEEN", 21},
		{`MATCH (n) WHERE n.x NOT LIKE 'a%' SET n.y = 1`, "NOT LIKE", 21},
		{`MATCH (n) SET n += $props`, "properties from a parameter", 20},
		{`MATCH (n $props) SET n.y = 1`, "properties from a parameter", 10},
		{`MATCH (a)-[e WHERE e.w > 1]->(b) SET b.x = 1`, "WHERE inside an edge pattern", 14},
		{`MATCH (n) WHERE NOT (n)-[:R]->() SET n.x = 1`, "pattern predicate", 21},
		{`MATCH (n) WHERE (n)-[r]-(m) SET n.x = 1`, "pattern predicate", 17},
		{`MATCH (n) WHERE n.s IS NORMALIZED SET n.y = 1`, "IS NORMALIZED", 21},
		{`MATCH (n) WHERE n.s IS NOT NFC NORMALIZED SET n.y = 1`, "IS NOT NORMALIZED", 21},
		{`MATCH (a)-[e]->(b) WHERE e IS DIRECTED SET b.y = 1`, "IS DIRECTED", 28},
		{`MATCH (a)-[e]->(b) WHERE a IS SOURCE OF e SET b.y = 1`, "IS SOURCE OF", 28},
		{`MATCH (n) WHERE n.x IS :: INTEGER NOT NULL SET n.y = 1`, "type predicate IS ::", 21},
		{`MATCH (n) WHERE n.x IS NOT TYPED STRING SET n.y = 1`, "type predicate IS NOT TYPED", 21},
		{`MATCH (a)~[:T]~(b) SET b.x = 1`, "undirected edge ~[ ]~", 10},
		{`MATCH (a)<~[:T]~(b) SET b.x = 1`, "undirected edge <~[ ]~", 10},
		{`MATCH (a)~[:T]~>(b) SET b.x = 1`, "undirected edge ~[ ]~>", 10},
		{`MATCH (a)~(b) SET b.x = 1`, "undirected edge ~[ ]~", 10},
		{`INSERT (:X {t: TIME '12:00'})`, "TIME literal", 16},
		{`INSERT (:X {t: LOCAL TIME '12:00'})`, "LOCAL TIME literal", 16},
		{`INSERT (:X {t: ZONED TIME '12:00+01:00'})`, "ZONED TIME literal", 16},
		{`INSERT (:X {t: LOCAL DATETIME '2026-01-31T12:00'})`, "LOCAL DATETIME literal", 16},
		{`INSERT (:X {t: DURATION 'P1D'})`, "DURATION literal", 16},
		{`START TRANSACTION ISOLATION LEVEL SERIALIZABLE`, "ISOLATION LEVEL", 19},
		{`ROLLBACK TO SAVEPOINT sp`, "ROLLBACK TO SAVEPOINT", 1},
		{`SAVEPOINT sp`, "SAVEPOINT", 1},
		{`START DATABASE foo`, "START DATABASE", 1},
		{`SELECT * FROM t`, "SELECT", 1},
		{`USING PERIODIC COMMIT 500 LOAD CSV FROM 'x' AS l INSERT (:X)`, "USING", 1},
		{`MATCH (n) USING INDEX n:P(name) WHERE n.name = 'x' SET n.y = 1`, "USING", 11},
		{`AT /s MATCH (n) SET n.x = 1`, "AT", 1},
		{`MATCH (n) SET n[$key] = 1`, "dynamic property n[ ]", 16},
		{`MATCH (n) WHERE n.x = 1 YIELD n`, "graph pattern YIELD", 25},
		{`INSERT (:A {r: RECORD {a: 1}})`, "RECORD { } constructor", 16},
		// a refused form wins over an error elsewhere in the statement
		{`MATCH (n) WHERE n.x = 99999999999999999999 RETURN n`, "RETURN", 44},
		{`MATCH (n) WHERE n.x = '\q' RETURN n`, "RETURN", 28},
	} {
		s, err := Parse(c.in)
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		q, ok := s.Stmts[0].(*ast.Query)
		if !ok || len(q.Refusals) == 0 {
			t.Errorf("%s: nothing refused in %s", c.in, dump(s))
			continue
		}
		if r := q.Refusals[0]; r.Feature != c.feature || r.Pos.Col != c.col {
			t.Errorf("%s: first refusal %q at column %d, want %q at %d (%s)", c.in, r.Feature, r.Pos.Col, c.feature, c.col, dump(s))
		}
	}
}

// TestISOForms: ISO forms of the subset's own statements read as the
// subset reads them.
func TestISOForms(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		// label expressions
		{`MATCH (n:A|B) SET n.x = 1`, `(MATCH (n:(A|B))) (SET n.x=1)`},
		{`MATCH (n:A|:B) SET n.x = 1`, `(MATCH (n:(A|B))) (SET n.x=1)`},
		{`MATCH (n:!A&(B|C)) SET n.y = 1`, `(MATCH (n:(!A&(B|C)))) (SET n.y=1)`},
		{`MATCH (n:A|B&C) SET n.y = 1`, `(MATCH (n:(A|(B&C)))) (SET n.y=1)`},
		{`MATCH (n:A|B:C) SET n.y = 1`, `(MATCH (n:((A|B)&C))) (SET n.y=1)`},
		{`MATCH (n:%)-[e:!T]->(m IS A|B) SET m.y = 1`, `(MATCH (n:%)-[e:!T]->(m:(A|B))) (SET m.y=1)`},
		{`MATCH (a)-[e:A|B]->(b) SET b.y = 1`, `(MATCH (a)-[e:A|B]->(b)) (SET b.y=1)`},
		{`MATCH (n:A&B), (m IS C&D) SET n.y = 1`, `(MATCH (n:A:B), (m:C:D)) (SET n.y=1)`},
		{`MATCH (n) WHERE n:A|B AND n IS !C AND n:% SET n.y = 1`,
			`(MATCH (n) WHERE (AND (AND (LABEL n (A|B)) (LABEL n !C)) (LABEL n %))) (SET n.y=1)`},
		{`MATCH (n) WHERE n:A:B AND n IS LABELED C&D SET n.y = 1`,
			`(MATCH (n) WHERE (AND (LABEL n A&B) (LABEL n C&D))) (SET n.y=1)`},
		// truth tests
		{`MATCH (n) WHERE n.done IS TRUE AND n.x IS NOT FALSE OR n.y IS UNKNOWN`,
			`(MATCH (n) WHERE (OR (AND (IS TRUE n.done) (IS NOT FALSE n.x)) (IS UNKNOWN n.y)))`},
		{`MATCH (n) WHERE NOT n.done IS NOT UNKNOWN`, `(MATCH (n) WHERE (NOT (IS NOT UNKNOWN n.done)))`},
		// edges: left or right is either direction on a directed store
		{`MATCH (a)<->(b) SET b.x = 1`, `(MATCH (a)-[]-(b)) (SET b.x=1)`},
		{`MATCH (a)<-[e:T]->(b) SET b.x = 1`, `(MATCH (a)-[e:T]-(b)) (SET b.x=1)`},
		// numbers
		{`INSERT (:X {a: 0x1F, b: 0o17, c: 0b101, d: 1_000_000, e: 1_000.5, f: -0x10, g: 0X_ff, h: 007})`,
			`(INSERT (:X{a:31,b:15,c:5,d:1000000,e:f1000.5,f:-16,g:255,h:7}))`},
		{`INSERT (:X {a: -0x8000000000000000, b: 1_0e1_0})`, `(INSERT (:X{a:-9223372036854775808,b:f1e+11}))`},
		// date-times: TIMESTAMP and ZONED DATETIME are DATETIME
		{`INSERT (:X {a: ZONED DATETIME '2026-01-31T12:00:00+01:00', b: TIMESTAMP '2026-01-31T12:00Z'})`,
			`(INSERT (:X{a:datetime"2026-01-31T12:00:00+01:00",b:datetime"2026-01-31T12:00Z"}))`},
		// LIST [ ] and ARRAY [ ] are list literals
		{`INSERT (:X {a: LIST [1, 2], b: ARRAY [], c: list[3]})`, `(INSERT (:X{a:[1 2],b:[],c:[3]}))`},
		// a double-quoted key is a delimited identifier
		{`INSERT (:X {"first name": 1, "b": 2})`, `(INSERT (:X{first name:1,b:2}))`},
		// transactions
		{`START TRANSACTION READ ONLY; COMMIT WORK`, `START READ ONLY ; COMMIT`},
		{`START TRANSACTION READ WRITE; ROLLBACK WORK`, `START ; ROLLBACK`},
	} {
		s, err := Parse(c.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.in, err)
			continue
		}
		if got := dump(s); got != c.want {
			t.Errorf("Parse(%q)\n got  %s\n want %s", c.in, got, c.want)
		}
	}
}

// TestSoftKeywords: the words the grammar learned stay usable as labels,
// property keys and variables.
func TestSoftKeywords(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`MATCH (g:GROUP {case: 1, next: 2, end: 3}) SET g.when = 4`,
			`(MATCH (g:GROUP{case:1,next:2,end:3})) (SET g.when=4)`},
		{`INSERT (:Case {exists: true, any: 1, shortest: 2, time: 3, duration: 4, read: 5, graph: 6, like: 7})`,
			`(INSERT (:Case{exists:true,any:1,shortest:2,time:3,duration:4,read:5,graph:6,like:7}))`},
		// (the words that start a path prefix, ANY, TRAIL, …, are labels
		// and keys but not variables)
		{`MATCH (group:Next), (path:Walk), (time:Trail), (local:Any), (start)-[:R]->(end) SET end.x = start.x`,
			`(MATCH (group:Next), (path:Walk), (time:Trail), (local:Any), (start)-[:R]->(end)) (SET end.x=start.x)`},
		{`MATCH (n) WHERE any(x IN n.l WHERE x > 1) AND all(y IN n.l WHERE y < 9) SET n.time = time, n.t = TIME`,
			`(MATCH (n) WHERE (AND (any null) (all null))) (SET n.time=time, n.t=TIME)`},
		{`MATCH (n:Unknown:Normalized:True:Directed) WHERE n:Unknown SET n.true = n.unknown`,
			`(MATCH (n:Unknown:Normalized:True:Directed) WHERE (LABEL n Unknown)) (SET n.true=n.unknown)`},
		{`MATCH (n) WHERE n IS Source AND n IS Grouped SET n:Group`,
			`(MATCH (n) WHERE (AND (LABEL n Source) (LABEL n Grouped))) (SET n:Group)`},
		{`MATCH (case), (when) WHERE case.x = when.x SET case.y = 2`, `(MATCH (case), (when) WHERE (= case.x when.x)) (SET case.y=2)`},
		{`MATCH (list), (time) WHERE list.x = time.x SET list.y = 2`, `(MATCH (list), (time) WHERE (= list.x time.x)) (SET list.y=2)`},
		{`MATCH (n) SET n.x = CASE case WHEN when THEN 1 END`, `(MATCH (n)) (SET n.x=(REFUSED CASE expression)) !{CASE expression}`},
	} {
		s, err := Parse(c.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.in, err)
			continue
		}
		if got := dump(s); got != c.want {
			t.Errorf("Parse(%q)\n got  %s\n want %s", c.in, got, c.want)
		}
	}
}

// TestCommentTrap: a line comment right after ')', ']', '-' or '<' is
// likely a Cypher arrow; the script carries a warning saying what it hid.
func TestCommentTrap(t *testing.T) {
	s := mustParse(t, "MATCH (a:A)-->(b) SET b.x = 1")
	if dump(s) != "(MATCH (a:A))" || len(s.Notices) != 1 {
		t.Fatalf("got %s, notices %v", dump(s), s.Notices)
	}
	n := s.Notices[0]
	if n.Code != gqlstatus.Warning || n.Pos != (ast.Pos{Line: 1, Col: 12, Offset: 11}) ||
		!strings.Contains(n.Msg, `"-->(b) SET b.x = 1" was ignored`) {
		t.Errorf("notice %+v", n)
	}
	for in, want := range map[string]int{
		"MATCH (a)-[r]-(b)--(c)":             1,
		"MATCH (a)\n--(b)\n":                 0,
		"MATCH (a) -- a comment":             0,
		"MATCH (a) // )--":                   0,
		"MATCH (a {s: ')--'})":               0,
		"MATCH (a)--(b);\nMATCH (c)-->(d)":   2,
		"MATCH (a) /* )-- */ WHERE a.x = 1":  0,
		"INSERT (:A {n: 1}) --> comment too": 0,
	} {
		if got := len(mustParse(t, in).Notices); got != want {
			t.Errorf("%q: %d notices, want %d", in, got, want)
		}
	}
	// An error after a trap says what the comment hid.
	for in, at := range map[string]string{
		"MATCH (a)-->(b) WHERE\nb.x = 1": "line 1, column 10",
		"MATCH (a)<--(b)":                "line 1, column 11",
	} {
		_, err := Parse(in)
		var ge *gqlstatus.Error
		if !errors.As(err, &ge) || !strings.Contains(ge.Hint, `the "--" at `+at+` began a comment`) {
			t.Errorf("%q: error %v", in, err)
		}
	}
}

// TestCypherReading: a text that does not parse because a comment hid
// likely arrows is read with them as edges, to refuse what it holds.
func TestCypherReading(t *testing.T) {
	s := mustParse(t, "MATCH (n) WHERE exists { (n)-->() } RETURN n")
	q := s.Stmts[0].(*ast.Query)
	if !s.ArrowsRead || len(q.Refusals) == 0 || q.Refusals[0].Feature != "EXISTS predicate" || len(s.Notices) != 1 {
		t.Fatalf("got %s (arrows %v, notices %v)", dump(s), s.ArrowsRead, s.Notices)
	}
	// Without a refusal the first reading's error stands.
	if _, err := Parse("MATCH (a)-->(b) WHERE\nb.x = 1"); err == nil {
		t.Error("a text that reads only as Cypher was accepted")
	}
	// The Cypher reading is held to the nesting limit too.
	deep := "MATCH (a)--" + strings.Repeat("(", 200) + "\n) RETURN a"
	_, err := Parse(deep)
	var ge *gqlstatus.Error
	if !errors.As(err, &ge) || ge.Code != gqlstatus.Syntax || ge.Pos.Line != 2 || ge.Pos.Col != 1 {
		t.Errorf("deep nesting behind a comment: %v, want GQLSTATUS %s at the \")\" on line 2, column 1", err, gqlstatus.Syntax)
	}
}
