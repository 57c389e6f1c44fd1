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

// TestCommitDescriptionTeachesTheVocabulary: the commit tool's
// description teaches what an agent needs to keep a session's vocabulary
// (register, revise and drop views and actions, run an action, settle a
// task), and each example it gives runs as written, in order.
func TestCommitDescriptionTeachesTheVocabulary(t *testing.T) {
	db, srv := mcpServer(t, server.Options{})
	cs := connect(t, srv)
	desc := listTools(t, cs)["commit"].Description
	ctx := context.Background()
	s, err := db.Session(ctx, "taught")
	if err != nil {
		t.Fatal(err)
	}
	for _, example := range []string{
		`INSERT (:TSK {nick: 'fix_login', status: 'open'})`,
		`CREATE VIEW open AS 'size(nodes("TSK"))'`,
		`CREATE ACTION settle(nick STRING) { MATCH (t {nick: $nick}) SET t:Settled }`,
		`CALL settle('fix_login')`,
		`MATCH (t:TSK {nick: 'fix_login'}) SET t:Settled`,
	} {
		if !strings.Contains(desc, example) {
			t.Errorf("the commit description does not say %q:\n%s", example, desc)
			continue
		}
		if _, err := s.Commit(ctx, example, nil); err != nil {
			t.Errorf("%s: %v", example, err)
		}
	}
	for _, verb := range []string{"CREATE OR REPLACE", "DROP VIEW", "DROP ACTION", "goldfish://help/vocabulary"} {
		if !strings.Contains(desc, verb) {
			t.Errorf("the commit description does not teach %s", verb)
		}
	}
}
