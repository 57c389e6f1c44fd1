package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/values"
)

// The tests of slice.go: ExportSlice and Absorb, what they refuse and what they keep.

// sliceSource is the session the slice tests export from: two tasks
// sharing a module, a note, a third task on its own.
const sliceSource = `INSERT (t:TSK {nick: "TSK_login", status: "open"})-[:touches]->(m:MOD {loc: "auth/login.go"}),
	(t)-[:has_note]->(:NOTE {text: "redirect loops"}),
	(u:TSK {nick: "TSK_logout", status: "open"})-[:touches]->(m),
	(u)-[:blocks {why: "same cookie"}]->(t),
	(:TSK {nick: "TSK_docs", status: "done"})`

func sourceSession(t testing.TB, db *DB, name string) *Session {
	t.Helper()
	s := mustSession(t, db, name)
	mustCommit(t, s, sliceSource, nil)
	return s
}

func mustExport(t testing.TB, s *Session, q string, o values.SliceOptions) *values.Slice {
	t.Helper()
	sl, err := s.ExportSlice(context.Background(), q, o)
	if err != nil {
		t.Fatalf("ExportSlice(%q): %v", q, err)
	}
	return sl
}

func mustAbsorb(t testing.TB, s *Session, slice string, p values.AbsorbPolicy) *values.AbsorbResult {
	t.Helper()
	res, err := s.absorb(context.Background(), slice, p)
	if err != nil {
		t.Fatalf("Absorb %s: %v", p, err)
	}
	return res
}

// TestExportSliceRefusals: what ExportSlice refuses, each with its code
// and words.
func TestExportSliceRefusals(t *testing.T) {
	db, _ := openTest(WithCeilings(values.Ceilings{M: 100, K: 3, L: 3, F: 16}))
	defer db.Close()
	s := sourceSession(t, db, "a")
	cat := mustSession(t, db, CatalogName)
	for _, c := range []struct {
		name string
		s    *Session
		q    string
		o    values.SliceOptions
		code values.Code
		msg  string
	}{
		{"outline", s, `MATCH ()`, values.SliceOptions{}, gqlstatus.WrongVerb, "outline, which has no anchors"},
		{"outline with a limit", s, `MATCH () LIMIT 2`, values.SliceOptions{}, gqlstatus.WrongVerb, "never a whole session"},
		{"a Δ", s, `INSERT (:A)`, values.SliceOptions{}, gqlstatus.WrongVerb, "takes a Recall's token"},
		{"no anchors named", s, ``, values.SliceOptions{}, gqlstatus.InvalidOption, "give q, a Recall's token, or nicks"},
		{"catalogue", cat, `MATCH (s:SESSION)`, values.SliceOptions{}, gqlstatus.ReadOnlySession, "no slice's source"},
		{"M over its ceiling", s, `MATCH (t:TSK)`, values.SliceOptions{M: 101}, gqlstatus.RecallBudget, "M=101 is above its ceiling 100"},
		{"L over its ceiling", s, `MATCH (t:TSK)`, values.SliceOptions{L: 4}, gqlstatus.RecallBudget, "L=4 is above its ceiling 3"},
		{"more nicks than L", s, ``, values.SliceOptions{L: 1, Nicks: []string{"TSK_login", "TSK_docs"}}, gqlstatus.RecallBudget, "2 nicks are more anchors than L=1"},
		{"unknown nick", s, ``, values.SliceOptions{Nicks: []string{"TSK_nobody"}}, gqlstatus.InvalidReference, `no live node has the nick "TSK_nobody"`},
		{"q and nicks", s, `MATCH (t:TSK)`, values.SliceOptions{Nicks: []string{"TSK_login"}}, gqlstatus.InvalidOption, "q or nicks, not both"},
		{"missing parameter", s, `MATCH (t:TSK {nick: $n})`, values.SliceOptions{}, gqlstatus.InvalidReference, "parameter $n is not given"},
	} {
		_, err := c.s.ExportSlice(context.Background(), c.q, c.o)
		var ge *gqlstatus.Error
		if !errors.As(err, &ge) || ge.Code != c.code || !strings.Contains(ge.Msg, c.msg) {
			t.Errorf("%s: got %v, want GQLSTATUS %s saying %q", c.name, err, c.code, c.msg)
		}
	}
}

