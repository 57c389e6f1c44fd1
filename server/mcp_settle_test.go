package server_test

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/goldfish-gql/goldfish/server"
)

// finishedSet finds a SET of a status to a word that says finished (as
// a property or in a map), the statement a model copies to close a task.
var finishedSet = regexp.MustCompile(`(?i)\bSET\b[^;\n]*\bstatus\s*[=:]\s*['"](done|closed|finished|complete|completed|resolved|cancelled|canceled)['"]`)

// TestMCPTeachesSettled: what a model reads (the use_goldfish prompt,
// the tools' descriptions, the instructions) settles a task the way
// liveness reads it, with the label Settled: none sets a finished
// status without it, and the prompt and the commit tool show SET
// t:Settled.
func TestMCPTeachesSettled(t *testing.T) {
	_, srv := mcpServer(t, server.Options{})
	cs := connect(t, srv)
	callTool(t, cs, "commit", map[string]any{"session": "work", "text": `INSERT (:TSK {nick: "fix_login", status: "open"})`}, false)
	res, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "use_goldfish", Arguments: map[string]string{"session": "work"}})
	if err != nil || len(res.Messages) != 1 {
		t.Fatalf("use_goldfish: %v %v", res, err)
	}
	texts := map[string]string{
		"prompt":       res.Messages[0].Content.(*mcp.TextContent).Text,
		"instructions": cs.InitializeResult().Instructions,
	}
	for name, tl := range listTools(t, cs) {
		texts[name] = tl.Description
	}
	for _, name := range []string{"prompt", "commit"} {
		if !strings.Contains(texts[name], "SET t:Settled") {
			t.Errorf("%s does not teach SET t:Settled:\n%s", name, texts[name])
		}
	}
	// The commit tool's answer carries the notice a status alone draws,
	// and none for the statement taught.
	out, _ := callTool(t, cs, "commit", map[string]any{"session": "work", "text": `MATCH (t:TSK {nick: 'fix_login'}) SET t.status = 'done'`}, false)
	if want := `-- 01000: fix_login: status "done" does not settle a task; add the label: SET t:Settled`; !strings.Contains(out, want) {
		t.Errorf("a status alone: %s\nwant %s", out, want)
	}
	out, _ = callTool(t, cs, "commit", map[string]any{"session": "work", "text": `MATCH (t:TSK {nick: 'fix_login'}) SET t:Settled, t.status = 'done'`}, false)
	if strings.Contains(out, "01000") || !strings.Contains(out, "+1 label") {
		t.Errorf("settled as taught: %s", out)
	}
	for name, text := range texts {
		for _, line := range strings.Split(text, "\n") {
			for _, m := range finishedSet.FindAllString(line, -1) {
				if !strings.Contains(line, "Settled") {
					t.Errorf("%s teaches %q without the label Settled: %s", name, m, line)
				}
			}
		}
	}
}
