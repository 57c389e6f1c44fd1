package server

import (
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/wire"
)

// The endpoints below are the rest of what gqlsh's meta-commands do, so
// that the shell on a server (gqlsh --url) does all it does on a cabinet
// of its own: one session's version and counts (:use, :sessions), its
// agents (:agents), its kinds (:kinds), its names (the shell's completion), a purge (:purge), a drop (:drop),
// a flush (:flush) and a backup of the server's cabinet to the caller
// (:backup).

// sessionInfo answers GET /v1/sessions/{name}: the session's version and
// counts, as GET /v1/sessions lists them; a session no write has made
// yet answers version 0 and no nodes, and is not made by the answer.
func (s *Server) sessionInfo(_ http.ResponseWriter, r *http.Request, scope *Scope) (any, error) {
	name := r.PathValue("name")
	if err := checkScope(scope, name, "read"); err != nil {
		return nil, err
	}
	if name == goldfish.CatalogName {
		sess, err := s.open(r.Context(), name, "read")
		if err != nil {
			return nil, err
		}
		return wire.Session{Name: name, Version: s.catalogVersion(sess, scope)}, nil
	}
	if in, ok := s.infoOf(name); ok {
		return wire.SessionOf(in), nil
	}
	return wire.Session{Name: name}, nil
}

// catalogVersion is the catalogue's version as the token sees it: a token
// that reads only some sessions Recalls a catalogue of its own, at
// version 1 (see doRecall).
func (s *Server) catalogVersion(sess *goldfish.Session, scope *Scope) uint64 {
	if !scope.Unrestricted() {
		return 1
	}
	return sess.Version()
}

// infoOf is the catalogue's entry of session name.
func (s *Server) infoOf(name string) (goldfish.SessionInfo, bool) {
	infos := s.db.SessionInfos()
	i := slices.IndexFunc(infos, func(in goldfish.SessionInfo) bool { return in.Name == name })
	if i < 0 {
		return goldfish.SessionInfo{}, false
	}
	return infos[i], true
}

// agents answers GET /v1/sessions/{name}/agents. A token bound to agents
// sees only those (the others are other callers' names).
func (s *Server) agents(_ http.ResponseWriter, r *http.Request, scope *Scope) (any, error) {
	sess, err := s.peek(r.Context(), scope, r.PathValue("name"))
	if err != nil {
		return nil, err
	}
	list, err := sess.Agents(r.Context())
	if err != nil {
		return nil, s.callError(r.Context(), err)
	}
	out := wire.Agents{Agents: []wire.Agent{}}
	for _, a := range list {
		if scope.Bound() && !slices.Contains(scope.Agents, a.Name) {
			continue
		}
		out.Agents = append(out.Agents, wire.AgentOf(a))
	}
	return out, nil
}

// forgetAgent answers DELETE /v1/sessions/{name}/agents/{agent}: the
// agent's next Recall is a first read. It is a write, and a token bound
// to agents forgets only those.
func (s *Server) forgetAgent(_ http.ResponseWriter, r *http.Request, scope *Scope) (any, error) {
	sess, agent, err := s.sessionAs(r.Context(), scope, r.PathValue("name"), "write", r.PathValue("agent"))
	if err != nil {
		return nil, err
	}
	if err := sess.ForgetAgent(r.Context(), agent); err != nil {
		return nil, s.callError(r.Context(), err)
	}
	return wire.Agents{Agents: []wire.Agent{}}, nil
}

// kinds answers GET /v1/sessions/{name}/kinds[?kind=K].
func (s *Server) kinds(_ http.ResponseWriter, r *http.Request, scope *Scope) (any, error) {
	sess, err := s.peek(r.Context(), scope, r.PathValue("name"))
	if err != nil {
		return nil, err
	}
	ks, err := sess.Kinds(r.Context(), r.URL.Query().Get("kind"))
	if err != nil {
		return nil, s.callError(r.Context(), err)
	}
	out := wire.Kinds{Kinds: []wire.Kind{}}
	for _, k := range ks {
		out.Kinds = append(out.Kinds, wire.KindOf(k))
	}
	return out, nil
}

// names answers GET /v1/sessions/{name}/names.
func (s *Server) names(_ http.ResponseWriter, r *http.Request, scope *Scope) (any, error) {
	sess, err := s.peek(r.Context(), scope, r.PathValue("name"))
	if err != nil {
		return nil, err
	}
	n, err := sess.Names(r.Context())
	if err != nil {
		return nil, s.callError(r.Context(), err)
	}
	return wire.NamesOf(n), nil
}

