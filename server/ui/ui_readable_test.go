package ui_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/client"
)

// The memory a person browses: 100 entities of 8 kinds and 150 relations,
// as a project's memory migrated from the memory server holds them
// (names with spaces, observations as lists, a document's long text).
var (
	first = []string{"Aiko", "Maya", "Omar", "Lena", "Ravi", "Sofia", "Jonas", "Priya", "Tomas", "Yuki"}
	last  = []string{"Sato", "Keller", "Haddad"}
	kinds = []struct {
		kind string
		n    int
		name func(i int) string
	}{
		{"person", 30, func(i int) string { return first[i%10] + " " + last[i/10] }},
		{"project", 15, func(i int) string {
			return "Project " + []string{"Atlas", "Beacon", "Cobalt", "Delta", "Ember"}[i%5] + fmt.Sprint(" ", i/5+1)
		}},
		{"company", 10, func(i int) string {
			return []string{"Northwind", "Contoso", "Initech", "Globex", "Umbrella"}[i%5] + fmt.Sprint(" ", []string{"Labs", "Group"}[i/5])
		}},
		{"city", 10, func(i int) string {
			return []string{"Lisbon", "Osaka", "Nairobi", "Oslo", "Lima", "Quito", "Hanoi", "Porto", "Graz", "Cork"}[i]
		}},
		{"tool", 10, func(i int) string {
			return []string{"Go", "PostgreSQL", "Kafka", "Terraform", "Grafana", "Redis", "Rust", "Docker", "Vault", "Nginx"}[i]
		}},
		{"document", 10, func(i int) string { return fmt.Sprintf("Design note %d", i+1) }},
		{"issue", 8, func(i int) string { return fmt.Sprintf("Issue %d: flaky deploy", 100+i) }},
		{"event", 7, func(i int) string { return fmt.Sprintf("Offsite %d", 2020+i) }},
	}
)

