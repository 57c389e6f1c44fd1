package server

import (
	"bytes"
	"context"
	"io"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/goldfish-gql/goldfish/gqlstatus"
)

// RecallArgs are the recall tool's arguments. Every one but q may be
// left out or empty ("", 0, [], false): empty takes the default.
type RecallArgs struct {
	Session string         `json:"session,omitempty" jsonschema:"the session to read (empty: the server's --session)"`
	Q       string         `json:"q" jsonschema:"the codebook token: a GQL MATCH of node patterns with optional WHERE and LIMIT, e.g. MATCH (t:TSK {status: 'open'}) LIMIT 4; MATCH () for the outline"`
	Params  ToolParams     `json:"params,omitempty" jsonschema:"values of the $parameters the token uses, one {name, value} each (empty: none)"`
	Options RecallSettings `json:"options,omitempty" jsonschema:"budgets and sections of this Recall; each may be lowered freely; 0 or empty takes the default, but k 0 walks no hop (the seeds alone)"`
	Agent   string         `json:"agent,omitempty" jsonschema:"the reading agent's name: the envelope then says what changed since its last read (empty: nobody)"`
	// AtVersion is RecallRequest's.
	AtVersion uint64 `json:"at_version,omitempty" jsonschema:"read the session as it was at this version (0 or left out: the newest); the Shape's body is the one it gave then"`
}

// CommitArgs are the commit tool's arguments. Every one but text may be
// left out or empty.
type CommitArgs struct {
	Session string     `json:"session,omitempty" jsonschema:"the session to change (empty: the server's --session)"`
	Text    string     `json:"text" jsonschema:"the Δ: GQL INSERT, MATCH … SET/REMOVE/DELETE and CALL statements, applied as one atomic Commit"`
	Params  ToolParams `json:"params,omitempty" jsonschema:"values of the $parameters the text uses, one {name, value} each (empty: none)"`
	Agent   string     `json:"agent,omitempty" jsonschema:"the committing agent's name (empty: nobody)"`
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
		&mcp.ServerOptions{Instructions: instructions(s.opts.MemorySession)})
	shown := map[string]shownTool{}
	read := &mcp.ToolAnnotations{ReadOnlyHint: true, DestructiveHint: ptr(false), IdempotentHint: true, OpenWorldHint: ptr(false)}
	addTool(srv, shown, anyReader, &mcp.Tool{Name: "recall", Title: "Recall",
		Description: "Read a bounded neighbourhood of a goldfish session as GQL INSERT text (the Shape): seeds found by q, a walk of at most k hops, at most M rows. The same q on the same session version gives the same bytes.",
		Annotations: read},
		schemaFor[RecallArgs](lenientTypes), strictSchema(schemaFor[RecallArgs](strictTypes)),
		tool(s, "recall", func(ctx context.Context, scope *Scope, in RecallArgs) (*mcp.CallToolResult, ShapeJSON, error) {
			sh, err := s.doRecall(ctx, scope, s.sessionOr(in.Session), RecallRequest{Q: in.Q, Params: in.Params.values(), Agent: in.Agent, Options: in.Options, AtVersion: in.AtVersion})
			if err != nil {
				return nil, ShapeJSON{}, err
			}
			return textResult(sh.Text), shapeJSON(sh), nil
		}))
	addTool(srv, shown, anyWriter, &mcp.Tool{Name: "commit", Title: "Commit",
		Description: "Apply a Δ of GQL data-modifying statements (INSERT, MATCH … SET/REMOVE/DELETE, CALL action) to a goldfish session, atomically and durably. Answers with a one-line summary and the new version.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(true), OpenWorldHint: ptr(false)}},
		schemaFor[CommitArgs](lenientTypes), strictSchema(schemaFor[CommitArgs](strictTypes)),
		tool(s, "commit", func(ctx context.Context, scope *Scope, in CommitArgs) (*mcp.CallToolResult, CommitJSON, error) {
			res, err := s.doCommit(ctx, scope, s.sessionOr(in.Session), CommitRequest{Text: in.Text, Params: in.Params.values(), Agent: in.Agent})
			if err != nil {
				return nil, CommitJSON{}, err
			}
			return textResult(summary(res)), commitJSON(res), nil
		}))
	addTool(srv, shown, anyReader, &mcp.Tool{Name: "sessions", Title: "Sessions",
		Description: "List the goldfish sessions this caller may read, with their versions and sizes.",
		Annotations: read},
		schemaFor[SessionsArgs](nil), strictSchema(schemaFor[SessionsArgs](nil)),
		tool(s, "sessions", func(_ context.Context, scope *Scope, _ SessionsArgs) (*mcp.CallToolResult, SessionsJSON, error) {
			list := s.sessionList(scope)
			return textResult(sessionsText(list)), list, nil
		}))
	s.addMemoryTools(srv, shown)
	srv.AddReceivingMiddleware(s.listFilter(shown))
	return srv
}

func instructions(memory string) string {
	return "Goldfish keeps working memory as named sessions, each a small labelled property graph. " +
		"Read with recall (a GQL MATCH of node patterns; MATCH () gives the outline), write with commit (GQL INSERT/SET/DELETE). " +
		"The knowledge-graph tools (create_entities, search_nodes, open_nodes, …) work on the session " + memory + "."
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
			return nil, zero, toolError{statusOf(err)}
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
// and its answer is held to the frame (see mcp_budget.go).
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
		// then hands the scope to the tools.
		if _, err := s.authorize(r); err != nil {
			s.writeError(w, r, err)
			return
		}
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		body, ok := readMessage(w, r)
		if !ok {
			return
		}
		r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		cw := &cappedWriter{w: w}
		next.ServeHTTP(cw, r)
		cw.finish(body)
	})
}
