package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMCPStdio runs gqlsh mcp as an agent starts it: a process speaking
// MCP on its standard input and output, through the Go SDK's client; the
// memory it keeps is in the cabinet when the next process starts.
func TestMCPStdio(t *testing.T) {
	cab := filepath.Join(t.TempDir(), "c.gf")
	ctx := context.Background()
	start := func() *mcp.ClientSession {
		cmd := exec.Command(gqlshBinary(t), "mcp", "--cabinet", cab, "--session", "notes")
		cmd.Env = processEnvFor(t)
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return cs
	}
	text := func(res *mcp.CallToolResult) string {
		var b strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		return b.String()
	}
	cs := start()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "create_entities", Arguments: map[string]any{
		"entities": []any{map[string]any{"name": "Ann", "entityType": "person", "observations": []any{"likes tea"}}}}})
	if err != nil || res.IsError {
		t.Fatalf("create_entities: %v %s", err, text(res))
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "commit", Arguments: map[string]any{"session": "work", "text": `INSERT (:TSK {nick: "t1"})`}})
	if err != nil || res.IsError || text(res) != "ok v=1 +1 node 1 property set" {
		t.Fatalf("commit: %v %s", err, text(res))
	}
	if err := cs.Close(); err != nil {
		t.Fatalf("closing: %v", err)
	}
	cs = start()
	defer cs.Close()
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "open_nodes", Arguments: map[string]any{"names": []any{"Ann"}}})
	if err != nil || res.IsError || !strings.Contains(text(res), `(person1:person {nick: "Ann", observations: ["likes tea"]})`) {
		t.Fatalf("open_nodes after a restart: %v %s", err, text(res))
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "sessions"})
	if err != nil || text(res) != "notes v=1 nodes=1 edges=0\nwork v=1 nodes=1 edges=0" {
		t.Fatalf("sessions: %v %q", err, text(res))
	}
}
