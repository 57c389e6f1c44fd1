package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/values"
	"pgregory.net/rapid"
)

// The tests of recall.go: a Recall's budgets (k = 0 alone), the count of
// what a token matched, long seed values elided under the token alarm, a
// miss that says what did not match, a cached Shape's rows, and the Shape
// cache's exact key.

// TestNoWalk: K: NoWalk asks for k = 0, the seeds alone (with the edges
// between them); K's zero value keeps the default k = 2, and the other
// budgets' zero values their defaults. Each is its own Shape (the cache
// keeps them apart).
func TestNoWalk(t *testing.T) {
	ctx := context.Background()
	db, err := openTest()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s, err := db.Session(ctx, "main")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.commitText(ctx, `INSERT (:A {nick: "a"})-[:r]->(:B {nick: "b"})-[:r]->(:C {nick: "c"})`, nil); err != nil {
		t.Fatal(err)
	}
	const q = `MATCH (a:A)` // not a point token, which walks one hop by default
	for _, c := range []struct {
		name string
		o    values.RecallOptions
		head string
		rows int
	}{
		{"zero value", values.RecallOptions{}, " k=2 rows=5/50 ", 5},
		{"NoWalk", values.RecallOptions{K: values.NoWalk}, " k=0 rows=1/50 ", 1},
		{"zero value again", values.RecallOptions{M: 10}, " k=2 rows=5/10 ", 5},
		{"NoWalk again", values.RecallOptions{K: values.NoWalk, M: 10}, " k=0 rows=1/10 ", 1},
		{"k=1", values.RecallOptions{K: 1}, " k=1 rows=3/50 ", 3},
	} {
		sh, err := s.recallShape(ctx, q, c.o)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !strings.Contains(sh.Text, c.head) || sh.Rows != c.rows {
			t.Errorf("%s: rows %d, want %d (%q):\n%s", c.name, sh.Rows, c.rows, c.head, sh.Text)
		}
	}
	// Two seeds and no hop: the edge between them is kept.
	sh, err := s.recallShape(ctx, `MATCH (n) WHERE n.nick IN ["a", "b"]`, values.RecallOptions{K: values.NoWalk})
	if err != nil || sh.Rows != 3 || strings.Contains(sh.Text, `"c"`) {
		t.Errorf("two seeds, no walk: %v\n%v", err, sh)
	}
	// A slice's anchors alone.
	sl, err := s.ExportSlice(ctx, "", values.SliceOptions{K: values.NoWalk, Nicks: []string{"a"}})
	if err != nil || sl.Nodes != 1 {
		t.Errorf("slice, no walk: %v %+v", err, sl)
	}
	// Any other negative k is refused, with its code and a hint.
	_, err = s.recallShape(ctx, q, values.RecallOptions{K: -2})
	var ge *gqlstatus.Error
	if !errors.As(err, &ge) || ge.Code != gqlstatus.RecallBudget || !strings.Contains(ge.Hint, "NoWalk") {
		t.Errorf("K: -2: %v", err)
	}
}