// TestExportSliceBound: a slice holds at most M × anchors rows, each
// anchor walked on its own; the walks that M cut say so; the ids are in
// the variables and nowhere else; a q that matches nothing gives an
// empty slice with 02000.
func TestExportSliceBound(t *testing.T) {
	db, _ := openTest()
	defer db.Close()
	s := mustSession(t, db, "chain")
	// Four hubs of 30 leaves each: every anchor's walk fills its M.
	var b strings.Builder
	b.WriteString("INSERT ")
	for h := 0; h < 4; h++ {
		if h > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "(h%d:HUB {nick: \"hub%d\"})", h, h)
		for l := 0; l < 30; l++ {
			fmt.Fprintf(&b, ", (h%d)-[:has]->(:LEAF {hub: %d, n: %d})", h, h, l)
		}
	}
	mustCommit(t, s, b.String(), nil)
	for _, c := range []struct {
		q              string
		o              values.SliceOptions
		anchors, bound int
	}{
		{`MATCH (h:HUB)`, values.SliceOptions{F: 40}, 4, 200},
		{`MATCH (h:HUB)`, values.SliceOptions{M: 10, F: 40}, 4, 40},
		{`MATCH (h:HUB) LIMIT 2`, values.SliceOptions{M: 7, F: 40}, 2, 14},
		{``, values.SliceOptions{M: 5, F: 40, Nicks: []string{"hub3", "hub1", "hub3"}}, 2, 10},
	} {
		sl := mustExport(t, s, c.q, c.o)
		if sl.Anchors != c.anchors || sl.Bound != c.bound || sl.Rows > sl.Bound || sl.Rows != sl.Nodes+sl.Edges || sl.Nodes == 0 {
			t.Errorf("%q %+v: anchors %d bound %d rows %d (%d nodes, %d edges), want %d anchors, bound %d", c.q, c.o,
				sl.Anchors, sl.Bound, sl.Rows, sl.Nodes, sl.Edges, c.anchors, c.bound)
		}
		if !sl.Truncated || sl.Status != gqlstatus.Warning || !strings.Contains(sl.Text, "// cut: M=") {
			t.Errorf("%q: a cut walk is not reported: truncated %v, status %s\n%s", c.q, sl.Truncated, sl.Status, sl.Text)
		}
		if !strings.HasPrefix(sl.Text, fmt.Sprintf("// goldfish slice session=chain version=1 anchors=%d k=2 rows=%d/%d sum=", sl.Anchors, sl.Rows, sl.Bound)) {
			t.Errorf("header: %s", strings.SplitN(sl.Text, "\n", 2)[0])
		}
	}
	// Recall never shows the ids the slice writes.
	sh, err := s.recallShape(context.Background(), `MATCH (h:HUB)`, values.RecallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(sh.Text, "hub_") || strings.Contains(sh.Text, "e_") {
		t.Errorf("a Shape shows slice variables:\n%s", sh.Text)
	}
	empty := mustExport(t, s, `MATCH (h:HUB {nick: "hub9"})`, values.SliceOptions{})
	if empty.Rows != 0 || empty.Anchors != 0 || empty.Status != gqlstatus.NoData {
		t.Errorf("empty slice: %+v", empty)
	}
	res := mustAbsorb(t, mustSession(t, db, "dst"), empty.Text, values.AbsorbKeep)
	if res.Applied || res.Version != 0 {
		t.Errorf("an empty slice applied: %+v", res)
	}
}

