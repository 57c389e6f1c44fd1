package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish/server"
)

// stdioLines runs srv's MCP server on its StdioTransport, initialised,
// and returns a function that sends one line and reads the one line
// answered to it.
func stdioLines(t *testing.T, srv *server.Server) func(line string) string {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ss, err := srv.MCP().Connect(context.Background(), srv.StdioTransport(inR, outW), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { inW.Close(); ss.Close(); outR.Close() })
	out := bufio.NewReader(outR)
	send := func(line string) string {
		t.Helper()
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(line, `"method":"notifications/`) {
			return ""
		}
		answer, err := out.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		return answer
	}
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return send
}

// toolCall is a JSON-RPC tools/call of a tool with raw arguments.
func toolCall(tool, args string) string {
	return `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}`
}

// rpcAnswer reads a JSON-RPC answer: the error's code, message and
// GQLSTATUS, or a tool's result and whether it is an error.
type rpcAnswer struct {
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Data    struct {
			GQLStatus string `json:"gqlstatus"`
			Message   string `json:"message"`
		} `json:"data"`
	} `json:"error"`
	Result *struct {
		IsError bool `json:"isError"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	} `json:"result"`
}

func readRPC(t *testing.T, body string) rpcAnswer {
	t.Helper()
	var a rpcAnswer
	if err := json.Unmarshal([]byte(body), &a); err != nil {
		t.Fatalf("not a JSON-RPC answer (%v): %.300q", err, body)
	}
	return a
}

// TestTextCheckedOnEveryPath: text that is not UTF-8, and the escape of
// a lone surrogate, are refused with 22G03 by every tool on /mcp and on
// standard input, as /v1 refuses them, instead of being stored as
// U+FFFD; and nothing is stored.
func TestTextCheckedOnEveryPath(t *testing.T) {
	db, srv, ts := newServer(t, server.Options{})
	send := stdioLines(t, srv)
	messages := []struct{ name, msg, want string }{
		{"commit, not UTF-8", toolCall("commit", "{\"session\":\"u\",\"text\":\"INSERT (:A {s: 'a\xffb'})\"}"), "not UTF-8"},
		{"commit, a lone surrogate", toolCall("commit", `{"session":"u","text":"INSERT (:A {s: 'e\ud800'})"}`), `escapes \ud800, a lone UTF-16 surrogate`},
		{"commit, a lone low surrogate in params", toolCall("commit", `{"session":"u","text":"INSERT (:A {s: $s})","params":{"s":"\udc00"}}`), "lone UTF-16 surrogate"},
		{"create_entities", toolCall("create_entities", `{"entities":[{"name":"e\ud800","entityType":"T","observations":[]}]}`), "lone UTF-16 surrogate"},
		{"create_entities, not UTF-8", toolCall("create_entities", "{\"entities\":[{\"name\":\"e\",\"entityType\":\"T\",\"observations\":[\"\xc3\"]}]}"), "not UTF-8"},
		{"add_observations", toolCall("add_observations", "{\"observations\":[{\"entityName\":\"e\",\"contents\":[\"\xfe\"]}]}"), "not UTF-8"},
		{"create_relations", toolCall("create_relations", `{"relations":[{"from":"a","to":"b\ud83d","relationType":"r"}]}`), "lone UTF-16 surrogate"},
		{"delete_entities", toolCall("delete_entities", "{\"entityNames\":[\"\xc0\xaf\"]}"), "not UTF-8"},
		{"search_nodes", toolCall("search_nodes", `{"query":"\udfff"}`), "lone UTF-16 surrogate"},
		{"open_nodes", toolCall("open_nodes", "{\"names\":[\"\xff\"]}"), "not UTF-8"},
		{"recall", toolCall("recall", `{"session":"u","q":"MATCH (n {s: '\ud800'})"}`), "lone UTF-16 surrogate"},
		{"a resource", `{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":"goldfish://sessions/u\ud800"}}`, "lone UTF-16 surrogate"},
	}
	for _, m := range messages {
		for _, path := range []string{"/mcp", "stdin"} {
			var answer string
			if path == "/mcp" {
				status, _, head := postMCP(t, ts.URL, "", m.msg)
				if status != http.StatusBadRequest {
					t.Errorf("%s on %s: HTTP %d %s", m.name, path, status, head)
				}
				answer = head
			} else {
				answer = send(m.msg)
			}
			a := readRPC(t, answer)
			if a.Error == nil || a.Error.Code != -32700 || a.Error.Data.GQLStatus != "22G03" || !strings.Contains(a.Error.Message, m.want) {
				t.Errorf("%s on %s: %s", m.name, path, answer)
			}
		}
	}
	// The wording is /v1's.
	status, body := call(t, ts, "POST", "/v1/sessions/u/commit", "", `{"text": "INSERT (:A {s: 'e\ud800'})"}`)
	if m := decodeMap(t, body); status != 400 || m["gqlstatus"] != "22G03" || !strings.Contains(m["message"].(string), `escapes \ud800, a lone UTF-16 surrogate`) {
		t.Errorf("/v1: %d %s", status, body)
	}
	for _, info := range db.SessionInfos() {
		if info.Version != 0 {
			t.Errorf("a refused call was stored: %+v", info)
		}
	}
	// Pairs, escaped or not, pass on both.
	for i, path := range []string{"/mcp", "stdin"} {
		msg := toolCall("create_entities", `{"entities":[{"name":"ok`+string(rune('0'+i))+`","entityType":"T","observations":["\ud83d\ude00 `+"\xf0\x9f\x98\x80"+`"]}]}`)
		var answer string
		if path == "/mcp" {
			_, _, answer = postMCP(t, ts.URL, "", msg)
		} else {
			answer = send(msg)
		}
		if a := readRPC(t, answer); a.Result == nil || a.Result.IsError {
			t.Errorf("a pair on %s: %s", path, answer)
		}
	}
	s, err := db.Session(context.Background(), server.DefaultMemorySession)
	if err != nil {
		t.Fatal(err)
	}
	if d := s.Dump(); strings.Contains(d, "\ufffd") || strings.Count(d, "😀 😀") != 2 {
		t.Errorf("the memory holds:\n%s", d)
	}
}

