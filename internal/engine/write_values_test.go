package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/parser"
	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/store/cabinet"
	"github.com/goldfish-gql/goldfish/values"
)

// The tests of the values a Commit and a Recall take (write.go, recall.go):
// parameters and literals at their limits, read back after a reopen, and
// values an older log holds.

// nestedList is leaf inside depth lists: nestedList(2, 1) is [[1]].
func nestedList(depth int, leaf any) any {
	v := leaf
	for range depth {
		v = []any{v}
	}
	return v
}

// nestedText is the literal of nestedList(depth, 1).
func nestedText(depth int) string {
	return strings.Repeat("[", depth) + "1" + strings.Repeat("]", depth)
}

// reopened closes db, opens the cabinet at path again and returns the
// named session's dump there.
func reopened(t *testing.T, db *DB, path, name string) string {
	t.Helper()
	_, s := reopen(t, db, path, name)
	return s.Dump()
}

// shapeReparses recalls q and checks that the Shape parses and, committed
// into an empty session, gives exactly as many elements as the Shape has
// rows, each one the session holds.
func shapeReparses(t *testing.T, s *Session, q string) {
	t.Helper()
	if err := checkShapeText(s, q); err != nil {
		t.Fatal(err)
	}
}

func checkShapeText(s *Session, q string) error {
	ctx := context.Background()
	sh, err := s.recallShape(ctx, q, values.RecallOptions{})
	if err != nil {
		return err
	}
	if sh.Rows == 0 {
		return nil
	}
	if _, err := parser.Parse(sh.Text); err != nil {
		return fmt.Errorf("the Shape does not parse: %v\n%s", err, sh.Text)
	}
	db, err := openTest(WithCommitBudget(values.Budget{Rows: 1000, Bytes: 1 << 20}))
	if err != nil {
		return err
	}
	defer db.Close()
	again, err := db.Session(context.Background(), "again")
	if err != nil {
		return err
	}
	if _, err := again.commitText(ctx, sh.Text, nil); err != nil {
		return fmt.Errorf("the Shape does not commit again: %v\n%s", err, sh.Text)
	}
	have := map[string]bool{}
	for _, l := range elements(s) {
		have[l] = true
	}
	got := elements(again)
	for _, l := range got {
		if !have[l] {
			return fmt.Errorf("the Shape committed again gives %s, which the session does not hold; Shape:\n%s", l, sh.Text)
		}
	}
	if len(got) != sh.Rows {
		return fmt.Errorf("the Shape committed again gives %d elements, the Shape has %d rows; Shape:\n%s", len(got), sh.Rows, sh.Text)
	}
	return nil
}

// elements renders every live element of s by its observables, each on
// one line whatever its names hold.
func elements(s *Session) []string {
	snap := s.Snapshot()
	node := func(n *store.Node) string { return strconv.Quote(fmt.Sprintf("%q %s", n.Labels, n.Props.Literal())) }
	var out []string
	snap.ScanNodes(func(n *store.Node) bool {
		out = append(out, node(n))
		return true
	})
	snap.ScanEdges(func(e *store.Edge) bool {
		from, _ := snap.Node(e.From)
		to, _ := snap.Node(e.To)
		out = append(out, node(from)+" -"+strconv.Quote(e.Type)+" "+strconv.Quote(e.Props.Literal())+"-> "+node(to))
		return true
	})
	return out
}

// TestDeepListParam: a list parameter as deep as a property may hold is
// committed, read back after reopening and re-parsed from its Shape; one
// level deeper is refused at Commit (used or not: every parameter is
// logged) and the session keeps what it had.
func TestDeepListParam(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "deep.db")
	db := openCab(t, path)
	s := mustSession(t, db, "deep")
	mustCommit(t, s, `INSERT (:K {nick: "first"})`, nil)
	mustCommit(t, s, `INSERT (:K {nick: "deepest", p: $p})`, map[string]any{"p": nestedList(values.MaxNesting, 1)})
	for _, text := range []string{`INSERT (:K {nick: "over", p: $p})`, `INSERT (:K {nick: "unused"})`} {
		_, err := s.commitText(ctx, text, map[string]any{"p": nestedList(values.MaxNesting+1, 1)})
		wantCode(t, err, gqlstatus.ValueBudget, "$p", "nested more than 64 deep")
	}
	_, err := s.commitText(ctx, `INSERT (:K {nick: "over"})`, map[string]any{"p": nestedList(values.MaxNesting+1, []any{})})
	wantCode(t, err, gqlstatus.ValueBudget, "$p")
	shapeReparses(t, s, `MATCH (n:K {nick: "deepest"})`)
	before := s.Dump()
	if after := reopened(t, db, path, "deep"); after != before {
		t.Fatalf("after reopening:\n%s\nbefore:\n%s", after, before)
	}
}

