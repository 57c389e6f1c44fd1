package server_test

import (
	"context"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish/server"
)

// jargon are the engine's own terms, which a model reading a tool's
// description has no use for.
var jargon = []string{"codebook", "Δ", "peak", "stratum", "strata", "Shape", "cue", "seed", "envelope", "hydrat",
	"o200k", "canonical", "identity propert", "hop", "walk", "token target"}

// TestMCPDescriptions: every tool's description, the server's
// instructions and the prompt's description are under 120 words, in
// plain words; the descriptions of the tools' arguments are plain too.
func TestMCPDescriptions(t *testing.T) {
	_, srv := mcpServer(t, server.Options{})
	cs := connect(t, srv)
	texts := map[string]string{"instructions": cs.InitializeResult().Instructions}
	for name, tl := range listTools(t, cs) {
		texts[name] = tl.Description
		var walk func(path string, v any)
		walk = func(path string, v any) {
			m, ok := v.(map[string]any)
			if !ok {
				return
			}
			if d, ok := m["description"].(string); ok {
				texts[path] = d
			}
			if props, ok := m["properties"].(map[string]any); ok {
				for k, p := range props {
					walk(path+"."+k, p)
				}
			}
			walk(path+"[]", m["items"])
		}
		walk(name+" input", asJSON(t, tl.InputSchema))
	}
	prompts, err := cs.ListPrompts(context.Background(), nil)
	if err != nil || len(prompts.Prompts) != 1 {
		t.Fatalf("prompts: %v %v", prompts, err)
	}
	texts["prompt"] = prompts.Prompts[0].Description
	if len(texts) < 12 {
		t.Fatalf("only %d descriptions", len(texts))
	}
	for name, d := range texts {
		if n := len(strings.Fields(d)); n >= 120 || n == 0 {
			t.Errorf("%s: %d words", name, n)
		}
		for _, j := range jargon {
			// "Shape" the term, not shape the section an option names.
			if j == "Shape" && strings.Contains(d, j) || j != "Shape" && strings.Contains(strings.ToLower(d), strings.ToLower(j)) {
				t.Errorf("%s says %q: %s", name, j, d)
			}
		}
	}
}