// TestMatchedStopsAtTheBudget: past MatchCountWork matches the count of
// what the token matched stops, and says it is a lower bound
// (matched=≥1024); below, it is exact whichever index lists the
// candidates.
func TestMatchedStopsAtTheBudget(t *testing.T) {
	ctx := context.Background()
	db, err := openTest()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := mustSession(t, db, "big")
	for from := 0; from < 1500; from += 300 {
		var b strings.Builder
		b.WriteString("INSERT ")
		for i := from; i < from+300; i++ {
			if i > from {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "(:A {n: %d, even: %v})", i, i%2 == 0)
		}
		if _, err := s.commitText(ctx, b.String(), nil); err != nil {
			t.Fatalf("%.200s", err)
		}
	}
	for _, c := range []struct {
		q       string
		matched int
		atLeast bool
		header  string
	}{
		{`MATCH (a:A)`, values.MatchCountWork, true, " seeds=4 matched=≥1024 "},
		{`MATCH (a:A {even: true})`, 750, false, " seeds=4 matched=750 "},
		// The same condition as a WHERE: another index lists the
		// candidates, and the count is the same, to the byte.
		{`MATCH (a:A) WHERE a.even = true`, 750, false, " seeds=4 matched=750 "},
		// Sparse matches: the count scans to the end, as the seeds of a
		// token matching fewer than L would.
		{`MATCH (a:A) WHERE a.n < 10`, 10, false, " seeds=4 matched=10 "},
		{`MATCH (a:A) WHERE a.n > 1495`, 4, false, " seeds=4 k="},
	} {
		sh, err := s.recallShape(ctx, c.q, values.RecallOptions{})
		if err != nil {
			t.Fatalf("%s: %v", c.q, err)
		}
		want := c.matched
		if want == sh.Seeds {
			want = 0 // nothing left out: nothing said
		}
		if sh.Matched != want || sh.MatchedAtLeast != c.atLeast || !strings.Contains(sh.Text, c.header) {
			t.Errorf("%s: matched %d (at least %v), want %d (%v), header %q:\n%.300s", c.q, sh.Matched, sh.MatchedAtLeast, want, c.atLeast, c.header, sh.Text)
		}
	}
}