// TestDeepListLiteral: a list literal as deep as a property may hold is
// accepted in a Commit and its Shape parses; a deeper one is refused with
// 22Q05 at its literal, and a deeper computed value with 22Q05 at its
// expression, so no snapshot ever holds what the cabinet cannot read.
func TestDeepListLiteral(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "lit.db")
	db := openCab(t, path)
	s := mustSession(t, db, "lit")
	mustCommit(t, s, `INSERT (:K {nick: "a", p: `+nestedText(values.MaxNesting)+`})`, nil)
	mustCommit(t, s, `MATCH (n:K {nick: "a"}) INSERT (n)-[:r {p: `+nestedText(values.MaxNesting)+`}]->(:K {nick: "b"})`, nil)
	shapeReparses(t, s, `MATCH (n:K {nick: "a"})`)

	text := `MATCH (n:K {nick: "a"}) SET n.q = ` + nestedText(values.MaxNesting+1)
	_, err := s.commitText(ctx, text, nil)
	ge := wantCode(t, err, gqlstatus.ValueBudget, "nested more than 64 deep")
	if want := strings.Index(text, "[") + 1 + values.MaxNesting; ge.Pos.Col != want {
		t.Errorf("error at column %d, want %d (the list past the limit)", ge.Pos.Col, want)
	}
	for _, text := range []string{
		`MATCH (n:K {nick: "a"}) SET n.q = [n.p]`,
		`MATCH (n:K {nick: "a"}) SET n += {q: [n.p]}`,
		`MATCH (n:K {nick: "a"}) INSERT (:K {q: [n.p]})`,
	} {
		_, err := s.commitText(ctx, text, nil)
		ge := wantCode(t, err, gqlstatus.ValueBudget, "nested more than 64 deep")
		if want := strings.LastIndex(text, "[n.p]") + 1; ge.Pos.Col != want {
			t.Errorf("%s: error at column %d, want %d", text, ge.Pos.Col, want)
		}
	}
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	before := s.Dump()
	if after := reopened(t, db, path, "lit"); after != before {
		t.Fatalf("after reopening:\n%s\nbefore:\n%s", after, before)
	}
}

// TestSelfReferentialParam: a list that holds itself is refused, in a
// Commit and in a Recall, instead of recursing until the stack is gone.
func TestSelfReferentialParam(t *testing.T) {
	ctx := context.Background()
	db, err := openTest()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := mustSession(t, db, "cycle")
	a := make([]any, 1)
	a[0] = a
	type tree []tree
	b := tree{nil, nil}
	b[1] = b
	for _, v := range []any{a, []any{1, a}, b} {
		_, err := s.commitText(ctx, `INSERT (:K {p: $p})`, map[string]any{"p": v})
		wantCode(t, err, gqlstatus.InvalidValueType, "$p", "holds itself")
		_, err = s.recallShape(ctx, `MATCH (n:K {p: $p})`, values.RecallOptions{Params: map[string]any{"p": v}})
		wantCode(t, err, gqlstatus.InvalidValueType, "$p")
	}
	// A slice that shares its array without holding itself is a value.
	shared := make([]any, 2)
	shared[0] = 5
	shared[1] = shared[:1]
	mustCommit(t, s, `INSERT (:K {p: $p})`, map[string]any{"p": shared})
	if !strings.Contains(s.Dump(), "p: [5, [5]]") {
		t.Fatalf("dump:\n%s", s.Dump())
	}
}

