package engine

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/goldfish-gql/goldfish/exec"
	"github.com/goldfish-gql/goldfish/parser"
	"github.com/goldfish-gql/goldfish/tokens"
	"github.com/goldfish-gql/goldfish/values"
)

// testGraph is a random session described independently of insertion order.
type testGraph struct {
	nodes []string // node patterns without variables: ":TSK {name: \"x1\", v: 2}"
	edges [][3]int // from, type index, to
	types []string
}

var propKinds = []string{"TSK", "MOD", "NOTE", "LAW"}

// drawGraph draws a graph; with distinct set every node carries a unique
// name, else observables repeat on purpose. A hub adds one node with
// hundreds to thousands of neighbours.
func drawGraph(t *rapid.T, distinct, hub bool) testGraph {
	g := testGraph{types: []string{"touches", "contains", "refs"}}
	n := rapid.IntRange(1, 30).Draw(t, "nodes")
	for i := 0; i < n; i++ {
		kind := rapid.SampledFrom(propKinds).Draw(t, "kind")
		v := rapid.IntRange(0, 2).Draw(t, "v")
		if distinct {
			g.nodes = append(g.nodes, fmt.Sprintf(`:%s {name: "x%d", v: %d}`, kind, i, v))
		} else {
			g.nodes = append(g.nodes, fmt.Sprintf(`:%s {v: %d}`, kind, v))
		}
	}
	for i, m := 0, rapid.IntRange(0, 2*n).Draw(t, "edges"); i < m; i++ {
		g.edges = append(g.edges, [3]int{
			rapid.IntRange(0, n-1).Draw(t, "from"),
			rapid.IntRange(0, len(g.types)-1).Draw(t, "type"),
			rapid.IntRange(0, n-1).Draw(t, "to")})
	}
	if hub {
		h := len(g.nodes)
		g.nodes = append(g.nodes, `:PKG {name: "hub"}`)
		for i, m := 0, rapid.IntRange(100, 1500).Draw(t, "spokes"); i < m; i++ {
			leaf := len(g.nodes)
			name := ""
			if distinct {
				name = fmt.Sprintf(`name: "leaf%d", `, i)
			}
			g.nodes = append(g.nodes, fmt.Sprintf(`:FILE {%sv: %d}`, name, i%3))
			g.edges = append(g.edges, [3]int{h, i % 2, leaf})
		}
		g.edges = append(g.edges, [3]int{h, 2, 0})
	}
	return g
}

// text renders the graph as one INSERT, nodes and edges in the given orders.
func (g testGraph) text(nodeOrder, edgeOrder []int) string {
	var parts []string
	for _, i := range nodeOrder {
		parts = append(parts, fmt.Sprintf("(n%d%s)", i, g.nodes[i]))
	}
	for _, j := range edgeOrder {
		e := g.edges[j]
		parts = append(parts, fmt.Sprintf("(n%d)-[:%s]->(n%d)", e[0], g.types[e[1]], e[2]))
	}
	if len(parts) == 0 {
		return ""
	}
	return "INSERT " + strings.Join(parts, ",\n")
}

