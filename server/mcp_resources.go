package server

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/wire"
)

// Sessions are MCP resources too (docs/design.md#interfaces): goldfish://sessions/{name}
// reads a session's outline, the text the recall tool gives for MATCH (),
// and goldfish://sessions/{name}/nodes/{nick} a Recall of one node and
// its neighbours. resources/list lists the sessions the caller's token may
// read; completion/complete completes session names (of those sessions)
// and nicks; the prompt use_goldfish teaches a model the two verbs on one
// session. A session the token may not read is not found, as one that
// does not exist: neither the list nor an error tells of it.

const (
	sessionScheme   = "goldfish://sessions/"
	sessionTemplate = sessionScheme + "{name}"
	nodeTemplate    = sessionScheme + "{name}/nodes/{nick}"
	promptName      = "use_goldfish"
	// maxCompletions is the most values one completion answers with (the
	// protocol's own bound).
	maxCompletions = 100
)

// addResources adds the resource templates, the prompt and the help
// resources (help.go).
func (s *Server) addResources(srv *mcp.Server) {
	srv.AddResourceTemplate(&mcp.ResourceTemplate{Name: "session", Title: "A goldfish session's outline",
		URITemplate: sessionTemplate, MIMEType: "text/plain",
		Description: "The outline of a session: how many nodes of each kind and edges of each type, a few nodes of each kind, its views and actions."},
		s.readSessionResource)
	srv.AddResourceTemplate(&mcp.ResourceTemplate{Name: "node", Title: "A node of a goldfish session",
		URITemplate: nodeTemplate, MIMEType: "text/plain",
		Description: "One node of a session, found by its nick, with its neighbours, as the recall tool reads it."},
		s.readSessionResource)
	srv.AddPrompt(&mcp.Prompt{Name: promptName, Title: "Use goldfish",
		Description: "How to read and write a goldfish session: recall and commit, with an example of each for that session.",
		Arguments: []*mcp.PromptArgument{{Name: "session", Title: "Session",
			Description: "the session to work on (empty: " + s.opts.MemorySession + ")"}}},
		s.usePrompt)
	s.addHelpResources(srv)
}

// mayReadSession reports whether the scope may read a session that
// exists.
func (s *Server) mayReadSession(scope *Scope, name string) (goldfish.SessionInfo, bool) {
	if goldfish.ValidSessionName(name) != nil || !scope.CanRead(name) {
		return goldfish.SessionInfo{}, false
	}
	for _, in := range s.db.SessionInfos() {
		if in.Name == name {
			return in, true
		}
	}
	return goldfish.SessionInfo{}, false
}

// sessionResources are the resources of the sessions the scope may read.
func (s *Server) sessionResources(scope *Scope) []*mcp.Resource {
	out := []*mcp.Resource{}
	for _, in := range s.db.SessionInfos() {
		if !scope.CanRead(in.Name) {
			continue
		}
		out = append(out, &mcp.Resource{URI: sessionScheme + in.Name, Name: in.Name, MIMEType: "text/plain",
			Title:       "session " + in.Name,
			Description: fmt.Sprintf("the outline of session %s: version %d, %d nodes, %d edges", in.Name, in.Version, in.Nodes, in.Edges)})
	}
	return out
}

// parseResource reads a session name, and a nick when there is one, out
// of a resource URI.
func parseResource(uri string) (name, nick string, hasNick, ok bool) {
	rest, found := strings.CutPrefix(uri, sessionScheme)
	if !found {
		return "", "", false, false
	}
	name, tail, hasNick := strings.Cut(rest, "/nodes/")
	if strings.Contains(name, "/") {
		return "", "", false, false
	}
	if hasNick {
		var err error
		if nick, err = url.PathUnescape(tail); err != nil || nick == "" {
			return "", "", false, false
		}
	}
	return name, nick, hasNick, true
}

// readSessionResource reads goldfish://sessions/{name} (the outline) or
// goldfish://sessions/{name}/nodes/{nick}.
func (s *Server) readSessionResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	if s.draining.Load() {
		return nil, toolError{errShuttingDown()}
	}
	scope, err := s.scopeOf(req.Extra)
	if err != nil {
		return nil, toolError{statusOf(err)}
	}
	name, nick, hasNick, ok := parseResource(uri)
	if !ok {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	if _, ok := s.mayReadSession(scope, name); !ok {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	ctx, cancel := s.withDeadline(ctx)
	defer cancel()
	req2 := wire.RecallRequest{Q: "MATCH ()"}
	if hasNick {
		req2 = wire.RecallRequest{Q: "MATCH (n {nick: $nick})", Params: wire.Params{"nick": nick}, Options: wire.RecallSettings{NoPeaks: true}}
	}
	sh, err := s.doRecall(ctx, scope, name, req2)
	if err != nil {
		return nil, toolError{statusOf(err)}
	}
	if hasNick && sh.Seeds == 0 {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	if len(sh.Text) > MaxFrame {
		return nil, toolError{errFrame("answer")}
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: sh.Text}}}, nil
}