// TestTimeParamRange: a time.Time is stored as a DATETIME that names its
// instant and reads back (years 0000–9999 in UTC); outside them it is
// refused at Commit instead of being stored as year 1.
func TestTimeParamRange(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "time.db")
	db := openCab(t, path)
	s := mustSession(t, db, "time")
	for _, tm := range []time.Time{
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(-1, 12, 31, 0, 0, 0, 0, time.UTC),
		time.Date(9999, 12, 31, 23, 30, 0, 0, time.FixedZone("", -3600)), // year 10000 in UTC
		time.Unix(1<<40, 0),
	} {
		_, err := s.commitText(ctx, `INSERT (:K {t: $t})`, map[string]any{"t": tm})
		wantCode(t, err, gqlstatus.DateTimeOverflow, "$t", "years 0000 to 9999")
		_, err = s.recallShape(ctx, `MATCH (n:K {t: $t})`, values.RecallOptions{Params: map[string]any{"t": tm}})
		wantCode(t, err, gqlstatus.DateTimeOverflow, "$t")
	}
	for i, tm := range []time.Time{
		time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(2026, 1, 31, 12, 0, 0, 0, time.FixedZone("", 3601)),     // an offset RFC 3339 cannot write
		time.Date(2026, 1, 31, 12, 0, 0, 0, time.FixedZone("", 30*3600)),  // over 24 hours
		time.Date(0, 1, 1, 0, 30, 0, 0, time.FixedZone("", 3600)),         // year -1 in UTC: refused below
		time.Date(9999, 12, 31, 23, 30, 0, 0, time.FixedZone("", 2*3600)), // year 9999 in UTC
	} {
		params := map[string]any{"t": tm, "i": i}
		_, err := s.commitText(ctx, `INSERT (:K {i: $i, t: $t})`, params)
		if tm.UTC().Year() < 0 {
			wantCode(t, err, gqlstatus.DateTimeOverflow, "$t")
			continue
		}
		if err != nil {
			t.Fatalf("%v: %v", tm, err)
		}
		// The stored DATETIME is the same instant: CEL compares it equal
		// to the parameter, and copying it through CEL keeps it.
		res := mustCommit(t, s, `MATCH (n:K {i: $i}) WHERE n.t = $t SET n.u = n.t`, params)
		if res.Total.Bindings != 1 {
			t.Fatalf("%v: the stored DATETIME is not the same instant: %s", tm, s.Dump())
		}
	}
	shapeReparses(t, s, `MATCH (n:K)`)
	before := s.Dump()
	if after := reopened(t, db, path, "time"); after != before {
		t.Fatalf("after reopening:\n%s\nbefore:\n%s", after, before)
	}
}

// TestDateTimeLiteral: DATETIME literal text in any form the parser
// accepts is stored normalised wherever it stands (a list, an
// expression), and an instant the years 0000–9999 cannot hold in UTC is
// refused at its literal.
func TestDateTimeLiteral(t *testing.T) {
	ctx := context.Background()
	db, err := openTest()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := mustSession(t, db, "dt")
	mustCommit(t, s, `INSERT (:K {nick: "a", x: 1, l: [DATETIME '2026-01-31 12:00'], t: DATETIME '2026-01-31 12:00'})`, nil)
	mustCommit(t, s, `MATCH (n:K {nick: "a"}) SET n.m = n.l, n.c = [DATETIME '2026-01-31t12:00z', n.x]`, nil)
	want := `(:K {c: [DATETIME '2026-01-31T12:00:00Z', 1], l: [DATETIME '2026-01-31T12:00:00Z'], m: [DATETIME '2026-01-31T12:00:00Z'], nick: "a", t: DATETIME '2026-01-31T12:00:00Z', x: 1})`
	if !strings.Contains(s.Dump(), want) {
		t.Fatalf("dump:\n%s\nwant %s", s.Dump(), want)
	}
	for _, text := range []string{
		`INSERT (:K {t: DATETIME '0000-01-01T00:30:00+01:00'})`,
		`INSERT (:K {t: [DATETIME '9999-12-31T23:30:00-01:00']})`,
		`MATCH (n:K {nick: "a"}) SET n.t = [DATETIME '9999-12-31T23:30:00-01:00', n.x]`,
	} {
		_, err := s.commitText(ctx, text, nil)
		ge := wantCode(t, err, gqlstatus.DateTimeOverflow, "outside the years 0000 to 9999")
		if want := strings.Index(text, "DATETIME") + 1; ge.Pos.Col != want {
			t.Errorf("%s: error at column %d, want %d", text, ge.Pos.Col, want)
		}
	}
}