func identity(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

var bigBudget = WithCommitBudget(values.Budget{Rows: 1 << 20, Bytes: 64 << 20})

// build commits the graph into a fresh session of a fresh database.
func build(t *rapid.T, g testGraph, nodeOrder, edgeOrder []int) *Session {
	db, _ := openTest(bigBudget)
	s, _ := db.Session(context.Background(), "prop")
	if _, err := s.commitText(context.Background(), g.text(nodeOrder, edgeOrder), nil); err != nil {
		t.Fatalf("building the graph: %v", err)
	}
	return s
}

var propQueries = []string{
	`MATCH (a:TSK)`,
	`MATCH (a:MOD {v: 1}) LIMIT 2`,
	`MATCH (a:NOTE), (b:LAW) LIMIT 3`,
	`MATCH (a) WHERE a CONTAINS "x1"`,
	`MATCH (a) WHERE a CONTAINS "LEAF1" LIMIT 6`,
	`MATCH (a:FILE) WHERE a.v >= 1`,
	`MATCH (a:PKG)`,
	`MATCH (a:NOPE)`,
	`MATCH ()`,
}

func drawOptions(t *rapid.T) values.RecallOptions {
	return values.RecallOptions{
		M:    rapid.IntRange(1, 80).Draw(t, "M"),
		K:    rapid.IntRange(1, 3).Draw(t, "K"),
		L:    rapid.IntRange(1, 6).Draw(t, "L"),
		F:    rapid.IntRange(1, 10).Draw(t, "F"),
		View: rapid.SampledFrom([]string{"interior", "shell"}).Draw(t, "view"),
		// 0 is the default target (4,000), which these graphs' Shapes
		// stay under; the others trim.
		T: rapid.SampledFrom([]int{0, 0, 1, 40, 150, 400}).Draw(t, "T"),
	}
}

// body drops the comment lines (header, notes) of a Shape's text.
func body(text string) string {
	var keep []string
	for _, l := range strings.Split(text, "\n") {
		if !strings.HasPrefix(l, "//") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

// uncached recalls without the Shape cache, so determinism is tested on
// the computation itself.
func uncached(t *rapid.T, s *Session, q string, o values.RecallOptions) *exec.Shape {
	plan, err := s.db.plan(q)
	if err != nil {
		t.Fatal(err)
	}
	ro, err := resolveRecall(o, values.DefaultCeilings)
	if err != nil {
		t.Fatal(err)
	}
	sh, err := exec.Recall(context.Background(), s.graph.Snapshot(), plan, nil, exec.RecallOptions{
		RecallOptions: ro, MaxL: values.DefaultCeilings.L, CapL: true, Session: s.name})
	if err != nil {
		t.Fatal(err)
	}
	sh.Text, _, _, _ = sh.Compose(nil, 0, true)
	return sh
}

var tokensField = regexp.MustCompile(`tokens=[0-9]+`)

func checkBounds(t *rapid.T, sh *exec.Shape, o values.RecallOptions) {
	if sh.Rows > o.M {
		t.Fatalf("rows %d > M %d", sh.Rows, o.M)
	}
	if sh.Cue != values.CueOutline && sh.Seeds > o.L {
		t.Fatalf("seeds %d > L %d", sh.Seeds, o.L)
	}
	if _, err := parser.Parse(sh.Text); err != nil {
		t.Fatalf("the values.Shape does not parse: %v\n%s", err, sh.Text)
	}
	// The emitter sums kept per-element estimates; they must add up to the
	// estimate of the text it wrote (header and rest are counted apart).
	head, rest, _ := strings.Cut(sh.Text, "\n")
	if strings.HasPrefix(rest, "// 01000:") {
		_, rest, _ = strings.Cut(rest, "\n")
	}
	withTokens := func(n int) string {
		return tokensField.ReplaceAllString(head, "tokens="+strconv.Itoa(n)) + "\n"
	}
	restTok := tokens.Estimate(rest)
	tok := restTok + tokens.Estimate(withTokens(restTok))
	if want := restTok + tokens.Estimate(withTokens(tok)); sh.Tokens != want {
		t.Fatalf("the header says %d tokens; the text estimates at %d\n%s", sh.Tokens, want, sh.Text)
	}
}

func TestRecallDeterministicAndBounded(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := drawGraph(t, rapid.Bool().Draw(t, "distinct"), rapid.IntRange(0, 9).Draw(t, "hub") == 0)
		s := build(t, g, identity(len(g.nodes)), identity(len(g.edges)))
		q := rapid.SampledFrom(propQueries).Draw(t, "q")
		o := drawOptions(t)
		first := uncached(t, s, q, o)
		again := uncached(t, s, q, o)
		if first.Text != again.Text {
			t.Fatalf("the same q gave different bytes:\n%s\n---\n%s", first.Text, again.Text)
		}
		checkBounds(t, first, o)
		cached, err := s.recallShape(context.Background(), q, o)
		if err != nil {
			t.Fatal(err)
		}
		if cached.Text != first.Text {
			t.Fatalf("the API gave other bytes than the engine:\n%s\n---\n%s", cached.Text, first.Text)
		}
	})
}

// TestKeywordIndexAgreesWithScan: a bare keyword seed goes through the
// store's text index; the same condition with "OR false" is no longer the
// bare keyword token and scans. Both must give the same Shape.
func TestKeywordIndexAgreesWithScan(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := drawGraph(t, true, rapid.Bool().Draw(t, "hub"))
		s := build(t, g, identity(len(g.nodes)), identity(len(g.edges)))
		s.graph.Snapshot().BuildTextIndex()
		w := rapid.SampledFrom([]string{"leaf1", "LEAF2", "x1", "X12", "hub", "eaf", "nothing"}).Draw(t, "word")
		limit := rapid.IntRange(1, 8).Draw(t, "limit")
		o := drawOptions(t)
		indexed := uncached(t, s, fmt.Sprintf(`MATCH (a) WHERE a CONTAINS %q LIMIT %d`, w, limit), o)
		scanned := uncached(t, s, fmt.Sprintf(`MATCH (a) WHERE a CONTAINS %q OR false LIMIT %d`, w, limit), o)
		// A miss names the token's condition, which differs ("OR false"):
		// the rest must be the same bytes.
		if withoutMissNote(indexed.Text) != withoutMissNote(scanned.Text) || (indexed.Miss == nil) != (scanned.Miss == nil) {
			t.Fatalf("index and scan disagree:\n%s\n---\n%s", indexed.Text, scanned.Text)
		}
	})
}