// TestLargeSeedsStayUnderTheAlarm: four seeds of 18,000 bytes each were a
// 17,838-token Shape with only an alarm; by default (T = 4,000) their long
// values are elided, the Shape stays under the alarm, and the Shape body
// pasted back is refused rather than storing the markers.
func TestLargeSeedsStayUnderTheAlarm(t *testing.T) {
	ctx := context.Background()
	db, err := openTest()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := mustSession(t, db, "large")
	for i := range 4 {
		body := strings.Repeat(fmt.Sprintf("paragraph %d of a long design note, ", i), 500)
		mustCommit(t, s, `INSERT (:DOC {nick: $n, body: $b, summary: "short"})`, map[string]any{"n": fmt.Sprintf("doc%d", i), "b": body})
	}
	sh, err := s.recallShape(ctx, `MATCH (d:DOC)`, values.RecallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if sh.Elided != 4 || sh.Tokens > values.DefaultRecall.T || !strings.Contains(sh.Text, " elided=4 ") || !strings.Contains(sh.Text, "body: $elided1") {
		t.Fatalf("elided %d, %d tokens:\n%.600s", sh.Elided, sh.Tokens, sh.Text)
	}
	for _, n := range sh.Notices {
		if strings.Contains(n.Msg, "alarm") {
			t.Errorf("an alarm: %s", n.Msg)
		}
	}
	if !strings.Contains(sh.Text, `summary: "short"`) {
		t.Errorf("a short value was elided:\n%.600s", sh.Text)
	}
	// The Shape's body, committed back, is refused: $elided1 is not given.
	_, err = s.commitText(ctx, sh.Text, nil)
	var ge *gqlstatus.Error
	if !errors.As(err, &ge) || ge.Code != gqlstatus.InvalidReference || !strings.Contains(ge.Msg, "stands for a value a Shape left out") {
		t.Fatalf("pasted back: %v", err)
	}
	// Read one whole: the node alone with a T above its tokens.
	whole, err := s.recallShape(ctx, `MATCH (d {nick: "doc0"})`, values.RecallOptions{K: values.NoWalk, T: 10000})
	if err != nil || whole.Elided != 0 || !strings.Contains(whole.Text, "paragraph 0 of a long design note") {
		t.Fatalf("the node alone: %v\n%.300s", err, whole.Text)
	}
}

// TestMissSaysWhatDidNotMatch: a token that matches nothing says so in
// its first notice and in Shape.Miss, with the session's names a small
// edit away, in a session of 1,000 nicks as in a small one: past 1,024
// values of a key the miss compares the values nearest the wanted one,
// so a typo is still found and the miss stays cheap.
func TestMissSaysWhatDidNotMatch(t *testing.T) {
	ctx := context.Background()
	db, err := openTest()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := mustSession(t, db, "people")
	for from := 0; from < 1000; from += 400 {
		var b strings.Builder
		b.WriteString("INSERT ")
		for i := from; i < min(from+400, 1000); i++ {
			if i > from {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "(:PERSON {nick: \"user%04d\", team: \"t%d\"})", i, i%7)
		}
		if from == 0 {
			b.WriteString(`, (:TSK {nick: "TSK_open"})`) // a live task: a miss shows it instead
		}
		if _, err := s.commitText(ctx, b.String(), nil); err != nil {
			t.Fatalf("%.200s", err)
		}
	}
	for _, c := range []struct {
		q         string
		unmatched string
		near      []string
		status    values.Code
		opt       values.RecallOptions
	}{
		{`MATCH (p {nick: "usre0500"})`, `no node has nick "usre0500"`, []string{`{nick: "user0500"}`}, gqlstatus.NoMatch, values.RecallOptions{}},
		{`MATCH (p {nick: "user09999"})`, `no node has nick "user09999"`, []string{`{nick: "user0999"}`}, gqlstatus.NoMatch, values.RecallOptions{}},
		{`MATCH (p:PERSN)`, `no node has label :PERSN`, []string{":PERSON"}, gqlstatus.NoMatch, values.RecallOptions{}},
		{`MATCH (p:PERSON {taem: "t1"})`, `no node has property taem`, []string{"team"}, gqlstatus.NoMatch, values.RecallOptions{}},
		{`MATCH (p {nick: "zzz"})`, `no node has nick "zzz"`, nil, gqlstatus.NoMatch, values.RecallOptions{}},
		{`MATCH (p:PERSN)`, `no node has label :PERSN`, []string{":PERSON"}, gqlstatus.NoData, values.RecallOptions{NoPeaks: true}},
	} {
		sh, err := s.recallShape(ctx, c.q, c.opt)
		if err != nil {
			t.Fatalf("%s: %v", c.q, err)
		}
		// The nearest name comes first.
		if sh.Miss == nil || !slices.Contains(sh.Miss.Unmatched, c.unmatched) || len(sh.Miss.DidYouMean) < len(c.near) ||
			!slices.Equal(sh.Miss.DidYouMean[:len(c.near)], c.near) || len(c.near) == 0 && len(sh.Miss.DidYouMean) > 0 {
			t.Errorf("%s: miss %+v, want %q and did you mean %q", c.q, sh.Miss, c.unmatched, c.near)
			continue
		}
		if sh.Status != c.status || len(sh.Notices) == 0 || sh.Notices[0].Code != c.status || !strings.HasPrefix(sh.Notices[0].Msg, "no match: ") {
			t.Errorf("%s: status %s, notices %v: the miss must be the first notice, %s", c.q, sh.Status, sh.Notices, c.status)
		}
	}
	// A match says nothing of a miss.
	if sh, err := s.recallShape(ctx, `MATCH (p {nick: "user0500"})`, values.RecallOptions{}); err != nil || sh.Miss != nil || sh.Status != gqlstatus.Success {
		t.Errorf("a match: %v %+v", err, sh)
	}
	// Past 1,024 values of a key the miss compares the 64 nearest the
	// wanted one in sorted order: a typo past the first characters is
	// still found.
	big := mustSession(t, db, "many")
	for from := 0; from < 5000; from += 500 {
		var b strings.Builder
		b.WriteString("INSERT ")
		for i := from; i < from+500; i++ {
			if i > from {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "(:PERSON {nick: \"user%04d\"})", i)
		}
		if _, err := big.commitText(ctx, b.String(), nil); err != nil {
			t.Fatalf("%.200s", err)
		}
	}
	sh, err := big.recallShape(ctx, `MATCH (p {nick: "user4321x"})`, values.RecallOptions{})
	if err != nil || sh.Miss == nil || len(sh.Miss.DidYouMean) == 0 || sh.Miss.DidYouMean[0] != `{nick: "user4321"}` {
		t.Errorf("a typo among 5,000 nicks: %v %+v", err, sh.Miss)
	}
}

// TestRowsOfACachedShape: the callers of one cached Recall share its rows,
// built on the first read, whoever reads first and however many read at
// once (run it with -race); each still has a Shape of its own, and the
// rows render the INSERT its text ends with.
func TestRowsOfACachedShape(t *testing.T) {
	ctx := context.Background()
	db, err := openTest()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s, _ := db.Session(ctx, "rows")
	if _, err := s.commitText(ctx, `INSERT (t:TSK {nick: "t", title: "fix"})-[:touches]->(:MOD {loc: "a.go"}), (t)-[:has_note]->(:NOTE {text: "n"})`, nil); err != nil {
		t.Fatal(err)
	}
	const q = `MATCH (t:TSK {nick: "t"})`
	if _, err := s.recallShape(ctx, q, values.RecallOptions{}); err != nil { // the Shape cache holds it now
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	shapes := make([]*values.Shape, 16)
	for i := range shapes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sh, err := s.recallShape(ctx, q, values.RecallOptions{})
			if err != nil {
				t.Error(err)
				return
			}
			shapes[i] = sh
			if n := len(sh.Nodes()); n != 3 || len(sh.Edges()) != 2 {
				t.Errorf("rows: %d nodes, %d edges", n, len(sh.Edges()))
			}
		}()
	}
	wg.Wait()
	for _, sh := range shapes {
		if sh == nil {
			continue
		}
		body := string(sh.AppendInsert(nil))
		if len(sh.Text) < len(body) || sh.Text[len(sh.Text)-len(body):] != body {
			t.Fatalf("the rows render\n%s\nthe text is\n%s", body, sh.Text)
		}
		if &sh.Nodes()[0] != &shapes[0].Nodes()[0] {
			t.Fatal("two callers of one cached Shape hold rows of their own")
		}
	}
	shapes[0].Text = "changed"
	if again, _ := s.recallShape(ctx, q, values.RecallOptions{}); again.Text == "changed" {
		t.Fatal("a caller's change reached the next caller")
	}
}

