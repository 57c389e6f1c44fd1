// Package client is the Go client of a goldfish server's HTTP API
// (gqlsh serve, or the loopback listener of gqlsh mcp). Its Session has
// the calls of the root package's Session and answers with package
// values' types, which the root package's are aliases of, so a program
// (and gqlsh --url, through package repl) reads and writes a server's
// sessions as it does an embedded database's, without linking the
// engine: it imports the wire format (package wire), the values, the
// GQLSTATUS codes and the parser.
//
// Statements are parsed and planned on the server, where they run.
// Prepare and IsRecall, which read no session, run here on the parser
// alone, as the shell has them run before it sends a statement: they
// tell a Recall from a Commit and report a syntax error with its place;
// a text that parses but that the planner refuses is refused by the
// server when it is sent.
//
// # Errors
//
// Every error a call returns holds a *gqlstatus.Error (errors.As finds
// it), and tells whose it is by its type:
//
//   - *Refusal: the server answered with its error object. The call
//     reached the server, which refused it (a syntax error, a nick
//     taken, a token without the session, …); Refusal.Status is the
//     HTTP status, and the error is positioned in the text that was
//     sent. A session dropped under the call (409, 42002) has
//     values.ErrDropped as its cause.
//   - *TransportError: no answer of the server's came. It could not be
//     reached (08000, nothing changed); the answer to a read was lost
//     (08000: try again) or to a write (40003: the write may have
//     applied, and the session's version says whether it did); the call
//     was stopped by its context (40000, or 40003 for a write already
//     sent); or what answered is not a goldfish server (40Q01,
//     TransportError.Status the HTTP status it gave): an answer not in
//     the form a goldfish server gives the call (not one JSON object,
//     a key the call's answer always holds missing or null, a value no
//     server writes), which is read not at all, or a redirect to
//     another origin, which is not followed.
//   - a *gqlstatus.Error alone: refused here, before any request (a
//     name that is no session's, a parameter JSON cannot carry).
//
// A Client and its Sessions are safe for concurrent use.
package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/values"
	"github.com/goldfish-gql/goldfish/wire"
)

// Options configure a Client.
type Options struct {
	// Token is sent as "Authorization: Bearer TOKEN" when set.
	Token string
	// HTTP makes the requests (nil: a client with a 5-minute timeout,
	// the longest a server's deadline is commonly set to). The client
	// makes them with a copy of it that follows a redirect only to the
	// server's own origin (see sameOrigin), then as its CheckRedirect
	// says.
	HTTP *http.Client
}

// Client is a connection to one server.
type Client struct {
	base string
	o    Options
}

// New returns a client of the server at rawURL (http://127.0.0.1:7717).
// It makes no request: Ping checks that the server answers.
func New(rawURL string, o Options) (*Client, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return nil, gqlstatus.Errorf(gqlstatus.InvalidOption, "%q is not a server's URL", rawURL).
			WithHint("give the address gqlsh serve prints, e.g. http://127.0.0.1:7717")
	}
	hc := http.Client{Timeout: 5 * time.Minute}
	if o.HTTP != nil {
		hc = *o.HTTP
	}
	hc.CheckRedirect = sameOrigin(u, hc.CheckRedirect)
	o.HTTP = &hc
	return &Client{base: strings.TrimSuffix(u.String(), "/"), o: o}, nil
}

// URL is the server's base URL.
func (c *Client) URL() string { return c.base }

// Close closes the client's idle connections; it leaves the server as
// it is. The client holds nothing else.
func (c *Client) Close() error {
	c.o.HTTP.CloseIdleConnections()
	return nil
}

// Ping checks that the server answers and that the token is accepted.
func (c *Client) Ping(ctx context.Context) error {
	_, err := c.SessionInfos(ctx)
	return err
}

// SessionInfos lists the sessions the token may read, sorted by name,
// from the server's catalogue.
func (c *Client) SessionInfos(ctx context.Context) ([]values.SessionInfo, error) {
	var list wire.Sessions
	if err := c.call(ctx, "GET", "/v1/sessions", nil, &list, ""); err != nil {
		return nil, err
	}
	out := make([]values.SessionInfo, len(list.Sessions))
	for i, s := range list.Sessions {
		out[i] = s.Value()
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

// Help returns the server's text of a help topic (GET /v1/help/TOPIC),
// the text goldfish.Help gives; a topic the server has none for is its
// refusal (42002, naming the topics).
func (c *Client) Help(ctx context.Context, topic string) (string, error) {
	var h wire.Help
	if err := c.call(ctx, "GET", "/v1/help/"+url.PathEscape(topic), nil, &h, ""); err != nil {
		return "", err
	}
	if h.Topic != topic {
		return "", c.notGoldfish("GET", "/v1/help/"+url.PathEscape(topic), http.StatusOK, fmt.Errorf("it is topic %q's", h.Topic))
	}
	return h.Text, nil
}

// SessionInfo is one session's version and counts; a session not made
// yet has version 0 (sessions are made on first use).
func (c *Client) SessionInfo(ctx context.Context, name string) (values.SessionInfo, error) {
	if err := values.ValidSessionName(name); err != nil {
		return values.SessionInfo{}, err
	}
	var s wire.Session
	if err := c.call(ctx, "GET", sessionPath(name, ""), nil, &s, ""); err != nil {
		return values.SessionInfo{}, err
	}
	if s.Name != name {
		return values.SessionInfo{}, c.notGoldfish("GET", sessionPath(name, ""), http.StatusOK, fmt.Errorf("it is session %q's", s.Name))
	}
	return s.Value(), nil
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
	if err := values.ValidSessionName(name); err != nil {
		return err
	}
	var out wire.Dropped
	return c.call(ctx, "DELETE", sessionPath(name, ""), nil, &out, "")
}

// Flush has the server write a compact snapshot of each session the
// token may write; it returns where they went (the server's cabinet; ""
// when it keeps them in memory).
func (c *Client) Flush(ctx context.Context) (string, error) {
	var out wire.Flush
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
		b, _ := io.ReadAll(io.LimitReader(resp.Body, wire.MaxFrame))
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

func sessionPath(name, verb string) string {
	p := "/v1/sessions/" + url.PathEscape(name)
	if verb != "" {
		p += "/" + verb
	}
	return p
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
		b, err := wire.Marshal(body)
		if err != nil {
			return gqlstatus.Errorf(gqlstatus.InvalidValueType, "cannot write the request as JSON: %v", err).
				WithHint("pass values JSON can carry")
		}
		buf = append(b, '\n')
	}
	resp, err := c.do(ctx, method, path, buf, write)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, wire.MaxFrame+1))
	if err != nil {
		return c.lost(err, write)
	}
	if resp.StatusCode != http.StatusOK {
		return c.refusal(method, path, resp.StatusCode, b, text)
	}
	if err := readAnswer(b, out); err != nil {
		return c.notGoldfish(method, path, resp.StatusCode, err)
	}
	return nil
}

