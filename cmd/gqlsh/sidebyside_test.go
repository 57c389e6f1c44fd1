package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish/tokens"
)

// nodeDir holds the npm packages of the MCP tests: the official
// TypeScript client and the original memory server, at the versions its
// package-lock.json pins.
var nodeDir = filepath.Join("..", "..", "server", "testdata", "node")

// needNode returns the node binary, installing the npm packages when they
// are missing. Without node the test is skipped, unless
// GOLDFISH_REQUIRE_NODE=1 (CI sets it), when it fails.
func needNode(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("GOLDFISH_REQUIRE_NODE") == "1" {
			t.Fatal("node is not installed, and GOLDFISH_REQUIRE_NODE=1: install Node.js (apt-get install nodejs npm)")
		}
		t.Skip("node is not installed: the side-by-side MCP test needs Node.js and npm")
	}
	if _, err := os.Stat(filepath.Join(nodeDir, "node_modules", "@modelcontextprotocol", "server-memory", "package.json")); err != nil {
		npm := exec.Command("npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
		npm.Dir = nodeDir
		npm.Env = goEnv // the real HOME, for npm's cache
		if out, err := npm.CombinedOutput(); err != nil {
			if os.Getenv("GOLDFISH_REQUIRE_NODE") == "1" {
				t.Fatalf("npm ci in %s: %v\n%s", nodeDir, err, out)
			}
			t.Skipf("npm ci in %s failed (offline?): %v\n%s", nodeDir, err, out)
		}
	}
	return node
}

type sideRead struct {
	Memory     string          `json:"memory"`
	Tool       string          `json:"tool"`
	Args       map[string]any  `json:"args"`
	Text       string          `json:"text"`
	Structured json.RawMessage `json:"structured"`
	IsError    bool            `json:"isError"`
}

type sideRun struct {
	Schemas       map[string]any `json:"schemas"`
	OutputSchemas map[string]any `json:"outputSchemas"`
	Reads         []sideRead     `json:"reads"`
	Kept          int            `json:"kept"`
	// Extras are goldfish's resources, completions and prompt.
	Extras *struct {
		Resources, Templates, Names, Nicks, None []string
		Outline, Prompt, Missing                 string
	} `json:"extras"`
}

// loadFigure is one load run of the script: calls per second and
// latency percentiles in milliseconds.
type loadFigure struct {
	Clients  int     `json:"clients"`
	PerSec   float64 `json:"perSec"`
	P50, P99 float64
}

// graphEntity is an alias, so graphJSON's entities keep the type other
// tests name by its fields.
type graphEntity = struct {
	Name         string   `json:"name"`
	EntityType   string   `json:"entityType"`
	Observations []string `json:"observations"`
}

type graphJSON struct {
	Entities  []graphEntity `json:"entities"`
	Relations []struct {
		From         string `json:"from"`
		To           string `json:"to"`
		RelationType string `json:"relationType"`
	} `json:"relations"`
}

var (
	shapeNode = regexp.MustCompile(`(?m)^  \((\w+):.*?\{nick: "((?:[^"\\]|\\.)*)"(.*)\}\),?$`)
	shapeEdge = regexp.MustCompile("(?m)^  \\((\\w+)\\)-\\[:(`[^`]*`|\\w+)\\]->\\((\\w+)\\),?$")
)

// shapeGraph reads the nicks, their property text, and the edges
// (from nick, type, to nick) of a Shape.
func shapeGraph(text string) (map[string]string, map[[3]string]bool) {
	vars, props := map[string]string{}, map[string]string{}
	for _, m := range shapeNode.FindAllStringSubmatch(text, -1) {
		vars[m[1]], props[m[2]] = m[2], m[3]
	}
	edges := map[[3]string]bool{}
	for _, m := range shapeEdge.FindAllStringSubmatch(text, -1) {
		edges[[3]string{vars[m[1]], strings.Trim(m[2], "`"), vars[m[3]]}] = true
	}
	return props, edges
}