// exactSession holds names that a careless cache key would confuse: a
// label holding a colon, a key holding "=" and a blank, kinds named after
// an option, a kind holding a comma.
const exactSession = "INSERT (:A {a: 1, b: 2}), (:A {`a=1 b`: 2}), (:`A:B` {nick: 'q'}), (:A:B {nick: 'r'})," +
	" (:K {nick: 'k'})-[:r]->(:J {nick: 'j'}), (:`K,J` {nick: 'kj'}), (:nopeaks {nick: 'np'})-[:r]->(:nopeaks {nick: 'np2'})," +
	" (:P {f: 1}), (:P {f: 1.0}), (:P {f: '1'})"

// request is one Recall: a token and its options.
type request struct {
	q    string
	opts values.RecallOptions
}

func (r request) String() string { return fmt.Sprintf("%s %+v", r.q, r.opts) }

func openExact(t interface {
	Helper()
	Fatal(...any)
	Cleanup(func())
}, opts ...Option) *Session {
	t.Helper()
	db, err := openTest(opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	s, err := db.Session(context.Background(), "exact")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.commitText(context.Background(), exactSession, nil); err != nil {
		t.Fatal(err)
	}
	return s
}

func recallRequest(s *Session, r request) string {
	sh, err := s.recallShape(context.Background(), r.q, r.opts)
	if err != nil {
		return "error: " + err.Error()
	}
	return sh.Text
}

// TestShapeCacheKeysExact: requests that differ only in how their names
// would concatenate get their own Shapes, as with the cache off.
func TestShapeCacheKeysExact(t *testing.T) {
	pairs := [][2]request{
		{{q: "MATCH (n {a: 1, b: 2})"}, {q: "MATCH (n {`a=1 b`: 2})"}},
		{{q: "MATCH (n:A:B)"}, {q: "MATCH (n:`A:B`)"}},
		{{q: "MATCH (n:Z)", opts: values.RecallOptions{Pinned: []string{"K", "J"}}},
			{q: "MATCH (n:Z)", opts: values.RecallOptions{Pinned: []string{"K,J"}}}},
		{{q: "MATCH (n:Z)", opts: values.RecallOptions{Pinned: []string{"nopeaks"}}},
			{q: "MATCH (n:Z)", opts: values.RecallOptions{NoPeaks: true}}},
		{{q: "MATCH (n:P {f: $f})", opts: values.RecallOptions{Params: map[string]any{"f": 1}}},
			{q: "MATCH (n:P {f: $f})", opts: values.RecallOptions{Params: map[string]any{"f": "1"}}}},
	}
	cached := openExact(t)
	uncached := openExact(t, WithShapeCacheBytes(0))
	for _, p := range pairs {
		for _, r := range []request{p[0], p[1], p[0], p[1]} {
			if got, want := recallRequest(cached, r), recallRequest(uncached, r); got != want {
				t.Errorf("%v with the cache:\n%s\nwithout:\n%s", r, got, want)
			}
		}
	}
}

// The names of each part are few, so random requests often share every
// part but the one a careless key would confuse.
var (
	exactLabels = []string{"A", "B", "A:B"}
	exactKeys   = []string{"a", "b", "a=1 b"}
	exactPins   = []string{"K", "J", "K,J", "nopeaks"}
)

// requestParts is a request drawn part by part, so a second request can
// differ from the first in one part only: the pairs a careless key
// confuses are near each other.
type requestParts struct {
	labels, keys, vals []string
	limit              string
	param              any
	opts               values.RecallOptions
}

func (p requestParts) request() request {
	quote := func(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }
	var b strings.Builder
	b.WriteString("MATCH (n")
	for _, l := range p.labels {
		b.WriteString(":" + quote(l))
	}
	if len(p.keys) > 0 {
		b.WriteString(" {")
		for i, k := range p.keys {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(quote(k) + ": " + p.vals[i])
		}
		b.WriteString("}")
	}
	b.WriteString(")" + p.limit)
	r := request{q: b.String(), opts: p.opts}
	if strings.Contains(r.q, "$v") {
		r.opts.Params = map[string]any{"v": p.param}
	}
	return r
}

func drawPart(t *rapid.T, p *requestParts, part int) {
	names := func(from []string, label string) []string {
		var out []string
		for i, n := 0, rapid.IntRange(0, 2).Draw(t, label); i < n; i++ {
			out = append(out, rapid.SampledFrom(from).Draw(t, label))
		}
		return out
	}
	switch part {
	case 0:
		p.labels = names(exactLabels, "labels")
	case 1:
		p.keys = names(exactKeys, "keys")
		p.vals = nil
		for range p.keys {
			p.vals = append(p.vals, rapid.SampledFrom([]string{"1", "2", "$v"}).Draw(t, "val"))
		}
	case 2:
		p.limit = rapid.SampledFrom([]string{"", " LIMIT 0", " LIMIT 1", " LIMIT 3"}).Draw(t, "limit")
	case 3:
		p.param = rapid.SampledFrom([]any{1, 1.0, "1", 2, []any{"K", "J"}, "K,J"}).Draw(t, "param")
	case 4:
		p.opts.Pinned = names(exactPins, "pinned")
	case 5:
		p.opts.NoPeaks = rapid.Bool().Draw(t, "nopeaks")
	case 6:
		p.opts.M = rapid.SampledFrom([]int{0, 3}).Draw(t, "M")
		p.opts.K = rapid.IntRange(0, 1).Draw(t, "k")
		p.opts.L = rapid.IntRange(0, 1).Draw(t, "L")
	case 7:
		p.opts.View = rapid.SampledFrom([]string{"", "shell"}).Draw(t, "view")
	}
}

const requestPartCount = 8

// TestShapeCacheAgreesWithNoCache: for random sequences of requests on
// one session (each request either new or one part away from an earlier
// one), the cache-on engine gives the bytes the cache-off engine gives.
func TestShapeCacheAgreesWithNoCache(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cached := openExact(t)
		uncached := openExact(t, WithShapeCacheBytes(0))
		var seen []requestParts
		for i, n := 0, rapid.IntRange(2, 40).Draw(t, "requests"); i < n; i++ {
			var p requestParts
			if len(seen) > 0 && rapid.Bool().Draw(t, "near") {
				p = rapid.SampledFrom(seen).Draw(t, "base")
				p.opts.Pinned = slices.Clone(p.opts.Pinned)
				drawPart(t, &p, rapid.IntRange(0, requestPartCount-1).Draw(t, "differs"))
			} else {
				for j := range requestPartCount {
					drawPart(t, &p, j)
				}
			}
			seen = append(seen, p)
			r := p.request()
			if got, want := recallRequest(cached, r), recallRequest(uncached, r); got != want {
				t.Fatalf("%v with the cache:\n%s\nwithout:\n%s", r, got, want)
			}
		}
	})
}

