// Package client is the Go client of a goldfish server's HTTP API
// (gqlsh serve, or the loopback listener of gqlsh mcp). Its Session has
// the calls of the root package's Session and answers with the root
// package's types, so a program (and gqlsh --url, through package repl)
// reads and writes a server's sessions as it does an embedded
// database's.
//
// Statements are parsed and planned on the server, where they run;
// Prepare and IsRecall, which read no session, run here, on a scratch
// database in memory, as the shell has them run before it sends a
// statement. A refusal of the server comes back as the *gqlstatus.Error
// it carries, positioned in the text that was sent; a server that cannot
// be reached is 08000, and a write whose answer was lost on the way (the
// connection broke, the call was cancelled after it was sent) is 40003:
// it may have applied, and the session's version says whether it did.
// A Client and its Sessions are safe for concurrent use.
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/server"
)

// Options configure a Client.
type Options struct {
	// Token is sent as "Authorization: Bearer TOKEN" when set.
	Token string
	// HTTP makes the requests (nil: a client with a 5-minute timeout,
	// the longest a server's deadline is commonly set to).
	HTTP *http.Client
}

// Client is a connection to one server.
type Client struct {
	base string
	o    Options

	mu      sync.Mutex
	scratch *goldfish.DB // parses and plans (opened on first use)
}

// New returns a client of the server at rawURL (http://127.0.0.1:7717).
// It makes no request: Ping checks that the server answers.
func New(rawURL string, o Options) (*Client, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return nil, gqlstatus.Errorf(gqlstatus.InvalidOption, "%q is not a server's URL", rawURL).
			WithHint("give the address gqlsh serve prints, e.g. http://127.0.0.1:7717")
	}
	if o.HTTP == nil {
		o.HTTP = &http.Client{Timeout: 5 * time.Minute}
	}
	return &Client{base: strings.TrimSuffix(u.String(), "/"), o: o}, nil
}

// URL is the server's base URL.
func (c *Client) URL() string { return c.base }

// Close releases what the client holds here (its scratch database); it
// leaves the server as it is.
func (c *Client) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.scratch == nil {
		return nil
	}
	err := c.scratch.Close()
	c.scratch = nil
	return err
}

// Ping checks that the server answers and that the token is accepted.
func (c *Client) Ping(ctx context.Context) error {
	_, err := c.SessionInfos(ctx)
	return err
}

// SessionInfos lists the sessions the token may read, sorted by name,
// from the server's catalogue.
func (c *Client) SessionInfos(ctx context.Context) ([]goldfish.SessionInfo, error) {
	var list server.SessionsJSON
	if err := c.call(ctx, "GET", "/v1/sessions", nil, &list, ""); err != nil {
		return nil, err
	}
	out := make([]goldfish.SessionInfo, len(list.Sessions))
	for i, s := range list.Sessions {
		out[i] = sessionInfo(s)
	}
	return out, nil
}

// Sessions lists the names of the sessions the token may read.
func (c *Client) Sessions(ctx context.Context) ([]string, error) {
	infos, err := c.SessionInfos(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(infos))
	for i, in := range infos {
		out[i] = in.Name
	}
	return out, nil
}

// SessionInfo is one session's version and counts; a session not made
// yet has version 0 (sessions are made on first use).
func (c *Client) SessionInfo(ctx context.Context, name string) (goldfish.SessionInfo, error) {
	if err := goldfish.ValidSessionName(name); err != nil {
		return goldfish.SessionInfo{}, err
	}
	var s server.SessionJSON
	if err := c.call(ctx, "GET", sessionPath(name, ""), nil, &s, ""); err != nil {
		return goldfish.SessionInfo{}, err
	}
	return sessionInfo(s), nil
}

// Session returns session name, checking that the token may read it.
func (c *Client) Session(ctx context.Context, name string) (*Session, error) {
	in, err := c.SessionInfo(ctx, name)
	if err != nil {
		return nil, err
	}
	s := &Session{c: c, name: name}
	s.seen(in.Version)
	return s, nil
}

// Drop deletes session name for good.
func (c *Client) Drop(ctx context.Context, name string) error {
	if err := goldfish.ValidSessionName(name); err != nil {
		return err
	}
	var out server.DroppedJSON
	return c.call(ctx, "DELETE", sessionPath(name, ""), nil, &out, "")
}

// Flush has the server write a compact snapshot of each session the
// token may write; it returns where they went (the server's cabinet; ""
// when it keeps them in memory).
func (c *Client) Flush(ctx context.Context) (string, error) {
	var out server.FlushJSON
	err := c.call(ctx, "POST", "/v1/flush", struct{}{}, &out, "")
	return out.Cabinet, err
}

// Backup writes a consistent copy of the server's cabinet file to w (a
// token that may read every session may take it).
func (c *Client) Backup(ctx context.Context, w io.Writer) (int64, error) {
	resp, err := c.do(ctx, "GET", "/v1/backup", nil, false)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, server.MaxFrame))
		return 0, c.refusal("GET", "/v1/backup", resp.StatusCode, b, "")
	}
	n, err := io.Copy(w, resp.Body)
	if err != nil {
		return n, c.lost(err, false)
	}
	if resp.ContentLength >= 0 && n != resp.ContentLength {
		return n, c.lost(fmt.Errorf("the copy ended after %d of %d bytes", n, resp.ContentLength), false)
	}
	return n, nil
}

