package server

import (
	"context"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/goldfish-gql/goldfish/gqlstatus"
)

// RecallArgs are the recall tool's arguments.
type RecallArgs struct {
	Session string         `json:"session,omitempty" jsonschema:"the session to read (default: the server's --session)"`
	Q       string         `json:"q" jsonschema:"the codebook token: a GQL MATCH of node patterns with optional WHERE and LIMIT, e.g. MATCH (t:TSK {status: 'open'}) LIMIT 4; MATCH () for the outline"`
	Params  Params         `json:"params,omitempty" jsonschema:"values of the $parameters the token uses"`
	Options RecallSettings `json:"options,omitempty" jsonschema:"budgets and sections of this Recall; each may be lowered freely"`
	Agent   string         `json:"agent,omitempty" jsonschema:"the reading agent's name: the envelope then says what changed since its last read"`
}

// CommitArgs are the commit tool's arguments.
type CommitArgs struct {
	Session string `json:"session,omitempty" jsonschema:"the session to change (default: the server's --session)"`
	Text    string `json:"text" jsonschema:"the Δ: GQL INSERT, MATCH … SET/REMOVE/DELETE and CALL statements, applied as one atomic Commit"`
	Params  Params `json:"params,omitempty" jsonschema:"values of the $parameters the text uses"`
	Agent   string `json:"agent,omitempty" jsonschema:"the committing agent's name"`
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
// (mcp.StdioTransport for gqlsh mcp); ServeHTTP serves it on /mcp.
func (s *Server) MCP() *mcp.Server {
	s.mcpOnce.Do(func() { s.mcpServer = s.newMCP() })
	return s.mcpServer
}

func (s *Server) newMCP() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "goldfish", Title: "Goldfish GQL working memory", Version: s.opts.Version},
		&mcp.ServerOptions{Instructions: instructions(s.opts.MemorySession)})
	mcp.AddTool(srv, &mcp.Tool{Name: "recall", Title: "Recall",
		Description: "Read a bounded neighbourhood of a goldfish session as GQL INSERT text (the Shape): seeds found by q, a walk of at most k hops, at most M rows. The same q on the same session version gives the same bytes.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(false)}},
		tool(s, "recall", func(ctx context.Context, scope *Scope, in RecallArgs) (*mcp.CallToolResult, ShapeJSON, error) {
			sh, err := s.doRecall(ctx, scope, s.sessionOr(in.Session), RecallRequest{Q: in.Q, Params: in.Params, Agent: in.Agent, Options: in.Options})
			if err != nil {
				return nil, ShapeJSON{}, err
			}
			if len(sh.Text) > MaxFrame {
				return nil, ShapeJSON{}, errFrame("answer")
			}
			return textResult(sh.Text), shapeJSON(sh), nil
		}))
	mcp.AddTool(srv, &mcp.Tool{Name: "commit", Title: "Commit",
		Description: "Apply a Δ of GQL data-modifying statements (INSERT, MATCH … SET/REMOVE/DELETE, CALL action) to a goldfish session, atomically and durably. Answers with a one-line summary and the new version.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(true), OpenWorldHint: ptr(false)}},
		tool(s, "commit", func(ctx context.Context, scope *Scope, in CommitArgs) (*mcp.CallToolResult, CommitJSON, error) {
			res, err := s.doCommit(ctx, scope, s.sessionOr(in.Session), CommitRequest{Text: in.Text, Params: in.Params, Agent: in.Agent})
			if err != nil {
				return nil, CommitJSON{}, err
			}
			return textResult(summary(res)), commitJSON(res), nil
		}))
	mcp.AddTool(srv, &mcp.Tool{Name: "sessions", Title: "Sessions",
		Description: "List the goldfish sessions this caller may read, with their versions and sizes.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(false)}},
		tool(s, "sessions", func(_ context.Context, scope *Scope, _ SessionsArgs) (*mcp.CallToolResult, SessionsJSON, error) {
			list := s.sessionList(scope)
			return textResult(sessionsText(list)), list, nil
		}))
	s.addMemoryTools(srv)
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

// tool wraps a handler with the caller's scope, the deadline, metrics and
// the error wording every tool shares.
func tool[In, Out any](s *Server, name string, h func(context.Context, *Scope, In) (*mcp.CallToolResult, Out, error)) mcp.ToolHandlerFor[In, Out] {
	return func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
		var zero Out
		if s.draining.Load() {
			s.metrics.tool(name, true)
			return nil, zero, toolError{errShuttingDown()}
		}
		scope, err := s.toolScope(req)
		if err != nil {
			s.metrics.tool(name, true)
			return nil, zero, toolError{statusOf(err)}
		}
		ctx, cancel := s.withDeadline(ctx)
		defer cancel()
		res, out, err := h(ctx, scope, in)
		s.metrics.tool(name, err != nil)
		if err != nil {
			return nil, zero, toolError{statusOf(err)}
		}
		return res, out, nil
	}
}

// toolScope is the scope of the token the MCP request came with: over
// HTTP the bearer token the /mcp handler checked, over stdio everything
// (the caller started the process).
func (s *Server) toolScope(req *mcp.CallToolRequest) (*Scope, error) {
	if s.opts.Tokens == nil {
		return Everything, nil
	}
	if req != nil && req.Extra != nil && req.Extra.TokenInfo != nil {
		if sc, ok := req.Extra.TokenInfo.Extra["scope"].(*Scope); ok {
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
		next.ServeHTTP(w, r)
	})
}