// TestDroppedSessionIsGone: a session dropped and re-created under the
// same name, at the same version, never serves the old one's Shapes.
func TestDroppedSessionIsGone(t *testing.T) {
	ctx := context.Background()
	for _, path := range []string{"", t.TempDir() + "/c.gf"} {
		var opts []Option
		if path != "" {
			opts = append(opts, WithCabinet(path))
		}
		db, err := openTest(opts...)
		if err != nil {
			t.Fatal(err)
		}
		s, _ := db.Session(context.Background(), "s")
		if _, err := s.commitText(ctx, `INSERT (:TSK {nick: "t", title: "old"})`, nil); err != nil {
			t.Fatal(err)
		}
		q := `MATCH (t:TSK {nick: "t"})`
		old, _ := s.recallShape(ctx, q, values.RecallOptions{})
		if err := db.Drop(ctx, "s"); err != nil {
			t.Fatal(err)
		}
		if sh, err := s.recallShape(ctx, q, values.RecallOptions{}); !errors.Is(err, values.ErrDropped) {
			t.Errorf("cabinet %q: a Recall on the dropped session's handle gives %v, %v; want ErrDropped", path, sh, err)
		}
		s, _ = db.Session(context.Background(), "s")
		if _, err := s.commitText(ctx, `INSERT (:TSK {nick: "t", title: "new"})`, nil); err != nil {
			t.Fatal(err)
		}
		now, _ := s.recallShape(ctx, q, values.RecallOptions{})
		if strings.Contains(now.Text, `"old"`) || !strings.Contains(now.Text, `"new"`) {
			t.Errorf("cabinet %q: after drop and re-create the Recall gives\n%s\n(before the drop:\n%s)", path, now.Text, old.Text)
		}
		db.Close()
	}
}

