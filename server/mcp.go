package server

import (
	"bytes"
	"context"
	"io"
	"net/http"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/wire"
)

// RecallArgs are the recall tool's arguments. Every one but q may be
// left out or empty ("", 0, [], false): empty takes the default. An
// empty agent is the connection's own (connectionAgent): an unbound
// token's recall and commit on an MCP connection that names no agent
// act as "mcp-" and 12 hex digits, so every client hears what an agent
// hears; the first read's note names it.
type RecallArgs struct {
	Session string              `json:"session,omitempty" jsonschema:"the session to read (empty: the default session); the sessions tool lists them"`
	Q       string              `json:"q" jsonschema:"a GQL MATCH of the nodes to start from: MATCH (n {nick: 'alice'}); MATCH (t:TSK {status: 'open'}) LIMIT 4; keyword search: MATCH (n) WHERE n CONTAINS 'login'; MATCH () for an outline of the session"`
	Params  ToolParams          `json:"params,omitempty" jsonschema:"values of the $parameters q uses, one {name, value} each (empty: none)"`
	Options wire.RecallSettings `json:"options,omitempty" jsonschema:"limits of this read; 0 or empty takes the default, but k 0 reads the starting nodes alone"`
	Agent   string              `json:"agent,omitempty" jsonschema:"your name as a reader: the answer then notes what changed since your last read (empty: this connection's own name, mcp-…, which your first read names; name yourself to keep your name across reconnects)"`
	// AtVersion is wire.RecallRequest's.
	AtVersion uint64 `json:"at_version,omitempty" jsonschema:"read the session as it was at this version (0 or left out: the newest)"`
}

// CommitArgs are the commit tool's arguments. Every one but text may be
// left out or empty.
type CommitArgs struct {
	Session string     `json:"session,omitempty" jsonschema:"the session to change (empty: the default session); a new name creates a session"`
	Text    string     `json:"text" jsonschema:"GQL statements separated by ';' (INSERT, MATCH … SET, REMOVE, DELETE, CALL action(…)): all of them apply, or none"`
	Params  ToolParams `json:"params,omitempty" jsonschema:"values of the $parameters the text uses, one {name, value} each (empty: none)"`
	Agent   string     `json:"agent,omitempty" jsonschema:"your name as a writer (empty: this connection's own name, mcp-…, which your first read names; name yourself to keep your name across reconnects)"`
}

// SessionsArgs are the sessions tool's arguments: none.
type SessionsArgs struct{}

// toolError is what a model reads of a failed call: the error line, then
// the source line and the caret under the position.
type toolError struct{ ge *gqlstatus.Error }

func (e toolError) Error() string {
	s := e.ge.Error()
	if c := e.ge.Caret(); c != "" {
		s += "\n" + c
	}
	return s
}

func (e toolError) Unwrap() error { return e.ge }

// MCP returns the MCP server: the tools recall, commit and sessions, and
// the memory server's tools on the memory session. Run it on a transport
// (StdioTransport for gqlsh mcp); ServeHTTP serves it on /mcp.
func (s *Server) MCP() *mcp.Server {
	s.mcpOnce.Do(func() { s.mcpServer = s.newMCP() })
	return s.mcpServer
}

func (s *Server) newMCP() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "goldfish", Title: "Goldfish GQL working memory", Version: s.opts.Version},
		&mcp.ServerOptions{Instructions: instructions(s.opts.MemorySession), CompletionHandler: s.complete})
	shown := map[string]shownTool{}
	read := &mcp.ToolAnnotations{ReadOnlyHint: true, DestructiveHint: ptr(false), IdempotentHint: true, OpenWorldHint: ptr(false)}
	addTool(srv, shown, anyReader, &mcp.Tool{Name: "recall", Title: "Recall",
		Description: recallDescription,
		Annotations: read},
		plainOptions(schemaFor[RecallArgs](lenientTypes)), plainOptions(strictSchema(schemaFor[RecallArgs](strictTypes))),
		asConnection(tool(s, "recall", func(ctx context.Context, scope *Scope, in RecallArgs) (*mcp.CallToolResult, wire.Shape, error) {
			sh, err := s.doRecall(ctx, scope, s.sessionOr(in.Session), wire.RecallRequest{Q: in.Q, Params: in.Params.values(), Agent: in.Agent, Options: in.Options, AtVersion: in.AtVersion})
			if err != nil {
				return nil, wire.Shape{}, err
			}
			return textResult(sh.Text), wire.ShapeOf(sh, false), nil
		})))
	addTool(srv, shown, anyWriter, &mcp.Tool{Name: "commit", Title: "Commit",
		Description: commitDescription,
		Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(true), OpenWorldHint: ptr(false)}},
		schemaFor[CommitArgs](lenientTypes), strictSchema(schemaFor[CommitArgs](strictTypes)),
		asConnection(tool(s, "commit", func(ctx context.Context, scope *Scope, in CommitArgs) (*mcp.CallToolResult, wire.Commit, error) {
			res, err := s.doCommit(ctx, scope, s.sessionOr(in.Session), wire.CommitRequest{Text: in.Text, Params: in.Params.values(), Agent: in.Agent})
			if err != nil {
				return nil, wire.Commit{}, err
			}
			return textResult(summary(res)), wire.CommitOf(res, len(res.Stmts)), nil
		})))
	addTool(srv, shown, anyReader, &mcp.Tool{Name: "sessions", Title: "Sessions",
		Description: "List the sessions you may read, one line each: name, version, number of nodes and edges. Pass a name as session to recall or commit; a commit to a new name creates that session.",
		Annotations: read},
		schemaFor[SessionsArgs](nil), strictSchema(schemaFor[SessionsArgs](nil)),
		tool(s, "sessions", func(_ context.Context, scope *Scope, _ SessionsArgs) (*mcp.CallToolResult, wire.Sessions, error) {
			list := s.sessionList(scope)
			return textResult(sessionsText(list)), list, nil
		}))
	s.addMemoryTools(srv, shown)
	s.addResources(srv)
	srv.AddReceivingMiddleware(s.listFilter(shown), s.argumentCheck(shown))
	return srv
}