// TestKeysStrict: /v1 refuses a key given twice (encoding/json keeps the
// last), a key that differs from a field's name by case alone (it
// matches names whatever their case), an unknown key and null for a
// field the endpoint needs (it leaves it empty: a Commit of nothing
// answered 200), with 22Q06, a hint naming the field and its place in
// the body; /mcp and standard input refuse a key given twice in a
// message, and every tool an argument named in another case.
func TestKeysStrict(t *testing.T) {
	db, srv, ts := newServer(t, server.Options{})
	refused := []struct {
		name, verb, body, want string
	}{
		{"text twice", "commit", `{"text": "INSERT (:A {n: 1})", "text": "INSERT (:A {n: 2})"}`, `"text" appears twice`},
		{"text as TEXT", "commit", `{"TEXT": "INSERT (:A)"}`, `"TEXT" is spelled "text"`},
		{"text as Text beside text", "commit", `{"text": "INSERT (:A)", "Text": "INSERT (:B)"}`, `"Text" is spelled "text"`},
		{"an escaped twin", "commit", `{"text": "INSERT (:A)", "te\u0078t": "INSERT (:B)"}`, `"text" appears twice`},
		{"null text", "commit", `{"text": null}`, `"text" is null`},
		{"null q", "recall", `{"q": null}`, `"q" is null`},
		{"q as Q", "recall", `{"Q": "MATCH (n)"}`, `"Q" is spelled "q"`},
		{"an option in another case", "recall", `{"q": "MATCH (n)", "options": {"m": 3}}`, `"options.m" is spelled "M"`},
		{"k as K", "recall", `{"q": "MATCH (n)", "options": {"K": 0}}`, `"options.K" is spelled "k"`},
		{"an option twice", "recall", `{"q": "MATCH (n)", "options": {"M": 3, "M": 300}}`, `"options.M" appears twice`},
		{"rows twice", "recall", `{"q": "MATCH (n)", "options": {"rows": true, "rows": false}}`, `"options.rows" appears twice`},
		{"a parameter twice", "commit", `{"text": "INSERT (:A {n: $n})", "params": {"n": 1, "n": 2}}`, `"params.n" appears twice`},
		{"a date twice", "commit", `{"text": "INSERT (:A {d: $d})", "params": {"d": {"date": "2026-01-01", "date": "2026-02-02"}}}`, `"params.d.date" appears twice`},
		{"an unknown field", "commit", `{"text": "INSERT (:A)", "txt": 1}`, `"txt" is not one the endpoint takes`},
		{"slice as SLICE", "absorb", `{"SLICE": "", "policy": "keep"}`, `"SLICE" is spelled "slice"`},
		{"null policy", "absorb", `{"slice": "", "policy": null}`, `"policy" is null`},
		{"an export option in another case", "export", `{"q": "MATCH (n)", "options": {"l": 1}}`, `"options.l" is spelled "L"`},
		{"a setting twice", "settings", `{"decay": 0.5, "decay": 0.9}`, `"decay" appears twice`},
	}
	for _, c := range refused {
		status, body := call(t, ts, "POST", "/v1/sessions/u/"+c.verb, "", c.body)
		m := decodeMap(t, body)
		if status != 400 || m["gqlstatus"] != "22Q06" || !strings.Contains(m["message"].(string), c.want) || m["hint"] == "" || m["line"] != float64(1) {
			t.Errorf("%s: %d %s, want 400 22Q06 %s", c.name, status, body, c.want)
		}
	}
	for _, info := range db.SessionInfos() {
		if info.Version != 0 {
			t.Errorf("a refused body was applied: %+v", info)
		}
	}
	// What the fields say passes: null for an optional field is the field
	// left out, k's null its default.
	for _, c := range []struct{ verb, body string }{
		{"commit", `{"text": "INSERT (:A {nick: 'a'})", "agent": null, "params": null}`},
		{"recall", `{"q": "MATCH (n)", "options": {"k": null, "M": 5, "rows": true}, "agent": null}`},
		{"commit", `{"text": "INSERT (:A {d: $d})", "params": {"d": {"date": "2026-01-01"}, "e": [{"date": "2026-01-01"}, {"date": "2026-01-02"}]}}`},
	} {
		if status, body := call(t, ts, "POST", "/v1/sessions/u/"+c.verb, "", c.body); status != 200 {
			t.Errorf("%s: %d %s", c.body, status, body)
		}
	}

	// MCP: a key twice in the message, on /mcp and standard input, is a
	// JSON-RPC error; an argument in another case a tool's refusal.
	send := stdioLines(t, srv)
	twice := toolCall("commit", `{"session":"u","text":"INSERT (:A {n: 1})","text":"INSERT (:A {n: 2})"}`)
	_, _, head := postMCP(t, ts.URL, "", twice)
	for path, answer := range map[string]string{"/mcp": head, "stdin": send(twice)} {
		if a := readRPC(t, answer); a.Error == nil || a.Error.Code != -32600 || a.Error.Data.GQLStatus != "22Q06" ||
			!strings.Contains(a.Error.Message, `"params.arguments.text" appears twice`) {
			t.Errorf("a key twice on %s: %s", path, answer)
		}
	}
	cs := connect(t, srv)
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"commit", map[string]any{"session": "u", "TEXT": "INSERT (:A)"}, `"TEXT" of commit is spelled "text"`},
		{"recall", map[string]any{"q": "MATCH (n)", "options": map[string]any{"m": 3}}, `"options.m" of recall is spelled "M"`},
		{"create_entities", map[string]any{"entities": []any{map[string]any{"name": "a", "Name": "b", "entityType": "T", "observations": []any{}}}},
			`"entities[0].Name" of create_entities is spelled "name"`},
		{"open_nodes", map[string]any{"Names": []any{"a"}}, `"Names" of open_nodes is spelled "names"`},
		{"commit", map[string]any{"session": "u", "text": nil}, "GQLSTATUS 22Q06: the arguments of commit do not fit its input schema"},
	} {
		if text, _ := callTool(t, cs, c.tool, c.args, true); !strings.Contains(text, c.want) {
			t.Errorf("%s %v: %s, want %s", c.tool, c.args, text, c.want)
		}
	}
	// The memory tools still take another property, as the original does.
	callTool(t, cs, "create_entities", map[string]any{"entities": []any{map[string]any{"name": "c", "entityType": "T", "observations": []any{}, "note": "x"}}}, false)
	if s, _ := db.Session(context.Background(), "u"); s.Version() != 2 {
		t.Errorf("session u at version %d, want 2 (the two Commits that passed)", s.Version())
	}
}

