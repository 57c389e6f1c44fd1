package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestCappedWriter: an answer to /mcp over the frame is replaced by a 413
// JSON-RPC error for the request's id, and at most the frame of it is
// held; an answer under the frame is sent as written; an event stream
// passes through and stops at the frame.
func TestCappedWriter(t *testing.T) {
	request := []byte(`{"jsonrpc":"2.0","id":"call-9","method":"tools/list"}`)
	big := bytes.Repeat([]byte("x"), 1<<20)
	rec := httptest.NewRecorder()
	cw := &cappedWriter{w: rec}
	cw.Header().Set("Content-Type", "application/json")
	cw.WriteHeader(http.StatusOK)
	var err error
	for i := 0; i < 6 && err == nil; i++ {
		_, err = cw.Write(big)
	}
	if err != errAnswerFrame || cw.buf.Len() > MaxFrame {
		t.Errorf("writing 6 MiB: %v, %d bytes held", err, cw.buf.Len())
	}
	cw.finish(request)
	var m struct {
		ID    any `json:"id"`
		Error struct {
			Code int             `json:"code"`
			Data json.RawMessage `json:"data"`
		} `json:"error"`
	}
	if rec.Code != http.StatusRequestEntityTooLarge || json.Unmarshal(rec.Body.Bytes(), &m) != nil || m.ID != "call-9" ||
		m.Error.Code != codeAnswerFrame || !strings.Contains(string(m.Error.Data), `"22Q07"`) {
		t.Errorf("an answer over the frame: %d %.300s", rec.Code, rec.Body.String())
	}

	rec = httptest.NewRecorder()
	cw = &cappedWriter{w: rec}
	cw.Header().Set("Content-Type", "application/json")
	cw.Write([]byte(`{"ok":true}`))
	if rec.Body.Len() != 0 {
		t.Error("a JSON answer was sent before the handler returned")
	}
	cw.finish(request)
	if rec.Code != 200 || rec.Body.String() != `{"ok":true}` || rec.Header().Get("Content-Type") != "application/json" {
		t.Errorf("an answer under the frame: %d %q", rec.Code, rec.Body.String())
	}

	rec = httptest.NewRecorder()
	cw = &cappedWriter{w: rec}
	cw.Header().Set("Content-Type", "text/event-stream")
	cw.WriteHeader(http.StatusOK)
	cw.Write([]byte("data: 1\n\n"))
	cw.Flush()
	if rec.Body.String() != "data: 1\n\n" || !rec.Flushed {
		t.Errorf("an event stream is held: %q", rec.Body.String())
	}
	for err = nil; err == nil; _, err = cw.Write(big) {
	}
	if rec.Body.Len() > MaxFrame {
		t.Errorf("an event stream of %d bytes", rec.Body.Len())
	}
}

// TestStdioConn: on standard input, a line is refused without ending the
// connection (a batch, a line over the frame, one that is not JSON-RPC),
// and an answer over the frame is replaced by its refusal.
func TestStdioConn(t *testing.T) {
	s := &Server{opts: Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}}
	var in bytes.Buffer
	in.WriteString(`[{"jsonrpc":"2.0","id":1,"method":"ping"}]` + "\n")
	in.WriteString(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"q":"` + strings.Repeat("y", MaxFrame) + `"}}` + "\n")
	in.WriteString("not json\n")
	in.WriteString(`{"jsonrpc":"1.0","id":3,"method":"ping"}` + "\n")
	in.WriteString("\n" + `{"jsonrpc":"2.0","id":4,"method":"ping"}`) // the last line needs no newline
	var out bytes.Buffer
	conn, err := s.StdioTransport(&in, &out).Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	msg, err := conn.Read(context.Background())
	if req, ok := msg.(*jsonrpc.Request); err != nil || !ok || req.Method != "ping" || req.ID.Raw() != int64(4) {
		t.Fatalf("the line after the refused ones: %#v %v", msg, err)
	}
	if _, err := conn.Read(context.Background()); err != io.EOF {
		t.Errorf("at the end of input: %v", err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	want := []string{`"id":null,"error":{"code":-32600,"message":"GQLSTATUS 22Q07: a JSON-RPC batch is refused`,
		`"id":2,"error":{"code":-32600,"message":"GQLSTATUS 22Q07: the message is over the 4 MiB frame budget`,
		`"id":null,"error":{"code":-32700,`, `"id":3,"error":{"code":-32600,`}
	if len(lines) != len(want) {
		t.Fatalf("%d refusals:\n%s", len(lines), out.String())
	}
	for i, w := range want {
		if !strings.Contains(lines[i], w) {
			t.Errorf("refusal %d: %s, want %s", i, lines[i], w)
		}
	}

	out.Reset()
	id, _ := jsonrpc.MakeID(float64(5))
	huge, _ := json.Marshal(map[string]string{"text": strings.Repeat("z", MaxFrame)})
	if err := conn.Write(context.Background(), &jsonrpc.Response{ID: id, Result: huge}); err != nil {
		t.Fatal(err)
	}
	if out.Len() > 4<<10 || !strings.Contains(out.String(), `"id":5,"error":{"code":-32001,"message":"GQLSTATUS 22Q07: the answer is over`) {
		t.Errorf("an answer over the frame: %.300s", out.String())
	}
	conn.Close()
}