// withoutMissNote is a Shape's text without what a miss says of the
// token's condition: its notice, and the header's token count, which
// counts the notice.
func withoutMissNote(text string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(text, "\n") {
		if strings.HasPrefix(line, "// 01Q01: no match: ") || strings.HasPrefix(line, "// 02000: no match: ") {
			continue
		}
		b.WriteString(line)
	}
	if strings.Contains(text, ": no match: ") {
		return headerTokens.ReplaceAllString(b.String(), " tokens=N")
	}
	return b.String()
}

var headerTokens = regexp.MustCompile(` tokens=\d+`)

// TestRecallIsomorphismInvariant: the same graph inserted in another order
// (so with other engine ids) gives the same INSERT body. Exact when nodes
// carry distinct observables.
func TestRecallIsomorphismInvariant(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) { checkIsomorphism(t, true) })
}

// TestRecallIsomorphismDuplicates repeats the isomorphism test on graphs
// whose nodes share observables, where only the structural signature can
// tell them apart. The body must still match exactly whenever two rounds
// of WL separate the tied nodes; what rapid finds otherwise is reported.
func TestRecallIsomorphismDuplicates(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) { checkIsomorphism(t, false) })
}

func checkIsomorphism(t *rapid.T, distinct bool) {
	g := drawGraph(t, distinct, rapid.IntRange(0, 9).Draw(t, "hub") == 0)
	a := build(t, g, identity(len(g.nodes)), identity(len(g.edges)))
	nodeOrder := rapid.Permutation(identity(len(g.nodes))).Draw(t, "nodeOrder")
	edgeOrder := rapid.Permutation(identity(len(g.edges))).Draw(t, "edgeOrder")
	b := build(t, g, nodeOrder, edgeOrder)
	q := rapid.SampledFrom(propQueries).Draw(t, "q")
	o := drawOptions(t)
	x, y := uncached(t, a, q, o), uncached(t, b, q, o)
	if x.Text != y.Text {
		t.Fatalf("insertion order changed the Shape:\n%s\n---\n%s", x.Text, y.Text)
	}
}

// TestRecallRoundTrip: committing a Shape's body into an empty session and
// recalling the same q there gives the same body when the Shape's nodes
// have distinct observables, and in every case the same multiset of node
// and edge observables.
func TestRecallRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		distinct := rapid.Bool().Draw(t, "distinct")
		g := drawGraph(t, distinct, false)
		s := build(t, g, identity(len(g.nodes)), identity(len(g.edges)))
		q := rapid.SampledFrom(propQueries[:7]).Draw(t, "q")
		o := drawOptions(t)
		o.View = "interior"
		o.M = 200 // a Shape cut by M cannot come back whole: see the note
		o.F = 64
		o.T = 1 << 30 // nor a Shape the token target trimmed
		first := uncached(t, s, q, o)
		if first.Rows == 0 || first.Cue == values.CuePeak {
			// Peaks rank nodes by their edges in the whole session, which the
			// copy holds only in part: a peak Shape is not expected to come back.
			return
		}
		db, _ := openTest(bigBudget)
		fresh, _ := db.Session(context.Background(), "copy")
		if _, err := fresh.commitText(context.Background(), body(first.Text), nil); err != nil {
			t.Fatalf("the values.Shape's body does not commit: %v\n%s", err, first.Text)
		}
		second := uncached(t, fresh, q, o)
		if distinct {
			if body(first.Text) != body(second.Text) {
				t.Fatalf("round trip changed the body:\n%s\n---\n%s", first.Text, second.Text)
			}
			return
		}
		// With repeated observables the seeds are picked among tied nodes by
		// their neighbourhood's signature, and the copy holds only the
		// Shape's part of each neighbourhood: when more tied nodes match q
		// than L admits, the copy may pick others. That is a known limit of
		// the round trip (reported in the issue note); the multiset must
		// hold whenever the seed choice is forced.
		wide := o
		wide.L, wide.M = values.DefaultCeilings.L, 1
		unlimited, _, _ := strings.Cut(q, " LIMIT")
		if uncached(t, s, unlimited, wide).Seeds > first.Seeds {
			return
		}
		if a, b := observables(first.Text), observables(second.Text); a != b {
			t.Fatalf("round trip changed the observables:\n%s\n---\n%s", a, b)
		}
	})
}

