package parser

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/parser/ast"
)

func mustParse(t *testing.T, text string) *ast.Script {
	t.Helper()
	s, err := Parse(text)
	if err != nil {
		t.Fatalf("Parse(%q): %v", text, err)
	}
	return s
}

func TestShapes(t *testing.T) {
	cases := []struct{ in, want string }{
		// docs/design.md#the-language examples
		{`MATCH (t:TSK {status: "open"}) LIMIT 1`, `(MATCH (t:TSK{status:"open"})) (LIMIT 1)`},
		{`MATCH (t:TSK {status: "open"}), (n:NOTE) WHERE n CONTAINS "cookie" LIMIT 4`,
			`(MATCH (t:TSK{status:"open"}), (n:NOTE) WHERE (CONTAINS n "cookie")) (LIMIT 4)`},
		{`MATCH (m:MOD) WHERE m.loc STARTS WITH "auth/" AND m.lines > 100`,
			`(MATCH (m:MOD) WHERE (AND (STARTS WITH m.loc "auth/") (> m.lines 100)))`},
		{`MATCH ()                          // empty token: the session outline`, `(MATCH ())`},
		{`INSERT (:TSK {nick: "TSK_login", title: "Fix login redirect", status: "open"})`,
			`(INSERT (:TSK{nick:"TSK_login",title:"Fix login redirect",status:"open"}))`},
		{`MATCH (t:TSK {nick: "TSK_login"}) INSERT (t)-[:touches]->(:MOD {loc: "auth/login.go"})`,
			`(MATCH (t:TSK{nick:"TSK_login"})) (INSERT (t)-[:touches]->(:MOD{loc:"auth/login.go"}))`},
		{`MATCH (t:TSK {nick: "TSK_login"}) SET t.status = "done", t:Settled REMOVE t.draft`,
			`(MATCH (t:TSK{nick:"TSK_login"})) (SET t.status="done", t:Settled) (REMOVE t.draft)`},
		{`MATCH (t:TSK {nick: "TSK_login"}) DETACH DELETE t`, `(MATCH (t:TSK{nick:"TSK_login"})) (DETACH-DELETE t)`},
		{`CALL settle_task("TSK_login")`, `(CALL settle_task "TSK_login")`},
		// statements and separators
		{`START TRANSACTION; INSERT (:A); COMMIT;`, `START ; (INSERT (:A)) ; COMMIT`},
		{`start transaction;;rollback`, `START ; ROLLBACK`},
		{``, ``},
		{`;;`, ``},
		{`CALL a.b.c(1, $x)`, `(CALL a.b.c 1 $x)`},
		{`CALL noargs()`, `(CALL noargs)`},
		{`CALL f() YIELD x`, `(REFUSED YIELD) !{YIELD}`},
		// clauses
		{`OPTIONAL MATCH (n) WHERE n.x = 1`, `(REFUSED OPTIONAL MATCH) !{OPTIONAL MATCH}`},
		{`MATCH (a), (b) INSERT (a)-[:R {w: 1}]->(b), (:C)`, `(MATCH (a), (b)) (INSERT (a)-[:R{w:1}]->(b), (:C))`},
		{`MATCH (n) SET n = {a: 1}, n += {b: 2}, n:A:B, n:C&D`, `(MATCH (n)) (SET n={a:1}, n+={b:2}, n:A:B, n:C:D)`},
		{`MATCH (n) SET n IS X`, `(MATCH (n)) (SET n:X)`},
		{`MATCH (n) REMOVE n.a, n:L1:L2`, `(MATCH (n)) (REMOVE n.a, n:L1:L2)`},
		{`MATCH (n) DELETE n, m`, `(MATCH (n)) (DELETE n m)`},
		{`MATCH (n) NODETACH DELETE n`, `(MATCH (n)) (DELETE n)`},
		{`MATCH (n) LIMIT $k`, `(MATCH (n)) (LIMIT $k)`},
		// refused forms
		// A refused clause takes the rest of the statement with it.
		{`MATCH (n) RETURN DISTINCT n.a AS x, count(*) ORDER BY x DESC SKIP 1 LIMIT 2`,
			`(MATCH (n)) (REFUSED RETURN) !{RETURN}`},
		{`MATCH (n) RETURN *`, `(MATCH (n)) (REFUSED RETURN) !{RETURN}`},
		{`MATCH (n) WITH n WHERE n.a > 1 RETURN n`, `(MATCH (n)) (REFUSED WITH) !{WITH}`},
		{`UNWIND [1,2] AS x RETURN x`, `(REFUSED UNWIND) !{UNWIND}`},
		{`CREATE (n:X {a: 1})-[:R]->(m)`, `(REFUSED CREATE) !{CREATE}`},
		{`MERGE (n:X {a: 1}) ON CREATE SET n.b = 2 ON MATCH SET n.c = 3`, `(REFUSED MERGE) !{MERGE}`},
		{`MATCH (n) FILTER n.a = 1`, `(MATCH (n)) (REFUSED FILTER) !{FILTER}`},
		{`MATCH (n) OFFSET 3`, `(MATCH (n)) (REFUSED OFFSET) !{OFFSET}`},
		{`LET x = 1 FOR y IN [1] RETURN x`, `(REFUSED LET) !{LET}`},
		{`MATCH (n) RETURN n UNION ALL MATCH (m) RETURN m`, `(MATCH (n)) (REFUSED RETURN) !{RETURN}`},
		{`MATCH (n) RETURN n FROM x`, `(MATCH (n)) (REFUSED RETURN) !{RETURN}`},
		// patterns
		{`MATCH p = (a)-[r:X]->(b)<-[:Y]-(c)-[:Z]-(d)`, `(MATCH p=(a)-[r:X]->(b)<-[:Y]-(c)-[:Z]-(d))`},
		{`MATCH (a)->(b)<-(c)-(d)`, `(MATCH (a)-[]->(b)<-[]-(c)-[]-(d))`},
		{`MATCH (a)-[:X|Y|:Z]->(b)`, `(MATCH (a)-[:X|Y|Z]->(b))`},
		{`MATCH (a)-[*]->(b)`, `(MATCH (a)-[]->{1,-1}(b))`},
		{`MATCH (a)-[r:X*2]->(b)`, `(MATCH (a)-[r:X]->{2,2}(b))`},
		{`MATCH (a)-[*1..3]->(b)`, `(MATCH (a)-[]->{1,3}(b))`},
		{`MATCH (a)-[*..3]->(b)`, `(MATCH (a)-[]->{1,3}(b))`},
		{`MATCH (a)-[*2..]->(b)`, `(MATCH (a)-[]->{2,-1}(b))`},
		{`MATCH (a)-[:X]->{1,3}(b)`, `(MATCH (a)-[:X]->{1,3}(b))`},
		{`MATCH (a)-[:X]->{2}(b)`, `(MATCH (a)-[:X]->{2,2}(b))`},
		{`MATCH (a)-[:X]->{,4}(b)`, `(MATCH (a)-[:X]->{0,4}(b))`},
		{`MATCH (a)-[:X]->+(b)`, `(MATCH (a)-[:X]->{1,-1}(b))`},
		{`MATCH (a)-[:X]->*(b)`, `(MATCH (a)-[:X]->{0,-1}(b))`},
		{`MATCH (a)->{1,2}(b)`, `(MATCH (a)-[]->{1,2}(b))`},
		{`MATCH (n:A&B), (m IS C), (o:D:E)`, `(MATCH (n:A:B), (m:C), (o:D:E))`},
		{`MATCH (n WHERE n.a > 1)`, `(MATCH (n WHERE (> n.a 1)))`},
		{`MATCH (n:X {a: 1} WHERE n.b = 2)`, `(MATCH (n:X{a:1} WHERE (= n.b 2)))`},
		{"MATCH (`weird name`:`odd``label` {`a key`: 1})", "(MATCH (weird name:odd`label{a key:1}))"},
		{`MATCH (a)-[e {w: 2}]-(b)`, `(MATCH (a)-[e{w:2}]-(b))`},
		{`INSERT (n {})`, `(INSERT (n{}))`},
		// soft keywords and keyword labels/keys
		{`MATCH (m:MOD), (p:PKG), (t:TSK), (x:Match), (y:match), (z:ORDER)`,
			`(MATCH (m:MOD), (p:PKG), (t:TSK), (x:Match), (y:match), (z:ORDER))`},
		{`INSERT (:X {status: 1, order: 2, match: 3, null: 4, return: 5, Limit: 6})`,
			`(INSERT (:X{status:1,order:2,match:3,null:4,return:5,Limit:6}))`},
		{`MATCH (n) WHERE n.order = 1 AND n.match = n.return SET n.where = 2 REMOVE n.limit`,
			`(MATCH (n) WHERE (AND (= n.order 1) (= n.match n.return))) (SET n.where=2) (REMOVE n.limit)`},
		{`MATCH (desc:ASC) WHERE desc.by = 1`, `(MATCH (desc:ASC) WHERE (= desc.by 1))`},
		{`mAtCh (n) wHeRe n.x is NOT null limit 1`, `(MATCH (n) WHERE (NOTNULL n.x)) (LIMIT 1)`},
		// expressions: precedence
		{`MATCH (n) WHERE a OR b XOR c AND NOT d = e`, `(MATCH (n) WHERE (OR a (XOR b (AND c (NOT (= d e))))))`},
		{`MATCH (n) WHERE NOT a AND b`, `(MATCH (n) WHERE (AND (NOT a) b))`},
		{`MATCH (n) WHERE NOT NOT a`, `(MATCH (n) WHERE (NOT (NOT a)))`},
		{`MATCH (n) WHERE 1 + 2 * 3 - 4 / 5 % 6 = x`, `(MATCH (n) WHERE (= (- (+ 1 (* 2 3)) (% (/ 4 5) 6)) x))`},
		{`MATCH (n) WHERE (1 + 2) * 3 > -x.y`, `(MATCH (n) WHERE (> (* (+ 1 2) 3) (- x.y)))`},
		{`MATCH (n) WHERE a || b = 'ab'`, `(MATCH (n) WHERE (= (|| a b) "ab"))`},
		{`MATCH (n) WHERE a <> b AND a != c AND a < b AND a <= b AND a >= b`,
			`(MATCH (n) WHERE (AND (AND (AND (AND (<> a b) (<> a c)) (< a b)) (<= a b)) (>= a b)))`},
		{`MATCH (n) WHERE n.s IN ['a', 'b'] AND n.t ENDS WITH 'z'`,
			`(MATCH (n) WHERE (AND (IN n.s ["a" "b"]) (ENDS WITH n.t "z")))`},
		{`MATCH (n) WHERE n IS NULL OR n.a IS NOT NULL`, `(MATCH (n) WHERE (OR (ISNULL n) (NOTNULL n.a)))`},
		{`MATCH (n) WHERE n:TSK AND n:A:B OR n IS LABELED C OR n IS NOT D`,
			`(MATCH (n) WHERE (OR (OR (AND (LABEL n TSK) (LABEL n A&B)) (LABEL n C)) (NOT (LABEL n D))))`},
		{`MATCH (n) WHERE NOT n:X`, `(MATCH (n) WHERE (NOT (LABEL n X)))`},
		{`MATCH (n) WHERE a.b.c = +1 AND - - 2 = 2`, `(MATCH (n) WHERE (AND (= a.b.c 1) (= (- -2) 2)))`},
		{`MATCH (n) WHERE -9223372036854775808 < 9223372036854775807`,
			`(MATCH (n) WHERE (< -9223372036854775808 9223372036854775807))`},
		{`MATCH (n) WHERE x = count(*) OR y = f(DISTINCT n.a, 2) OR z = date('x')`,
			`(MATCH (n) WHERE (OR (OR (= x (count *)) (= y (f DISTINCT n.a 2))) (= z (date "x"))))`},
		// literals
		{`INSERT (:X {i: 42, f: 1.5, e: 1e3, g: .5, h: 2.5E-2, t: true, u: FALSE, n: null, l: [1, [2]], m: {a: {b: 1}}, p: $p1, q: []})`,
			`(INSERT (:X{i:42,f:f1.5,e:f1000,g:f0.5,h:f0.025,t:true,u:false,n:null,l:[1 [2]],m:{a:{b:1}},p:$p1,q:[]}))`},
		{`INSERT (:X {a: 'it''s', b: "say \"hi\"", c: 'tab\there\n', d: '\u00e9\\', e: "\uD83D\uDE00", f: ''})`,
			`(INSERT (:X{a:"it's",b:"say \"hi\"",c:"tab\there\n",d:"é\\",e:"😀",f:""}))`},
		{`INSERT (:X {d: DATE '2026-01-31', t: DATETIME '2026-01-31T14:05:00Z', u: datetime '2026-01-31 14:05'})`,
			`(INSERT (:X{d:date"2026-01-31",t:datetime"2026-01-31T14:05:00Z",u:datetime"2026-01-31 14:05"}))`},
		// comments
		{"MATCH (n) -- a comment\n/* block\ncomment */ WHERE n.a = 1 // tail", `(MATCH (n) WHERE (= n.a 1))`},
	}
	for _, c := range cases {
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

func TestRefusedFeatureNames(t *testing.T) {
	want := map[string]string{
		`MATCH (n) RETURN n`:          "RETURN",
		`MATCH (n) ORDER BY n.a`:      "ORDER BY",
		`MATCH (n) SKIP 1`:            "SKIP",
		`MATCH (n) OFFSET 1`:          "OFFSET",
		`MATCH (n) WITH n`:            "WITH",
		`UNWIND [1] AS x`:             "UNWIND",
		`CREATE (n)`:                  "CREATE",
		`MERGE (n)`:                   "MERGE",
		`MATCH (n) FILTER WHERE n.a`:  "FILTER",
		`LET x = 1`:                   "LET",
		`FOR x IN [1]`:                "FOR",
		`MATCH (n) UNION MATCH (m)`:   "UNION",
		`CALL f() YIELD a, b WHERE a`: "YIELD",
	}
	for in, feat := range want {
		s := mustParse(t, in)
		q := s.Stmts[0].(*ast.Query)
		found := false
		for _, c := range q.Clauses {
			if r, ok := c.(*ast.Refused); ok && r.Feature == feat {
				found = true
				if !r.Pos.Valid() {
					t.Errorf("%q: refused clause without position", in)
				}
			}
		}
		if !found {
			t.Errorf("%q: no Refused{%s} in %s", in, feat, dump(s))
		}
	}
}

func TestTypedShapes(t *testing.T) {
	s := mustParse(t, `MATCH (n:NOTE) WHERE n CONTAINS 'w' SET n = {a: 1}`)
	q := s.Stmts[0].(*ast.Query)
	m := q.Clauses[0].(*ast.Match)
	bin := m.Where.(*ast.Binary)
	if bin.Op != ast.OpContains {
		t.Fatalf("op %v", bin.Op)
	}
	if v, ok := bin.L.(*ast.Var); !ok || v.Name != "n" {
		t.Fatalf("L = %#v", bin.L)
	}
	set := q.Clauses[1].(*ast.Set).Items[0].(*ast.SetAllProps)
	if set.Var != "n" || set.Merge || len(set.Map.Entries) != 1 || set.Map.Entries[0].Key != "a" {
		t.Fatalf("SET n = {...}: %#v", set)
	}
	// Props nil when absent, empty when {}.
	s = mustParse(t, `MATCH (a), (b {})`)
	ps := s.Stmts[0].(*ast.Query).Clauses[0].(*ast.Match).Patterns
	if ps[0].Nodes[0].Props != nil || ps[1].Nodes[0].Props == nil {
		t.Fatalf("props: %#v %#v", ps[0].Nodes[0].Props, ps[1].Nodes[0].Props)
	}
	// Quantifier text
	s = mustParse(t, `MATCH (a)-[:X*1..3]->(b)`)
	e := s.Stmts[0].(*ast.Query).Clauses[0].(*ast.Match).Patterns[0].Edges[0]
	if e.Quant == nil || e.Quant.Text != "*1..3" || e.Quant.Pos.Col != 14 {
		t.Fatalf("quant %#v", e.Quant)
	}
}

func TestPositionsAndText(t *testing.T) {
	text := "START TRANSACTION;\n  MATCH (t:TSK) WHERE t.x = 'é' SET t.y = 1 ;\nCOMMIT"
	s := mustParse(t, text)
	if len(s.Stmts) != 3 {
		t.Fatalf("stmts: %d", len(s.Stmts))
	}
	q := s.Stmts[1].(*ast.Query)
	if q.Text != "MATCH (t:TSK) WHERE t.x = 'é' SET t.y = 1" {
		t.Errorf("Text = %q", q.Text)
	}
	if q.Pos != (ast.Pos{Line: 2, Col: 3, Offset: 21}) {
		t.Errorf("query pos %+v", q.Pos)
	}
	set := q.Clauses[1].(*ast.Set)
	// "SET" is after the two-byte é: column counts runes, offset bytes.
	wantOff := strings.Index(text, "SET")
	if set.Pos.Line != 2 || set.Pos.Offset != wantOff || set.Pos.Col != 33 {
		t.Errorf("SET pos %+v (want offset %d col 33)", set.Pos, wantOff)
	}
	if c := s.Stmts[2].Position(); c.Line != 3 || c.Col != 1 {
		t.Errorf("COMMIT pos %+v", c)
	}
	m := q.Clauses[0].(*ast.Match)
	bin := m.Where.(*ast.Binary)
	if bin.Pos.Col != 27 { // the '=' operator
		t.Errorf("binary pos %+v", bin.Pos)
	}
	if pa := bin.L.(*ast.PropAccess); pa.Pos.Col != 23 { // start of t.x
		t.Errorf("prop access pos %+v", pa.Pos)
	}
}

type errCase struct {
	in   string
	code gqlstatus.Code
	line int
	col  int
	msg  string // substring of Msg
	hint string // substring of Hint
}

func TestErrors(t *testing.T) {
	cases := []errCase{
		{`MATCH (n`, "42001", 1, 9, "unexpected end of input", ")"},
		{`MATCH (n:TSK {a: 1)`, "42001", 1, 19, `unexpected ")"`, "map"},
		{`MATCH (n) WHERE n.a = 'abc`, "42001", 1, 23, "unterminated string", "'"},
		{`MATCH (n) WHERE n.a = "abc`, "42001", 1, 23, "unterminated string", `"`},
		{"MATCH (`abc)", "42001", 1, 8, "unterminated quoted name", "`"},
		{"MATCH (n) /* never closed", "42001", 1, 11, "unterminated comment", "*/"},
		{`MATCH (n) WHERE n.a = 1 # 2`, "42001", 1, 25, `unexpected character '#'`, ""},
		{`MATCH (n) WHERE n.a = 'a\qb'`, "42001", 1, 25, `invalid escape "\\q"`, `\n`},
		{`MATCH (n) WHERE n.a = '\u12'`, "42001", 1, 24, `invalid escape`, ""},
		{`MATCH (n) WHERE n.a = '\uD800'`, "42001", 1, 24, `invalid escape`, ""},
		{`MATCH (n) LIMIT 1 garbage`, "42001", 1, 19, `unexpected "garbage"`, "';'"},
		{`SELEKT * FROM t`, "42001", 1, 1, `unexpected "SELEKT"`, "MATCH"},
		{`MATCH`, "42001", 1, 6, "unexpected end of input", "(n:Label)"},
		{`INSERT (a)-[:R]->`, "42001", 1, 18, "unexpected end of input", "node pattern"},
		{`MATCH (n) WHERE`, "42001", 1, 16, "unexpected end of input", "expression"},
		{`MATCH (n) WHERE n.a = `, "42001", 1, 23, "unexpected end of input", "expression"},
		{`MATCH (n) SET n.a 1`, "42001", 1, 19, `unexpected "1"`, "SET takes"},
		{`MATCH (n) SET n = 5`, "42001", 1, 19, `unexpected "5"`, "{key: value"},
		{`MATCH (n) REMOVE n`, "42001", 1, 19, "unexpected end of input", "REMOVE takes"},
		{`MATCH (n) WHERE (n.a = 1`, "42001", 1, 25, "unexpected end of input", ")"},
		{`MATCH (n) WHERE n.a IN [1, 2`, "42001", 1, 29, "unexpected end of input", "]"},
		{`MATCH (n) WHERE n.a = 99999999999999999999`, "22003", 1, 23, "out of range", "64-bit"},
		{`MATCH (n) WHERE n.a = -9223372036854775809`, "22003", 1, 24, "out of range", ""},
		{`MATCH (n) WHERE n.a = 1e999`, "22003", 1, 23, "out of range", ""},
		{`MATCH (n) WHERE n.d = DATE '2026-13-01'`, "22007", 1, 28, "invalid DATE", "YYYY-MM-DD"},
		{`MATCH (n) WHERE n.d = DATE 'tomorrow'`, "22007", 1, 28, "invalid DATE", ""},
		{`MATCH (n) WHERE n.d = DATETIME '2026-01-31X'`, "22007", 1, 32, "invalid DATETIME", "ISO 8601"},
		{`MATCH (n) SET n:A|B`, "42001", 1, 19, "choice of labels", ":A for one label"},
		{`MATCH (n) REMOVE n:!A`, "42001", 1, 20, "negated label", ":A:B"},
		{`MATCH (n) SET n:%`, "42001", 1, 17, "wildcard", ""},
		{`MATCH (a)-[:X:Y]->(b)`, "42001", 1, 15, "several types", ":A|B"},
		{`MATCH (a)-[:X&Y]->(b)`, "42001", 1, 15, "several types", ":A|B"},
		{`MATCH (a)(b)`, "42001", 1, 10, "without an edge", "(a)-[:TYPE]->(b)"},
		{`START TRANSACTION GARBAGE HERE`, "42001", 1, 19, `unexpected "GARBAGE"`, "READ ONLY"},
		{`START TRANSACTION READ`, "42001", 1, 23, `unexpected end of input`, "READ ONLY"},
		{`START TRANSACTION READ ONLY WRITE`, "42001", 1, 29, `unexpected "WRITE"`, "';'"},
		{`COMMIT banana`, "42001", 1, 8, `unexpected "banana"`, "WORK"},
		{`ROLLBACK WORK now`, "42001", 1, 15, `unexpected "now"`, "';'"},
		{`MATCH (n) WHERE n.a = 0x`, "42001", 1, 24, `unexpected "x"`, ""},
		{`MATCH (n) WHERE n.a = 1_`, "42001", 1, 24, `unexpected "_"`, ""},
		{`MATCH (n) WHERE n.a = 0x8000000000000000`, "22003", 1, 23, "out of range", "64-bit"},
		{`MATCH (n) WHERE n.t = TIMESTAMP 'noon'`, "22007", 1, 33, "invalid TIMESTAMP", "TIMESTAMP '2026"},
		{"MATCH (``)", "42001", 1, 8, "empty quoted name", ""},
		{`MATCH (n) WHERE n.a = $`, "42001", 1, 23, "parameter name", "$name"},
		{"MATCH (n)\nWHERE n.a =\n  'x\\z'", "42001", 3, 5, "invalid escape", ""},
		{`START TRANSACTION INSERT (:A)`, "42001", 1, 19, `unexpected "INSERT"`, "';'"},
		{`MATCH (n) WHERE n.a = 1) `, "42001", 1, 24, `unexpected ")"`, ""},
	}
	for _, c := range cases {
		_, err := Parse(c.in)
		if err == nil {
			t.Errorf("Parse(%q): no error", c.in)
			continue
		}
		var ge *gqlstatus.Error
		if !errors.As(err, &ge) {
			t.Errorf("Parse(%q): %T is not *gqlstatus.Error", c.in, err)
			continue
		}
		if ge.Code != c.code || ge.Pos.Line != c.line || ge.Pos.Col != c.col ||
			!strings.Contains(ge.Msg, c.msg) || !strings.Contains(ge.Hint, c.hint) {
			t.Errorf("Parse(%q):\n got  %s %d:%d msg=%q hint=%q\n want %s %d:%d msg~%q hint~%q",
				c.in, ge.Code, ge.Pos.Line, ge.Pos.Col, ge.Msg, ge.Hint, c.code, c.line, c.col, c.msg, c.hint)
			continue
		}
		if ge.Pos.Offset != posAtOffset(c.in, ge.Pos.Offset).Offset || posAtOffset(c.in, ge.Pos.Offset) != ge.Pos {
			t.Errorf("Parse(%q): inconsistent pos %+v", c.in, ge.Pos)
		}
		if ge.Line == "" && strings.TrimSpace(c.in) != "" {
			t.Errorf("Parse(%q): no source line for caret", c.in)
		}
	}
}

func TestLimits(t *testing.T) {
	// oversized input
	big := "MATCH (n) WHERE n.a = '" + strings.Repeat("x", 2000) + "'"
	_, err := ParseWith(big, Limits{MaxBytes: 1000})
	var ge *gqlstatus.Error
	if !errors.As(err, &ge) || ge.Code != gqlstatus.TextLimit ||
		ge.Msg != fmt.Sprintf("statement text is %d bytes; the limit is 1000 bytes", len(big)) {
		t.Fatalf("oversized: %v", err)
	}
	if _, err := Parse(strings.Repeat(" ", DefaultMaxBytes+1)); err == nil {
		t.Fatal("default size limit not applied")
	}
	// nesting at the limit is fine; one more is refused
	nest := func(n int, open, close string) string {
		return "MATCH (n) WHERE n.a = " + strings.Repeat(open, n) + "1" + strings.Repeat(close, n)
	}
	for _, k := range []struct{ open, close string }{{"(", ")"}, {"[", "]"}, {"- ", ""}, {"NOT ", ""}, {"f(", ")"}} {
		if _, err := ParseWith(nest(20, k.open, k.close), Limits{MaxDepth: 30}); err != nil {
			t.Errorf("%q x20: %v", k.open, err)
		}
		_, err := ParseWith(nest(40, k.open, k.close), Limits{MaxDepth: 30})
		if !errors.As(err, &ge) || ge.Code != gqlstatus.TextLimit || !strings.Contains(ge.Msg, "nesting is deeper than 30 levels") || !ge.Pos.Valid() {
			t.Errorf("%q x40: %v", k.open, err)
		}
	}
	// maps nest through values; brackets inside strings and comments do not count
	deepMap := "INSERT (:X {a: " + strings.Repeat("{a: ", 70) + "1" + strings.Repeat("}", 70) + "})"
	if _, err := Parse(deepMap); gqlstatus.CodeOf(err, "") != gqlstatus.TextLimit {
		t.Errorf("deep map: %v, want GQLSTATUS %s", err, gqlstatus.TextLimit)
	}
	mustParse(t, "MATCH (n) WHERE n.a = '"+strings.Repeat("((([[[{{{", 100)+"' /* "+strings.Repeat("(", 200)+" */ -- (((((((((")
	// huge flat input is fine (no recursion for long chains), under a
	// size budget that lets it through
	long := "MATCH (n) WHERE n.a = 1" + strings.Repeat(" OR n.a = 1", 5000)
	if _, err := ParseWith(long, Limits{MaxExprSize: 1 << 30}); err != nil {
		t.Errorf("5,000 ORs: %.200v", err)
	}
	if _, err := Parse(long); gqlstatus.CodeOf(err, "") != gqlstatus.TextLimit {
		t.Errorf("5,000 ORs under the default size budget: %.200v, want GQLSTATUS %s", err, gqlstatus.TextLimit)
	}
	deep := strings.Repeat("(", 100000)
	if _, err := Parse(deep); err == nil {
		t.Error("deep parens accepted")
	}
	if _, err := Parse(strings.Repeat("- ", 100000) + "1"); err == nil {
		t.Error("deep signs accepted")
	}
}

func TestInvalidUTF8(t *testing.T) {
	_, err := Parse("MATCH (n) WHERE n.a = '\xff'")
	var ge *gqlstatus.Error
	if !errors.As(err, &ge) || ge.Code != gqlstatus.Syntax || ge.Pos.Line != 1 || ge.Pos.Col != 24 {
		t.Fatalf("invalid utf-8: %v", err)
	}
}

func TestUnicodeNames(t *testing.T) {
	s := mustParse(t, `MATCH (ñ:Straße {größe: "ü"}) WHERE ñ.größe = 'ü'`)
	if got := dump(s); got != `(MATCH (ñ:Straße{größe:"ü"} ) WHERE (= ñ.größe "ü"))` &&
		got != `(MATCH (ñ:Straße{größe:"ü"}) WHERE (= ñ.größe "ü"))` {
		t.Fatal(got)
	}
}

// TestPoolReuse parses many different texts, good and bad, from several
// goroutines; run with -race. A stale lexer, token stream or parser state
// would show up as a wrong tree or a wrong error.
func TestPoolReuse(t *testing.T) {
	inputs := []struct{ in, want string }{
		{`MATCH (t:TSK {nick: "x"}) SET t.status = "done"`, `(MATCH (t:TSK{nick:"x"})) (SET t.status="done")`},
		{`MATCH (n`, "ERR 1:9"},
		{`INSERT (:A)-[:R]->(:B)`, `(INSERT (:A)-[:R]->(:B))`},
		{`MATCH (n) WHERE n.a = 'x`, "ERR 1:23"},
		{`COMMIT`, `COMMIT`},
		{`MATCH (n) WHERE n:X AND n.a IN [1,2,3] LIMIT 3`, `(MATCH (n) WHERE (AND (LABEL n X) (IN n.a [1 2 3]))) (LIMIT 3)`},
		{`MATCH (n) RETURN n FROM`, `(MATCH (n)) (REFUSED RETURN) !{RETURN}`},
		{`MATCH (n`, "ERR 1:9"},
		{`CALL f(1)`, `(CALL f 1)`},
	}
	render := func(in string) string {
		s, err := Parse(in)
		if err != nil {
			ge := err.(*gqlstatus.Error)
			return fmt.Sprintf("ERR %d:%d", ge.Pos.Line, ge.Pos.Col)
		}
		return dump(s)
	}
	for _, c := range inputs {
		if got := render(c.in); got != c.want {
			t.Fatalf("%q: got %s want %s", c.in, got, c.want)
		}
	}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				c := inputs[(i*7+g)%len(inputs)]
				if got := render(c.in); got != c.want {
					t.Errorf("goroutine %d: %q: got %s want %s", g, c.in, got, c.want)
					return
				}
			}
		}(g)
	}
	wg.Wait()
}

func TestColdEqualsWarm(t *testing.T) {
	for _, in := range []string{benchSet, benchInsert, benchRecall} {
		a, err1 := parse(in, DefaultLimits, false)
		b, err2 := parse(in, DefaultLimits, true)
		if err1 != nil || err2 != nil || dump(a) != dump(b) {
			t.Fatalf("%q: cold %v / warm %v", in, err1, err2)
		}
	}
}
