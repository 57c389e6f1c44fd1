package server

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/wire"
)

// oversizeServer serves a database with session "s" holding one task.
func oversizeServer(t *testing.T) *Server {
	t.Helper()
	db, err := goldfish.Open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	sess, err := db.Session(context.Background(), "s")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sess.Commit(context.Background(), `INSERT (:TSK {nick: "t"})`, nil); err != nil {
		t.Fatal(err)
	}
	srv, err := New(db, Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// serve sends one request to srv in process and returns the answer with
// the bytes allocated meanwhile.
func serve(srv *Server, method, path, body string) (*httptest.ResponseRecorder, uint64) {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	rec := httptest.NewRecorder()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	srv.ServeHTTP(rec, req)
	runtime.ReadMemStats(&after)
	return rec, after.TotalAlloc - before.TotalAlloc
}

// toolCall is an MCP tools/call message.
func toolCall(tool string, args map[string]any) string {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args}})
	return string(b)
}

// TestOversizeTextRefusedBeforeDecoding: a 256 KB text over the parser's
// bounds is refused by recall and commit on /mcp and /v1 with 42Q01,
// allocating at most 16 bytes per byte of the request (the SDK's decoding
// of the MCP call took about 50), and the answer on /mcp is byte for byte
// the one the SDK path gives.
func TestOversizeTextRefusedBeforeDecoding(t *testing.T) {
	srv := oversizeServer(t)
	list := strings.Repeat("1,", 128<<10) + "1"
	recallText := "MATCH (n:TSK) WHERE n.v IN [" + list + "]"
	commitText := "INSERT (:X {v: [" + list + "]})"
	v1Recall, _ := json.Marshal(wire.RecallRequest{Q: recallText})
	v1Commit, _ := json.Marshal(wire.CommitRequest{Text: commitText})
	for _, c := range []struct{ name, path, body string }{
		{"mcp recall", "/mcp", toolCall("recall", map[string]any{"session": "s", "q": recallText})},
		{"mcp commit", "/mcp", toolCall("commit", map[string]any{"session": "s", "text": commitText})},
		{"mcp recall of a session no write made", "/mcp", toolCall("recall", map[string]any{"session": "nobody", "q": recallText, "agent": "ana"})},
		{"v1 recall", "/v1/sessions/s/recall", string(v1Recall)},
		{"v1 commit", "/v1/sessions/s/commit", string(v1Commit)},
	} {
		serve(srv, "POST", c.path, c.body) // warm: the SDK's schemas, the pools
		rec, n := serve(srv, "POST", c.path, c.body)
		if !strings.Contains(rec.Body.String(), "42Q01") {
			t.Errorf("%s: %d %.300s, want 42Q01", c.name, rec.Code, rec.Body.String())
		}
		if n > 16*uint64(len(c.body)) {
			t.Errorf("%s: refusing %d bytes allocated %d bytes (%.1f per byte), over 16", c.name, len(c.body), n, float64(n)/float64(len(c.body)))
		}
		t.Logf("%s: %.1f bytes allocated per byte", c.name, float64(n)/float64(len(c.body)))
		if c.path != "/mcp" {
			continue
		}
		floor := oversizeFloor
		oversizeFloor = 1 << 30 // the SDK decodes it all
		sdk, m := serve(srv, "POST", c.path, c.body)
		oversizeFloor = floor
		if sdk.Code != rec.Code || sdk.Body.String() != rec.Body.String() || sdk.Header().Get("Content-Type") != rec.Header().Get("Content-Type") {
			t.Errorf("%s: refused before decoding\n%d %.400s\nthrough the SDK\n%d %.400s", c.name, rec.Code, rec.Body.String(), sdk.Code, sdk.Body.String())
		}
		t.Logf("%s through the SDK: %.1f bytes allocated per byte", c.name, float64(m)/float64(len(c.body)))
	}
}

// TestOversizeLeftToTheSDK: a message whose text cannot be found plainly
// (a key spelled with escapes, a text that is no string, arguments that
// are no object, another tool) or that the parser takes is handed to the
// SDK as it came.
func TestOversizeLeftToTheSDK(t *testing.T) {
	big := "MATCH (n) WHERE n.v IN [" + strings.Repeat("1,", 20000) + "1]"
	bigJSON, _ := json.Marshal(big)
	pad := strings.Repeat(" ", 5<<10)
	for _, msg := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"recall","arguments":{"\u0071":` + string(bigJSON) + `}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"recall","arguments":{"q":[` + string(bigJSON) + `]}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"recall","arguments":` + string(bigJSON) + `}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sessions","arguments":{"q":` + string(bigJSON) + `}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"name":"recall","arguments":{"q":` + string(bigJSON) + `}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"recall","arguments":{"q":"MATCH (n)` + pad + `"}}}`,
	} {
		r := httptest.NewRequest("POST", "/mcp", nil)
		out, r2 := withoutOversize([]byte(msg), r)
		if string(out) != msg || r2 != r {
			t.Errorf("%.120s… was changed to %.120s…", msg, out)
		}
	}
	// Found plainly, with white space and other members around it.
	msg := "{ \"id\" : 1 , \"params\" : { \"arguments\" : { \"session\" : \"s\" , \"q\" : " + string(bigJSON) + " , \"k\" : 2 } , \"name\" : \"recall\" } , \"method\" : \"tools/call\" , \"jsonrpc\" : \"2.0\" }"
	r := httptest.NewRequest("POST", "/mcp", nil)
	out, r2 := withoutOversize([]byte(msg), r)
	want := strings.Replace(msg, string(bigJSON), `""`, 1)
	if string(out) != want || r2.Context().Value(oversizeKey{}) == nil {
		t.Errorf("emptied: %.300s, want %.300s", out, want)
	}
}

// FuzzOversize: finding a text in a message or a body never panics, on
// any bytes (a /v1 body is scanned before it is known to be JSON), and a
// message it changes is the same message with one string emptied.
func FuzzOversize(f *testing.F) {
	big := `"MATCH (n) WHERE n.v IN [` + strings.Repeat("1,", 10001) + `1]"`
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"recall","arguments":{"q":` + big + `}}}`,
		`{"method":"tools/call","params":{"name":"commit","arguments":{"text":"\\`,
		`{"q": "x\\"}`, `{"q": ` + big, `{"q":"\`, `{`, `"`, `[{"q":1}]`, `{"q":` + big + `,}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		floor := oversizeFloor
		oversizeFloor = 0
		defer func() { oversizeFloor = floor }()
		oversizeBody(msg, "q")
		r := httptest.NewRequest("POST", "/mcp", nil)
		out, r2 := withoutOversize(msg, r)
		if r2 == r && string(out) != string(msg) {
			t.Fatalf("changed without a refusal: %q", out)
		}
		if r2 != r && len(out) >= len(msg) {
			t.Fatalf("a refusal that emptied nothing: %q", out)
		}
	})
}
