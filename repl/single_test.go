package repl

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/gqlstatus"
)

// runSingle runs inputs as one transaction (Options.SingleTransaction) on
// s and says how many statements FitSingle was told of (-1: not called).
func runSingle(t *testing.T, s *goldfish.Session, inputs []Input) (stdout, stderr string, code, fitted int) {
	t.Helper()
	var out, errOut bytes.Buffer
	fitted = -1
	opts := Options{SingleTransaction: true, FitSingle: func(_ context.Context, n int) error { fitted = n; return nil }}
	code = Run(context.Background(), s, &ReaderIO{Inputs: inputs, Out: &out, Err: &errOut}, opts)
	return out.String(), errOut.String(), code, fitted
}

// TestSingleTransaction: with Options.SingleTransaction the whole input
// is one Δ: it applies whole, or an error anywhere (in the input, a
// meta-command the transaction cannot hold, the engine's parse or run of
// any statement) stops the run with nothing applied, before anything is
// sent when the shell can tell, and placed in the input as every error.
func TestSingleTransaction(t *testing.T) {
	dir := t.TempDir()
	part := filepath.Join(dir, "part.gql")
	if err := os.WriteFile(part, []byte("INSERT (:P {nick: 'p'});\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const dropped = "gqlsh: the single transaction (-1) is dropped: nothing applied\n"
	cases := []struct {
		name    string
		in      string
		code    int
		out     string // stdout, whole
		err     []string
		version uint64
		nodes   int
		fitted  int // statements FitSingle was told of; -1: not called
	}{
		{name: "the statements apply as one Δ, one version",
			in:  "INSERT (:A {nick: 'a'});\nINSERT (:B);\nMATCH (a:A {nick: 'a'}) INSERT (a)-[:r]->(:C);\n",
			out: "ok v=1 +3 nodes +1 edge 1 property set 1 binding\n", version: 1, nodes: 3, fitted: 3},
		{name: "an error the engine finds in the last statement applies nothing",
			in:   "INSERT (:A {nick: 'a'});\nINSERT (:B);\nINSERT (:A {nick: 'a', n: 1});\n",
			code: 1, err: []string{"GQLSTATUS 40002: statement 3: nick \"a\" is already used by another live node", "(line 3, column 8)\n  INSERT (:A {nick: 'a', n: 1});\n         ^\n", dropped},
			fitted: 3},
		{name: "a parse error in the last statement applies nothing",
			in:   "INSERT (:A);\nINSERT (:B {x: });\n",
			code: 1, err: []string{"GQLSTATUS 42001: statement 2: ", "(line 2, column 16)", dropped}, fitted: 2},
		{name: "START TRANSACTION is refused before anything is sent",
			in:   "INSERT (:A);\nSTART TRANSACTION;\nINSERT (:B);\nCOMMIT;\n",
			code: 1, err: []string{"GQLSTATUS 25G01: statement 2: START TRANSACTION inside the single transaction (-1)", "(line 2, column 1)", dropped}, fitted: -1},
		{name: "COMMIT is refused",
			in:   "INSERT (:A);\nCOMMIT WORK;\n",
			code: 1, err: []string{"GQLSTATUS 25000: statement 2: COMMIT inside the single transaction (-1)", dropped}, fitted: -1},
		{name: "ROLLBACK is refused",
			in:   "INSERT (:A);\nROLLBACK;\n",
			code: 1, err: []string{"GQLSTATUS 25000: statement 2: ROLLBACK inside the single transaction (-1)"}, fitted: -1},
		{name: "a Recall is refused before the Commit",
			in:   "INSERT (:A);\n  MATCH (a:A);\nINSERT (:B);\n",
			code: 1, err: []string{"GQLSTATUS 25000: statement 2: a Recall inside the single transaction (-1)", "(line 2, column 3)", "run the Recall after the load", dropped}, fitted: 3},
		{name: "a MATCH that changes is a statement of the Δ",
			in:  "INSERT (:A {nick: 'a'});\nMATCH (a:A {nick: 'a'}) SET a.x = 1;\n",
			out: "ok v=1 +1 node 2 properties set 1 binding\n", version: 1, nodes: 1, fitted: 2},
		{name: ":param and :agent before the first statement",
			in:  ":param x 5\n:agent loader\nINSERT (:A {x: $x});\n",
			out: "$x = 5\nagent loader: Recalls and Commits name it\nok v=1 +1 node 1 property set\n", version: 1, nodes: 1, fitted: 1},
		{name: ":param after the first statement is refused",
			in:   "INSERT (:A);\n:param x 5\nINSERT (:B {x: $x});\n",
			code: 1, err: []string{"GQLSTATUS 25000: :param after the first statement of the single transaction (-1)", "(line 2, column 1)", "before the first statement", dropped}, fitted: -1},
		{name: ":agent NAME after the first statement is refused",
			in:   "INSERT (:A);\n:agent loader\n",
			code: 1, err: []string{"GQLSTATUS 25000: :agent after the first statement"}, fitted: -1},
		{name: ":params clear after the first statement is refused, :params alone lists",
			in:   ":param x 1\nINSERT (:A {x: $x});\n:params\n:params clear\n",
			code: 1, out: "$x = 1\n$x = 1\n", err: []string{"GQLSTATUS 25000: :params after the first statement"}, fitted: -1},
		{name: ":set of a Recall budget, :timing, :format and :help run",
			in:      "INSERT (:A);\n:set M 20\n:timing off\n:format gql\n:help param\nINSERT (:B);\n",
			version: 1, nodes: 2, fitted: 2},
		{name: ":quit ends the input; what came before commits",
			in:  "INSERT (:A);\n:quit\nINSERT (:B x);\n",
			out: "ok v=1 +1 node\n", version: 1, nodes: 1, fitted: 1},
		{name: ":source adds its file's statements to the transaction",
			in:  "INSERT (:A);\n:source " + part + "\nINSERT (:B);\n",
			out: "ok v=1 +3 nodes 1 property set\n", version: 1, nodes: 3, fitted: 3},
		{name: "an empty input commits nothing",
			in:  "-- nothing\n",
			out: "ok v=0 empty transaction\n", fitted: 0},
		{name: "text that is not UTF-8 after the statements applies nothing",
			in:   "INSERT (:A);\nINSERT (:B {s: '\xff'});\n",
			code: 1, err: []string{"GQLSTATUS 42001", dropped}, fitted: -1},
	}
	refused := []struct{ meta, code, words string }{
		{":use other", "25000", ":use inside the single transaction (-1): the transaction is on one session"},
		{":drop other", "25000", ":drop inside the single transaction (-1): it would write at once, outside the transaction"},
		{":purge", "25000", ":purge inside the single transaction (-1): it would write at once"},
		{":flush", "25000", ":flush inside"},
		{":backup " + filepath.Join(dir, "b.gf"), "25000", ":backup inside"},
		{":absorb x.slice keep", "25000", ":absorb inside"},
		{":set pinned A", "25000", ":set pinned inside"},
		{":set stale_reads 3", "25000", ":set stale_reads inside"},
		{":set", "25000", ":set inside the single transaction (-1): it would show the session as it was before the transaction"},
		{":agents forget x", "25000", ":agents forget inside"},
		{":agents", "25000", ":agents inside"},
		{":sessions", "25000", ":sessions inside"},
		{":kinds", "25000", ":kinds inside"},
		{":views", "25000", ":views inside"},
		{":actions", "25000", ":actions inside"},
		{":history a", "25000", ":history inside"},
		{":diff 0 1", "25000", ":diff inside"},
		{":export x.slice MATCH (a:A)", "25000", ":export inside"},
		{":nosuch", "42001", "unknown meta-command :nosuch"},
	}
	for _, r := range refused {
		cases = append(cases, struct {
			name    string
			in      string
			code    int
			out     string
			err     []string
			version uint64
			nodes   int
			fitted  int
		}{name: r.meta + " is refused", in: "INSERT (:A {nick: 'a'});\n" + r.meta + "\nINSERT (:B);\n", code: 1,
			err: []string{"GQLSTATUS " + r.code + ": " + r.words, "(line 2, column 1)", dropped}, fitted: -1})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newSession(t)
			out, errOut, code, fitted := runSingle(t, s, []Input{{R: strings.NewReader(c.in)}})
			if code != c.code || fitted != c.fitted {
				t.Errorf("exit %d, FitSingle told %d; want %d, %d\nstdout: %s\nstderr: %s", code, fitted, c.code, c.fitted, out, errOut)
			}
			if c.out != "" && out != c.out {
				t.Errorf("stdout %q, want %q", out, c.out)
			}
			for _, w := range c.err {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr lacks %q:\n%s", w, errOut)
				}
			}
			if c.err == nil && errOut != "" {
				t.Errorf("stderr: %s", errOut)
			}
			info, err := s.Info(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if info.Version != c.version || info.Nodes != c.nodes {
				t.Errorf("version %d with %d nodes, want %d with %d", info.Version, info.Nodes, c.version, c.nodes)
			}
		})
	}
}