// TestInvalidUTF8Param: a string that is not UTF-8 is refused, in a
// Commit and in a Recall, alone, in a list or as a values.Value, instead of
// being stored raw and emitted as U+FFFD.
func TestInvalidUTF8Param(t *testing.T) {
	ctx := context.Background()
	db, err := openTest()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := mustSession(t, db, "utf8")
	for _, c := range []struct {
		v     any
		where string
	}{
		{"bad\xffbyte", "$p:"},
		{[]any{"ok", "a\xc3"}, "$p[1]:"},
		{[]string{"ok", "ok", "\xed\xa0\x80"}, "$p[2]:"}, // an encoded surrogate
		{values.String("\xff"), "$p:"},
		{values.List(values.Int(1), values.String("\xff")), "$p[1]:"},
	} {
		_, err := s.commitText(ctx, `INSERT (:K {p: $p})`, map[string]any{"p": c.v})
		wantCode(t, err, gqlstatus.InvalidValueType, c.where, "not valid UTF-8")
		_, err = s.recallShape(ctx, `MATCH (n:K {p: $p})`, values.RecallOptions{Params: map[string]any{"p": c.v}})
		wantCode(t, err, gqlstatus.InvalidValueType, "$p", "not valid UTF-8")
	}
	if s.Version() != 0 {
		t.Fatalf("something was committed:\n%s", s.Dump())
	}
}

// TestStoreValueParam: a values.Value passed as a parameter is held to
// what any other parameter is.
func TestStoreValueParam(t *testing.T) {
	ctx := context.Background()
	db, err := openTest()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := mustSession(t, db, "sv")
	deep := values.Int(1)
	for range values.MaxNesting + 1 {
		deep = values.List(deep)
	}
	for _, c := range []struct {
		v    values.Value
		code values.Code
	}{
		{deep, gqlstatus.ValueBudget},
		{values.DateValue("2026-02-30"), gqlstatus.InvalidDateTimeFormat},
		{values.DateTimeValue("2026-01-31 12:00"), gqlstatus.InvalidDateTimeFormat},
		{values.Float(-1 / zero()), gqlstatus.NumericOutOfRange},
	} {
		_, err := s.commitText(ctx, `INSERT (:K {p: $p})`, map[string]any{"p": c.v})
		wantCode(t, err, c.code, "$p")
	}
	mustCommit(t, s, `INSERT (:K {p: $p})`, map[string]any{"p": values.List(values.DateValue("2026-01-31"), values.Float(-0.0*zero()))})
}

func zero() float64 { return 0 }

// TestParamBudget: parameters are measured against R's byte budget while
// they are converted, so an oversized one is refused with the R budget's
// error, naming it, after a bounded amount of work, whether or not the Δ
// uses it; Recall parameters have the same bound.
func TestParamBudget(t *testing.T) {
	ctx := context.Background()
	db, err := openTest()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := mustSession(t, db, "budget")
	big := strings.Repeat("x", 300<<10)
	long := make([]int, 1<<20)
	for _, p := range []map[string]any{
		{"big": big},
		{"big": long},
		{"a": strings.Repeat("x", 200<<10), "big": strings.Repeat("x", 100<<10)},
		{"big": []any{"a", []any{big}}},
	} {
		for _, text := range []string{`INSERT (:K {p: $big})`, `INSERT (:K)`} {
			_, err := s.commitText(ctx, text, p)
			wantCode(t, err, gqlstatus.CommitBudget, "$big", "R budget", "nothing applied")
		}
		_, err = s.recallShape(ctx, `MATCH (n:K {p: $big})`, values.RecallOptions{Params: p})
		wantCode(t, err, gqlstatus.CommitBudget, "$big", "R budget")
	}
	// The conversion stops at the bound: a huge parameter costs about
	// the bound, not its own size.
	huge := make([]int64, 2<<20)
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	_, err = s.commitText(ctx, `INSERT (:K)`, map[string]any{"big": []any{huge}})
	runtime.ReadMemStats(&m1)
	wantCode(t, err, gqlstatus.CommitBudget, "$big")
	if alloc := m1.TotalAlloc - m0.TotalAlloc; alloc > 4<<20 {
		t.Errorf("refusing a parameter of %d elements allocated %d bytes", len(huge), alloc)
	}
	if s.Version() != 0 {
		t.Fatalf("something was committed:\n%s", s.Dump())
	}

	// The bound is the database's R byte budget.
	wide, err := openTest(WithCommitBudget(values.Budget{Rows: 500, Bytes: 1 << 20}))
	if err != nil {
		t.Fatal(err)
	}
	defer wide.Close()
	mustCommit(t, mustSession(t, wide, "wide"), `INSERT (:K {p: $big})`, map[string]any{"big": big})
}

// TestNestingLimitsAgree: the parser's nesting limit leaves room for the
// deepest value a property holds inside the element pattern a Shape
// writes it in, "(v:K {p: …})", so the Shape parses again.
func TestNestingLimitsAgree(t *testing.T) {
	if parser.DefaultMaxDepth != values.MaxNesting+2 {
		t.Fatalf("parser.DefaultMaxDepth is %d, values.MaxNesting+2 is %d", parser.DefaultMaxDepth, values.MaxNesting+2)
	}
}

