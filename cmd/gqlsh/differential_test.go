package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode"

	"github.com/goldfish-gql/goldfish/tokens"
)

// diffAnswer is one server's answer to a call of differential.mjs, or
// what the client threw instead.
type diffAnswer struct {
	IsError    bool            `json:"isError"`
	Text       string          `json:"text"`
	Structured json.RawMessage `json:"structured"`
	Threw      string          `json:"threw"`
}

// diffCall is one call of the sequence and both answers.
type diffCall struct {
	Tool     string          `json:"tool"`
	Args     json.RawMessage `json:"args"`
	Original diffAnswer      `json:"original"`
	Goldfish diffAnswer      `json:"goldfish"`
}

type diffRun struct {
	Seed int `json:"seed"`
	// JSLower is JavaScript's toLowerCase of every code point it changes.
	JSLower []struct {
		Cp    rune   `json:"cp"`
		Lower string `json:"lower"`
	} `json:"jsLower"`
	Calls    []diffCall `json:"calls"`
	Original struct {
		Graph diffAnswer `json:"graph"`
	} `json:"original"`
	Goldfish struct {
		Graph       diffAnswer `json:"graph"`
		Exported    *string    `json:"exported"`
		ExportError *string    `json:"exportError"`
	} `json:"goldfish"`
}

// deliberate are the differences the README lists under "What differs"
// (Coming from the memory server): each a named rule with the README's
// reason. A difference one of them explains is excused; every other is
// reported.
var deliberate = map[string]string{
	"bounded-read": "Every read is bounded: read_graph of a large memory is an outline (the count of each type and a few " +
		"entities of each); a read whose original answer is large (4,000 tokens or more) is not compared",
	"search-best-8": "Every read is bounded: search_nodes shows the 8 best matches at most (each one a match of the original's)",
	"open-32":       "Every read is bounded: open_nodes opens at most 32 names a call",
	"gql-text":      "The text is GQL (INSERT of the rows), the structured content the same rows as JSON: texts are not compared",
	"relation-to-missing": "a relation to an entity that is not there is reported rather than passed over in silence: " +
		"goldfish does not make it, the original makes a dangling relation",
	"name-taken": "a name already taken is reported rather than passed over in silence (in the text; the structured " +
		"content, as the original's, holds only what was made)",
	"empty-relation-type": "One call is one change: every item is checked first, so an empty relationType (an edge's " +
		"type is never empty in GQL) refuses the whole call, where the original stores the item and the rest",
	"name-twice": "A name given twice in one create_entities is made once (the original stores two entities of one " +
		"name, which no later call can tell apart)",
	"relations-left-out": "Every read is bounded: a comment line says what was left out and which tool reads it " +
		"(\"some relations left out: open_nodes a name shows all of its own\"): the relations the original's answer " +
		"holds and goldfish's, so marked, does not",
	"case-folding": "Case folding is Go's Unicode simple folding: İ folds to i, where JavaScript's toLowerCase gives i̇, " +
		"so a search whose query or entity holds such a letter matches otherwise",
}

// smallAnswer is the size of a read (o200k tokens of the original's text)
// below which its answer is compared whole.
const smallAnswer = 4000

type dEntity struct {
	Name         string   `json:"name"`
	EntityType   string   `json:"entityType"`
	Observations []string `json:"observations"`
}

type dRelation struct {
	From         string `json:"from"`
	To           string `json:"to"`
	RelationType string `json:"relationType"`
}

func (r dRelation) String() string { return fmt.Sprintf("%q -%q-> %q", r.From, r.RelationType, r.To) }

type dGraph struct {
	Entities  []dEntity   `json:"entities"`
	Relations []dRelation `json:"relations"`
}

// difference is one way a call's answers differ: its category (what
// differs, in which tool, and the trait of the call that likely makes
// it), the detail, and the rule that excuses it, if one does.
type difference struct {
	category, detail, excused string
}

