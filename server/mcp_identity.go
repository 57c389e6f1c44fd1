package server

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// An MCP client seldom names an agent: most never fill in the tools'
// "agent". Read as nobody, such a client would never hear what an agent
// hears (first_read, since_your_last_read, you_elided, yours), so a
// recall or commit that names no agent acts as its connection's own
// agent instead: "mcp-" and 12 hex digits of the SHA-256 of the token's
// id and the connection's id. The connection's id is, over HTTP, the
// Mcp-Session-Id header, which the /mcp handler issues on a POST that
// carries none (the SDK, serving statelessly, neither reads nor sets it)
// and every MCP client echoes from then on; over stdio, an id made when
// the connection is. A request without a usable id reads as nobody, as
// before: a raw client that never echoes the header makes no agent per
// call. The token's id is in the hash so that a token presenting another
// connection's id acts as an agent of its own, never as the other's; and
// the name holds across a server restart while the client keeps its id.
// A token bound to agents acts as they do (Scope.Agent), and the HTTP API
// has no connection: a /v1 call naming no agent reads as nobody.

// sessionIDHeader is the header of the streamable HTTP transport that
// carries a connection's id.
const sessionIDHeader = "Mcp-Session-Id"

// connectionAgentPrefix begins every connection's agent name.
const connectionAgentPrefix = "mcp-"

// maxConnectionID is the longest connection id taken from a client.
const maxConnectionID = 128

// newConnectionID is 128 random bits, in lowercase hex.
func newConnectionID() string {
	var b [16]byte
	rand.Read(b[:]) // never fails (crypto/rand)
	return hex.EncodeToString(b[:])
}

// validConnectionID reports whether id may name a connection: 1 to 128
// printable ASCII characters. Anything else is ignored (read as nobody)
// rather than refused, as the SDK ignores the header.
func validConnectionID(id string) bool {
	if id == "" || len(id) > maxConnectionID {
		return false
	}
	for i := 0; i < len(id); i++ {
		if id[i] < 0x20 || id[i] > 0x7e {
			return false
		}
	}
	return true
}

// issueConnectionID gives a POST to /mcp that carries no connection id
// one, in the answer's header, before the SDK writes it: the client
// keeps it from the answer to its initialize and sends it from then on.
// The request itself reads as nobody.
func issueConnectionID(w http.ResponseWriter, r *http.Request) {
	if len(r.Header.Values(sessionIDHeader)) == 0 {
		w.Header().Set(sessionIDHeader, newConnectionID())
	}
}

// connectionOf is the id of the connection a tool call came on, or "":
// over HTTP the request's Mcp-Session-Id, over stdio the connection's own.
func connectionOf(req *mcp.CallToolRequest) string {
	if req == nil {
		return ""
	}
	var id string
	if req.Extra != nil && req.Extra.Header != nil {
		// A request over HTTP: its header alone, whatever the SDK's
		// session (none, serving statelessly).
		if vs := req.Extra.Header.Values(sessionIDHeader); len(vs) == 1 {
			id = vs[0]
		}
	} else if req.Session != nil {
		id = req.Session.ID()
	}
	if !validConnectionID(id) {
		return ""
	}
	return id
}

type connectionKey struct{}

// asConnection makes a tool that reads or writes as its caller's agent
// act, when the call names none, as the connection's agent: sessionAs
// finds the connection's id in the context. Only recall and commit do:
// the memory tools stand in for a server that knows no agents.
func asConnection[In, Out any](h mcp.ToolHandlerFor[In, Out]) mcp.ToolHandlerFor[In, Out] {
	return func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
		if id := connectionOf(req); id != "" {
			ctx = context.WithValue(ctx, connectionKey{}, id)
		}
		return h(ctx, req, in)
	}
}

// connectionAgent is the agent of the connection a call came on, for the
// token of scope; "" when the call came on none (the HTTP API, or a
// client without a connection id).
func connectionAgent(ctx context.Context, scope *Scope) string {
	id, _ := ctx.Value(connectionKey{}).(string)
	if id == "" {
		return ""
	}
	return connectionAgentName(scope.id, id)
}

// connectionAgentName is hex(sha256(tokenID NUL connectionID))[:12]
// after "mcp-"; tokenID is "" on a server without tokens.
func connectionAgentName(tokenID, connectionID string) string {
	h := sha256.Sum256([]byte(tokenID + "\x00" + connectionID))
	return connectionAgentPrefix + hex.EncodeToString(h[:])[:12]
}
