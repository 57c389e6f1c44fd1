package snap_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/snap"
)

// bank is a tree whose package db is called from a (three functions call
// Tx.Commit, one Tx.Rollback) and from b (one calls Tx.Commit), and whose
// db.Walk calls itself.
const bank = "testdata/bank"

func snapBank(t *testing.T, db *goldfish.DB, dir string, n int) snap.Report {
	t.Helper()
	rep, err := snap.Go(context.Background(), db, dir, snap.Options{Prefix: "bank", PartNodes: n})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// callersLines lists a Dump's calls edges from CALLERS nodes, sorted.
func callersLines(dump string) []string {
	var out []string
	for _, line := range strings.Split(dump, "\n") {
		if strings.HasPrefix(line, "(:CALLERS {") && strings.Contains(line, ")-[:calls]->(") {
			out = append(out, line)
		}
	}
	slices.Sort(out)
	return out
}

// TestSnapCallers: a function called from other parts has, in its own
// part, a CALLERS node per calling part naming that part's session and
// how many of its functions call it, with a calls edge to the function;
// a recursive function has a calls edge to itself.
func TestSnapCallers(t *testing.T) {
	const (
		db       = "example.com/bank/db."
		commit   = `(:FN {at: "db/db.go:8", doc: "Commit ends the transaction.", loc: "` + db + `Tx.Commit", name: "Commit", recv: "Tx", sig: "func (t *Tx) Commit() error"})`
		rollback = `(:FN {at: "db/db.go:11", doc: "Rollback undoes the transaction.", loc: "` + db + `Tx.Rollback", name: "Rollback", recv: "Tx", sig: "func (t *Tx) Rollback()"})`
		walk     = `(:FN {at: "db/db.go:14", doc: "Walk counts down by calling itself.", loc: "` + db + `Walk", name: "Walk", sig: "func Walk(n int) int"})`
	)
	for _, tc := range []struct {
		n       int
		session string
		callers []string // the calls edges of its CALLERS nodes
		parts   []string // every part of the snap
	}{
		{n: 10, session: "bank.db", callers: []string{
			`(:CALLERS {callers: 1, loc: "` + db + `Tx.Commit <- bank.b", session: "bank.b"})-[:calls]->` + commit,
			`(:CALLERS {callers: 1, loc: "` + db + `Tx.Rollback <- bank.a", session: "bank.a"})-[:calls]->` + rollback,
			`(:CALLERS {callers: 3, loc: "` + db + `Tx.Commit <- bank.a", session: "bank.a"})-[:calls]->` + commit,
		}, parts: []string{"bank.a", "bank.b", "bank.db"}},
		{n: 10, session: "bank.a", parts: []string{"bank.a", "bank.b", "bank.db"}},
		{n: 10, session: "bank.b", parts: []string{"bank.a", "bank.b", "bank.db"}},
		// The whole tree in one part: every caller is there.
		{n: 1000, session: "bank.bank", parts: []string{"bank.bank"}},
	} {
		d := open(t)
		rep := snapBank(t, d, bank, tc.n)
		var parts []string
		for _, p := range rep.Parts {
			parts = append(parts, p.Session)
			if p.Nodes > tc.n {
				t.Errorf("n=%d: %s holds %d nodes", tc.n, p.Session, p.Nodes)
			}
		}
		if !slices.Equal(parts, tc.parts) {
			t.Fatalf("n=%d: parts %q; want %q", tc.n, parts, tc.parts)
		}
		p, _ := partNamed(rep, tc.session)
		dump := session(t, d, tc.session).Dump()
		if got := callersLines(dump); !slices.Equal(got, tc.callers) || p.Callers != len(tc.callers) {
			t.Errorf("n=%d: %s has %d CALLERS nodes:\n%s\nwant:\n%s", tc.n, tc.session, p.Callers, strings.Join(got, "\n"), strings.Join(tc.callers, "\n"))
		}
		if strings.Contains(tc.session, "db") || tc.n == 1000 {
			if !strings.Contains(dump, walk+"-[:calls]->"+walk) {
				t.Errorf("n=%d: %s lacks Walk's self-loop:\n%s", tc.n, tc.session, dump)
			}
		}
	}
}

// TestSnapCallersRecall: the Recall of a function in its own part says
// how many callers it has in which other part, and that part's session
// answers who they are (the function stands there as a STUB).
func TestSnapCallersRecall(t *testing.T) {
	ctx := context.Background()
	d := open(t)
	snapBank(t, d, bank, 10)
	const commit = "example.com/bank/db.Tx.Commit"
	opts := goldfish.RecallOptions{Params: map[string]any{"loc": commit}}
	sh, err := session(t, d, "bank.db").Recall(ctx, `MATCH (f:FN {loc: $loc})`, opts)
	if err != nil {
		t.Fatal(err)
	}
	// The CALLERS node for bank.a, and its edge to the function.
	var nick string
	for _, line := range strings.Split(sh.Text, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "("); ok && strings.Contains(v, `:CALLERS {callers: 3, loc: "`+commit+` <- bank.a", session: "bank.a"}`) {
			nick, _, _ = strings.Cut(v, ":")
		}
	}
	if nick == "" || !strings.Contains(sh.Text, "("+nick+")-[:calls]->(fn1)") ||
		!strings.Contains(sh.Text, `:CALLERS {callers: 1, loc: "`+commit+` <- bank.b", session: "bank.b"}`) {
		t.Fatalf("the Recall of Tx.Commit in its part does not name its callers elsewhere:\n%s", sh.Text)
	}
	// Following it: in bank.a, the stub of Tx.Commit and its 3 callers.
	sh, err = session(t, d, "bank.a").Recall(ctx, `MATCH (s:STUB {loc: $loc})`, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(sh.Text, ")-[:calls]->(stub1)"); got != 3 || !strings.Contains(sh.Text, `(stub1:STUB {kind: "FN", loc: "`+commit+`", session: "bank.db"})`) {
		t.Errorf("bank.a shows %d callers of the stub of Tx.Commit; want 3:\n%s", got, sh.Text)
	}
	// A recursive function: its Recall shows the self-loop.
	sh, err = session(t, d, "bank.db").Recall(ctx, `MATCH (f:FN {loc: "example.com/bank/db.Walk"})`, goldfish.RecallOptions{})
	if err != nil || !strings.Contains(sh.Text, "(fn1)-[:calls]->(fn1)") {
		t.Errorf("the Recall of Walk lacks its self-loop: %v\n%v", err, sh)
	}
}

// TestSnapCallersResnap: when a calling part stops calling, the callee's
// part loses that CALLERS node (swept) or sees its count drop, and the
// snap ends where a fresh snap does; a second re-snap applies nothing.
func TestSnapCallersResnap(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"go.mod", "a/a.go", "b/b.go", "db/db.go"} {
		b, err := os.ReadFile(filepath.Join(bank, f))
		if err == nil {
			err = os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755)
		}
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, f), b, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	d := open(t)
	snapBank(t, d, dir, 10)
	edit(t, filepath.Join(dir, "b", "b.go"), "return t.Commit()", "return nil")
	edit(t, filepath.Join(dir, "a", "a.go"), "func Flush(t *db.Tx) error { return t.Commit() }", "func Flush(t *db.Tx) error { return nil }")
	rep := snapBank(t, d, dir, 10)
	if want := []string{"bank", "bank.a", "bank.b", "bank.db"}; !slices.Equal(rep.Changed, want) || rep.Deleted == 0 {
		t.Errorf("changed %q, deleted %d; want %q and some deleted", rep.Changed, rep.Deleted, want)
	}
	got := callersLines(session(t, d, "bank.db").Dump())
	if len(got) != 2 || !strings.HasPrefix(got[0], `(:CALLERS {callers: 1, loc: "example.com/bank/db.Tx.Rollback <- bank.a"`) ||
		!strings.HasPrefix(got[1], `(:CALLERS {callers: 2, loc: "example.com/bank/db.Tx.Commit <- bank.a"`) {
		t.Errorf("bank.db's CALLERS after the edit:\n%s", strings.Join(got, "\n"))
	}
	fresh := open(t)
	want := dumps(t, fresh, snapBank(t, fresh, dir, 10))
	for name, w := range want {
		if g := session(t, d, name).Dump(); body(g) != body(w) {
			t.Errorf("%s after the re-snap:\n%s\na fresh snap:\n%s", name, g, w)
		}
	}
	if again := snapBank(t, d, dir, 10); again.Applied != 0 || again.Deleted != 0 {
		t.Errorf("a second re-snap applied %d Δs and deleted %d", again.Applied, again.Deleted)
	}
}
