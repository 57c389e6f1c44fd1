package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/server"
)

// postMCP sends one raw body to /mcp as a client without a session would
// (no MCP-Protocol-Version header: the server takes 2025-03-26, the last
// version that had batches) and returns the status, the answer's size and
// at most its first 64 KiB. The answer is counted as it streams in, never
// held whole.
func postMCP(t *testing.T, url, token, body string) (status int, size int64, head string) {
	t.Helper()
	req, err := http.NewRequest("POST", url+"/mcp", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var first strings.Builder
	size, err = io.Copy(io.Discard, io.TeeReader(resp.Body, &limitedBuilder{b: &first, n: 64 << 10}))
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, size, first.String()
}

type limitedBuilder struct {
	b *strings.Builder
	n int
}

func (l *limitedBuilder) Write(p []byte) (int, error) {
	if room := l.n - l.b.Len(); room > 0 {
		l.b.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// rpcError reads a JSON-RPC error answer: its code and the GQLSTATUS in
// its data.
func rpcError(t *testing.T, body string) (int, string) {
	t.Helper()
	var m struct {
		ID    any `json:"id"`
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
			Data    struct {
				GQLStatus string `json:"gqlstatus"`
			} `json:"data"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(body), &m); err != nil || m.Error == nil {
		t.Fatalf("not a JSON-RPC error (%v): %.300s", err, body)
	}
	return m.Error.Code, m.Error.Data.GQLStatus
}

// TestMCPBatchRefused: a JSON-RPC batch on /mcp is refused whole, with
// one small JSON-RPC error, whatever protocol version the client claims;
// neither the answer nor the memory the server spends on it grows with
// the calls in the batch. (The MCP specification of 2025-06-18 removed
// batches; before, 2,000 tools/list calls in a 100 KB body were answered
// with 2,000 tool lists, each a full answer, tens of MB in all.)
func TestMCPBatchRefused(t *testing.T) {
	tokens, toks := tokenSet(t, map[string][2]string{"ro": {"memory", ""}})
	_, _, ts := newServer(t, server.Options{Tokens: tokens})
	const calls = 2000
	var b strings.Builder
	b.WriteByte('[')
	for i := range calls {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, i+1)
	}
	b.WriteByte(']')
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	status, size, head := postMCP(t, ts.URL, toks["ro"], b.String())
	runtime.ReadMemStats(&after)
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("a batch of %d tools/list calls (%d bytes): HTTP %d, answer %d bytes, %d KiB allocated", calls, b.Len(), status, size, allocated>>10)
	if status != http.StatusBadRequest {
		t.Errorf("a batch answered HTTP %d, want 400", status)
	}
	if size > 4<<10 {
		t.Errorf("a refused batch answered %d bytes", size)
	}
	if allocated > 32<<20 {
		t.Errorf("a refused batch cost %d MiB of allocations", allocated>>20)
	}
	if code, gs := rpcError(t, head); code != -32600 || gs != "22Q07" {
		t.Errorf("the refusal is code %d, GQLSTATUS %q: %s", code, gs, head)
	}
	// One element or notifications only: still a batch.
	for _, body := range []string{`[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]`, `[{"jsonrpc":"2.0","method":"notifications/initialized"}]`, ` 	[]`} {
		if status, _, head := postMCP(t, ts.URL, toks["ro"], body); status != http.StatusBadRequest || !strings.Contains(head, "batch") {
			t.Errorf("%s: HTTP %d %s", body, status, head)
		}
	}
	// One call per request is served.
	if status, _, head := postMCP(t, ts.URL, toks["ro"], `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`); status != 200 || !strings.Contains(head, `"read_graph"`) {
		t.Errorf("one tools/list: HTTP %d %.200s", status, head)
	}
}

// TestMCPAnswerCap: one call's answer is held to the 4 MiB frame, as JSON
// on the wire (a Shape is in the answer twice: as text and as the gql of
// the structured content). A Recall whose Shape is 3 MB, under the cap
// itself, is refused with 22Q07 instead of sent as 6 MB; and an answer
// that only its JSON escaping takes over the cap is refused too.
func TestMCPAnswerCap(t *testing.T) {
	db, _, ts := newServer(t, server.Options{})
	ctx := context.Background()
	big, _ := db.Session(ctx, "big")
	// i tells the DOCs apart: an equal DOC would be an echo (docs/design.md#commit).
	for i := range 20 {
		if _, err := big.Commit(ctx, `INSERT (:DOC {body: $b, i: $i})`, map[string]any{"b": strings.Repeat("x", 150<<10), "i": i}); err != nil {
			t.Fatal(err)
		}
	}
	// Control characters are \u0001 in the Shape and \\u0001 in JSON.
	ctl, _ := db.Session(ctx, "ctl")
	for i := range 8 {
		if _, err := ctl.Commit(ctx, `INSERT (:DOC {body: $b, i: $i})`, map[string]any{"b": strings.Repeat("\x01", 40<<10), "i": i}); err != nil {
			t.Fatal(err)
		}
	}
	for _, session := range []string{"big", "ctl"} {
		sh, err := db.Session(ctx, session)
		if err != nil {
			t.Fatal(err)
		}
		full, err := sh.Recall(ctx, "MATCH (d:DOC)", goldfish.RecallOptions{M: 30, L: 30, T: 100000000})
		if err != nil {
			t.Fatal(err)
		}
		// big: the Shape fits the frame, twice it does not; ctl: twice
		// the Shape fits, its JSON does not.
		if n := len(full.Text); n > server.MaxFrame || session == "big" && 2*n <= server.MaxFrame || session == "ctl" && 2*n > server.MaxFrame {
			t.Fatalf("the %s Shape is %d bytes, not the size the test needs", session, n)
		}
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"recall","arguments":{"session":%q,"q":"MATCH (d:DOC)","options":{"M":30,"L":30,"T":100000000}}}}`, session)
		status, size, head := postMCP(t, ts.URL, "", body)
		t.Logf("%s: a Shape of %d bytes: HTTP %d, answer %d bytes", session, len(full.Text), status, size)
		if size > server.MaxFrame {
			t.Errorf("%s: an answer of %d bytes, over the %d-byte frame", session, size, server.MaxFrame)
		}
		if !strings.Contains(head, "22Q07") {
			t.Errorf("%s: the answer does not say 22Q07: %.300s", session, head)
		}
	}
}

// TestMCPRequestFrame: a message over the 4 MiB frame is refused with a
// 413 whose body is a JSON-RPC error for its id, as an MCP client reads
// one, not plain text.
func TestMCPRequestFrame(t *testing.T) {
	_, _, ts := newServer(t, server.Options{})
	body := `{"jsonrpc":"2.0","id":41,"method":"tools/call","params":{"name":"search_nodes","arguments":{"query":"` + strings.Repeat("q", server.MaxFrame) + `"}}}`
	status, size, head := postMCP(t, ts.URL, "", body)
	if status != http.StatusRequestEntityTooLarge || size > 4<<10 {
		t.Errorf("a message over the frame: HTTP %d, %d bytes", status, size)
	}
	if code, gs := rpcError(t, head); code != -32600 || gs != "22Q07" || !strings.Contains(head, `"id":41`) {
		t.Errorf("the refusal: %s", head)
	}
}