// TestShapeNotesStayComments: a label or an edge type may hold a line
// break; the Shape's notes (the outline, a clamp) quote them in line
// comments, so a break must not end the comment and let the rest of the
// name be read as GQL when the Shape is committed again.
func TestShapeNotesStayComments(t *testing.T) {
	db, err := openTest()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := mustSession(t, db, "notes")
	inject := "\nINSERT (:Injected);\r//"
	mustCommit(t, s, "INSERT (:`K"+strings.ReplaceAll(inject, "`", "``")+"` {nick: 'k'})", nil)
	for i := range 12 {
		mustCommit(t, s, fmt.Sprintf("MATCH (k {nick: 'k'}) INSERT (k)-[:`r%s`]->(:N {i: %d})", inject, i), nil)
	}
	for _, q := range []string{`MATCH ()`, `MATCH (n {nick: "k"})`} {
		if err := checkShapeText(s, q); err != nil {
			t.Errorf("%s: %v", q, err)
		}
	}
}

// TestReplayKeepsOlderValues: a log entry an older version wrote, with a
// value today's Commit refuses (a string that is not UTF-8, DATETIME text
// in another form), still replays: hydrate reads back what was once
// acknowledged.
func TestReplayKeepsOlderValues(t *testing.T) {
	path := writeOldLog(t, cabinet.Entry{Version: 1, Kind: cabinet.EntryDelta, Text: `INSERT (:K {s: $s, l: $l})`,
		Params: map[string]values.Value{"s": values.String("a\xffb"), "l": values.List(values.DateTimeValue("2026-01-31 12:00"))}})
	db := openCab(t, path)
	defer db.Close()
	s := mustSession(t, db, "old")
	var got []string
	s.Snapshot().ScanNodes(func(n *store.Node) bool {
		v, _ := n.Props.Get("s")
		got = append(got, v.AsString())
		return true
	})
	if len(got) != 1 || got[0] != "a\xffb" {
		t.Fatalf("replayed %q:\n%s", got, s.Dump())
	}
}

// TestReplayKeepsOlderEchoes: a log an older version wrote, in which a Δ
// restated a live node and an edge and so created them again (before
// echoes bound), replays to the state it acknowledged: two nodes, two
// edges, the versions it logged, not a damaged session. A Δ logged since
// binds, as it did when committed.
func TestReplayKeepsOlderEchoes(t *testing.T) {
	var entries []cabinet.Entry
	for v, text := range []string{
		`INSERT (a:A {p: 1})-[:r]->(b:B {q: 2})`,
		`INSERT (a:A {p: 1})-[:r]->(b:B {q: 2})`, // an echo today; created again then
		`MATCH (a:A), (b:B) INSERT (a)-[:r]->(b)`,
	} {
		entries = append(entries, cabinet.Entry{Version: uint64(v + 1), Kind: cabinet.EntryDelta, Text: text})
	}
	path := writeOldLog(t, entries...)
	db := openCab(t, path)
	defer db.Close()
	s := mustSession(t, db, "old")
	in, _ := s.Info(context.Background())
	if s.Version() != 3 || in.Nodes != 4 || in.Edges != 6 {
		t.Fatalf("replayed v%d, %d nodes, %d edges; want v3, 4 nodes, 6 edges:\n%s", s.Version(), in.Nodes, in.Edges, s.Dump())
	}
	// Today the same text binds: nothing applied.
	res, err := s.commitText(context.Background(), `INSERT (a:A {p: 1, n: 9})`, nil)
	if err != nil || !res.Applied {
		t.Fatalf("a new node: %+v %v", res, err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = openCab(t, path)
	s = mustSession(t, db, "old")
	if in, _ := s.Info(context.Background()); s.Version() != 4 || in.Nodes != 5 {
		t.Fatalf("after reopen: v%d, %d nodes:\n%s", s.Version(), in.Nodes, s.Dump())
	}
}

// writeOldLog writes a cabinet whose session "old" holds entries as an
// older version logged them (mint byte and all), and returns its path.
func writeOldLog(t *testing.T, entries ...cabinet.Entry) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "old.db")
	cab, err := cabinet.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Unix(1, 0).UTC()
	for _, e := range entries {
		e.Time = at
		m := cabinet.Meta{Name: "old", Version: e.Version, LastCommit: at}
		if err := cab.Append("old", e, m).Wait(); err != nil {
			t.Fatal(err)
		}
	}
	if err := cab.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}