// What a model reads of the tools: plain words, an example of each form,
// and what to do when an answer is cut (TestMCPDescriptions holds each
// under 120 words and free of the engine's own terms).
const (
	recallDescription = "Read a goldfish session. q is a GQL MATCH of the nodes to start from: " +
		"MATCH (n {nick: 'alice'}) for one node and what it links to; " +
		"MATCH (n:TSK) LIMIT 10 for a kind; MATCH (n) WHERE n CONTAINS 'login' for a keyword (k 1 keeps to the matches); " +
		"MATCH () for an outline. Links show both ways: to see what points at a node, read that node. " +
		"Nearby nodes show short facts, farther ones names: read one by nick for all of it, or set whole. " +
		"Kinds to see first in every answer: options pinned, such as ['LAW']. A read that matched nothing says so first, with close names. " +
		"Comments list saved views and actions."
	commitDescription = "Change a goldfish session with GQL statements separated by ';': all apply or none. " +
		"Add: INSERT (:TSK {nick: 'fix_login', status: 'open'}). " +
		"Link by nick: MATCH (a {nick: 'alice'}), (t {nick: 'fix_login'}) INSERT (a)-[:works_on]->(t). " +
		"A nick names one node: to change a node, MATCH it. Finish a task: MATCH (t:TSK {nick: 'fix_login'}) SET t:Settled. " +
		"Remove: MATCH (t {nick: 'fix_login'}) DETACH DELETE t. " +
		"Save a question shown with every read: CREATE VIEW open AS 'size(nodes(\"TSK\"))'; " +
		"a change: CREATE ACTION settle(nick STRING) { MATCH (t {nick: $nick}) SET t:Settled }, run with CALL settle('fix_login'). " +
		"CREATE OR REPLACE revises one, DROP VIEW or DROP ACTION removes it; the resource goldfish://help/vocabulary says more. " +
		"At most 500 nodes and edges per commit."
)

func instructions(memory string) string {
	return "Goldfish keeps working memory as named sessions, each a small graph: nodes with a kind (such as TSK) and properties, " +
		"and typed edges between them. A node's nick is its unique name in its session: link to an existing node by matching its nick. " +
		"Read with recall and write with commit, both in GQL. Every answer is kept small: when one says more matched or rows were left out, " +
		"ask again more narrowly. Views are saved questions shown with their answers, actions saved changes run with CALL; recall shows both. " +
		"The knowledge-graph tools (create_entities, search_nodes, open_nodes and the rest) work on the session " + memory +
		": an entity is a node whose nick is its name."
}

// optionWords are the descriptions of the recall options a model reads,
// in plain words (the HTTP API documents the same fields for programs).
var optionWords = map[string]string{
	"M":       "most rows (nodes and edges) in the answer (default 50)",
	"k":       "how many steps along edges the read goes from the starting nodes: 0 the starting nodes alone, 1 their neighbours, default 2 (1 for a node by nick)",
	"L":       "most starting nodes (default 4, up to 32)",
	"F":       "most neighbours one node adds to the answer (default 8)",
	"T":       "about how many tokens the answer may take (default 4000): past it, nodes far from the start show their names only",
	"view":    "interior (default), or shell: names and containment edges only, to see the layout of a large session",
	"depth":   "lean (default) or full: how much the notes about the session's views and actions say",
	"only":    "the parts to keep, any of shape (the nodes and edges), views, actions, attention (notes on what changed); none: all",
	"pinned":  "kinds whose nodes always come first in the answer (empty: the session's own setting)",
	"nopeaks": "when q matches nothing, answer with nothing more than that (otherwise the open tasks, or the most connected nodes, are named instead)",
	"exact":   "count the answer's tokens exactly rather than estimate them",
	"after":   "skip a starting node's first neighbours, shown by an earlier read (its note says how many): the next page",
	"whole":   "show every node in full (default: the starting nodes in full, their neighbours' names and short facts, farther nodes' names)",
}

// plainOptions gives the recall tool's options their plain descriptions.
func plainOptions(sc *jsonschema.Schema) *jsonschema.Schema {
	if o := sc.Properties["options"]; o != nil {
		for name, p := range o.Properties {
			if d, ok := optionWords[name]; ok {
				p.Description = d
			}
		}
	}
	return sc
}