// notGoldfish is the error of an answer that is not a goldfish server's:
// what answered at the address, and what is wrong with the answer.
func (c *Client) notGoldfish(method, path string, status int, err error) *TransportError {
	return &TransportError{Status: status, Err: gqlstatus.Errorf(gqlstatus.Internal, "%s %s: the answer of %s is not a goldfish server's: %v", method, path, c.base, err).
		WithHint("check that --url names a gqlsh serve; nothing was read from this answer")}
}

// do sends one request; an error is the failure to get an answer
// (a *TransportError).
func (c *Client) do(ctx context.Context, method, path string, body []byte, write bool) (*http.Response, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return nil, &TransportError{Err: gqlstatus.Errorf(gqlstatus.ConnectionException, "cannot make the request %s %s: %v", method, path, err)}
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.o.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.o.Token)
	}
	resp, err := c.o.HTTP.Do(req)
	if err != nil {
		var re *redirectError
		if errors.As(err, &re) {
			return nil, &TransportError{Status: re.status, Err: gqlstatus.Errorf(gqlstatus.Internal,
				"%s %s: the server at %s redirects (status %d) to %q, another server; the client follows no redirect off the server it was given, so the request was not sent there",
				method, path, c.base, re.status, re.to).
				WithHint("give --url the address the server answers at itself")}
		}
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
	var ge *gqlstatus.Error
	switch {
	case notSent:
		ge = &gqlstatus.Error{Code: gqlstatus.ConnectionException, Msg: fmt.Sprintf("cannot reach the server at %s: %v", c.base, op.Err),
			Hint: "start it (gqlsh serve), or check --url", Cause: err}
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		if write {
			ge = &gqlstatus.Error{Code: gqlstatus.CompletionUnknown, Msg: "the call was stopped after it was sent: the server may have applied it",
				Hint: ":sessions shows the session's version, which says whether it did", Cause: err}
		} else {
			ge = &gqlstatus.Error{Code: gqlstatus.Rollback, Msg: "the call was stopped: " + err.Error(), Cause: err}
		}
	case write:
		ge = &gqlstatus.Error{Code: gqlstatus.CompletionUnknown, Msg: fmt.Sprintf("the answer of the server at %s was lost: %v; the server may have applied the call", c.base, err),
			Hint: ":sessions shows the session's version, which says whether it did", Cause: err}
	default:
		ge = &gqlstatus.Error{Code: gqlstatus.ConnectionException, Msg: fmt.Sprintf("the answer of the server at %s was lost: %v", c.base, err),
			Hint: "try again; check that the server still runs", Cause: err}
	}
	return &TransportError{Err: ge}
}

// refusal is the error of an answer that is not 200 OK: the server's
// refusal, positioned in text, or, when the answer is not the server's
// error object, a transport error naming what answered.
func (c *Client) refusal(method, path string, status int, b []byte, text string) error {
	e, ok := wire.ReadError(b)
	if !ok || !validCode(e.GQLStatus) || e.Line < 0 || e.Column < 0 || e.Statement < 0 {
		return &TransportError{Status: status, Err: gqlstatus.Errorf(gqlstatus.Internal, "%s %s%s: status %d: %s", method, c.base, path, status, excerpt(b)).
			WithHint("check that --url names a gqlsh serve")}
	}
	ge := e.GQLError(status)
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
	return &Refusal{Err: ge, Status: status, Caret: e.Caret}
}

// excerpt is the start of an answer that is not goldfish's, for an error
// message: its first line, at most 200 bytes.
func excerpt(b []byte) string {
	s := strings.TrimSpace(string(b))
	line, _, cut := strings.Cut(s, "\n")
	if len(line) > 200 {
		line, cut = strings.ToValidUTF8(line[:200], ""), true
	}
	if cut {
		line += " …"
	}
	return line
}
