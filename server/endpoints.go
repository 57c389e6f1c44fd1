package server

import (
	"context"
	"net/http"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/wire"
)

// recall answers POST /v1/sessions/{name}/recall.
func (s *Server) recall(_ http.ResponseWriter, r *http.Request, scope *Scope) (any, error) {
	var req wire.RecallRequest
	if err := decodeIn(r, scope, "read", &req); err != nil {
		return nil, err
	}
	sh, err := s.doRecall(r.Context(), scope, r.PathValue("name"), req)
	if err != nil {
		return nil, err
	}
	out := wire.ShapeOf(sh, req.Options.Rows)
	if out.Detail != nil {
		// The rows are asked for beside the text, which is the answer: a
		// Shape whose rows would take the answer over the frame is
		// answered without them (the keys absent), as it would be had
		// they not been asked for.
		if b, err := encodeAnswer(out); err != nil || len(b) > MaxFrame {
			out.Detail = nil
		}
	}
	return out, nil
}

// doRecall is a Recall as every interface makes it: the scope checked
// first, so a session the token may not read answers 403 whether or not
// it exists.
func (s *Server) doRecall(ctx context.Context, scope *Scope, name string, req wire.RecallRequest) (*goldfish.Shape, error) {
	if err := textFirst(ctx, scope, name, "read", req.Q); err != nil {
		return nil, err
	}
	sess, agent, err := s.sessionAs(ctx, scope, name, "read", req.Agent)
	if err != nil {
		return nil, err
	}
	o, err := req.RecallOptions()
	if err != nil {
		return nil, err
	}
	o.Agent = agent
	if name == goldfish.CatalogName && !scope.Unrestricted() {
		// A catalogue of the token's sessions alone, at a version of its
		// own. It is read as nobody: its agents are every token's, so
		// whether a name had read it before (first_read), and the slots
		// the names take, would tell of other tokens' agents; and a
		// catalogue of fixed version with no vocabulary has nothing for
		// an envelope to say.
		o.Sessions = scope.CanRead
		o.Agent = ""
	}
	sh, err := sess.Recall(ctx, req.Q, o)
	if err != nil {
		return nil, s.callError(ctx, err)
	}
	s.metrics.recalled(sh)
	return sh, nil
}

// commit answers POST /v1/sessions/{name}/commit.
func (s *Server) commit(_ http.ResponseWriter, r *http.Request, scope *Scope) (any, error) {
	var req wire.CommitRequest
	if err := decodeIn(r, scope, "write", &req); err != nil {
		return nil, err
	}
	res, err := s.doCommit(r.Context(), scope, r.PathValue("name"), req)
	if err != nil {
		return nil, err
	}
	return wire.CommitOf(res, len(res.Stmts)), nil
}

func (s *Server) doCommit(ctx context.Context, scope *Scope, name string, req wire.CommitRequest) (*goldfish.CommitResult, error) {
	if err := textFirst(ctx, scope, name, "write", req.Text); err != nil {
		return nil, err
	}
	sess, agent, err := s.sessionAs(ctx, scope, name, "write", req.Agent)
	if err != nil {
		return nil, err
	}
	var params map[string]any
	if len(req.Params) > 0 {
		params = req.Params
	}
	o := goldfish.CommitOptions{Agent: agent}
	var res *goldfish.CommitResult
	switch req.Mint {
	case "", "default":
		res, err = sess.CommitWith(ctx, req.Text, params, o)
	case "ingest":
		res, err = sess.IngestWith(ctx, req.Text, params, o)
	default:
		return nil, gqlstatus.Errorf(gqlstatus.InvalidOption, "mint %q is not an id rule", req.Mint).
			WithHint("use default or ingest")
	}
	if err != nil {
		return nil, s.callError(ctx, err)
	}
	s.metrics.committed(res)
	return res, nil
}

// session checks the scope, then opens the session, for a request that
// acts as no agent (the vocabulary, the settings, a dump, an export). The
// catalogue is read-only whatever the token says (the database refuses
// its Commits).
func (s *Server) session(ctx context.Context, scope *Scope, name, verb string) (*goldfish.Session, error) {
	if err := checkScope(scope, name, verb); err != nil {
		return nil, err
	}
	return s.open(ctx, name, verb)
}

// peek is session for a read of a session's state (its settings,
// vocabulary, names, kinds, agents, dump): a name no write made answers
// as an empty session does, and the read makes nothing
// (goldfish.DB.Peek).
func (s *Server) peek(ctx context.Context, scope *Scope, name string) (*goldfish.Session, error) {
	if err := checkScope(scope, name, "read"); err != nil {
		return nil, err
	}
	sess, err := s.db.Peek(ctx, name)
	if err != nil {
		return nil, s.callError(ctx, err)
	}
	return sess, nil
}

// sessionAs is session for a Recall or Commit that names agent (""
// for none): it checks the scope, then the agents the token is bound to
// (Scope.Agent), then opens the session, and returns the agent the call
// acts as. Every interface's Recalls and Commits go through it, the MCP
// tools too. A call that names none and that an unbound token makes on
// an MCP connection acts as the connection's own agent
// (connectionAgent, mcp_identity.go); any other acts as nobody.
func (s *Server) sessionAs(ctx context.Context, scope *Scope, name, verb, agent string) (*goldfish.Session, string, error) {
	if err := checkScope(scope, name, verb); err != nil {
		return nil, "", err
	}
	agent, err := scope.Agent(agent)
	if err != nil {
		return nil, "", err
	}
	conn := false
	if agent == "" {
		// Scope.Agent gives "" to an unbound token alone.
		agent = connectionAgent(ctx, scope)
		conn = agent != ""
	}
	sess, err := s.open(ctx, name, verb)
	if err != nil {
		return nil, "", err
	}
	if agent != "" {
		// After the open: a session that does not exist takes no slot.
		if err := s.agentSlots.admit(ctx, scope, sess, name, agent, conn); err != nil {
			return nil, "", err
		}
	}
	return sess, agent, nil
}

// checkScope refuses a session the token may not read (verb "read") or
// write ("write"): the same 403 whether the session exists or not.
func checkScope(scope *Scope, name, verb string) error {
	if err := goldfish.ValidSessionName(name); err != nil {
		return err
	}
	ok := scope.CanRead(name)
	if verb == "write" {
		ok = scope.CanWrite(name)
	}
	if !ok {
		return errAccess(verb, name)
	}
	return nil
}

// open opens the session for verb: a write makes it if no write has, a
// read ("read") of a session no write made is refused (42002, with the
// names a small edit away), so that no reader adds a name to what every
// client lists.
func (s *Server) open(ctx context.Context, name, verb string) (*goldfish.Session, error) {
	open := s.db.Existing
	if verb == "write" {
		open = s.db.Session
	}
	sess, err := open(ctx, name)
	if err != nil {
		return nil, s.callError(ctx, err)
	}
	return sess, nil
}

// callError gives an error of the database its GQLSTATUS.
func (s *Server) callError(_ context.Context, err error) error { return statusOf(err) }

// sessions answers GET /v1/sessions: the sessions the token may read.
func (s *Server) sessions(_ http.ResponseWriter, _ *http.Request, scope *Scope) (any, error) {
	return s.sessionList(scope), nil
}

func (s *Server) sessionList(scope *Scope) wire.Sessions {
	out := wire.Sessions{Sessions: []wire.Session{}}
	for _, in := range s.db.SessionInfos() {
		if scope.CanRead(in.Name) {
			out.Sessions = append(out.Sessions, wire.SessionOf(in))
		}
	}
	return out
}