// purge answers POST /v1/sessions/{name}/purge: a write.
func (s *Server) purge(_ http.ResponseWriter, r *http.Request, scope *Scope) (any, error) {
	sess, err := s.session(r.Context(), scope, r.PathValue("name"), "write")
	if err != nil {
		return nil, err
	}
	n, err := sess.Purge(r.Context())
	if err != nil {
		return nil, s.callError(r.Context(), err)
	}
	return wire.Purge{Purged: n, Version: sess.Version()}, nil
}

// drop answers DELETE /v1/sessions/{name}: the session is deleted for
// good. It needs the write scope on the name; the catalogue cannot be
// dropped, and a session that does not exist is refused (42002).
func (s *Server) drop(_ http.ResponseWriter, r *http.Request, scope *Scope) (any, error) {
	name := r.PathValue("name")
	if err := checkScope(scope, name, "write"); err != nil {
		return nil, err
	}
	if name == goldfish.CatalogName {
		return nil, gqlstatus.Errorf(gqlstatus.ReadOnlySession, "the %s lists the sessions and cannot be dropped", goldfish.CatalogName)
	}
	in, ok := s.infoOf(name)
	if !ok && !slices.Contains(s.db.Sessions(), name) {
		return nil, gqlstatus.Errorf(gqlstatus.InvalidReference, "there is no session %q to drop", name).
			WithHint("GET /v1/sessions lists them")
	}
	if !ok {
		in = goldfish.SessionInfo{Name: name}
	}
	if err := s.db.Drop(r.Context(), name); err != nil {
		return nil, s.callError(r.Context(), err)
	}
	return wire.Dropped{Dropped: wire.SessionOf(in)}, nil
}

// flush answers POST /v1/flush: the sessions the token may write, each
// written as a compact snapshot (all of them for a token that may write
// every session).
func (s *Server) flush(_ http.ResponseWriter, r *http.Request, scope *Scope) (any, error) {
	if scope.all || contains(scope.Write, "*") {
		if err := s.db.Flush(r.Context()); err != nil {
			return nil, s.callError(r.Context(), err)
		}
		return wire.Flush{Cabinet: s.db.CabinetPath()}, nil
	}
	for _, name := range s.db.Sessions() {
		if !scope.CanWrite(name) {
			continue
		}
		sess, err := s.open(r.Context(), name, "write")
		if err != nil {
			return nil, err
		}
		if err := sess.Flush(r.Context()); err != nil {
			return nil, s.callError(r.Context(), err)
		}
	}
	return wire.Flush{Cabinet: s.db.CabinetPath()}, nil
}

// backup answers GET /v1/backup with a consistent copy of the server's
// cabinet file, whole: it holds every session, so only a token that may
// read every session may take it.
func (s *Server) backup(w http.ResponseWriter, r *http.Request, scope *Scope) (any, error) {
	if !scope.Unrestricted() {
		return nil, gqlstatus.Errorf(gqlstatus.AccessDenied, "this token may read only some sessions, and a backup holds them all").
			WithHint("use a token made with gqlsh token --read '*'")
	}
	switch where := s.db.CabinetPath(); {
	case where == "":
		return nil, gqlstatus.Errorf(gqlstatus.InvalidOption, "nothing to back up: the sessions are in memory (gqlsh serve --mem)").
			WithHint("run gqlsh serve on a cabinet file")
	case strings.Contains(where, "://"):
		return nil, gqlstatus.Errorf(gqlstatus.InvalidOption, "nothing to back up here: the sessions are in PostgreSQL, which keeps no cabinet file").
			WithHint("back up PostgreSQL with pg_dump")
	}
	dir, err := os.MkdirTemp("", "goldfish-backup-")
	if err != nil {
		return nil, s.callError(r.Context(), err)
	}
	defer os.RemoveAll(dir)
	tmp := filepath.Join(dir, "cabinet.gf")
	if err := s.db.Backup(tmp); err != nil {
		return nil, s.callError(r.Context(), err)
	}
	f, err := os.Open(tmp)
	if err != nil {
		return nil, s.callError(r.Context(), err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, s.callError(r.Context(), err)
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	http.ServeContent(w, r, "cabinet.gf", fi.ModTime(), f)
	return written{}, nil
}

// written is the answer of a handler that wrote its own (api writes
// nothing more).
type written struct{}
