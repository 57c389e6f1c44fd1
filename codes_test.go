package goldfish_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish"
)

// libraryWords are marks of a library's own message (cel-go's located
// errors, strconv's and time's parse errors, the store's sentinels, a Go
// panic): none may reach the message of an error a caller can cause.
var libraryWords = []string{"<input>", "ERROR:", "cel-go", "strconv.", "parsing time", "store:", "runtime error",
	"no such overload", "no matching overload", "bbolt", "code point size"}

// TestErrorsSpeakGQL: each condition a statement can raise has its own
// GQLSTATUS (ISO's where it defines one, docs/design.md#errors), a message in GQL's
// words with no library's text in it, and advice; conditions that shared
// 22G03, 40000 or 42001 before have codes of their own.
func TestErrorsSpeakGQL(t *testing.T) {
	ctx := context.Background()
	db, err := goldfish.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := mustSession(t, db, "codes")
	mustCommit(t, s, `INSERT (:A {nick: "a", x: 1, big: 9223372036854775807, s: "str", l: [1, 2], d: DATE '2026-01-01', f: 1.5e300})-[:r {w: 1}]->(:B {nick: "b"}), (:C {nick: "c"})`, nil)
	for _, c := range []struct {
		verb, text string
		params     map[string]any
		code       goldfish.Code
		msg        string
	}{
		// values: 22003, 22007, 22008, 22012, 22G03, 22G04
		{"recall", `MATCH (n:A) WHERE n.x = 99999999999999999999`, nil, goldfish.CodeNumericOutOfRange, "integer literal 99999999999999999999 is out of range"},
		{"recall", `MATCH (n:A) WHERE n.x = 1e999`, nil, goldfish.CodeNumericOutOfRange, "float literal 1e999 is out of range"},
		{"commit", `MATCH (n:A) SET n.y = n.big + 1`, nil, goldfish.CodeNumericOutOfRange, "INTEGER overflow in +"},
		{"commit", `MATCH (n:A) SET n.y = n.f * n.f`, nil, goldfish.CodeNumericOutOfRange, "not a finite FLOAT"},
		{"commit", `INSERT (:A {p: $p})`, map[string]any{"p": uint64(1 << 63)}, goldfish.CodeNumericOutOfRange, "above the INTEGER range"},
		{"commit", `INSERT (:A {d: DATE '2026-13-01'})`, nil, goldfish.CodeInvalidDateTimeFormat, "invalid DATE literal"},
		{"commit", `INSERT (:A {d: DATETIME 'noon'})`, nil, goldfish.CodeInvalidDateTimeFormat, "invalid DATETIME literal"},
		{"commit", `INSERT (:A {d: DATETIME '0000-01-01T00:30:00+01:00'})`, nil, goldfish.CodeDateTimeOverflow, "outside the years 0000 to 9999"},
		{"commit", `MATCH (n:A) SET n.y = n.x / 0`, nil, goldfish.CodeDivisionByZero, "division by zero in /"},
		{"recall", `MATCH (n:A) WHERE n.f / 0 > 1`, nil, goldfish.CodeDivisionByZero, "division by zero in /"},
		{"recall", `MATCH (n:A) WHERE n.x + 'a' = 1`, nil, goldfish.CodeInvalidValueType, "cannot apply + to INTEGER and STRING"},
		{"commit", `MATCH (n:A) SET n.y = n`, nil, goldfish.CodeInvalidValueType, "cannot hold a value of type graph element"},
		{"commit", `INSERT (:A {nick: 5})`, nil, goldfish.CodeInvalidValueType, "nick must be a STRING"},
		{"recall", `MATCH (n:A) WHERE n.l < 1`, nil, goldfish.CodeNotComparable, "cannot compare LIST with INTEGER by <"},
		{"recall", `MATCH (n:A) WHERE n.d >= 'x'`, nil, goldfish.CodeNotComparable, "cannot compare DATE with STRING by >="},
		// one Δ: 22G0M, 22G11, G1001, G1002, 40002
		{"commit", `MATCH (n:A) SET n.y = 1, n.y = 2`, nil, goldfish.CodeDuplicateAssignment, "assigned twice"},
		{"commit", `MATCH (n:C) DELETE n SET n.y = 1`, nil, goldfish.CodeReferentDeleted, "deleted earlier in this Δ"},
		{"commit", `MATCH (n:C) DELETE n INSERT (n)-[:r]->(:D)`, nil, goldfish.CodeEndpointDeleted, "deleted earlier in this Δ"},
		{"commit", `MATCH (n:A) DELETE n`, nil, goldfish.CodeDeleteConnected, "live edge"},
		{"commit", `INSERT (:A {nick: "b"})`, nil, goldfish.CodeIntegrityViolation, `nick "b" is already used`},
		// budgets and limits: 22Q02, 22Q03, 22Q05, 42Q01
		{"commit", `INSERT (:A {p: $p})`, map[string]any{"p": strings.Repeat("x", 300<<10)}, goldfish.CodeCommitBudget, "R budget"},
		{"commit", `MATCH (n:A) SET n.q = ` + strings.Repeat("[", 65) + "1" + strings.Repeat("]", 65), nil, goldfish.CodeValueBudget, "nested more than 64 deep"},
		{"recall", `MATCH (n:A) WHERE n.s = '` + strings.Repeat("a", 100_001) + `'`, nil, goldfish.CodeTextLimit, "size budget"},
		{"recall", `MATCH (n:A) WHERE ` + strings.Repeat("(", 80) + "n.x = 1" + strings.Repeat(")", 80), nil, goldfish.CodeTextLimit, "nesting is deeper"},
		// transactions: 25000, 25G01
		{"commit", `COMMIT`, nil, goldfish.CodeInvalidTransactionState, "COMMIT without START TRANSACTION"},
		{"commit", `START TRANSACTION; INSERT (:A)`, nil, goldfish.CodeInvalidTransactionState, "without COMMIT or ROLLBACK"},
		{"commit", `START TRANSACTION; START TRANSACTION; COMMIT`, nil, goldfish.CodeActiveTransaction, "START TRANSACTION must open the text"},
		// the verb: 42Q04
		{"commit", `MATCH (n:A)`, nil, goldfish.CodeWrongVerb, "is a Recall, not a Commit"},
		{"recall", `INSERT (:A)`, nil, goldfish.CodeWrongVerb, "a Recall is one MATCH"},
		// references: 42002
		{"commit", `MATCH (n:A) SET m.y = 1`, nil, goldfish.CodeInvalidReference, "variable m is not bound"},
		{"recall", `MATCH (n:A) WHERE n.x = $p`, nil, goldfish.CodeInvalidReference, "parameter $p is not given"},
	} {
		var err error
		if c.verb == "recall" {
			_, err = s.Recall(ctx, c.text, goldfish.RecallOptions{Params: c.params})
		} else {
			_, err = s.Commit(ctx, c.text, c.params)
		}
		name := c.text
		if len(name) > 70 {
			name = name[:70] + "…"
		}
		var ge *goldfish.Error
		if !errors.As(err, &ge) || ge.Code != c.code || !strings.Contains(ge.Msg, c.msg) {
			t.Errorf("%s: got %v, want GQLSTATUS %s saying %q", name, err, c.code, c.msg)
			continue
		}
		for _, w := range libraryWords {
			if strings.Contains(ge.Error(), w) {
				t.Errorf("%s: the message holds a library's words (%q): %v", name, w, ge)
			}
		}
	}
	if s.Version() != 1 {
		t.Errorf("a refused statement applied: version %d", s.Version())
	}
}