// TestSideBySide runs one MCP client workload (the official TypeScript
// client) against gqlsh mcp and against the original memory server, on a
// memory of 2,000 entities and one of 30, and holds goldfish to the
// drop-in's promises: the same input and output schemas, reads that hold
// what the original's hold (as text and as structured content) in at
// most the original's tokens, every one of them, and every one of 40
// concurrent writes kept. It logs the tokens of each answer (o200k) side
// by side,
// and with GOLDFISH_LOAD=1 the throughput of search_nodes and
// create_entities with 1, 8 and 64 calls in flight (not asserted).
func TestSideBySide(t *testing.T) {
	node := needNode(t)
	bin := gqlshBinary(t)
	args := []string{"sidebyside.mjs", bin, t.TempDir()}
	withLoad := os.Getenv("GOLDFISH_LOAD") == "1"
	if withLoad {
		args = append(args, "--load")
	}
	cmd := exec.Command(node, args...)
	cmd.Dir = nodeDir
	cmd.Env = processEnvFor(t)
	var out, errs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	if err := cmd.Run(); err != nil {
		t.Fatalf("node sidebyside.mjs: %v\n%s", err, errs.String())
	}
	var res struct {
		Goldfish, Original sideRun
		Load               map[string]map[string][]loadFigure
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	g, o := res.Goldfish, res.Original
	for name, want := range o.Schemas {
		if !reflect.DeepEqual(g.Schemas[name], want) {
			t.Errorf("the input schema of %s differs:\n goldfish %v\n original %v", name, g.Schemas[name], want)
		}
		if !reflect.DeepEqual(g.OutputSchemas[name], o.OutputSchemas[name]) {
			t.Errorf("the output schema of %s differs:\n goldfish %v\n original %v", name, g.OutputSchemas[name], o.OutputSchemas[name])
		}
	}
	if x := g.Extras; x == nil {
		t.Error("no resources, completions or prompt from goldfish")
	} else {
		if !slices.Contains(x.Resources, "goldfish://sessions/memory") || len(x.Templates) != 2 {
			t.Errorf("resources %v, templates %v", x.Resources, x.Templates)
		}
		if !strings.HasPrefix(x.Outline, "// goldfish session=memory ") || !strings.Contains(x.Outline, "cue=outline") {
			t.Errorf("the memory session's resource:\n%s", x.Outline)
		}
		if !slices.Equal(x.Names, []string{"memory"}) || !slices.Contains(x.Nicks, "person_12") || len(x.None) != 0 {
			t.Errorf("completions: names %v, nicks %v, none %v", x.Names, x.Nicks, x.None)
		}
		if !strings.Contains(x.Prompt, "recall") || !strings.Contains(x.Prompt, "commit") || !strings.Contains(x.Prompt, "MATCH (n:") {
			t.Errorf("the prompt:\n%s", x.Prompt)
		}
		if !strings.Contains(x.Missing, "not found") {
			t.Errorf("a session that is not there: %q", x.Missing)
		}
	}
	if len(g.Reads) != len(o.Reads) {
		t.Fatalf("goldfish answered %d reads, the original %d", len(g.Reads), len(o.Reads))
	}
	if g.Kept != 40 {
		t.Errorf("goldfish kept %d of 40 concurrent writes", g.Kept)
	}
	var table strings.Builder
	fmt.Fprintf(&table, "%-6s %-13s %-44s %9s %9s\n", "memory", "tool", "arguments", "original", "goldfish")
	var sumG, sumO int
	var texts strings.Builder // both answers of each read, for a reader comparing them
	for i, gr := range g.Reads {
		or := o.Reads[i]
		if gr.IsError || or.IsError {
			t.Fatalf("%s %v failed: goldfish %q, original %q", gr.Tool, gr.Args, gr.Text, or.Text)
		}
		tg, err := tokens.Exact(gr.Text)
		if err != nil {
			t.Fatal(err)
		}
		to, _ := tokens.Exact(or.Text)
		args, _ := json.Marshal(gr.Args)
		fmt.Fprintf(&table, "%-6s %-13s %-44s %9d %9d\n", gr.Memory, gr.Tool, args, to, tg)
		fmt.Fprintf(&texts, "==== %s %s %s\n---- goldfish (%d tokens)\n%s\n---- original (%d tokens)\n%s\n", gr.Memory, gr.Tool, args, tg, gr.Text, to, or.Text)
		sumG, sumO = sumG+tg, sumO+to
		if tg > to {
			t.Errorf("%s memory, %s %s: goldfish answers in %d tokens, the original in %d: a drop-in read may cost no more",
				gr.Memory, gr.Tool, args, tg, to)
		}
		var want, got graphJSON
		if err := json.Unmarshal([]byte(or.Text), &want); err != nil {
			t.Fatalf("the original's %s: %v", or.Tool, err)
		}
		if err := json.Unmarshal(gr.Structured, &got); err != nil || got.Entities == nil || got.Relations == nil {
			t.Fatalf("goldfish's structured content of %s %s: %v %s", gr.Tool, args, err, gr.Structured)
		}
		props, edges := shapeGraph(gr.Text)
		// The structured content holds the rows of the text, no others.
		for _, e := range got.Entities {
			p, ok := props[e.Name]
			if !ok {
				t.Errorf("%s %s: the structured content's %s is not in the text", gr.Tool, args, e.Name)
			}
			for _, ob := range e.Observations {
				if !strings.Contains(p, fmt.Sprintf("%q", ob)) {
					t.Errorf("%s %s: the structured content's observation %q of %s is not in the text", gr.Tool, args, ob, e.Name)
				}
			}
		}
		structured := map[string]graphEntity{}
		for _, e := range got.Entities {
			structured[e.Name] = e
		}
		relations := map[[3]string]bool{}
		for _, r := range got.Relations {
			relations[[3]string{r.From, r.RelationType, r.To}] = true
			if !edges[[3]string{r.From, r.RelationType, r.To}] {
				t.Errorf("%s %s: the structured content's relation %v is not in the text", gr.Tool, args, r)
			}
		}
		switch gr.Tool {
		case "open_nodes":
			// Every entity the original opens, with every observation,
			// and every relation touching it.
			for _, e := range want.Entities {
				p, ok := props[e.Name]
				if !ok {
					t.Errorf("open_nodes %v: goldfish lacks %s", gr.Args, e.Name)
				}
				if !reflect.DeepEqual(structured[e.Name], e) {
					t.Errorf("open_nodes %v: goldfish's structured content has %v for %v", gr.Args, structured[e.Name], e)
				}
				for _, ob := range e.Observations {
					if !strings.Contains(p, fmt.Sprintf("%q", ob)) {
						t.Errorf("open_nodes %v: goldfish lacks %s's observation %q", gr.Args, e.Name, ob)
					}
				}
			}
			for _, r := range want.Relations {
				if !edges[[3]string{r.From, r.RelationType, r.To}] || !relations[[3]string{r.From, r.RelationType, r.To}] {
					t.Errorf("open_nodes %v: goldfish lacks the relation %s -%s-> %s", gr.Args, r.From, r.RelationType, r.To)
				}
			}
		case "search_nodes":
			// The best matches: as many as the seed budget holds, each
			// one the original finds too.
			found := map[string]graphEntity{}
			for _, e := range want.Entities {
				found[e.Name] = e
			}
			n := 0
			for name, e := range structured {
				if reflect.DeepEqual(found[name], e) {
					n++
				}
			}
			if n < min(len(want.Entities), 8) {
				t.Errorf("search_nodes %v: goldfish shows %d of the original's %d matches whole", gr.Args, n, len(want.Entities))
			}
		}
	}
	fmt.Fprintf(&table, "%-6s %-13s %-44s %9d %9d\n", "", "all reads", "", sumO, sumG)
	fmt.Fprintf(&table, "concurrent writes kept of 40: goldfish %d, original %d\n", g.Kept, o.Kept)
	if withLoad {
		fmt.Fprintf(&table, "\nload over one stdio connection, 400 calls each (calls/s, p50 and p99 in ms):\n")
		fmt.Fprintf(&table, "%-16s %7s %26s %26s %7s\n", "tool", "clients", "goldfish", "original", "ratio")
		for _, tool := range []string{"search_nodes", "create_entities"} {
			for i, gf := range res.Load["goldfish"][tool] {
				or := res.Load["original"][tool][i]
				fmt.Fprintf(&table, "%-16s %7d %8.0f/s %6.1f %6.1f %10.0f/s %6.1f %6.1f %6.2fx\n", tool, gf.Clients,
					gf.PerSec, gf.P50, gf.P99, or.PerSec, or.P50, or.P99, gf.PerSec/or.PerSec)
			}
		}
	}
	t.Logf("tokens (o200k) of each answer's text:\n%s", table.String())
	if p := os.Getenv("GOLDFISH_SIDEBYSIDE_OUT"); p != "" {
		os.WriteFile(p, []byte(table.String()), 0o644)
	}
	if p := os.Getenv("GOLDFISH_SIDEBYSIDE_TEXTS"); p != "" {
		os.WriteFile(p, []byte(texts.String()), 0o644)
	}
}