// TestAbsorbPolicies: each policy on a clean session, on one whose ids or
// nicks clash, and on one that holds the slice already.
func TestAbsorbPolicies(t *testing.T) {
	ctx := context.Background()
	db, _ := openTest()
	defer db.Close()
	src := sourceSession(t, db, "src")
	sl := mustExport(t, src, `MATCH (t:TSK {nick: "TSK_login"})`, values.SliceOptions{})
	for i, c := range []struct {
		name    string
		setup   string // committed to the target first
		again   bool   // the slice absorbed with keep first
		policy  values.AbsorbPolicy
		code    values.Code // of the error; "" for none
		msg     string
		applied bool
		created int // nodes + edges created
		same    int
		skipped []string
	}{
		{name: "keep, clean", policy: values.AbsorbKeep, applied: true, created: 8},
		{name: "keep, identical", again: true, policy: values.AbsorbKeep, same: 8},
		{name: "keep, id clash", setup: `INSERT (:X), (:X {n: 2})`, policy: values.AbsorbKeep,
			code: gqlstatus.IntegrityViolation, msg: "slice element tsk_1 clashes with this session: id 1 holds another node, (:X)"},
		{name: "keep, nick clash", setup: `INSERT (:X), (:X), (:X), (:X), (:X), (:X), (:X), (:X); MATCH (x:X) DELETE x; PURGE; INSERT (:OTHER {nick: "TSK_logout"})`,
			policy: values.AbsorbKeep, code: gqlstatus.IntegrityViolation, msg: `another live node has the nick "TSK_logout"`},
		{name: "keep, a deleted element holds the id", setup: `INSERT (:X {n: 1}); MATCH (x:X) DELETE x`, policy: values.AbsorbKeep,
			code: gqlstatus.IntegrityViolation, msg: "id 1 holds a deleted node here (Purge frees it)"},
		{name: "reject, clean", policy: values.AbsorbReject, applied: true, created: 8},
		{name: "reject, identical", again: true, policy: values.AbsorbReject, same: 8},
		{name: "reject, id clash", setup: `INSERT (:X), (:X {n: 2})`, policy: values.AbsorbReject, applied: true, created: 2,
			skipped: []string{"tsk_1", "mod_2", "e_5", "e_3", "e_8", "e_7"}},
		{name: "remint, clean", policy: values.AbsorbRemint, applied: true, created: 8},
		{name: "remint, identical", again: true, policy: values.AbsorbRemint, applied: true, created: 2,
			skipped: []string{"tsk_1", "tsk_6", "e_5", "e_3", "e_8", "e_7"}},
		{name: "remint, id clash", setup: `INSERT (:X), (:X {n: 2})`, policy: values.AbsorbRemint, applied: true, created: 8},
	} {
		dst := mustSession(t, db, fmt.Sprintf("dst%d", i))
		if c.setup != "" {
			for _, st := range strings.Split(c.setup, "; ") {
				if st == "PURGE" {
					if _, err := dst.Purge(ctx); err != nil {
						t.Fatal(err)
					}
					continue
				}
				mustCommit(t, dst, st, nil)
			}
		}
		if c.again {
			mustAbsorb(t, dst, sl.Text, values.AbsorbKeep)
		}
		before, version := dst.Dump(), dst.Version()
		res, err := dst.absorb(ctx, sl.Text, c.policy)
		if c.code != "" {
			var ge *gqlstatus.Error
			if !errors.As(err, &ge) || ge.Code != c.code || !strings.Contains(ge.Msg, c.msg) || !ge.Pos.Valid() {
				t.Errorf("%s: got %v, want GQLSTATUS %s saying %q at a position", c.name, err, c.code, c.msg)
			}
			if dst.Dump() != before || dst.Version() != version {
				t.Errorf("%s: a refused Absorb changed the session", c.name)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		var skipped []string
		for _, sk := range res.Skipped {
			skipped = append(skipped, sk.Element)
			if sk.Reason == "" || sk.Line == 0 {
				t.Errorf("%s: skipped %+v says neither why nor where", c.name, sk)
			}
		}
		created := res.Total.NodesCreated + res.Total.EdgesCreated
		if res.Applied != c.applied || created != c.created || res.Unchanged != c.same || fmt.Sprint(skipped) != fmt.Sprint(c.skipped) {
			t.Errorf("%s: applied %v, created %d, unchanged %d, skipped %v; want %v, %d, %d, %v",
				c.name, res.Applied, created, res.Unchanged, skipped, c.applied, c.created, c.same, c.skipped)
		}
		if res.Applied != (dst.Version() == version+1) {
			t.Errorf("%s: applied %v but version %d → %d", c.name, res.Applied, version, dst.Version())
		}
		if c.policy == values.AbsorbRemint && len(res.Reminted) != created {
			t.Errorf("%s: %d reminted for %d created", c.name, len(res.Reminted), created)
		}
	}
}

// TestAbsorbRemintRewritesEdges: remint's fresh ids are the ones the
// edges are written with: the session's own slice of the copy joins the
// reminted nodes by the reminted edges.
func TestAbsorbRemintRewritesEdges(t *testing.T) {
	db, _ := openTest()
	defer db.Close()
	src := sourceSession(t, db, "src")
	sl := mustExport(t, src, `MATCH (t:TSK {nick: "TSK_login"})`, values.SliceOptions{})
	dst := mustSession(t, db, "dst")
	mustCommit(t, dst, `INSERT (:X), (:X {n: 2}), (:X {n: 3})`, nil)
	res := mustAbsorb(t, dst, sl.Text, values.AbsorbRemint)
	again := mustExport(t, dst, ``, values.SliceOptions{Nicks: []string{"TSK_login"}})
	want := regexp.MustCompile(`\b[a-z][a-z0-9_]*_[0-9]+\b`).ReplaceAllStringFunc(sl.Text[strings.Index(sl.Text, "\nINSERT"):],
		func(v string) string {
			if to, ok := res.Reminted[v]; ok {
				return to
			}
			return "?" + v
		})
	if got := again.Text[strings.Index(again.Text, "\nINSERT"):]; got != want {
		t.Errorf("the reminted copy is not the slice with its ids rewritten:\n%s\nwant\n%s", got, want)
	}
}

// TestAbsorbRefusesText: text that is not a slice, or a slice the
// database does not take, is refused with a position, nothing applied.
func TestAbsorbRefusesText(t *testing.T) {
	ctx := context.Background()
	db, _ := openTest(WithCeilings(values.Ceilings{M: 10, K: 3, L: 2, F: 8}))
	defer db.Close()
	big, _ := openTest()
	defer big.Close()
	src := sourceSession(t, big, "src")
	sl := mustExport(t, src, `MATCH (t:TSK {nick: "TSK_login"})`, values.SliceOptions{M: 10}).Text
	over := mustExport(t, src, `MATCH (t:TSK {nick: "TSK_login"})`, values.SliceOptions{}).Text
	small := mustExport(t, src, `MATCH (t:TSK {nick: "TSK_docs"})`, values.SliceOptions{M: 10}).Text
	shape, err := src.recallShape(ctx, `MATCH (t:TSK {nick: "TSK_login"})`, values.RecallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dst := mustSession(t, db, "dst")
	for _, c := range []struct {
		name, text string
		code       values.Code
		msg        string
		line       int
	}{
		{"a Shape", shape.Text, gqlstatus.Syntax, "this is a Shape", 1},
		{"plain GQL", `INSERT (:A)`, gqlstatus.Syntax, "a slice starts with the header line", 1},
		{"empty", ``, gqlstatus.Syntax, "a slice starts with the header line", 1},
		{"a value changed", strings.Replace(sl, `"open"`, `"opem"`, 1), gqlstatus.Syntax, "sum does not match", 1},
		{"a line added", strings.Replace(sl, "INSERT\n", "// hi\nINSERT\n", 1), gqlstatus.Syntax, "sum does not match", 1},
		{"cut short", sl[:len(sl)-20], gqlstatus.Syntax, "", 11},
		{"the anchors line gone", strings.Replace(sl, "// anchors: tsk_1\n", "", 1), gqlstatus.Syntax, "lists the anchors", 2},
		{"an anchor not in it", strings.Replace(sl, "// anchors: tsk_1\n", "// anchors: tsk_99\n", 1), gqlstatus.Syntax, "anchor tsk_99 is not a node of the slice", 2},
		{"a header field missing", strings.Replace(sl, " k=2", "", 1), gqlstatus.Syntax, "holds the fields", 1},
		{"the rows miscounted", strings.Replace(sl, "rows=8/10", "rows=7/10", 1), gqlstatus.Syntax, "the header says 7 rows, the INSERT writes 8", 1},
		{"the catalogue's", strings.Replace(sl, "session=src", "session=catalog", 1), gqlstatus.ReadOnlySession, "exported from the catalog", 1},
		{"over this database's bound", over, gqlstatus.CommitBudget, "over this database's slice bound", 1},
		{"two statements", strings.Replace(small, "\nINSERT", "\nINSERT (:A);\nINSERT", 1), gqlstatus.Syntax, "one INSERT statement", 0},
		{"over the byte bound", small + strings.Repeat("x", values.MaxSliceBytes), gqlstatus.CommitBudget, "over the slice bound", 0},
	} {
		_, err := dst.absorb(ctx, c.text, values.AbsorbKeep)
		var ge *gqlstatus.Error
		if !errors.As(err, &ge) || ge.Code != c.code || !strings.Contains(ge.Msg, c.msg) || ge.Pos.Line != c.line && c.line != 0 {
			t.Errorf("%s: got %v (at %+v), want GQLSTATUS %s saying %q on line %d", c.name, err, ge, c.code, c.msg, c.line)
		}
	}
	if dst.Version() != 0 {
		t.Errorf("a refused Absorb applied: version %d", dst.Version())
	}
	if _, err := dst.absorb(ctx, small, "merge"); !isCode(err, gqlstatus.InvalidOption) {
		t.Errorf("an unknown policy: %v, want GQLSTATUS %s", err, gqlstatus.InvalidOption)
	}
	if _, err := mustSession(t, db, CatalogName).absorb(ctx, small, values.AbsorbKeep); !isCode(err, gqlstatus.ReadOnlySession) {
		t.Errorf("an Absorb into the catalogue: %v, want GQLSTATUS %s", err, gqlstatus.ReadOnlySession)
	}
	if _, err := dst.Absorb(ctx, small, values.AbsorbKeep, values.CommitOptions{Agent: "-bad"}); !isCode(err, gqlstatus.InvalidName) {
		t.Errorf("a bad agent name: %v, want GQLSTATUS %s", err, gqlstatus.InvalidName)
	}
	// The small slice fits this database's bound, and an agent may absorb.
	if res, err := dst.Absorb(ctx, small, values.AbsorbKeep, values.CommitOptions{Agent: "ana"}); err != nil || !res.Applied {
		t.Errorf("absorbing a slice within the bound: %v", err)
	}
}

// TestAbsorbReplaysExactly: an Absorb is a log entry that hydrate replays
// to the same state, ids included: after a reopen (log replay), after a
// flush and reopen (snapshot), and for Commits that follow it (the id
// counter is the same).
func TestAbsorbReplaysExactly(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	mem, _ := openTest()
	defer mem.Close()
	src := sourceSession(t, mem, "src")
	login := mustExport(t, src, `MATCH (t:TSK {nick: "TSK_login"})`, values.SliceOptions{}).Text
	docs := mustExport(t, src, ``, values.SliceOptions{Nicks: []string{"TSK_docs", "TSK_logout"}}).Text

	// run applies the scenario's steps to a session, reopening the
	// database between steps when reopen is set, and returns the
	// session's own slice of everything at the end.
	run := func(path string, reopen, flush bool) string {
		db := openCab(t, path)
		steps := []func(s *Session){
			func(s *Session) { mustCommit(t, s, `INSERT (:X {n: 1}), (:X {n: 2})`, nil) },
			func(s *Session) { mustAbsorb(t, s, login, values.AbsorbReject) },
			func(s *Session) { mustAbsorb(t, s, login, values.AbsorbRemint) },
			func(s *Session) { mustCommit(t, s, `MATCH (x:X {n: 1}) DETACH DELETE x`, nil) },
			func(s *Session) {
				if _, err := s.Purge(ctx); err != nil {
					t.Fatal(err)
				}
			},
			func(s *Session) { mustAbsorb(t, s, docs, values.AbsorbReject) },
			func(s *Session) { mustCommit(t, s, `INSERT (:Y {n: 3})-[:r]->(:Y {n: 4})`, nil) },
		}
		for _, step := range steps {
			// Flushed before the step, the reopened session is a snapshot
			// and the step's entry in the log after it.
			if flush {
				if err := db.Flush(ctx); err != nil {
					t.Fatal(err)
				}
			}
			step(mustSession(t, db, "dst"))
			if reopen {
				db.Close()
				db = openCab(t, path)
			}
		}
		defer db.Close()
		s := mustSession(t, db, "dst")
		out := s.Dump()
		for _, q := range []string{`MATCH (n:TSK) LIMIT 8`, `MATCH (n:X)`, `MATCH (n:Y)`, `MATCH (n:NOTE)`} {
			out += mustExport(t, s, q, values.SliceOptions{L: 8}).Text
		}
		return out
	}
	want := run(filepath.Join(dir, "once.gf"), false, false)
	for _, c := range []struct {
		name          string
		reopen, flush bool
	}{{"closed and reopened", false, false}, {"reopened after each step", true, false}, {"flushed before and reopened after each step", true, true}} {
		path := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".gf")
		got := run(path, c.reopen, c.flush)
		if got != want {
			t.Errorf("%s: the session differs from the one never reopened:\n%s\nwant\n%s", c.name, got, want)
		}
		// And once more from the file as it was left.
		db := openCab(t, path)
		s := mustSession(t, db, "dst")
		again := s.Dump()
		for _, q := range []string{`MATCH (n:TSK) LIMIT 8`, `MATCH (n:X)`, `MATCH (n:Y)`, `MATCH (n:NOTE)`} {
			again += mustExport(t, s, q, values.SliceOptions{L: 8}).Text
		}
		db.Close()
		if again != want {
			t.Errorf("%s: reopened, the session differs", c.name)
		}
	}

	// A cabinet compacted (more than half of it freed: a large session
	// flushed, then dropped, and the file rewritten when it is closed)
	// still holds the absorbed session as it was.
	path := filepath.Join(dir, "compacted.gf")
	run(path, false, false)
	db := openCab(t, path)
	ballast := mustSession(t, db, "ballast")
	for i := 0; i < 12; i++ {
		mustCommit(t, ballast, `INSERT (:B {text: $t})`, map[string]any{"t": strings.Repeat("x", 200<<10)})
	}
	if err := db.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	big := fileSize(t, path)
	if err := db.Drop(ctx, "ballast"); err != nil {
		t.Fatal(err)
	}
	db.Close() // compacts the file
	db = openCab(t, path)
	s := mustSession(t, db, "dst")
	got := s.Dump()
	for _, q := range []string{`MATCH (n:TSK) LIMIT 8`, `MATCH (n:X)`, `MATCH (n:Y)`, `MATCH (n:NOTE)`} {
		got += mustExport(t, s, q, values.SliceOptions{L: 8}).Text
	}
	db.Close()
	if small := fileSize(t, path); small*2 > big {
		t.Logf("the cabinet was not compacted (%d bytes, then %d)", big, small)
	}
	if got != want {
		t.Errorf("after a compaction, the session differs:\n%s\nwant\n%s", got, want)
	}
}

func fileSize(t testing.TB, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// TestAbsorbConcurrent: Absorbs into one session from many goroutines,
// beside Recalls and Exports, each apply whole (run with -race).
func TestAbsorbConcurrent(t *testing.T) {
	ctx := context.Background()
	db, _ := openTest()
	defer db.Close()
	src := mustSession(t, db, "src")
	mustCommit(t, src, `INSERT (a:A {n: 1})-[:r]->(:B {n: 2}), (a)-[:r]->(:B {n: 3})`, nil)
	sl := mustExport(t, src, `MATCH (a:A)`, values.SliceOptions{})
	dst := mustSession(t, db, "dst")
	const n = 8
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(2)
		go func() {
			defer wg.Done()
			if _, err := dst.absorb(ctx, sl.Text, values.AbsorbRemint); err != nil {
				t.Error(err)
			}
		}()
		go func() {
			defer wg.Done()
			if _, err := dst.recallShape(ctx, `MATCH (a:A) LIMIT 4`, values.RecallOptions{}); err != nil {
				t.Error(err)
			}
			if _, err := dst.ExportSlice(ctx, `MATCH (b:B)`, values.SliceOptions{}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if dst.Version() != n || !strings.Contains(dst.Dump(), fmt.Sprintf("nodes %d, edges %d,", 3*n, 2*n)) {
		t.Errorf("after %d concurrent remint absorbs: version %d\n%s", n, dst.Version(), dst.Dump())
	}
}

// TestExportSliceOverBytes: a slice whose text would pass MaxSliceBytes
// is refused (22Q02), whatever its rows.
func TestExportSliceOverBytes(t *testing.T) {
	db, _ := openTest()
	defer db.Close()
	s := mustSession(t, db, "fat")
	mustCommit(t, s, `INSERT (:HUB {nick: "hub"})`, nil)
	for i := 0; i < 6; i++ {
		mustCommit(t, s, `MATCH (h:HUB) INSERT (h)-[:has]->(:DOC {i: $i, text: $t})`, map[string]any{"i": i, "t": strings.Repeat("x", 200<<10)})
	}
	_, err := s.ExportSlice(context.Background(), `MATCH (h:HUB)`, values.SliceOptions{})
	var ge *gqlstatus.Error
	if !errors.As(err, &ge) || ge.Code != gqlstatus.CommitBudget || !strings.Contains(ge.Msg, "over the slice bound of 1048576 bytes") {
		t.Fatalf("got %v, want 22Q02 over the slice bound", err)
	}
	if sl, err := s.ExportSlice(context.Background(), `MATCH (h:HUB)`, values.SliceOptions{M: 9}); err != nil || sl.Nodes != 5 {
		t.Fatalf("a narrower slice: %v", err)
	}
}