// TestSingleTransactionInputs: the statements of every input join the one
// transaction, and an error names the file, line and column it is in.
func TestSingleTransactionInputs(t *testing.T) {
	s := newSession(t)
	in := []Input{{R: strings.NewReader("INSERT (:A {nick: 'a'});")}, {Name: "second.gql", R: strings.NewReader("INSERT (:B);\n\n  INSERT (:A {nick: 'a', n: 1});\n")}}
	_, errOut, code, _ := runSingle(t, s, in)
	if want := "second.gql:3:10: GQLSTATUS 40002: statement 2: nick \"a\" is already used"; code != 1 || !strings.HasPrefix(errOut, want) || s.Version() != 0 {
		t.Fatalf("exit %d, version %d; stderr must start %q:\n%s", code, s.Version(), want, errOut)
	}
	in = []Input{{R: strings.NewReader("INSERT (:A {nick: 'a'});")}, {Name: "second.gql", R: strings.NewReader("INSERT (:B);\n")}}
	if out, errOut, code, fitted := runSingle(t, s, in); code != 0 || out != "ok v=1 +2 nodes 1 property set\n" || fitted != 2 {
		t.Fatalf("exit %d, fitted %d, stdout %q, stderr %q", code, fitted, out, errOut)
	}
}

// TestSingleTransactionTooLong: the statements are parsed as one text, so
// the input is refused as soon as they pass the most one text may hold,
// before the rest is read or anything sent.
func TestSingleTransactionTooLong(t *testing.T) {
	s := newSession(t)
	big := "INSERT (:A {s: '" + strings.Repeat("x", 200<<10) + "'});\n"
	_, errOut, code, fitted := runSingle(t, s, []Input{{Name: "big.gql", R: strings.NewReader(strings.Repeat(big, 6))}})
	if want := "big.gql:6:1: GQLSTATUS 42Q01: statement 6: the single transaction (-1) is "; code != 1 || fitted != -1 || !strings.HasPrefix(errOut, want) || s.Version() != 0 {
		t.Fatalf("exit %d, fitted %d, version %d; stderr must start %q:\n%.300s", code, fitted, s.Version(), want, errOut)
	}
}