// complete answers completion/complete: session names for the templates'
// {name} and the prompt's session, nicks for {nick} (of the session its
// {name} already says).
func (s *Server) complete(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	scope, err := s.scopeOf(req.Extra)
	if err != nil {
		return nil, toolError{statusOf(err)}
	}
	p := req.Params
	var values []string
	switch {
	case p.Ref.Type == "ref/prompt" && p.Ref.Name == promptName && p.Argument.Name == "session",
		p.Ref.Type == "ref/resource" && (p.Ref.URI == sessionTemplate || p.Ref.URI == nodeTemplate) && p.Argument.Name == "name":
		for _, in := range s.db.SessionInfos() {
			if scope.CanRead(in.Name) && strings.HasPrefix(in.Name, p.Argument.Value) {
				values = append(values, in.Name)
			}
		}
	case p.Ref.Type == "ref/resource" && p.Ref.URI == nodeTemplate && p.Argument.Name == "nick":
		name := s.opts.MemorySession
		if p.Context != nil && p.Context.Arguments["name"] != "" {
			name = p.Context.Arguments["name"]
		}
		if _, ok := s.mayReadSession(scope, name); !ok {
			break
		}
		sess, err := s.open(ctx, name, "read")
		if err != nil {
			return nil, toolError{statusOf(err)}
		}
		names, err := sess.Names(ctx)
		if err != nil {
			return nil, toolError{statusOf(err)}
		}
		prefix, err := url.PathUnescape(p.Argument.Value)
		if err != nil {
			prefix = p.Argument.Value
		}
		for _, n := range names.Nicks {
			if strings.HasPrefix(n, prefix) {
				values = append(values, url.PathEscape(n))
			}
		}
	}
	slices.Sort(values)
	out := &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{}, Total: len(values)}}
	if len(values) > maxCompletions {
		values, out.Completion.HasMore = values[:maxCompletions], true
	}
	out.Completion.Values = append(out.Completion.Values, values...)
	return out, nil
}

// usePrompt teaches a model recall and commit on one session, with an
// example of each in that session's own kinds and nicks when it has some.
func (s *Server) usePrompt(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	scope, err := s.scopeOf(req.Extra)
	if err != nil {
		return nil, toolError{statusOf(err)}
	}
	name := req.Params.Arguments["session"]
	if name == "" {
		name = s.opts.MemorySession
	}
	if err := checkScope(scope, name, "read"); err != nil {
		return nil, toolError{statusOf(err)}
	}
	kind, nick := "TSK", "fix_login"
	if in, ok := s.mayReadSession(scope, name); ok && len(in.Kinds) > 0 {
		kind = in.Kinds[0].Kind
		if sess, err := s.open(ctx, name, "read"); err == nil {
			if names, err := sess.Names(ctx); err == nil && len(names.Nicks) > 0 {
				nick = names.Nicks[0]
			}
		}
	}
	text := promptText(name, quoteName(kind), gqlString(nick), scope.CanWrite(name))
	return &mcp.GetPromptResult{Description: "recall and commit on session " + name,
		Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: text}}}}, nil
}

// promptText is the prompt's text for a session, a kind and a nick of it.
func promptText(session, kind, nick string, canWrite bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "You have a working memory in the goldfish session %q: a graph of nodes, each with a kind and properties, "+
		"and typed edges between them. A node's nick is its unique name in the session. Use two tools, with session %q.\n\n", session, session)
	fmt.Fprintf(&b, "recall reads. Its q is a GQL MATCH naming where to start; the answer is those nodes and their neighbours, kept small:\n"+
		"  MATCH (n {nick: %s})\n"+
		"  MATCH (n:%s) LIMIT 4\n"+
		"  MATCH (n) WHERE n CONTAINS 'login'   (a keyword, any text property, any case)\n"+
		"  MATCH ()   (an outline of the whole session)\n"+
		"When the answer says more matched, add a condition; read one node by its nick for all of it.\n\n", nick, kind)
	if !canWrite {
		b.WriteString("This session is yours to read only: commit is refused on it.\n")
		return b.String()
	}
	fmt.Fprintf(&b, "commit writes GQL statements separated by ';', all applied or none:\n"+
		"  INSERT (:TSK {nick: 'check_tests', status: 'open'})\n"+
		"  MATCH (a {nick: %s}), (t {nick: 'check_tests'}) INSERT (a)-[:needs]->(t)\n"+
		"  MATCH (t:TSK {nick: 'check_tests'}) SET t:Settled, t.status = 'done'\n"+
		"A task stays open until it has the label Settled, whatever its status says: open tasks come back when a recall finds nothing, "+
		"and settling one deletes the nodes it points to that have delete_on_settle: true. "+
		"To link to a node that exists, MATCH it by its nick: an INSERT of a nick that is taken makes no second node. "+
		"Recall before you write, and write what you learn as you go.\n", nick)
	return b.String()
}

// gqlString writes s as a GQL string literal.
func gqlString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `'`, `\'`, "\n", `\n`, "\r", `\r`, "\t", `\t`)
	return "'" + r.Replace(s) + "'"
}