// diffModel follows the original's memory through its own answers: the
// names it holds (how many entities of each), and the relations it made
// while an end was missing.
type diffModel struct {
	names    map[string]int
	dangling map[dRelation]bool
	// gnames are the names goldfish holds, as its own answers say.
	gnames map[string]bool
	// ncause is the rule of the excused difference after which a name
	// came to be held by one memory alone; drel are the relations the
	// original holds and goldfish not after an excused difference, each
	// with its rule.
	ncause map[string]string
	drel   map[dRelation]string
	// Of the call being compared: the names given twice in it (a
	// create_entities), the names an excused difference of this answer
	// explains (their relations differ with them) and the names both
	// answers show (whose relations must be the same).
	callTwice  map[string]bool
	callNames  map[string]string
	callCommon map[string]bool
	// callLeftOut says goldfish's answer to the call says it left
	// relations out.
	callLeftOut bool
	// jsLower is JavaScript's toLowerCase of the code points it changes.
	jsLower map[rune]string
}

func newDiffModel(run *diffRun) *diffModel {
	m := &diffModel{names: map[string]int{}, dangling: map[dRelation]bool{}, gnames: map[string]bool{},
		ncause: map[string]string{}, drel: map[dRelation]string{}, jsLower: map[rune]string{}}
	for _, l := range run.JSLower {
		m.jsLower[l.Cp] = l.Lower
	}
	return m
}

func (m *diffModel) has(name string) bool { return m.names[name] > 0 }

// twice says whether the original holds name as several entities (or is
// made to in the call compared).
func (m *diffModel) twice(name string) bool { return m.names[name] > 1 || m.callTwice[name] }

// diverged says whether the two memories already disagree on name: one
// holds it and the other not, after an earlier difference.
func (m *diffModel) diverged(name string) bool { return m.has(name) != m.gnames[name] }

