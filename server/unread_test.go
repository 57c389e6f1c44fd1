package server_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/goldfish-gql/goldfish/server"
)

// TestRefusedBodyUnread: a request refused for its token (none, one the
// server does not hold, one without the session), or for its path, is
// answered before a byte of its body is read, and its connection closed:
// a client that drips its body holds nothing. (The server used to read
// what was left of it first, up to 256 KiB, until the read timeout.) A
// refusal after the body was read keeps the connection.
func TestRefusedBodyUnread(t *testing.T) {
	tokens, toks := tokenSet(t, map[string][2]string{"other": {"", "other"}, "reader": {"u", ""}, "writer": {"", "u"}})
	_, _, ts := newServer(t, server.Options{Tokens: tokens})
	addr := ts.Listener.Addr().String()
	cases := []struct {
		name, path, token, framing string
		status                     int
	}{
		{"no token", "/v1/sessions/u/commit", "", "length", 401},
		{"a token the server does not hold", "/v1/sessions/u/commit", "gf_nope", "length", 401},
		{"no token, chunked", "/v1/sessions/u/recall", "", "chunked", 401},
		{"no token on /mcp", "/mcp", "", "length", 403},
		{"a bad token on /mcp, chunked", "/mcp", "gf_nope", "chunked", 403},
		{"a token without the session", "/v1/sessions/u/commit", toks["other"], "length", 403},
		{"a token that may only read", "/v1/sessions/u/commit", toks["reader"], "chunked", 403},
		{"a token without the session, export", "/v1/sessions/u/export", toks["other"], "length", 403},
		{"a token without the session, absorb", "/v1/sessions/u/absorb", toks["reader"], "length", 403},
		{"a token without the session, settings", "/v1/sessions/u/settings", toks["reader"], "length", 403},
		{"no such endpoint", "/v1/nothing", toks["other"], "length", 404},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			// A guard, not a measure: the server used to wait here for
			// the rest of the body.
			conn.SetDeadline(time.Now().Add(10 * time.Second))
			head := fmt.Sprintf("POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n", c.path, addr)
			if c.token != "" {
				head += "Authorization: Bearer " + c.token + "\r\n"
			}
			if c.framing == "chunked" {
				head += "Transfer-Encoding: chunked\r\n\r\n5\r\n{\"te\r\n" // the first chunk of many
			} else {
				head += "Content-Length: 100000\r\n\r\n{\"te" // the first bytes of many
			}
			if _, err := io.WriteString(conn, head); err != nil {
				t.Fatal(err)
			}
			br := bufio.NewReader(conn)
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatalf("no answer while the body drips: %v", err)
			}
			b, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			var e struct {
				GQLStatus string `json:"gqlstatus"`
			}
			if err != nil || resp.StatusCode != c.status || json.Unmarshal(b, &e) != nil || e.GQLStatus == "" || !resp.Close {
				t.Fatalf("HTTP %d (close %v) %s %v", resp.StatusCode, resp.Close, b, err)
			}
			if n, err := br.Read(make([]byte, 1)); n != 0 || err != io.EOF {
				t.Errorf("after the answer the connection is open: %d %v", n, err)
			}
		})
	}

	// A refusal of a body read whole keeps its connection.
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(conn)
	for i, body := range []string{`{"text": null}`, `{"text": "INSERT (:A)"}`} {
		fmt.Fprintf(conn, "POST /v1/sessions/u/commit HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Length: %d\r\n\r\n%s", addr, toks["writer"], len(body), body)
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("request %d on one connection: %v", i+1, err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if want := []int{http.StatusBadRequest, http.StatusOK}[i]; resp.StatusCode != want || resp.Close {
			t.Errorf("request %d: HTTP %d, close %v", i+1, resp.StatusCode, resp.Close)
		}
	}
}