// TestAPIErrorCodes: the errors of the API's own calls have codes of their
// own: a Recall budget out of range (22Q01), a view that is not one
// (22Q06), a session name outside its rules (42Q03), the read-only
// catalogue (42Q02), an unknown session to drop (42002).
func TestAPIErrorCodes(t *testing.T) {
	ctx := context.Background()
	db, err := goldfish.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := mustSession(t, db, "api")
	_, err = s.Recall(ctx, `MATCH (n)`, goldfish.RecallOptions{L: 33})
	wantCode(t, err, goldfish.CodeRecallBudget, "budget L=33 is above its ceiling 32")
	_, err = s.Recall(ctx, `MATCH (n)`, goldfish.RecallOptions{M: -1})
	wantCode(t, err, goldfish.CodeRecallBudget, "budget M=-1 is negative")
	_, err = s.Recall(ctx, `MATCH (n)`, goldfish.RecallOptions{View: "wide"})
	wantCode(t, err, goldfish.CodeInvalidOption, `view "wide" is not a view`)
	_, err = db.Session(ctx, "no/slash")
	wantCode(t, err, goldfish.CodeInvalidName, "session name")
	_, err = db.Session(ctx, strings.Repeat("x", 1000))
	wantCode(t, err, goldfish.CodeInvalidName, "session name must be")
	cat := mustSession(t, db, goldfish.CatalogName)
	_, err = cat.Commit(ctx, `INSERT (:SESSION {name: "x"})`, nil)
	wantCode(t, err, goldfish.CodeReadOnlySession, "not a Commit target")
	wantCode(t, db.Drop(ctx, goldfish.CatalogName), goldfish.CodeReadOnlySession, "cannot be dropped")
	wantCode(t, db.Drop(ctx, "nobody"), goldfish.CodeInvalidReference, `no session "nobody"`)
}