// scratchSession is a session of the scratch database, where statements
// are parsed and planned (which reads no session).
func (c *Client) scratchSession(name string) (*goldfish.Session, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.scratch == nil {
		db, err := goldfish.Open()
		if err != nil {
			return nil, err
		}
		c.scratch = db
	}
	return c.scratch.Session(context.Background(), name)
}

func sessionPath(name, verb string) string {
	p := "/v1/sessions/" + url.PathEscape(name)
	if verb != "" {
		p += "/" + verb
	}
	return p
}

func sessionInfo(s server.SessionJSON) goldfish.SessionInfo {
	in := goldfish.SessionInfo{Name: s.Name, Version: s.Version, Nodes: s.Nodes, Edges: s.Edges, Recycled: s.Recycled, Persisted: s.Version > 0}
	if s.LastCommit != nil {
		in.LastCommit = *s.LastCommit
	}
	for _, k := range slices.Sorted(maps.Keys(s.Kinds)) {
		in.Kinds = append(in.Kinds, goldfish.KindCount{Kind: k, Count: s.Kinds[k]})
	}
	return in
}

// call sends one request with body as JSON (nil: none) and decodes the
// answer into out. text is the GQL text the request carries, which a
// refusal's position points into ("" for none).
func (c *Client) call(ctx context.Context, method, path string, body, out any, text string) error {
	return c.send(ctx, method, path, body, out, text, method != "GET")
}

// query is call for a POST that changes nothing (a Recall, an export):
// an answer lost on the way is a connection failure to retry (08000), not
// a write of unknown outcome.
func (c *Client) query(ctx context.Context, path string, body, out any, text string) error {
	return c.send(ctx, "POST", path, body, out, text, false)
}

// send is call with whether the request writes, which decides what a lost
// answer means.
func (c *Client) send(ctx context.Context, method, path string, body, out any, text string, write bool) error {
	var buf []byte
	if body != nil {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(body); err != nil {
			return err
		}
		buf = b.Bytes()
	}
	resp, err := c.do(ctx, method, path, buf, write)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, server.MaxFrame+1))
	if err != nil {
		return c.lost(err, write)
	}
	if resp.StatusCode != http.StatusOK {
		return c.refusal(method, path, resp.StatusCode, b, text)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(out); err != nil {
		return gqlstatus.Errorf(gqlstatus.Internal, "%s %s: the answer of %s is not the JSON goldfish answers: %v", method, path, c.base, err).
			WithHint("check that --url names a gqlsh serve")
	}
	return nil
}

// do sends one request; an error is the failure to get an answer, made a
// GQLSTATUS error (connect, or lost).
func (c *Client) do(ctx context.Context, method, path string, body []byte, write bool) (*http.Response, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.o.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.o.Token)
	}
	resp, err := c.o.HTTP.Do(req)
	if err != nil {
		return nil, c.lost(err, write)
	}
	return resp, nil
}

// lost is the error of a request that got no (whole) answer: the server
// could not be reached, which changed nothing, or the answer to a write
// was lost after it was sent, which leaves the outcome unknown.
func (c *Client) lost(err error, write bool) error {
	var op *net.OpError
	notSent := errors.As(err, &op) && op.Op == "dial"
	switch {
	case notSent:
		return &gqlstatus.Error{Code: gqlstatus.ConnectionException, Msg: fmt.Sprintf("cannot reach the server at %s: %v", c.base, op.Err),
			Hint: "start it (gqlsh serve), or check --url", Cause: err}
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		if write {
			return &gqlstatus.Error{Code: gqlstatus.CompletionUnknown, Msg: "the call was stopped after it was sent: the server may have applied it",
				Hint: ":sessions shows the session's version, which says whether it did", Cause: err}
		}
		return &gqlstatus.Error{Code: gqlstatus.Rollback, Msg: "the call was stopped: " + err.Error(), Cause: err}
	case write:
		return &gqlstatus.Error{Code: gqlstatus.CompletionUnknown, Msg: fmt.Sprintf("the answer of the server at %s was lost: %v; the server may have applied the call", c.base, err),
			Hint: ":sessions shows the session's version, which says whether it did", Cause: err}
	}
	return &gqlstatus.Error{Code: gqlstatus.ConnectionException, Msg: fmt.Sprintf("the answer of the server at %s was lost: %v", c.base, err),
		Hint: "try again; check that the server still runs", Cause: err}
}

// refusal is the error the server answered with, positioned in text.
func (c *Client) refusal(method, path string, status int, b []byte, text string) error {
	var ej server.ErrorJSON
	if err := json.Unmarshal(b, &ej); err != nil || ej.GQLStatus == "" {
		return gqlstatus.Errorf(gqlstatus.Internal, "%s %s%s: status %d: %s", method, c.base, path, status, strings.TrimSpace(string(b))).
			WithHint("check that --url names a gqlsh serve")
	}
	ge := &gqlstatus.Error{Code: gqlstatus.Code(ej.GQLStatus), Msg: ej.Message, Hint: ej.Hint, Stmt: ej.Statement,
		Pos: gqlstatus.Pos{Line: ej.Line, Col: ej.Column}}
	if status == http.StatusUnauthorized {
		// The server's hint speaks of HTTP headers; the caller gives a token.
		ge.Hint = "give a token of the server's tokens file (gqlsh --token or $GOLDFISH_TOKEN; Options.Token in Go)"
	}
	if ge.Pos.Line > 0 {
		lines := strings.Split(text, "\n")
		if ge.Pos.Line <= len(lines) {
			ge.Line = strings.TrimSuffix(lines[ge.Pos.Line-1], "\r")
		}
	}
	return ge
}