// jsFold is a string as JavaScript's toLowerCase makes it (code point by
// code point: the final sigma, which no call holds, aside).
func (m *diffModel) jsFold(s string) string {
	var b strings.Builder
	for _, r := range s {
		if l, ok := m.jsLower[r]; ok {
			b.WriteString(l)
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// goFold is a string as goldfish folds it: Go's unicode.ToLower.
func goFold(s string) string { return strings.Map(unicode.ToLower, s) }

// matches says whether e matches query as the original's search_nodes
// matches (js) or as goldfish's does: the name, the type or an
// observation holds the query, case-insensitively.
func (m *diffModel) matches(e dEntity, query string, js bool) bool {
	fold := goFold
	if js {
		fold = m.jsFold
	}
	q := fold(query)
	if strings.Contains(fold(e.Name), q) || strings.Contains(fold(e.EntityType), q) {
		return true
	}
	return slices.ContainsFunc(e.Observations, func(o string) bool { return strings.Contains(fold(o), q) })
}

// TestMemoryDifferential sends one random sequence of 300-odd memory-tool
// calls (differential.mjs, seeds 1, 2 and 3) to the original memory server
// and to goldfish alike, and compares the answers call by call: the same
// outcome (success or error), the same structured content for the writes
// and for every read whose original answer is small, and the same memory
// at the end (the original's read_graph against goldfish's export-memory
// and read_graph). The README's deliberate differences are excused, each
// by a named rule (deliberate); every other difference fails the test,
// reported by category with one example each and the count of calls of
// each seed that differ.
func TestMemoryDifferential(t *testing.T) {
	node := needNode(t)
	bin := gqlshBinary(t)
	seeds := []int{1, 2, 3}
	reports := make([]string, len(seeds))
	// The seeds run side by side (each its two servers), the report in
	// their order once all are done.
	t.Run("seeds", func(t *testing.T) {
		for i, seed := range seeds {
			t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
				t.Parallel()
				cmd := exec.Command(node, "differential.mjs", bin, t.TempDir(), fmt.Sprint(seed))
				cmd.Dir = nodeDir
				cmd.Env = processEnvFor(t)
				var out, errs bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &errs
				if err := cmd.Run(); err != nil {
					t.Fatalf("node differential.mjs: %v\n%s", err, errs.String())
				}
				var run diffRun
				if err := json.Unmarshal(out.Bytes(), &run); err != nil {
					t.Fatalf("%v\n%s", err, clip(out.String(), 2000))
				}
				if len(run.Calls) < 300 {
					t.Fatalf("the sequence has %d calls; it should have at least 300", len(run.Calls))
				}
				reports[i] = compareRun(t, &run)
			})
		}
	})
	if p := os.Getenv("GOLDFISH_DIFFERENTIAL_OUT"); p != "" {
		os.WriteFile(p, []byte(strings.Join(reports, "")), 0o644)
	}
}

// compareRun compares one seed's run, reports what is not excused, and
// returns the report.
func compareRun(t *testing.T, run *diffRun) string {
	m := newDiffModel(run)
	type category struct {
		calls   int
		example string
	}
	cats := map[string]*category{}
	excused := map[string]int{}
	differing := 0
	note := func(where string, c diffCall, ds []difference) bool {
		bad := false
		for _, d := range ds {
			if d.excused != "" {
				excused[d.excused]++
				continue
			}
			bad = true
			k := cats[d.category]
			if k == nil {
				k = &category{example: fmt.Sprintf("%s %s %s\n      %s\n      original: %s\n      goldfish: %s",
					where, c.Tool, clip(string(c.Args), 300), d.detail, answerText(c.Original), answerText(c.Goldfish))}
				cats[d.category] = k
			}
			k.calls++
		}
		return bad
	}
	for i, c := range run.Calls {
		ds := compareCall(c, m)
		if note(fmt.Sprintf("call %d:", i), c, dedupeDiffs(ds)) {
			differing++
		}
		m.follow(c)
	}
	// The memory at the end: the original's read_graph against goldfish's
	// export-memory (the original's file format), and against goldfish's
	// read_graph as any read.
	var want dGraph
	if run.Original.Graph.IsError || json.Unmarshal(run.Original.Graph.Structured, &want) != nil {
		t.Fatalf("the original's final read_graph: %s", answerText(run.Original.Graph))
	}
	final := diffCall{Tool: "read_graph", Args: json.RawMessage(`{}`), Original: run.Original.Graph, Goldfish: run.Goldfish.Graph}
	note("final read_graph:", final, dedupeDiffs(compareCall(final, m)))
	if run.Goldfish.Exported == nil {
		t.Errorf("gqlsh export-memory failed: %s", *run.Goldfish.ExportError)
	} else {
		got, err := parseMemoryFile(*run.Goldfish.Exported)
		if err != nil {
			t.Errorf("goldfish's export: %v", err)
		}
		w, g, ds := m.settleFinal(want, got)
		ds = append(ds, compareGraphs("final graph", w, g, m, true)...)
		exp := diffCall{Tool: "export-memory", Args: json.RawMessage(`{}`), Original: run.Original.Graph,
			Goldfish: diffAnswer{Text: *run.Goldfish.Exported}}
		note("final graph (export-memory):", exp, dedupeDiffs(ds))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "seed %d: %d of %d calls differ (not excused)\n", run.Seed, differing, len(run.Calls))
	names := make([]string, 0, len(cats))
	for k := range cats {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		fmt.Fprintf(&b, "  [%d] %s\n    e.g. %s\n", cats[k].calls, k, cats[k].example)
	}
	rules := make([]string, 0, len(excused))
	for r := range excused {
		rules = append(rules, r)
	}
	sort.Strings(rules)
	for _, r := range rules {
		fmt.Fprintf(&b, "  excused %d× by %s (%s)\n", excused[r], r, deliberate[r])
	}
	if len(cats) > 0 {
		t.Errorf("goldfish differs from the original:\n%s", b.String())
	} else {
		t.Logf("%s", b.String())
	}
	return b.String()
}

// dedupeDiffs keeps one difference of each category (a call counts once
// in each).
func dedupeDiffs(ds []difference) []difference {
	seen := map[string]bool{}
	var out []difference
	for _, d := range ds {
		k := d.category + "\x00" + d.excused
		if !seen[k] {
			seen[k] = true
			out = append(out, d)
		}
	}
	return out
}

// refusedWhole names the rule by which goldfish refuses a whole call the
// original takes, or "" when none does.
func refusedWhole(c diffCall) string {
	if c.Original.IsError || !c.Goldfish.IsError || c.Goldfish.Threw != "" {
		return ""
	}
	if c.Tool == "create_relations" {
		var a struct{ Relations []dRelation }
		json.Unmarshal(c.Args, &a)
		if slices.ContainsFunc(a.Relations, func(r dRelation) bool { return r.RelationType == "" }) {
			return "empty-relation-type"
		}
	}
	return ""
}

// follow updates the model with the answers to c: the names goldfish
// holds, the original's names and dangling relations, and what goldfish
// lacks after a call it refused whole by rule.
func (m *diffModel) follow(c diffCall) {
	if !c.Goldfish.IsError {
		switch c.Tool {
		case "create_entities":
			var got struct{ Entities []dEntity }
			json.Unmarshal(c.Goldfish.Structured, &got)
			for _, e := range got.Entities {
				m.gnames[e.Name] = true
			}
		case "create_relations":
			var got struct{ Relations []dRelation }
			json.Unmarshal(c.Goldfish.Structured, &got)
			for _, r := range got.Relations {
				delete(m.drel, r) // goldfish holds it now, as the original
			}
		case "delete_entities":
			var args struct{ EntityNames []string }
			json.Unmarshal(c.Args, &args)
			for _, n := range args.EntityNames {
				delete(m.gnames, n)
			}
		}
	}
	if c.Original.IsError {
		return
	}
	rule := refusedWhole(c)
	switch c.Tool {
	case "create_entities":
		var got struct{ Entities []dEntity }
		json.Unmarshal(c.Original.Structured, &got)
		for _, e := range got.Entities {
			m.names[e.Name]++
			if rule != "" && !m.gnames[e.Name] {
				m.ncause[e.Name] = rule
			}
		}
	case "create_relations":
		var got struct{ Relations []dRelation }
		json.Unmarshal(c.Original.Structured, &got)
		for _, r := range got.Relations {
			if !m.has(r.From) || !m.has(r.To) {
				m.dangling[r] = true
			} else if rule != "" {
				m.drel[r] = rule
			}
		}
	case "delete_entities":
		var args struct{ EntityNames []string }
		json.Unmarshal(c.Args, &args)
		for _, n := range args.EntityNames {
			delete(m.names, n)
			delete(m.ncause, n)
		}
		for r := range m.dangling {
			if slices.Contains(args.EntityNames, r.From) || slices.Contains(args.EntityNames, r.To) {
				delete(m.dangling, r)
			}
		}
		for r := range m.drel {
			if slices.Contains(args.EntityNames, r.From) || slices.Contains(args.EntityNames, r.To) {
				delete(m.drel, r)
			}
		}
	case "delete_relations":
		var args struct{ Relations []dRelation }
		json.Unmarshal(c.Args, &args)
		for _, r := range args.Relations {
			delete(m.dangling, r)
			delete(m.drel, r)
		}
	}
}

// argNames are the entity names a call's arguments give.
func argNames(c diffCall) []string {
	var a struct {
		Entities     []dEntity
		Relations    []dRelation
		Observations []struct{ EntityName string }
		Deletions    []struct{ EntityName string }
		EntityNames  []string
		Names        []string
	}
	json.Unmarshal(c.Args, &a)
	names := slices.Clone(append(a.EntityNames, a.Names...))
	for _, e := range a.Entities {
		names = append(names, e.Name)
	}
	for _, r := range a.Relations {
		names = append(names, r.From, r.To)
	}
	for _, o := range a.Observations {
		names = append(names, o.EntityName)
	}
	for _, o := range a.Deletions {
		names = append(names, o.EntityName)
	}
	return names
}

// trait names what about a call likely makes its answers differ: the
// first of its unusual inputs, as the original's memory stands.
func (m *diffModel) trait(c diffCall) string {
	if slices.ContainsFunc(argNames(c), m.diverged) {
		return "a name the memories already disagree on"
	}
	switch c.Tool {
	case "create_entities":
		var a struct{ Entities []dEntity }
		json.Unmarshal(c.Args, &a)
		if len(a.Entities) == 0 {
			return "no entities"
		}
		seen := map[string]bool{}
		var twice, taken, long, oddObs bool
		for _, e := range a.Entities {
			if e.EntityType == "" {
				return "an empty entityType"
			}
			twice = twice || seen[e.Name]
			seen[e.Name] = true
			taken = taken || m.has(e.Name)
			for j, o := range e.Observations {
				long = long || len(o) > 4096
				oddObs = oddObs || slices.Index(e.Observations, o) != j
			}
		}
		switch {
		case twice:
			return "a name twice in the call"
		case long:
			return "a 32 KB observation"
		case len(a.Entities) > 64:
			return "more than 64 entities"
		case oddObs:
			return "an observation twice in one entity"
		case taken:
			return "a name the original has"
		}
	case "create_relations", "delete_relations":
		var a struct{ Relations []dRelation }
		json.Unmarshal(c.Args, &a)
		if len(a.Relations) == 0 {
			return "no relations"
		}
		for _, r := range a.Relations {
			if r.RelationType == "" {
				return "an empty relationType"
			}
		}
		for _, r := range a.Relations {
			if !m.has(r.From) || !m.has(r.To) {
				return "an end the original does not have"
			}
		}
	case "add_observations", "delete_observations":
		var a struct {
			Observations []struct {
				EntityName string
				Contents   []string
			}
			Deletions []struct{ EntityName string }
		}
		json.Unmarshal(c.Args, &a)
		if len(a.Observations)+len(a.Deletions) == 0 {
			return "an empty list"
		}
		for _, o := range a.Observations {
			if !m.has(o.EntityName) {
				return "an entity the original does not have"
			}
		}
		for _, o := range a.Deletions {
			if !m.has(o.EntityName) {
				return "an entity the original does not have"
			}
		}
		for _, o := range a.Observations {
			for j, s := range o.Contents {
				if slices.Index(o.Contents, s) != j {
					return "the same content twice"
				}
			}
		}
		return "entities the original has"
	case "delete_entities":
		var a struct{ EntityNames []string }
		json.Unmarshal(c.Args, &a)
		if len(a.EntityNames) == 0 {
			return "no names"
		}
	case "search_nodes":
		var a struct{ Query string }
		json.Unmarshal(c.Args, &a)
		switch {
		case a.Query == "":
			return "an empty query"
		case strings.TrimSpace(a.Query) == "":
			return "a whitespace-only query"
		}
	case "open_nodes":
		var a struct{ Names []string }
		json.Unmarshal(c.Args, &a)
		if len(a.Names) == 0 {
			return "no names"
		}
		for _, n := range a.Names {
			if !m.has(n) {
				return "a name the original does not have"
			}
		}
		return "names the original has"
	}
	return ""
}

// compareCall compares the two answers to one call.
func compareCall(c diffCall, m *diffModel) []difference {
	o, g := c.Original, c.Goldfish
	m.callTwice, m.callNames, m.callCommon = map[string]bool{}, map[string]string{}, map[string]bool{}
	m.callLeftOut = (c.Tool == "search_nodes" || c.Tool == "open_nodes") && slices.ContainsFunc(strings.Split(g.Text, "\n"), func(l string) bool {
		return strings.HasPrefix(l, "// some relations left out:")
	})
	if c.Tool == "create_entities" {
		var a struct{ Entities []dEntity }
		json.Unmarshal(c.Args, &a)
		seen := map[string]bool{}
		for _, e := range a.Entities {
			m.callTwice[e.Name] = seen[e.Name]
			seen[e.Name] = true
		}
	}
	tool := c.Tool
	if tr := m.trait(c); tr != "" {
		tool += " (" + tr + ")"
	}
	if o.Threw != "" || g.Threw != "" {
		return []difference{{category: tool + ": the client threw", detail: fmt.Sprintf("original %q, goldfish %q", o.Threw, g.Threw)}}
	}
	if o.IsError != g.IsError {
		if c.Tool == "open_nodes" && g.IsError {
			var a struct{ Names []string }
			json.Unmarshal(c.Args, &a)
			if len(dedupeStrings(a.Names)) > 32 {
				return []difference{{excused: "open-32"}}
			}
		}
		if r := refusedWhole(c); r != "" {
			return []difference{{excused: r}}
		}
		// A cascade: the call names an entity one memory holds and the
		// other not, after an excused difference; the one that lacks it
		// fails.
		for _, n := range argNames(c) {
			cause := m.ncause[n]
			if cause != "" && ((g.IsError && m.has(n) && !m.gnames[n]) || (o.IsError && !m.has(n) && m.gnames[n])) {
				return []difference{{excused: cause}}
			}
		}
		return []difference{{category: fmt.Sprintf("%s: the original %s, goldfish %s", tool, outcome(o), outcome(g))}}
	}
	if o.IsError {
		return nil
	}
	ds := []difference{{excused: "gql-text"}}
	switch c.Tool {
	case "create_entities":
		var want, got struct{ Entities []dEntity }
		json.Unmarshal(o.Structured, &want)
		if err := json.Unmarshal(g.Structured, &got); err != nil {
			return append(ds, difference{category: tool + ": no structured content from goldfish"})
		}
		ds = append(ds, compareEntities(tool+": entities made", want.Entities, got.Entities, m)...)
	case "create_relations":
		var want, got struct{ Relations []dRelation }
		json.Unmarshal(o.Structured, &want)
		if err := json.Unmarshal(g.Structured, &got); err != nil {
			return append(ds, difference{category: tool + ": no structured content from goldfish"})
		}
		var kept []dRelation
		for _, r := range want.Relations {
			if !m.has(r.From) || !m.has(r.To) {
				if !slices.Contains(got.Relations, r) {
					ds = append(ds, difference{excused: "relation-to-missing"})
				}
				continue
			}
			kept = append(kept, r)
		}
		ds = append(ds, compareRelations(tool+": relations made", kept, got.Relations, m)...)
	case "add_observations":
		var want, got struct {
			Results []struct {
				EntityName        string   `json:"entityName"`
				AddedObservations []string `json:"addedObservations"`
			}
		}
		json.Unmarshal(o.Structured, &want)
		if err := json.Unmarshal(g.Structured, &got); err != nil {
			return append(ds, difference{category: tool + ": no structured content from goldfish"})
		}
		w, _ := json.Marshal(want.Results)
		h, _ := json.Marshal(got.Results)
		if !bytes.Equal(w, h) {
			ds = append(ds, difference{category: tool + ": the results differ", detail: fmt.Sprintf("original %s, goldfish %s", clip(string(w), 300), clip(string(h), 300))})
		}
	case "delete_entities", "delete_observations", "delete_relations":
		var want, got map[string]any
		json.Unmarshal(o.Structured, &want)
		json.Unmarshal(g.Structured, &got)
		if fmt.Sprint(want) != fmt.Sprint(got) {
			ds = append(ds, difference{category: tool + ": the structured content differs", detail: fmt.Sprintf("original %v, goldfish %v", want, got)})
		}
	case "read_graph", "search_nodes", "open_nodes":
		var want, got dGraph
		json.Unmarshal(o.Structured, &want)
		if err := json.Unmarshal(g.Structured, &got); err != nil {
			return append(ds, difference{category: tool + ": no structured content from goldfish"})
		}
		n, err := tokens.Exact(o.Text)
		if err != nil {
			panic(err)
		}
		if n >= smallAnswer {
			return append(ds, difference{excused: "bounded-read"})
		}
		if c.Tool == "search_nodes" {
			var a struct{ Query string }
			json.Unmarshal(c.Args, &a)
			var ex []difference
			want, got, ex = m.settleSearch(a.Query, want, got, strings.Contains(g.Text, "best 8 of"))
			ds = append(ds, ex...)
		}
		ds = append(ds, compareGraphs(tool, want, got, m, false)...)
	}
	return ds
}

// settleSearch takes out of two search_nodes answers the entities an
// excused difference explains: what one folding matches and the other
// not (case-folding), what goldfish leaves out past its best 8 when it
// says so (search-best-8), and a name the original holds twice, one copy
// of which may match where goldfish's does not (name-twice). The names
// taken out are the call's explained names: a relation that touches one
// and no name both answers show is explained with it.
func (m *diffModel) settleSearch(query string, want, got dGraph, capped bool) (dGraph, dGraph, []difference) {
	wn, gn := map[string]bool{}, map[string]bool{}
	for _, e := range want.Entities {
		wn[e.Name] = true
	}
	for _, e := range got.Entities {
		gn[e.Name] = true
		if wn[e.Name] {
			m.callCommon[e.Name] = true
		}
	}
	var ds []difference
	explain := func(name, rule string) {
		m.callNames[name] = rule
		ds = append(ds, difference{excused: rule})
	}
	var keepG []dEntity
	for _, e := range got.Entities {
		if !wn[e.Name] && m.matches(e, query, false) && !m.matches(e, query, true) {
			explain(e.Name, "case-folding")
			continue
		}
		keepG = append(keepG, e)
	}
	var keepW []dEntity
	for _, e := range want.Entities {
		if !gn[e.Name] {
			switch {
			case m.matches(e, query, true) && !m.matches(e, query, false):
				explain(e.Name, "case-folding")
				continue
			case capped && len(dedupeEntities(got.Entities)) >= 8:
				explain(e.Name, "search-best-8")
				continue
			case m.twice(e.Name):
				explain(e.Name, "name-twice")
				continue
			}
		}
		keepW = append(keepW, e)
	}
	want.Entities, got.Entities = keepW, keepG
	return want, got, ds
}

// relCause is the rule that explains why one memory's answer holds r and
// the other's not, or "" when none does.
func (m *diffModel) relCause(r dRelation) string {
	if c := m.drel[r]; c != "" {
		return c
	}
	for _, n := range []string{r.From, r.To} {
		if m.diverged(n) && m.ncause[n] != "" {
			return m.ncause[n]
		}
	}
	if m.callCommon[r.From] || m.callCommon[r.To] {
		return ""
	}
	for _, n := range []string{r.From, r.To} {
		if c := m.callNames[n]; c != "" {
			return c
		}
	}
	return ""
}

// settleFinal takes out of the two final graphs what an excused
// difference explains: the names one memory holds and the other not
// (with every relation touching them), the original's dangling relations
// and the relations goldfish lacks after a call refused by rule. The rest
// must be equal.
func (m *diffModel) settleFinal(want, got dGraph) (dGraph, dGraph, []difference) {
	var ds []difference
	out := func(n string) bool { return m.diverged(n) && m.ncause[n] != "" }
	filter := func(g dGraph) dGraph {
		var es []dEntity
		for _, e := range g.Entities {
			if out(e.Name) {
				ds = append(ds, difference{excused: m.ncause[e.Name]})
				continue
			}
			es = append(es, e)
		}
		var rs []dRelation
		for _, r := range g.Relations {
			switch {
			case m.dangling[r]:
				ds = append(ds, difference{excused: "relation-to-missing"})
			case m.drel[r] != "":
				ds = append(ds, difference{excused: m.drel[r]})
			case out(r.From):
				ds = append(ds, difference{excused: m.ncause[r.From]})
			case out(r.To):
				ds = append(ds, difference{excused: m.ncause[r.To]})
			default:
				rs = append(rs, r)
			}
		}
		return dGraph{Entities: es, Relations: rs}
	}
	return filter(want), filter(got), ds
}