// fillMemory commits that memory to session "memory" (agent ana), then
// a change by bo, and returns the nick of a person who has observations.
func fillMemory(t *testing.T, c *client.Client) string {
	t.Helper()
	ctx := context.Background()
	s, err := c.Session(ctx, "memory")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("INSERT ")
	v := map[string][]string{}
	sep := ""
	for _, k := range kinds {
		for i := 0; i < k.n; i++ {
			name := k.name(i)
			vr := fmt.Sprintf("%s%d", k.kind[:3], i)
			v[k.kind] = append(v[k.kind], vr)
			props := fmt.Sprintf(`nick: %q, observations: [%q, %q]`, name, "met at the "+k.kind+" review", fmt.Sprintf("note %d about %s", i, name))
			if k.kind == "document" {
				props += fmt.Sprintf(`, text: %q`, strings.Repeat("A long paragraph the agent kept about the design, wrapped in the panel. ", 6))
			}
			fmt.Fprintf(&b, "%s\n(%s:%s {%s})", sep, vr, k.kind, props)
			sep = ","
		}
	}
	edge := func(from, typ, to string) { fmt.Fprintf(&b, ",\n(%s)-[:%s]->(%s)", from, typ, to) }
	for i := 0; i < 30; i++ {
		edge(v["person"][i], "works_at", v["company"][i%10])
		edge(v["person"][i], "lives_in", v["city"][(i*3)%10])
		edge(v["person"][i], "works_on", v["project"][i%15])
	}
	for i := 0; i < 15; i++ {
		edge(v["project"][i], "uses", v["tool"][(i*7)%10])
	}
	for i := 0; i < 10; i++ {
		edge(v["document"][i], "about", v["project"][(i*2)%15])
	}
	for i := 0; i < 8; i++ {
		edge(v["issue"][i], "blocks", v["project"][(i*3+1)%15])
	}
	for i := 0; i < 7; i++ {
		edge(v["event"][i], "held_in", v["city"][i])
	}
	for i := 0; i < 20; i++ {
		edge(v["person"][i], "knows", v["person"][(i*7+3)%30])
	}
	if _, err := s.CommitWith(ctx, b.String(), nil, goldfish.CommitOptions{Agent: "ana"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CommitWith(ctx, `MATCH (p:person {nick: "Maya Sato"}) SET p.role = "lead"`, nil, goldfish.CommitOptions{Agent: "bo"}); err != nil {
		t.Fatal(err)
	}
	return "Maya Sato"
}

func writeFile(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// overlapsJS lists the pairs of labels drawn in #graph (a node's, and an
// edge's type where it is shown) whose boxes in the page intersect.
const overlapsJS = `(function () {
	var ls = Array.from(document.querySelectorAll("#graph text")).filter(function (e) {
		return e.getAttribute("display") !== "none" && e.textContent !== "";
	}).map(function (e) { return { t: e.textContent, r: e.getBoundingClientRect() }; });
	var out = [];
	for (var i = 0; i < ls.length; i++) for (var j = i + 1; j < ls.length; j++) {
		var a = ls[i].r, b = ls[j].r;
		if (a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5) out.push(ls[i].t + " × " + ls[j].t + JSON.stringify([a, b]));
	}
	return {labels: ls.length, overlaps: out};
})()`

// TestBrowserReadable drives the page on a memory of 100 nodes and 150
// edges: the drawing holds them all (a Recall, then double-clicks that
// expand nodes into it) and no two labels overlap; a node drags, the
// wheel zooms; a click shows a node's properties (a list as a list), its
// edges by type and its history; a miss says so with its did-you-mean;
// a version's row says what it changed; nothing on the console, no CSP
// violation. It logs the median time from an answer to drawn of seven
// Recalls of about 100 nodes. With GOLDFISH_UI_SCREENSHOTS=DIR it writes
// DIR/browser-25.png and DIR/browser-100.png (the docs' pictures).
func TestBrowserReadable(t *testing.T) {
	ts, c, token := servedWithToken(t)
	person := fillMemory(t, c)
	shots := os.Getenv("GOLDFISH_UI_SCREENSHOTS")

	d := drive(t)
	d.run("open", chromedp.Navigate(ts.URL+"/ui/style.css")) // the origin, without asking the API
	d.eval("token", fmt.Sprintf(`sessionStorage.setItem("goldfish-token", %q), true`, token), new(bool))
	open := func(q string, opts map[string]string) {
		t.Helper()
		d.run("navigate", chromedp.Navigate(ts.URL+"/ui/#"+url.Values{"session": {"memory"}, "q": {q}}.Encode()))
		d.waitTrue("drawn "+q, `window.goldfishDraw !== undefined && document.getElementById("gql").textContent !== ""`)
		if len(opts) > 0 {
			for k, v := range opts {
				d.run("option "+k, chromedp.SetValue("#opt-"+k, v))
			}
			d.eval("reset", `window.goldfishDraw = undefined, true`, new(bool))
			d.run("recall", chromedp.Click("#recall button"))
			d.waitTrue("drawn again", `window.goldfishDraw !== undefined`)
		}
	}

	// A small Shape first: four cities and what is around them, 25 nodes.
	open(`MATCH (c:city)`, map[string]string{"M": "46"})
	if shots != "" {
		d.screenshot(filepath.Join(shots, "browser-25.png"))
	}
	var small struct{ Nodes, Edges int }
	d.eval("small", `window.goldfishDraw`, &small)
	if small.Nodes != 25 {
		t.Errorf("the small Shape has %d nodes, want 25", small.Nodes)
	}
	if n := d.count("#graph [data-seed]"); n != 4 {
		t.Errorf("%d nodes ringed for four matched seeds", n)
	}

	// The people and around them, at the ceilings; then double-clicks
	// expand nodes into the drawing until it holds the whole memory.
	open(`MATCH (p:person)`, map[string]string{"M": "200", "k": "2", "F": "64", "L": "32"})
	var first struct{ Nodes, Edges int }
	d.eval("first", `window.goldfishDraw`, &first)
	t.Logf("the people's Shape: %d nodes, %d edges", first.Nodes, first.Edges)
	var names []string
	d.eval("names", `Array.from(document.querySelectorAll("#graph [data-node]")).map(e => e.getAttribute("data-node"))`, &names)
	seen := map[string]bool{}
	expanded := 0
	for len(names) > 0 {
		var state struct{ Nodes, Edges int }
		d.eval("drawn", `({nodes: document.querySelectorAll("#graph [data-node]").length, edges: document.querySelectorAll("#graph [data-edge]").length})`, &state)
		if state.Nodes >= 100 && state.Edges >= 150 {
			break
		}
		name := names[0]
		names = names[1:]
		if seen[name] {
			continue
		}
		seen[name] = true
		sel := fmt.Sprintf(`#graph [data-node=%q]`, name)
		x, y := d.markCenter(sel)
		d.eval("reset", `window.goldfishExpanded = undefined, true`, new(bool))
		d.run("double-click", chromedp.MouseClickXY(x, y), chromedp.MouseClickXY(x, y))
		d.waitTrue("expanded "+name, `window.goldfishExpanded !== undefined`)
		expanded++
		var now []string
		d.eval("names", `Array.from(document.querySelectorAll("#graph [data-node]")).map(e => e.getAttribute("data-node"))`, &now)
		for _, n := range now {
			if !seen[n] && !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	nodes, edges := d.count("#graph [data-node]"), d.count("#graph [data-edge]")
	t.Logf("after %d expands: %d nodes, %d edges drawn", expanded, nodes, edges)
	if nodes != 100 || edges != 150 {
		t.Fatalf("the drawing holds %d nodes and %d edges, want the memory's 100 and 150", nodes, edges)
	}
	var lab struct {
		Labels   int
		Overlaps []string
	}
	d.eval("overlaps", overlapsJS, &lab)
	var scale float64
	d.eval("scale", `Number(document.getElementById("graph").getAttribute("data-scale"))`, &scale)
	t.Logf("%d labels shown, at scale %.2f", lab.Labels, scale)
	if lab.Labels < 100 || len(lab.Overlaps) > 0 {
		t.Errorf("%d labels shown, %d pairs overlap: %v", lab.Labels, len(lab.Overlaps), lab.Overlaps)
	}
	d.run("fit", chromedp.Click("#fit"))
	if shots != "" {
		d.screenshot(filepath.Join(shots, "browser-100.png"))
	}
	// Past this memory: 400 nodes with long names, dense and sparse, drawn
	// off the page; the labels still do not overlap.
	for _, edgesPer := range []int{0, 3} {
		var big struct {
			Ms       float64
			Overlaps int
		}
		d.eval("400 nodes", fmt.Sprintf(`(function () {
			var svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
			svg.id = "probe"; document.body.appendChild(svg);
			var g = {nodes: [], edges: []};
			for (var i = 0; i < 400; i++) g.nodes.push({v: "n" + i, kind: "K" + (i %% 17), labels: [], how: "insert",
				props: [{k: "nick", src: "", str: "a node with a long name number " + i}]});
			for (var i = 0; i < 400 * %d; i++) g.edges.push({from: "n" + (i %% 400), to: "n" + ((i * 7 + 3) %% 400), type: "rel" + (i %% 5), props: []});
			var t0 = performance.now();
			Graph.draw(svg, g, {});
			var ms = performance.now() - t0;
			var ls = Array.from(svg.querySelectorAll("text")).filter(e => e.getAttribute("display") !== "none").map(e => e.getBoundingClientRect());
			var n = 0;
			for (var i = 0; i < ls.length; i++) for (var j = i + 1; j < ls.length; j++) {
				var a = ls[i], b = ls[j];
				if (a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5) n++;
			}
			svg.remove();
			return {ms: ms, overlaps: n};
		})()`, edgesPer), &big)
		t.Logf("400 nodes, %d edges: drawn in %.0f ms, %d labels overlap", 400*edgesPer, big.Ms, big.Overlaps)
		if big.Overlaps > 0 {
			t.Errorf("400 nodes, %d edges: %d pairs of labels overlap", 400*edgesPer, big.Overlaps)
		}
	}

	// A Commit made elsewhere does not replace the drawing the reader grew:
	// the page says a newer version is in.
	sess, err := c.Session(context.Background(), "memory")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sess.Commit(context.Background(), `INSERT (:note {nick: "NOTE_live"})`, nil); err != nil {
		t.Fatal(err)
	}
	d.waitTrue("newer version said", `/Version 3 is in: Recall to redraw/.test(document.getElementById("status").textContent)`)
	d.run("settle", chromedp.Sleep(300*time.Millisecond))
	d.waitTrue("still said", `/Version 3 is in/.test(document.getElementById("status").textContent)`)
	if n := d.count("#graph [data-node]"); n != 100 {
		t.Errorf("after a Commit elsewhere the drawing holds %d nodes, want the 100 expanded", n)
	}

	// Drag a node: it moves, and its edges with it.
	moved := `#graph [data-node="Lisbon"]`
	var before, after string
	d.eval("place", fmt.Sprintf(`document.querySelector(%q).getAttribute("transform")`, moved), &before)
	x, y := d.markCenter(moved)
	d.drag(x, y, 60, 45)
	d.eval("place", fmt.Sprintf(`document.querySelector(%q).getAttribute("transform")`, moved), &after)
	if before == after {
		t.Errorf("dragging Lisbon left it at %s", after)
	}
	// Zoom with the wheel, about the pointer.
	var s0, s1 float64
	d.eval("scale", `Number(document.getElementById("graph").getAttribute("data-scale"))`, &s0)
	d.wheel(700, 400, -400)
	d.eval("scale", `Number(document.getElementById("graph").getAttribute("data-scale"))`, &s1)
	if !(s1 > s0*1.2) {
		t.Errorf("the wheel zoomed from %.3f to %.3f", s0, s1)
	}
	d.run("fit", chromedp.Click("#fit"))

	// Click the node: the panel shows its properties, the observations as
	// a list, its edges by type, and its history with who changed it.
	sel := fmt.Sprintf(`#graph [data-node=%q]`, person)
	x, y = d.markCenter(sel)
	d.run("click", chromedp.MouseClickXY(x, y))
	d.waitTrue("panel", fmt.Sprintf(`!document.getElementById("panel").hidden && document.getElementById("panel-head").getAttribute("data-panel-node") === %q`, person))
	d.waitTrue("properties", `document.querySelectorAll("#panel td.v ul li").length === 2 && /note 1 about Maya Sato/.test(document.getElementById("panel-body").textContent) && /lead/.test(document.getElementById("panel-body").textContent)`)
	d.waitTrue("edges by type", `/→ :works_at \(1\)/.test(document.getElementById("panel-body").textContent) && /→ :works_on \(1\)/.test(document.getElementById("panel-body").textContent)`)
	d.waitTrue("history", `document.querySelectorAll("#panel [data-history]").length === 2 && /by bo/.test(document.getElementById("panel-body").textContent)`)

	// A version's row says what it changed and who.
	d.waitTrue("version rows", `/\+1 node 1 property set/.test(document.querySelector('#versions [data-version="3"]').textContent) && /\+100 nodes \+150 edges/.test(document.querySelector('#versions [data-version="1"]').textContent) && /by bo/.test(document.querySelector('#versions [data-version="2"]').textContent) && /1 property set/.test(document.querySelector('#versions [data-version="2"]').textContent)`)

	// A miss is a miss: said above the drawing with its did-you-mean, the
	// nodes drawn instead faded and not ringed.
	open(`MATCH (x:persn)`, nil)
	d.waitTrue("miss", `!document.getElementById("miss").hidden && /No match/.test(document.getElementById("miss").textContent) && /:person/.test(document.getElementById("miss").textContent)`)
	if n, faded := d.count("#graph [data-node]"), d.count("#graph .node.faded"); n == 0 || faded != n || d.count("#graph [data-seed]") != 0 {
		t.Errorf("a miss draws %d nodes, %d faded, %d ringed", n, faded, d.count("#graph [data-seed]"))
	}
	// The tokens the legend says are the header's.
	var tokens struct{ Legend, Header string }
	d.eval("tokens", `({legend: /(\d+) tokens/.exec(document.getElementById("legend").textContent)[1], header: / tokens=(\d+)/.exec(document.getElementById("gql").textContent)[1]})`, &tokens)
	if tokens.Legend != tokens.Header {
		t.Errorf("the legend says %s tokens, the Shape's header %s", tokens.Legend, tokens.Header)
	}

	// The time from an answer of about 100 nodes to drawn, seven times.
	open(`MATCH (p:person)`, map[string]string{"M": "200", "k": "2", "F": "64", "L": "32"})
	var ms []float64
	for i := 0; i < 7; i++ {
		d.eval("reset", `window.goldfishDraw = undefined, true`, new(bool))
		d.run("recall", chromedp.Click("#recall button"))
		d.waitTrue("drawn", `window.goldfishDraw !== undefined`)
		var dr struct {
			Ms    float64
			Nodes int
		}
		d.eval("draw", `window.goldfishDraw`, &dr)
		ms = append(ms, dr.Ms)
	}
	slices.Sort(ms)
	t.Logf("a Shape of %d nodes drawn from its answer in %.1f ms (median of 7; %.1f to %.1f)", first.Nodes, ms[3], ms[0], ms[6])
	total, assets := d.loaded()
	t.Logf("first load: %.0f bytes in %d assets", total, assets)
	if said := d.said(); len(said) > 0 {
		t.Errorf("the page wrote to its console:\n%s", strings.Join(said, "\n"))
	}
}
