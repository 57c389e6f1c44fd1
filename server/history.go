package server

import (
	"net/http"
	"strconv"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/wire"
)

// The endpoints that read a session's past as GQL (docs/design.md#persistence-and-history, History),
// as gqlsh's :diff and :history do: GET /v1/sessions/{name}/diff and
// /history, and /dump?at=N, the dump a diff committed elsewhere is
// checked against.

// queryVersion reads a version from the query (absent: def).
func queryVersion(r *http.Request, key string, def uint64) (uint64, error) {
	s := r.URL.Query().Get(key)
	if s == "" {
		return def, nil
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, gqlstatus.Errorf(gqlstatus.InvalidOption, "%s=%q is not a version", key, s).
			WithHint("a version is a whole number: 0 (the empty graph) or one the session made")
	}
	return v, nil
}

// diff answers GET /v1/sessions/{name}/diff?from=&to=&nick=&kind=.
func (s *Server) diff(_ http.ResponseWriter, r *http.Request, scope *Scope) (any, error) {
	sess, err := s.session(r.Context(), scope, r.PathValue("name"), "read")
	if err != nil {
		return nil, err
	}
	q := r.URL.Query()
	if q.Get("from") == "" || q.Get("to") == "" {
		return nil, gqlstatus.Errorf(gqlstatus.InvalidOption, "a diff needs from and to").
			WithHint("GET /v1/sessions/NAME/diff?from=3&to=7 (from=0 is the empty graph); nick= and kind= narrow it")
	}
	from, err := queryVersion(r, "from", 0)
	if err != nil {
		return nil, err
	}
	to, err := queryVersion(r, "to", 0)
	if err != nil {
		return nil, err
	}
	d, err := sess.Diff(r.Context(), from, to, goldfish.DiffOptions{Nicks: q["nick"], Kinds: q["kind"]})
	if err != nil {
		return nil, s.callError(r.Context(), err)
	}
	return d, nil
}

// history answers GET /v1/sessions/{name}/history?nick=&limit=.
func (s *Server) history(_ http.ResponseWriter, r *http.Request, scope *Scope) (any, error) {
	sess, err := s.session(r.Context(), scope, r.PathValue("name"), "read")
	if err != nil {
		return nil, err
	}
	q := r.URL.Query()
	nick := q.Get("nick")
	if nick == "" {
		return nil, gqlstatus.Errorf(gqlstatus.InvalidOption, "a history needs the nick of a node").
			WithHint("GET /v1/sessions/NAME/history?nick=TSK_login&limit=20")
	}
	limit := 0
	if l := q.Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 || n > 1000 {
			return nil, gqlstatus.Errorf(gqlstatus.InvalidOption, "limit=%q is not a number of versions from 1 to 1000", l).
				WithHint("leave limit out for the 20 latest")
		}
		limit = n
	}
	h, err := sess.History(r.Context(), nick, limit)
	if err != nil {
		return nil, s.callError(r.Context(), err)
	}
	return wire.HistoryOf(h), nil
}

// dumpAt answers GET /v1/sessions/{name}/dump?at=N: the dump at a
// version the session keeps readable.
func (s *Server) dumpAt(r *http.Request, sess *goldfish.Session) (any, error) {
	v, err := queryVersion(r, "at", 0)
	if err != nil {
		return nil, err
	}
	text, err := sess.DumpAt(r.Context(), v)
	if err != nil {
		return nil, s.callError(r.Context(), err)
	}
	return wire.Dump{Version: v, Dump: text}, nil
}

// versions answers GET /v1/sessions/{name}/versions?limit=.
func (s *Server) versions(_ http.ResponseWriter, r *http.Request, scope *Scope) (any, error) {
	sess, err := s.session(r.Context(), scope, r.PathValue("name"), "read")
	if err != nil {
		return nil, err
	}
	limit := 0
	if l := r.URL.Query().Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 || n > 1000 {
			return nil, gqlstatus.Errorf(gqlstatus.InvalidOption, "limit=%q is not a number of versions from 1 to 1000", l).
				WithHint("leave limit out for the 20 latest")
		}
		limit = n
	}
	newest := sess.Version()
	es, more, oldest, err := sess.Versions(r.Context(), limit)
	if err != nil {
		return nil, s.callError(r.Context(), err)
	}
	return wire.VersionsOf(newest, es, more, oldest), nil
}