// observables renders a Shape's rows without variable names, sorted.
func observables(text string) string {
	var rows []string
	for _, l := range strings.Split(body(text), "\n") {
		l = strings.TrimSuffix(strings.TrimSpace(l), ",")
		if !strings.HasPrefix(l, "(") {
			continue
		}
		rows = append(rows, stripVars(l))
	}
	sort.Strings(rows)
	return strings.Join(rows, "\n")
}

// stripVars removes variable names from a row: "(tsk1:TSK {…})" → "(:TSK {…})".
// Edge rows keep the kinds of their ends, read from the variables.
func stripVars(row string) string {
	var b strings.Builder
	inString := false
	for i := 0; i < len(row); i++ {
		c := row[i]
		if c == '"' && (i == 0 || row[i-1] != '\\') {
			inString = !inString
		}
		if !inString && c == '(' {
			b.WriteByte('(')
			j := i + 1
			for j < len(row) && (row[j] >= 'a' && row[j] <= 'z' || row[j] == '_') {
				b.WriteByte(row[j])
				j++
			}
			for j < len(row) && row[j] >= '0' && row[j] <= '9' {
				j++
			}
			i = j - 1
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// TestTokenTargetTrims: a Shape over its token target T keeps every node
// of the untrimmed Shape, in the same order with the same variables; the
// seeds' and pinned nodes' lines are unchanged, every other line is the
// untrimmed one or its identity-only form; its edges are the untrimmed
// Shape's, less some between two trimmed nodes; and it is no larger.
func TestTokenTargetTrims(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := drawGraph(t, rapid.Bool().Draw(t, "distinct"), rapid.IntRange(0, 9).Draw(t, "hub") == 0)
		s := build(t, g, identity(len(g.nodes)), identity(len(g.edges)))
		q := rapid.SampledFrom(propQueries[:8]).Draw(t, "q")
		o := drawOptions(t)
		o.T = 1 << 30
		whole := uncached(t, s, q, o)
		o.T = rapid.IntRange(1, 400).Draw(t, "T")
		trim := uncached(t, s, q, o)
		checkBounds(t, trim, o)
		if trim.Tokens > whole.Tokens {
			t.Fatalf("trimmed to %d tokens from %d:\n%s\n---\n%s", trim.Tokens, whole.Tokens, trim.Text, whole.Text)
		}
		if trim.Trimmed == 0 {
			if body(trim.Text) != body(whole.Text) {
				t.Fatalf("nothing trimmed, yet the body changed:\n%s\n---\n%s", trim.Text, whole.Text)
			}
			return
		}
		if o.View == "shell" {
			t.Fatalf("view=shell trimmed %d nodes", trim.Trimmed)
		}
		wl, tl := bodyRows(whole.Text), bodyRows(trim.Text)
		nodes := 0
		for _, l := range wl {
			if !strings.Contains(l, ")-[") {
				nodes++
			}
		}
		edges := map[string]bool{}
		for _, l := range wl[nodes:] {
			edges[l] = true
		}
		if len(tl) < nodes || len(tl) != trim.Rows {
			t.Fatalf("the trimmed values.Shape has %d rows (header %d) for %d nodes", len(tl), trim.Rows, nodes)
		}
		identityOnly := regexp.MustCompile(`^( +\(\w+:\w+)(?: \{(.*)\})?\)$`)
		changed := 0
		for i := 0; i < nodes; i++ {
			if tl[i] == wl[i] {
				continue
			}
			changed++
			if i < trim.Seeds {
				// Seeds come first after the pinned nodes, which these
				// queries do not ask for.
				t.Fatalf("seed line %d changed: %q → %q", i, wl[i], tl[i])
			}
			m := identityOnly.FindStringSubmatch(strings.TrimSuffix(tl[i], ","))
			if m == nil || !strings.HasPrefix(wl[i], m[1]) || (m[2] != "" && !strings.HasPrefix(m[2], "name: ")) {
				t.Fatalf("node line %d is not the identity form of the whole one: %q → %q", i, wl[i], tl[i])
			}
		}
		if changed != trim.Trimmed {
			t.Fatalf("%d node lines changed, the values.Shape says %d were trimmed", changed, trim.Trimmed)
		}
		for _, l := range tl[nodes:] {
			if !edges[strings.TrimSuffix(l, ",")] && !edges[l+","] && !edges[l] {
				t.Fatalf("edge %q is not in the whole values.Shape", l)
			}
		}
	})
}

// bodyRows are the rows of a Shape's INSERT, one per line, without the
// trailing commas' differences mattering to callers that trim them.
func bodyRows(text string) []string {
	var rows []string
	for _, l := range strings.Split(body(text), "\n") {
		if strings.HasPrefix(l, "  (") {
			rows = append(rows, l)
		}
	}
	return rows
}
