package server

import (
	"context"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/wire"
)

// The help texts the attention envelope points to (goldfish.Help), served
// to agents that reach goldfish through the server, which cannot type the
// shell's :help: GET /v1/help lists the topics and GET /v1/help/{topic}
// gives one; over MCP each topic is the static resource
// goldfish://help/{topic}. A text names no session, so any caller the
// server lets in may read every one, and resources/list shows them to
// every token beside the sessions it may read.

const helpScheme = "goldfish://help/"

// helpTopics answers GET /v1/help.
func (s *Server) helpTopics(_ http.ResponseWriter, _ *http.Request, _ *Scope) (any, error) {
	return wire.HelpTopics{Topics: goldfish.HelpTopics()}, nil
}

// help answers GET /v1/help/{topic}; a topic there is no text for is 404,
// as a path that names nothing (errNoRoute).
func (s *Server) help(_ http.ResponseWriter, r *http.Request, _ *Scope) (any, error) {
	topic := r.PathValue("topic")
	text, ok := goldfish.Help(topic)
	if !ok {
		return nil, errNoHelp(topic)
	}
	return wire.Help{Topic: topic, Text: text}, nil
}

// errNoHelp is goldfish.ErrNoHelp, answered as a path that names nothing.
func errNoHelp(topic string) *gqlstatus.Error {
	e := *goldfish.ErrNoHelp(topic)
	e.Cause = errNoRoute
	return &e
}

// addHelpResources adds each help topic as a static MCP resource.
func (s *Server) addHelpResources(srv *mcp.Server) {
	for _, r := range helpResources() {
		srv.AddResource(r, s.readHelpResource)
	}
}

// helpAbout says what each topic is for, in resources/list, where a
// model picks what to read by it.
var helpAbout = map[string]string{
	"vocabulary": "How to review a session's views and actions: what the attention line " +
		"help: vocabulary_review points to when the vocabulary's health is degenerating.",
	"broken_views": "What to do about the views the attention line broken_views names: " +
		"where their errors are, what usually breaks a view, and how to revise or drop one.",
}

// helpResources are the help topics as MCP resources, in topic order:
// the same for every caller.
func helpResources() []*mcp.Resource {
	out := []*mcp.Resource{}
	for _, topic := range goldfish.HelpTopics() {
		text, _ := goldfish.Help(topic)
		about, ok := helpAbout[topic]
		if !ok {
			about = "goldfish's help on " + topic
		}
		out = append(out, &mcp.Resource{URI: helpScheme + topic, Name: "help " + topic, MIMEType: "text/plain",
			Title: "goldfish help: " + topic, Description: about, Size: int64(len(text))})
	}
	return out
}

// readHelpResource reads goldfish://help/{topic}. The SDK calls it for
// the URIs added alone: any other is not found before it.
func (s *Server) readHelpResource(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	if _, err := s.scopeOf(req.Extra); err != nil {
		return nil, toolError{statusOf(err)}
	}
	uri := req.Params.URI
	text, ok := goldfish.Help(strings.TrimPrefix(uri, helpScheme))
	if !ok || !strings.HasPrefix(uri, helpScheme) {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: text}}}, nil
}
