package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

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

// TestMCPStdioBudget: on standard input, one line is one message and one
// budget, as one POST is on /mcp. A JSON-RPC batch is refused with one
// small error, whichever protocol version the client negotiated (the
// 2025-06-18 specification removed batches); a line over the 4 MiB frame
// is refused with 22Q07 for its id, unread; and the connection serves the
// next line after both.
func TestMCPStdioBudget(t *testing.T) {
	for _, version := range []string{"2025-03-26", "2025-06-18"} {
		t.Run(version, func(t *testing.T) {
			cmd := exec.Command(gqlshBinary(t), "mcp", "--mem")
			cmd.Env = processEnvFor(t)
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { stdin.Close(); cmd.Process.Kill(); cmd.Wait() }()
			var in bytes.Buffer
			fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n", version)
			in.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
			in.WriteByte('[')
			for i := range 2000 {
				if i > 0 {
					in.WriteByte(',')
				}
				fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, i+1)
			}
			in.WriteString("]\n")
			fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":5000,"method":"tools/call","params":{"name":"search_nodes","arguments":{"query":"%s"}}}`+"\n", strings.Repeat("x", 5<<20))
			in.WriteString(`{"jsonrpc":"2.0","id":9000,"method":"tools/list"}` + "\n")
			go func() { stdin.Write(in.Bytes()) }()

			type line struct {
				ID    any `json:"id"`
				Error *struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
					Data    struct {
						GQLStatus string `json:"gqlstatus"`
					} `json:"data"`
				} `json:"error"`
			}
			var total int64
			var lines []string
			seen := 0
			done := make(chan error, 1)
			go func() {
				r := bufio.NewReaderSize(stdout, 64<<10)
				var cur []byte
				for {
					chunk, err := r.ReadSlice('\n')
					total += int64(len(chunk))
					if len(cur) < 64<<10 {
						cur = append(cur, chunk[:min(len(chunk), 64<<10)]...)
					}
					if err == bufio.ErrBufferFull {
						continue
					}
					if err != nil {
						done <- err
						return
					}
					lines = append(lines, string(cur))
					cur = nil
					// The answers to the last three lines, in any order.
					switch l := lines[len(lines)-1]; {
					case strings.HasPrefix(l, "["), strings.Contains(l, `"id":null`):
						seen |= 1
					case strings.Contains(l, `"id":5000`):
						seen |= 2
					case strings.Contains(l, `"id":9000`):
						seen |= 4
					}
					if seen == 7 {
						done <- nil
						return
					}
				}
			}()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("the output ended (%v) before the last answer", err)
				}
			case <-time.After(60 * time.Second):
				cmd.Process.Kill()
				<-done
				t.Errorf("no answer to the last line in 60 s")
			}
			t.Logf("%d lines, %d bytes of answers", len(lines), total)
			if total > 1<<20 {
				t.Errorf("the answers are %d bytes", total)
			}
			var batch, frame, last bool
			for _, l := range lines {
				var m line
				json.Unmarshal([]byte(l), &m)
				switch {
				case m.Error != nil && m.ID == nil && m.Error.Code == -32600 && strings.Contains(m.Error.Message, "batch"):
					batch = true
				case m.Error != nil && m.ID == float64(5000) && m.Error.Data.GQLStatus == "22Q07":
					frame = true
				case m.ID == float64(9000) && m.Error == nil:
					last = true
				}
			}
			if !batch || !frame || !last {
				t.Errorf("batch refused %v, over-frame line refused %v, next line served %v:\n%.2000s", batch, frame, last, strings.Join(lines, ""))
			}
		})
	}
}