// TestReturnedShapeIsTheCallers: what one caller does to its Shape is not
// what the next caller of the same Recall receives.
func TestReturnedShapeIsTheCallers(t *testing.T) {
	ctx := context.Background()
	s := openExact(t)
	q := request{q: "MATCH (n:K)", opts: values.RecallOptions{F: 1}}
	first, err := s.recallShape(ctx, q.q, q.opts)
	if err != nil {
		t.Fatal(err)
	}
	want, notices := first.Text, len(first.Notices)
	first.Text = "changed"
	first.Notices = append(first.Notices[:len(first.Notices):len(first.Notices)], values.Notice{Code: "01000", Msg: "added"})
	if len(first.Notices) > 0 {
		first.Notices[0].Msg = "edited"
	}
	for range 2 {
		again, err := s.recallShape(ctx, q.q, q.opts)
		if err != nil {
			t.Fatal(err)
		}
		if again.Text != want || len(again.Notices) != notices {
			t.Fatalf("the next caller got text %q and %d notices, want the original (%d notices)", again.Text, len(again.Notices), notices)
		}
		for _, n := range again.Notices {
			if n.Msg == "edited" || n.Msg == "added" {
				t.Fatalf("the next caller sees the first caller's notice %q", n.Msg)
			}
		}
		again.Text = "changed again"
	}
}