// TestSingleTransactionFitFails: a database that cannot be opened when
// the input has been read ends the run, saying why.
func TestSingleTransactionFitFails(t *testing.T) {
	s := newSession(t)
	var out, errOut bytes.Buffer
	opts := Options{SingleTransaction: true, FitSingle: func(context.Context, int) error { return fmt.Errorf("the cabinet x is in use") }}
	code := Run(context.Background(), s, &ReaderIO{R: strings.NewReader("INSERT (:A);"), Out: &out, Err: &errOut}, opts)
	if code != 1 || errOut.String() != "gqlsh: the cabinet x is in use\n" || s.Version() != 0 {
		t.Fatalf("exit %d, version %d, stderr %q", code, s.Version(), errOut.String())
	}
}

// TestSingleTransactionNotices: a transaction of thousands of statements
// that each warn (a load run again: every INSERT echoes) prints each
// notice at its place in the input, in time linear in the input.
func TestSingleTransactionNotices(t *testing.T) {
	// the budget gqlsh -1 opens its database with (R per statement)
	const n = 3000
	db, err := goldfish.Open(goldfish.WithCommitBudget(goldfish.Budget{Rows: n * 500, Bytes: n << 18}))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s, err := db.Session(context.Background(), "main")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "INSERT (:N {nick: 'n%d'});\n", i)
	}
	for round := 1; round <= 2; round++ {
		out, errOut, code, _ := runSingle(t, s, []Input{{R: strings.NewReader(b.String())}})
		if code != 0 || errOut != "" || s.Version() != 1 {
			t.Fatalf("round %d: exit %d, version %d, stderr %q", round, code, s.Version(), errOut)
		}
		if round == 2 && (strings.Count(out, "-- 01000: echo") != n || !strings.Contains(out, fmt.Sprintf("(line %d, column 8)\n", n))) {
			t.Fatalf("round 2: %d echoes, want %d at their lines:\n%.400s", strings.Count(out, "-- 01000: echo"), n, out)
		}
	}
}

// TestPosIndex: the index places every position where sourceMap.pos does.
func TestPosIndex(t *testing.T) {
	stmts := []Stmt{
		{Text: "INSERT (:A {s: 'é☃'})", Line: 1, Col: 1, Index: 1},
		{Text: "INSERT (:B)\r\n  -[:r]->(:C {k: 'ü'})", Line: 1, Col: 24, Offset: 23, Index: 2},
		{Text: "\n\nMATCH (a) SET a.x = 1", Line: 4, Col: 3, Offset: 60, Index: 3},
		{Text: "", Line: 9, Col: 1, Offset: 90, Index: 4},
	}
	m := newSourceMap(stmts)
	x := newPosIndex(m)
	lines := strings.Count(m.text, "\n") + 1
	for line := 1; line <= lines+1; line++ {
		for col := 0; col <= 40; col++ {
			p := gqlstatus.Pos{Line: line, Col: col}
			want, _ := m.pos(p)
			if got := x.pos(p); got != want {
				t.Errorf("line %d col %d: index %+v, sourceMap %+v", line, col, got, want)
			}
		}
	}
}