// toolHints fit a refusal's hint to the tool that met it: the engine's
// hints speak of the recall tool's options, which the memory tools lack.
var toolHints = map[string]map[gqlstatus.Code]string{
	"open_nodes":   {gqlstatus.FrameBudget: "open fewer names at a time", gqlstatus.Rollback: "open fewer names at a time"},
	"search_nodes": {gqlstatus.FrameBudget: "search a longer phrase", gqlstatus.Rollback: "search a longer phrase"},
	"read_graph":   {gqlstatus.FrameBudget: "use search_nodes or open_nodes", gqlstatus.Rollback: "use search_nodes or open_nodes"},
}

// fitHint is ge with the hint its tool gives for its code, if any.
func fitHint(name string, ge *gqlstatus.Error) *gqlstatus.Error {
	if h, ok := toolHints[name][ge.Code]; ok && ge.Hint != "" {
		c := *ge
		c.Hint = h
		return &c
	}
	return ge
}

func ptr[T any](v T) *T { return &v }

func textResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

// tool wraps a handler with the caller's scope, the deadline, the frame
// of the answer, metrics and the error wording every tool shares.
func tool[In, Out any](s *Server, name string, h func(context.Context, *Scope, In) (*mcp.CallToolResult, Out, error)) mcp.ToolHandlerFor[In, Out] {
	return func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
		var zero Out
		if s.draining.Load() {
			s.metrics.tool(name, true)
			return nil, zero, toolError{errShuttingDown()}
		}
		scope, err := s.scopeOf(req.Extra)
		if err != nil {
			s.metrics.tool(name, true)
			return nil, zero, toolError{statusOf(err)}
		}
		ctx, cancel := s.withDeadline(ctx)
		defer cancel()
		res, out, err := h(ctx, scope, in)
		if err == nil {
			// The answer as the SDK will send it: over the frame, it is
			// refused here rather than marshalled again and sent.
			var n int
			if n, err = answerSize(res, out); err == nil && n > MaxFrame {
				err = errFrame("answer")
			}
		}
		s.metrics.tool(name, err != nil)
		if err != nil {
			return nil, zero, toolError{fitHint(name, statusOf(err))}
		}
		return res, out, nil
	}
}

// scopeOf is the scope of the token an MCP request came with: over HTTP
// the bearer token the /mcp handler checked, over stdio everything (the
// caller started the process).
func (s *Server) scopeOf(extra *mcp.RequestExtra) (*Scope, error) {
	if s.opts.Tokens == nil {
		return Everything, nil
	}
	if extra != nil && extra.TokenInfo != nil {
		if sc, ok := extra.TokenInfo.Extra["scope"].(*Scope); ok {
			return sc, nil
		}
	}
	return nil, errUnauthenticated("the MCP request carries no token")
}

func (s *Server) sessionOr(name string) string {
	if name == "" {
		return s.opts.MemorySession
	}
	return name
}

// mcpHTTP serves the MCP server on streamable HTTP: stateless, with JSON
// responses, so every call is one POST that the frame cap, the deadline
// and graceful shutdown treat as any other request; behind the tokens.
// A POST is one message (a batch is refused), read to the frame at most,
// checked as a /v1 body is (checkMessage), and its answer is held to the
// frame (see mcp_budget.go); every answer is JSON-RPC, the SDK's
// plain-text refusals too. A POST without an Mcp-Session-Id is answered
// with one, which the client sends from then on: the connection's id,
// whose agent its recalls and commits that name none act as
// (mcp_identity.go).
func (s *Server) mcpHTTP() http.Handler {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.MCP() },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true, MaxRequestBodyBytes: MaxFrame})
	var next http.Handler = h
	if s.opts.Tokens != nil {
		next = auth.RequireBearerToken(func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
			sc, ok := s.opts.Tokens.Lookup(token)
			if !ok {
				return nil, auth.ErrInvalidToken
			}
			return &auth.TokenInfo{UserID: sc.id, Extra: map[string]any{"scope": sc}}, nil
		}, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(h)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.draining.Load() {
			s.writeError(w, r, errShuttingDown())
			return
		}
		// The token is checked here first, so a refusal is the server's
		// JSON error like every other endpoint's; the SDK's middleware
		// then hands the scope to the tools. A refusal here is 403, not
		// 401: an MCP client takes a 401 as the start of an OAuth flow,
		// which this server does not have, and would never show the
		// words that say what token to send.
		if _, err := s.authorize(r); err != nil {
			s.writeErrorStatus(w, r, withMCPTokenHint(err), http.StatusForbidden)
			return
		}
		if r.Method != http.MethodPost {
			cw := &cappedWriter{w: w}
			next.ServeHTTP(cw, r)
			cw.finish(nil)
			return
		}
		body, ok := readMessage(w, r)
		if !ok {
			return
		}
		body, r = withoutOversize(body, r)
		r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		issueConnectionID(w, r)
		cw := &cappedWriter{w: w}
		next.ServeHTTP(cw, r)
		cw.finish(body)
	})
}
