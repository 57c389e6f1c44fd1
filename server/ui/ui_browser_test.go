package ui_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/client"
)

// browser finds a Chromium to drive: the test skips without one, unless
// GOLDFISH_REQUIRE_BROWSER=1, which makes it fail.
func browser(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("GOLDFISH_REQUIRE_BROWSER") == "1" {
		t.Fatal("no chromium, chromium-browser or google-chrome on PATH, and GOLDFISH_REQUIRE_BROWSER=1")
	}
	t.Skip("no chromium, chromium-browser or google-chrome on PATH")
	return ""
}

// hostile is a nick the page must draw as text.
const hostile = `<script>alert("x")</script>'é"`

// fill makes the sessions the browser is shown: mission (three versions
// by two agents, a view that breaks, a hostile nick) and big (enough
// for a Shape of 50 rows).
func fill(t *testing.T, c *client.Client) {
	ctx := context.Background()
	mission, err := c.Session(ctx, "mission")
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range []struct{ agent, text string }{
		{"ana", `INSERT (:TSK {nick: "TSK_login", title: "Fix login redirect", status: "open"})-[:touches]->(:MOD {loc: "auth/login.go"}),
		  (:PKG {loc: "auth"})-[:contains]->(:MOD {loc: "auth/session.go"})`},
		{"bo", `MATCH (t:TSK {nick: "TSK_login"}) INSERT (t)-[:notes]->(:NOTE {nick: $n, text: "cookie <b>dropped</b> & \"quoted\""})`},
		{"ana", `MATCH (t:TSK {nick: "TSK_login"}) SET t.status = "done"`},
		{"bo", `CREATE VIEW late AS 'nodes("TSK").filter(t, t.due < version).size()'`},
	} {
		if _, err := mission.CommitWith(ctx, c.text, map[string]any{"n": hostile}, goldfish.CommitOptions{Agent: c.agent}); err != nil {
			t.Fatalf("commit %d: %v", i, err)
		}
	}
	big, err := c.Session(ctx, "big")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("INSERT (hub:PKG {loc: \"core\"})")
	for i := 0; i < 60; i++ {
		fmt.Fprintf(&b, ",\n (hub)-[:contains]->(:MOD {loc: \"core/m%02d.go\"})", i)
	}
	if _, err := big.Commit(ctx, b.String(), nil); err != nil {
		t.Fatal(err)
	}
}

// served is a running gqlsh serve.
type served struct {
	URL string
	cmd *exec.Cmd
}

// Stop kills the server.
func (s served) Stop() {
	s.cmd.Process.Kill()
	s.cmd.Wait()
}