// TestUnparsableBodies: a body that is not one JSON-RPC message is
// answered, on /mcp, with a JSON-RPC error in JSON (the SDK's refusals
// were plain text), a byte order mark included, which /v1 and standard
// input refuse alike.
func TestUnparsableBodies(t *testing.T) {
	_, srv, ts := newServer(t, server.Options{})
	send := stdioLines(t, srv)
	bom := "\xef\xbb\xbf" + toolCall("sessions", `{}`)
	status, body := call(t, ts, "POST", "/v1/sessions/u/commit", "", "\xef\xbb\xbf"+`{"text": "INSERT (:A)"}`)
	if m := decodeMap(t, body); status != 400 || m["gqlstatus"] != "22Q06" || !strings.Contains(m["message"].(string), "byte order mark") {
		t.Errorf("/v1, a BOM: %d %s", status, body)
	}
	if a := readRPC(t, send(bom)); a.Error == nil || a.Error.Code != -32700 || a.Error.Data.GQLStatus != "22Q06" || !strings.Contains(a.Error.Message, "byte order mark") {
		t.Errorf("stdin, a BOM: %+v", a.Error)
	}
	for _, c := range []struct {
		name, method, ctype, body string
		status, code              int
		want                      string
	}{
		{"a BOM", "POST", "application/json", bom, 400, -32700, "byte order mark"},
		{"not JSON", "POST", "application/json", `{"jsonrpc":`, 400, -32700, "not JSON"},
		{"an empty object", "POST", "application/json", `{}`, 400, -32600, "malformed payload"},
		{"a string", "POST", "application/json", `"x"`, 400, -32600, "malformed payload"},
		{"another content type", "POST", "text/plain", toolCall("sessions", `{}`), 415, -32600, "Content-Type"},
		{"a GET", "GET", "", "", 405, -32600, "Method Not Allowed"},
		{"a DELETE", "DELETE", "", "", 405, -32600, "Method Not Allowed"},
	} {
		req, err := http.NewRequest(c.method, ts.URL+"/mcp", strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		if c.ctype != "" {
			req.Header.Set("Content-Type", c.ctype)
		}
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.status || resp.Header.Get("Content-Type") != "application/json" {
			t.Errorf("%s: HTTP %d %q %s", c.name, resp.StatusCode, resp.Header.Get("Content-Type"), b)
			continue
		}
		if a := readRPC(t, string(b)); a.Error == nil || a.Error.Code != c.code || a.Error.Data.GQLStatus == "" || !strings.Contains(a.Error.Message, c.want) {
			t.Errorf("%s: %s", c.name, b)
		}
	}
	if status, _, head := postMCP(t, ts.URL, "", toolCall("sessions", `{}`)); status != 200 {
		t.Errorf("a call after the refusals: %d %s", status, head)
	}
}
