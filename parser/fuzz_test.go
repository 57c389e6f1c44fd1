package parser

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/goldfish-gql/goldfish/gqlstatus"
)

var fuzzSeeds = []string{
	`MATCH (t:TSK {status: "open"}) LIMIT 1`,
	`MATCH (t:TSK {status: "open"}), (n:NOTE) WHERE n CONTAINS "cookie" LIMIT 4`,
	`MATCH (m:MOD) WHERE m.loc STARTS WITH "auth/" AND m.lines > 100`,
	`MATCH ()`,
	`INSERT (:TSK {nick: "TSK_login", title: "Fix login redirect", status: "open"})`,
	`MATCH (t:TSK {nick: "TSK_login"}) INSERT (t)-[:touches]->(:MOD {loc: "auth/login.go"})`,
	`MATCH (t:TSK {nick: "TSK_login"}) SET t.status = "done", t:Settled REMOVE t.draft`,
	`MATCH (t:TSK {nick: "TSK_login"}) DETACH DELETE t`,
	`CALL settle_task("TSK_login")`,
	`START TRANSACTION; INSERT (:A); COMMIT;`,
	`ROLLBACK`,
	`MATCH (n) RETURN DISTINCT n.a AS x, count(*) ORDER BY x DESC SKIP 1 LIMIT 2`,
	`MERGE (n:X {a: 1}) ON CREATE SET n.b = 2`,
	`UNWIND [1, 2] AS x WITH x WHERE x > 1 RETURN x UNION ALL MATCH (m) RETURN m`,
	`MATCH p = (a)-[r:X|Y*1..3]->(b)<-[:Z]-(c)-[:W]-{1,2}(d)`,
	`MATCH (a)->(b)<-(c)-(d)`,
	`MATCH (n WHERE n.a > 1), (m IS A&B)`,
	`MATCH (n) WHERE a OR b XOR c AND NOT d = e IS NOT NULL`,
	`MATCH (n) WHERE -9223372036854775808 < 1.5e3 + .5 * -x.y % 2 || 'z'`,
	`MATCH (n) WHERE n:TSK AND n IS LABELED X AND n.a IN [1, [2], {k: $p}]`,
	`INSERT (:X {a: 'it''s', b: "say \"hi\"", c: '\u00e9\uD83D\uDE00\n'})`,
	`INSERT (:X {d: DATE '2026-01-31', t: DATETIME '2026-01-31T14:05:00Z'})`,
	"MATCH (`weird name`:`odd``label`) -- comment\n/* block */ // tail",
	`INSERT (:X {status: 1, order: 2, match: 3})`,
	`MATCH (n:MOD), (p:PKG), (t:TSK), (x:Match)`,
	`MATCH (n) SET n = {a: 1}, n += {b: 2}, n:A:B REMOVE n.a, n:C`,
	`MATCH (n`, `MATCH (n) WHERE n.a = 'abc`, `MATCH (n) /* open`, `SELECT * FROM t`,
	`MATCH (n) WHERE n.a = 99999999999999999999`, `MATCH (n) WHERE n.a = '\q'`,
	`CALL a.b(1, $x) YIELD y`, `;;`, ``,
}

func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		lim := Limits{MaxBytes: 1 << 16, MaxDepth: 64}
		s, err := ParseWith(text, lim)
		if err == nil {
			if s == nil || s.Text != text {
				t.Fatalf("nil script or wrong text for %q", text)
			}
			for _, st := range s.Stmts {
				if !st.Position().Valid() {
					t.Fatalf("statement without position in %q", text)
				}
			}
			_ = dump(s)
			return
		}
		var ge *gqlstatus.Error
		if !errors.As(err, &ge) {
			t.Fatalf("%q: error %T is not *gqlstatus.Error", text, err)
		}
		switch ge.Code {
		case gqlstatus.Syntax, gqlstatus.TextLimit, gqlstatus.NumericOutOfRange, gqlstatus.InvalidDateTimeFormat:
		default:
			t.Fatalf("%q: unexpected code %s", text, ge.Code)
		}
		if strings.HasPrefix(ge.Msg, "internal ") {
			t.Fatalf("%q: internal error: %v", text, ge)
		}
		if len(text) > lim.MaxBytes {
			return
		}
		// Every other error points into the text (possibly at its end).
		if !ge.Pos.Valid() || ge.Pos.Offset < 0 || ge.Pos.Offset > len(text) {
			t.Fatalf("%q: bad position %+v for %v", text, ge.Pos, ge)
		}
		if utf8.ValidString(text) && posAtOffset(text, ge.Pos.Offset) != ge.Pos {
			t.Fatalf("%q: inconsistent position %+v (want %+v) for %v", text, ge.Pos, posAtOffset(text, ge.Pos.Offset), ge)
		}
	})
}