// serve builds gqlsh and runs gqlsh serve --mem with a tokens file
// holding line, on a free loopback port, until the test ends.
func serve(t *testing.T, line string) served {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "gqlsh")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/gqlsh").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	tokens := filepath.Join(dir, "tokens")
	if err := os.WriteFile(tokens, []byte(line+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "serve", "--mem", "--tokens", tokens, "--listen", "127.0.0.1:0")
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	addr := regexp.MustCompile(`listening on (http://[0-9.:]+)`)
	for i := 0; i < 1000; i++ { // 10 s at most
		if m := addr.FindStringSubmatch(stderr.String()); m != nil {
			return served{URL: m[1], cmd: cmd}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("gqlsh serve did not start:\n%s", stderr.String())
	return served{}
}

// syncBuffer is a buffer a process writes while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// shapeNodes counts the node patterns of a Shape's INSERT.
var shapeNode = regexp.MustCompile(`(?m)^\s*\(\w+:`)

// TestBrowser drives headless Chromium through the page on a real gqlsh
// serve with a tokens file, its sessions made through package client:
// the token asked for, the sessions listed, Shapes drawn with one
// [data-node] per node, the envelope, the history and a diff, a Commit
// followed live, refusals shown as text, the server stopping; and no
// word on the page's console. It logs the first load's bytes and the
// time from a Recall's answer to drawn.
func TestBrowser(t *testing.T) {
	ts, c, token := servedWithToken(t)
	fill(t, c)

	d := drive(t)
	run, eval, count, waitTrue := d.run, d.eval, d.count, d.waitTrue

	// The page asks for a token, refuses a wrong one, and takes the right one.
	run("open", chromedp.Navigate(ts.URL+"/ui/#session=mission"), chromedp.WaitVisible("#login"))
	run("wrong token", chromedp.SendKeys("#token", "gf_wrong"), chromedp.Click("#login button"))
	waitTrue("asked again", `!document.getElementById("login").hidden && /refused/.test(document.getElementById("login-why").textContent)`)
	run("token", chromedp.SendKeys("#token", token), chromedp.Click("#login button"))

	// The sessions, the outline drawn, the envelope.
	run("sessions", chromedp.WaitVisible(`[data-session="mission"]`), chromedp.WaitVisible(`[data-session="big"]`))
	sess, err := c.Session(context.Background(), "mission")
	if err != nil {
		t.Fatal(err)
	}
	outline, err := sess.Recall(context.Background(), "MATCH ()", goldfish.RecallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := len(shapeNode.FindAllString(outline.Text, -1))
	waitTrue("outline drawn", fmt.Sprintf(`document.querySelectorAll("#graph [data-node]").length === %d`, want))
	var hostileDrawn bool
	eval("hostile nick", fmt.Sprintf(`Array.from(document.querySelectorAll("#graph [data-node]")).some(e => e.getAttribute("data-node") === %q)`, hostile), &hostileDrawn)
	if !hostileDrawn {
		t.Errorf("no node is drawn with the nick %q", hostile)
	}
	if n := count("script"); n != 3 {
		t.Errorf("the page holds %d scripts, want its own 3", n)
	}
	waitTrue("envelope", `/late/.test(Array.from(document.querySelectorAll("#attention ul.bad li")).map(e => e.textContent).join())`)
	waitTrue("vocabulary", `/late/.test(document.getElementById("vocabulary").textContent)`)
	waitTrue("timeline", `document.querySelectorAll("#versions [data-version]").length === 4`)
	// The outline matched nothing: no node is ringed as a seed.
	if n := count("#graph [data-seed]"); n != 0 {
		t.Errorf("the outline rings %d nodes as seeds", n)
	}

	total, assets := d.loaded()
	t.Logf("first load: %.0f bytes in %d assets", total, assets)
	if total > 1<<20 {
		t.Errorf("the first load took %.0f bytes over the wire, over 1 MB", total)
	}

	// History: a version recalls at it, two make a diff.
	run("at 1", chromedp.Click(`[data-version="1"] a`))
	waitTrue("recall at 1", `/\(at 1\)/.test(document.getElementById("legend").textContent) && location.hash.includes("at=1")`)
	run("tick", chromedp.Click(`[data-version="1"] input`), chromedp.Click(`[data-version="3"] input`))
	waitTrue("diff", `!document.getElementById("diff").hidden && document.querySelectorAll("#diff-graph [data-node]").length > 0`)
	if n := count(`#diff-graph [data-how="insert"]`) + count(`#diff-graph [data-how="set"]`); n == 0 {
		t.Error("the diff colours no node as added or changed")
	}

	// Live: a Commit made elsewhere shows without a reload.
	run("newest", chromedp.Navigate(ts.URL+"/ui/#session=mission"))
	waitTrue("outline again", fmt.Sprintf(`document.querySelectorAll("#graph [data-node]").length === %d`, want))
	if _, err := sess.CommitWith(context.Background(), `INSERT (:NOTE {nick: "NOTE_live"})`, nil, goldfish.CommitOptions{Agent: "cy"}); err != nil {
		t.Fatal(err)
	}
	waitTrue("live", `document.querySelector('#graph [data-node="NOTE_live"]') && document.querySelectorAll("#versions [data-version]").length === 5`)

	// A miss: the attention panel says what did not match, and what the
	// drawing shows instead of a match.
	run("miss", chromedp.Navigate(ts.URL+"/ui/#session=mission&q=MATCH%20(x%3ANOPE)"))
	waitTrue("miss said", `/No match/.test(document.getElementById("attention").textContent) && /label :NOPE/.test(document.getElementById("attention").textContent) && /instead of a match/.test(document.getElementById("legend").textContent)`)

	// A version that is gone, an empty session, an edge to a node outside.
	run("at 999", chromedp.Navigate(ts.URL+"/ui/#session=mission&at=999"))
	waitTrue("at 999 refused", `/22Q08/.test(document.getElementById("notices").textContent)`)
	// A session no write made: the page says so, and the visit makes none.
	run("unknown", chromedp.Navigate(ts.URL+"/ui/#session=nothing_here"))
	waitTrue("unknown session", `/42002/.test(document.getElementById("status").textContent + document.getElementById("notices").textContent) && /there is no session/.test(document.body.textContent)`)
	if names, err := c.Sessions(context.Background()); err != nil || slices.Contains(names, "nothing_here") {
		t.Errorf("visiting #session=nothing_here made the session: %v %v", names, err)
	}
	// A session name no session may have, from the address: refused, as text.
	run("hostile name", chromedp.Navigate(ts.URL+"/ui/#session=%3Cscript%3Ealert(1)%3C%2Fscript%3E%22%C3%A9"))
	waitTrue("name refused", `/42Q03/.test(document.getElementById("status").textContent) && document.getElementById("where").textContent === '<script>alert(1)</script>"é'`)
	if n := count("script"); n != 3 {
		t.Errorf("the page holds %d scripts after a hostile session name, want its own 3", n)
	}
	var ghosts int
	eval("ghost", `(function () {
		var svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
		svg.id = "probe"; document.body.appendChild(svg);
		Graph.draw(svg, GQL.parse('INSERT (a:X {nick: "a"}), (a)-[:r]->(zz)'), {});
		var n = svg.querySelectorAll("[data-ghost]").length * 10 + svg.querySelectorAll("[data-node]").length;
		svg.remove();
		return n;
	})()`, &ghosts)
	if ghosts != 11 {
		t.Errorf("an edge to a node outside the text: %d ghosts×10+nodes, want 11", ghosts)
	}

	// A Shape of 50 rows: the time from its answer to drawn.
	run("big", chromedp.Navigate(ts.URL+"/ui/#session=big&q=MATCH%20(p%3APKG)"))
	waitTrue("big session", `/rows=/.test(document.getElementById("gql").textContent) && location.hash.includes("big")`)
	run("F=60", chromedp.SendKeys("#opt-F", "60"), chromedp.Click("#recall button"))
	waitTrue("big drawn", `document.querySelectorAll("#graph [data-node]").length > 20`)
	var draw struct {
		Ms    float64 `json:"ms"`
		Nodes int     `json:"nodes"`
		Edges int     `json:"edges"`
		Rows  string  `json:"rows"`
	}
	eval("draw time", `Object.assign({rows: /rows=(\S+)/.exec(document.getElementById("gql").textContent)[1]}, window.goldfishDraw)`, &draw)
	t.Logf("a Shape of rows=%s (%d nodes, %d edges) drawn in %.1f ms from its answer", draw.Rows, draw.Nodes, draw.Edges, draw.Ms)

	// A server that stops: the page says so.
	ts.Stop()
	waitTrue("offline", `/does not answer/.test(document.getElementById("status").textContent)`)

	if said := d.said(); len(said) > 0 {
		t.Errorf("the page wrote to its console:\n%s", strings.Join(said, "\n"))
	}
}
