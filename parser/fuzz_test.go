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
	// forms outside the subset, read to be refused by name
	`MATCH (n) RETURN n NEXT MATCH (m) RETURN m GROUP BY m.x HAVING count(*) > 1`,
	`MATCH p = ANY SHORTEST (a)-[:R]->+(b), ALL SHORTEST TRAIL PATHS (c)-[]->{1,3}(d)`,
	`MATCH DIFFERENT EDGES (a) ((x)-[:R]->(y) WHERE x.w > 1){2,} (b) | (a)-[:Y]->(b)`,
	`MATCH (a) (-[t IS T]-> (b) -[u]-> WHERE t.x > u.x) (c), -[e]->, (a)-/:K/->(b)`,
	`CREATE GRAPH IF NOT EXISTS g ANY; DROP SCHEMA /s; USE g MATCH (n) SET n.x = 1`,
	`SESSION SET VALUE IF NOT EXISTS $p = DATE '2022-10-10'; SESSION RESET; SESSION CLOSE`,
	`MATCH (n) WHERE EXISTS { MATCH (n)-[:R]->(m) } AND exists(n.x) SET n.y = CASE n.z WHEN 1, 2 THEN 'a' WHEN > 5 THEN 'b' ELSE 'c' END FINISH`,
	`MATCH (n) WHERE [x IN n.l WHERE x > 1 | x ^ 2] = [(n)-[:R]->(m) | m {.a, .*}] AND n.s =~ 'a.*' AND n.l[1..2] = []`,
	`MATCH (n:$(x)|$any(['A'])) SET n:$($l), n += $props FOREACH (x IN [1] | SET n.y = x)`,
	`EXPLAIN PROFILE LOAD CSV FROM 'f' AS r CALL { WITH r RETURN r } CALL db.x() YIELD y WHERE y > 1`,
	`MATCH (n) WHERE element_id(n) = id(n) AND apoc.coll.sum(n.l) = size(n.l) AND count { (n)--() } > 1`,
	`GRAPH g MATCH (a)~[:T]~(b)<~[:U]~(c)~[:V]~>(d)<->(e)<-[f]->(g) SET g.x = 1`,
	`MATCH (n:A|B&!C:(D|%)) WHERE n IS !E|F AND n.t IS NOT TRUE AND n.u IS UNKNOWN AND n.s IS NFC NORMALIZED`,
	`MATCH (n) WHERE n.x IS :: INTEGER NOT NULL OR n.x IS TYPED LIST<STRING | INTEGER> OR a IS SOURCE OF e`,
	`INSERT (:X {a: 0x1F, b: 0o17, c: 0b101, d: 1_000_000, e: 1_0.5e1_0, "k k": TIME '12:00', t: ZONED DATETIME '2026-01-31T12:00Z', u: DURATION 'P1D'})`,
	`START TRANSACTION READ ONLY ISOLATION LEVEL SERIALIZABLE; SAVEPOINT s; ROLLBACK TO SAVEPOINT s; COMMIT WORK`,
	`START TRANSACTION GARBAGE; COMMIT banana; ROLLBACK WORK now`,
	"MATCH (a:A)-->(b) SET b.x = 1\nMATCH (n) WHERE exists { (n)-->() } RETURN n\n(()--(n))+ <--",
	`MATCH (n) WHERE n.x NOT BETWEEN 1 AND 2 AND n.y NOT LIKE 'a%' CALL x = 1`,
	`MATCH (a:person)-[r:knows* ALL SHORTEST 1..30]-(b) MATCH (a)-[:KNOWS]{2,4}(b) MATCH n`,
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
