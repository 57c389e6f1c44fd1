package repl

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish/client"
	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/values"
	"github.com/goldfish-gql/goldfish/wire"
)

func TestVisible(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"plain text, tabs\tand\nnewlines", "plain text, tabs\tand\nnewlines"},
		{"\x1b[2J\x1b]0;title\x07", `\x1b[2J\x1b]0;title\x07`},
		{"a\x00b\rc\x08\x7f", `a\x00b\x0dc\x08\x7f`},
		{"\u0085\u009b31m", `\u0085\u009b31m`},
		{"bad \x9b byte \xff", `bad \x9b byte \xff`},
		{"left \u202eright\u202c \u2066x\u2069 \u200e\u200f\u061c", `left \u202eright\u202c \u2066x\u2069 \u200e\u200f\u061c`},
		{"\u2028\u2029", `\u2028\u2029`},
		{"é 世界 🐟 ‐–—…", "é 世界 🐟 ‐–—…"},
		{`a \ backslash`, `a \ backslash`},
	} {
		if got := Visible(c.in); got != c.want {
			t.Errorf("Visible(%q) = %q, want %q", c.in, got, c.want)
		}
		if again := Visible(Visible(c.in)); again != c.want {
			t.Errorf("Visible twice (%q) = %q", c.in, again)
		}
	}
}

// hostile is a server answering in goldfish's forms with texts made to
// act on a terminal: its Shape, notices, refusals and hints, kinds,
// views, actions, agents and diffs hold ESC sequences, C1 controls,
// carriage returns and bidi overrides.
func hostile(t *testing.T) *client.Client {
	const evil = "\x1b[2J\x1b]0;pwned\x07\r\u009b31m\u202e"
	answer := func(w http.ResponseWriter, v any) {
		b, err := wire.Marshal(v)
		if err != nil {
			t.Error(err)
		}
		w.Write(b)
	}
	diff := values.Diff{From: 1, To: 2, Bound: 1, Text: "// goldfish diff session=main from=1 to=2 " + evil + "\nINSERT (:`" + evil + "`)\n"}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch strings.TrimPrefix(r.URL.Path, "/v1/sessions") {
		case "":
			answer(w, wire.Sessions{Sessions: []wire.Session{{Name: "main", Version: 2, Kinds: map[string]int{evil: 1}}}})
		case "/main":
			answer(w, wire.Session{Name: "main", Version: 2, Kinds: map[string]int{evil: 1}})
		case "/main/recall":
			answer(w, wire.Shape{Status: "01000", Cue: "match", Version: 2, Notices: []wire.Notice{{Code: "01000", Message: "notice " + evil}},
				GQL: "// goldfish session=main version=2 " + evil + "\nINSERT\n  (a:`" + evil + "` {s: \"" + evil + "\"})\n"})
		case "/main/commit":
			ge := &gqlstatus.Error{Code: gqlstatus.Syntax, Msg: "refused " + evil, Hint: "hint " + evil, Pos: gqlstatus.Pos{Line: 1, Col: 3}}
			w.WriteHeader(wire.HTTPStatus(ge))
			answer(w, wire.ErrorOf(ge))
		case "/main/kinds":
			answer(w, wire.Kinds{Kinds: []wire.Kind{wire.KindOf(values.KindSchema{Kind: evil, Nodes: 1, Keys: []values.NameCount{{Name: evil, Count: 1}}})}})
		case "/main/vocabulary":
			answer(w, wire.Vocabulary{Version: 2, Views: []wire.View{{Name: "v", Intent: evil, Expr: evil, Text: evil}},
				Actions: []wire.Action{{Name: "a", Intent: evil, Signature: "a() " + evil, If: evil, FailedCalls: 1, LastFailure: evil}}})
		case "/main/agents":
			answer(w, wire.Agents{Agents: []wire.Agent{{Name: "planner", LastRead: 2, Reads: 1}}})
		case "/main/diff":
			answer(w, diff)
		case "/main/history":
			answer(w, wire.HistoryOf(&values.History{Nick: "a", Entries: []values.HistoryEntry{{Version: 2, How: evil, Agent: evil, Change: &diff}}}))
		case "/main/names":
			answer(w, wire.NamesOf(values.Names{Labels: []string{evil, "TSK"}, Keys: []string{evil}, Nicks: []string{evil}}))
		default:
			t.Errorf("unexpected %s %s", r.Method, r.URL)
		}
	}))
	t.Cleanup(ts.Close)
	c, err := client.New(ts.URL, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// shown fails when out holds a character that acts on a terminal, but
// for the shell's own colours, or does not show the server's text
// escaped as want.
func shown(t *testing.T, what, out, want string) {
	t.Helper()
	for _, own := range []string{red, green, yellow, dim, reset} {
		out = strings.ReplaceAll(out, own, "")
	}
	if Visible(out) != out {
		t.Errorf("%s prints raw %q", what, out)
	}
	if !strings.Contains(out, want) {
		t.Errorf("%s does not show the server's text escaped:\n%s", what, out)
	}
}

// TestServerTextShown: what a server sends is printed escaped, by every
// statement and meta-command that prints it, in either format and in
// colour; a name Tab would offer escaped is not offered.
func TestServerTextShown(t *testing.T) {
	ctx := context.Background()
	c := hostile(t)
	s, err := c.Session(ctx, "main")
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range []string{"MATCH (n);", "INSERT (:X);", ":kinds", ":views", ":actions", ":diff 1 2", ":history a"} {
		for _, o := range []Options{{}, {Color: true}, {Format: FormatJSON}} {
			var out, errOut bytes.Buffer
			o.Host, o.FailAtEnd = Remote(c), true
			Run(ctx, s, &ReaderIO{R: strings.NewReader(in + "\n"), Out: &out, Err: &errOut}, o)
			if o.Format == FormatJSON && out.Len() > 0 {
				for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
					if !json.Valid([]byte(line)) {
						t.Errorf("%s (json): not JSON: %s", in, line)
					}
				}
			}
			want := `\x1b[2J\x1b]0;pwned\x07\x0d\u009b31m\u202e`
			if o.Format == FormatJSON && (!strings.HasPrefix(in, ":") || strings.HasPrefix(in, ":diff") || strings.HasPrefix(in, ":history")) {
				want = `\u001b[2J\u001b]0;pwned\u0007\r\u009b31m\u202e` // JSON's own escapes
			}
			shown(t, in+" "+string(o.Format), out.String()+errOut.String(), want)
		}
	}
	sh := NewShell(s, &ReaderIO{R: strings.NewReader("")}, Options{Host: Remote(c)})
	for _, line := range []string{"MATCH (n:", "MATCH (n {", "MATCH (n {nick: '"} {
		_, cands, _ := sh.Complete(line, len([]rune(line)))
		for _, cand := range cands {
			if Visible(cand) != cand {
				t.Errorf("%s offers %q", line, cand)
			}
		}
	}
}

// BenchmarkVisible: what making a Shape's text visible costs, a Shape of
// 50 rows with ellipses and non-ASCII text (nothing to escape).
func BenchmarkVisible(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("// goldfish session=main version=9 cue=match seeds=1 matched=≥3 k=2 rows=50/50 tokens=1999\nINSERT\n")
	for i := 0; i < 50; i++ {
		sb.WriteString(`  (t1:TSK {nick: "TSK_login", title: "fix the login … über straße", body: $elided1}),` + "\n")
	}
	text := sb.String()
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if Visible(text) != text {
			b.Fatal("changed")
		}
	}
}