// TestRecallLimitNotice: a LIMIT above its bound is clamped with a 01000
// notice naming the LIMIT and the bound, in the Shape's notices and its
// status, and the seed count stays within the bound. (A LIMIT that
// leaves matches out warns too, with the matched count: recall_matched.txt.)
func TestRecallLimitNotice(t *testing.T) {
	ctx := context.Background()
	db, err := goldfish.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := mustSession(t, db, "limit")
	mustCommit(t, s, `INSERT (:A {nick: "a1"}), (:A {nick: "a2"}), (:A {nick: "a3"}), (:B {nick: "b1"})`, nil)
	for _, c := range []struct {
		q           string
		o           goldfish.RecallOptions
		seeds       int
		notice      string // "" when the LIMIT is within its bound
		wantWarning bool
	}{
		{`MATCH (n:A) LIMIT 2`, goldfish.RecallOptions{}, 2, "", true}, // matched=3: a 01000 of its own
		{`MATCH (n:A) LIMIT 40`, goldfish.RecallOptions{}, 3, "LIMIT 40 is over the L ceiling (32): at most 32 seeds", true},
		{`MATCH (n:A) LIMIT 3`, goldfish.RecallOptions{L: 1}, 1, "LIMIT 3 is over this call's L (1): at most 1 seed", true},
		{`MATCH () LIMIT 1`, goldfish.RecallOptions{}, 2, "", false},
		{`MATCH (n) LIMIT 1000`, goldfish.RecallOptions{}, 4, "LIMIT 1000 is over the L ceiling (32): at most 32 exemplars per kind", true},
		{`MATCH () LIMIT $n`, goldfish.RecallOptions{L: 2, Params: map[string]any{"n": 5}}, 3, "LIMIT 5 is over this call's L (2): at most 2 exemplars per kind", true},
	} {
		sh, err := s.Recall(ctx, c.q, c.o)
		if err != nil {
			t.Fatalf("%s: %v", c.q, err)
		}
		if sh.Seeds != c.seeds {
			t.Errorf("%s: %d seeds, want %d", c.q, sh.Seeds, c.seeds)
		}
		var got []string
		for _, n := range sh.Notices {
			if n.Code == goldfish.CodeWarning && strings.HasPrefix(n.Msg, "LIMIT ") {
				got = append(got, n.Msg)
			}
		}
		switch {
		case c.notice == "" && len(got) > 0:
			t.Errorf("%s: notices %q, want none", c.q, got)
		case c.notice != "" && (len(got) != 1 || got[0] != c.notice || !strings.Contains(sh.Text, "// limit: "+c.notice+"\n")):
			t.Errorf("%s: notices %q, want %q in the notices and the text:\n%s", c.q, got, c.notice, sh.Text)
		}
		if (sh.Status == goldfish.CodeWarning) != c.wantWarning {
			t.Errorf("%s: status %s", c.q, sh.Status)
		}
	}
}

// TestMissingParameterIsPlaced: a parameter the call does not give is
// reported where the text first names it.
func TestMissingParameterIsPlaced(t *testing.T) {
	db, _ := goldfish.Open()
	defer db.Close()
	s, _ := db.Session(context.Background(), "s")
	_, err := s.Commit(context.Background(), "INSERT (:A {x: 1}),\n  (:B {y: $nope})", nil)
	var ge *goldfish.Error
	if !errors.As(err, &ge) || ge.Code != goldfish.CodeInvalidReference || ge.Pos.Line != 2 || ge.Pos.Col != 11 {
		t.Fatalf("%v at %+v, want 42002 at line 2, column 11", err, ge)
	}
}
