package server_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish/server"
	"github.com/goldfish-gql/goldfish/wire"
)

// TestRegistrationNotice: a view that is broken on the state its CREATE
// made, and an action whose IF cannot be evaluated, are registered, and
// the Commit's answer names each and its error in a 01000 notice: over
// HTTP (JSON) and over MCP (text and structured content).
func TestRegistrationNotice(t *testing.T) {
	_, _, ts := newServer(t, server.Options{})
	body, _ := json.Marshal(wire.CommitRequest{Text: `CREATE VIEW urgent AS 'nodes("TSK")[0].priority'`})
	code, got := call(t, ts, "POST", "/v1/sessions/main/commit", "", string(body))
	if code != http.StatusOK {
		t.Fatalf("status %d: %s", code, got)
	}
	m := decodeMap(t, got)
	notices, _ := m["notices"].([]any)
	if m["status"] != "01000" || len(notices) != 1 {
		t.Fatalf("HTTP commit of a broken view: %s", got)
	}
	n := notices[0].(map[string]any)
	if n["code"] != "01000" || !strings.Contains(n["message"].(string), "view urgent is broken: index out of bounds: 0") {
		t.Errorf("HTTP notice: %v", n)
	}

	_, srv := mcpServer(t, server.Options{})
	cs := connect(t, srv)
	text, sc := callTool(t, cs, "commit", map[string]any{"session": "work",
		"text": `CREATE ACTION sweep() INTENT 'archive all' IF 'nodes("TSK")[0].open' { MATCH (t:TSK) SET t.archived = true }`}, false)
	if !strings.Contains(text, "01000") || !strings.Contains(text, "the precondition of action sweep cannot be evaluated: index out of bounds: 0") {
		t.Errorf("MCP commit text: %q", text)
	}
	if b, _ := json.Marshal(sc); !strings.Contains(string(b), `"code":"01000"`) || !strings.Contains(string(b), "action sweep") {
		t.Errorf("MCP structured content: %s", b)
	}
	// A view that evaluates says nothing.
	text, _ = callTool(t, cs, "commit", map[string]any{"session": "work", "text": `CREATE VIEW n AS 'count("TSK")'`}, false)
	if strings.Contains(text, "01000") {
		t.Errorf("a working view: %q", text)
	}
}
