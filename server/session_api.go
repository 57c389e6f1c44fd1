package server

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/wire"
)

// The endpoints below give a program what the shell's meta-commands give
// a person: a session's vocabulary (:views, :actions), its attention
// settings (:set), a listing of all of it (:dump), and slices to move
// neighbourhoods between sessions and servers (:export, :absorb).

// vocabulary answers GET /v1/sessions/{name}/vocabulary.
func (s *Server) vocabulary(_ http.ResponseWriter, r *http.Request, scope *Scope) (any, error) {
	name := r.PathValue("name")
	sess, err := s.peek(r.Context(), scope, name)
	if err != nil {
		return nil, err
	}
	if name == goldfish.CatalogName && !scope.Unrestricted() {
		// The catalogue a token that reads only some sessions Recalls is
		// theirs alone, at version 1 (goldfish.RecallOptions.Sessions);
		// its vocabulary is that catalogue's: the real one's version
		// counts the changes of every session. The catalogue takes no
		// Commit, so it has no views or actions.
		return wire.VocabularyOf(&goldfish.Vocabulary{Version: 1}), nil
	}
	v, err := sess.Vocabulary(r.Context())
	if err != nil {
		return nil, s.callError(r.Context(), err)
	}
	return wire.VocabularyOf(v), nil
}

// settings answers GET /v1/sessions/{name}/settings.
func (s *Server) settings(_ http.ResponseWriter, r *http.Request, scope *Scope) (any, error) {
	sess, err := s.peek(r.Context(), scope, r.PathValue("name"))
	if err != nil {
		return nil, err
	}
	cur, err := sess.AttentionSettings(r.Context())
	if err != nil {
		return nil, s.callError(r.Context(), err)
	}
	return settingsJSON(r.Context(), s, sess, cur)
}

// settingsJSON is the answer of the settings endpoints.
func settingsJSON(ctx context.Context, s *Server, sess *goldfish.Session, set goldfish.AttentionSettings) (wire.Settings, error) {
	pinned, err := sess.PinnedKinds(ctx)
	if err != nil {
		return wire.Settings{}, s.callError(ctx, err)
	}
	return wire.SettingsOf(set, pinned), nil
}

// setSettings answers POST /v1/sessions/{name}/settings. Setting them is
// a write: it needs the write scope, as a Commit does.
func (s *Server) setSettings(_ http.ResponseWriter, r *http.Request, scope *Scope) (any, error) {
	var req wire.SettingsRequest
	if err := decodeIn(r, scope, "write", &req); err != nil {
		return nil, err
	}
	name := r.PathValue("name")
	sess, err := s.session(r.Context(), scope, name, "write")
	if err != nil {
		return nil, err
	}
	if name == goldfish.CatalogName {
		return nil, gqlstatus.Errorf(gqlstatus.ReadOnlySession, "the %s session is kept by the engine and has no settings to change", goldfish.CatalogName).
			WithHint("set the attention settings of a session of your own")
	}
	// Read, change, write: two requests changing different settings at
	// once must both hold, so they take turns (one lock per session).
	defer s.memory.lock("settings\x00" + name)()
	cur, err := sess.AttentionSettings(r.Context())
	if err != nil {
		return nil, s.callError(r.Context(), err)
	}
	if req.StaleReads != nil {
		cur.StaleReads = *req.StaleReads
	}
	if req.Decay != nil {
		cur.Decay = *req.Decay
	}
	if req.SalienceThreshold != nil {
		cur.SalienceThreshold = *req.SalienceThreshold
	}
	if req.GapRatio != nil {
		cur.GapRatio = *req.GapRatio
	}
	if req.GapMin != nil {
		cur.GapMin = *req.GapMin
	}
	if req.GapWindow != nil {
		cur.GapWindow = *req.GapWindow
	}
	if req.History != nil {
		cur.History = *req.History
	}
	if req.Pinned != nil {
		// The kinds first: their refusal leaves everything as it was;
		// the settings' refusal then puts the kinds back.
		was, err := sess.PinnedKinds(r.Context())
		if err != nil {
			return nil, s.callError(r.Context(), err)
		}
		if err := sess.SetPinnedKinds(r.Context(), *req.Pinned); err != nil {
			return nil, s.callError(r.Context(), err)
		}
		if err := sess.SetAttentionSettings(r.Context(), cur); err != nil {
			sess.SetPinnedKinds(r.Context(), was)
			return nil, s.callError(r.Context(), err)
		}
		return settingsJSON(r.Context(), s, sess, cur)
	}
	if err := sess.SetAttentionSettings(r.Context(), cur); err != nil {
		return nil, s.callError(r.Context(), err)
	}
	return settingsJSON(r.Context(), s, sess, cur)
}

// dump answers GET /v1/sessions/{name}/dump.
func (s *Server) dump(_ http.ResponseWriter, r *http.Request, scope *Scope) (any, error) {
	name := r.PathValue("name")
	if name == goldfish.CatalogName && !scope.Unrestricted() {
		// The catalogue's listing holds every session: a token that may
		// read only some reads the catalogue through Recall, which shows
		// it only those (and hides the others' changes in its version).
		return nil, gqlstatus.Errorf(gqlstatus.AccessDenied, "this token may read only some sessions, and the %s session's dump lists them all", goldfish.CatalogName).
			WithHint("Recall the catalogue (MATCH (s:SESSION)) or GET /v1/sessions: both show the sessions this token may read")
	}
	sess, err := s.peek(r.Context(), scope, name)
	if err != nil {
		return nil, err
	}
	if r.URL.Query().Has("at") {
		return s.dumpAt(r, sess)
	}
	// One snapshot's listing, so the version is the dump's own. It is
	// this server's view: with other hosts it may lag their Commits by
	// the poll interval, as a Recall's knowledge may before it catches up.
	text := sess.Dump()
	version, _, _ := strings.Cut(strings.TrimPrefix(text, "version "), "\n")
	v, _ := strconv.ParseUint(version, 10, 64)
	return wire.Dump{Version: v, Dump: text}, nil
}

// export answers POST /v1/sessions/{name}/export.
func (s *Server) export(_ http.ResponseWriter, r *http.Request, scope *Scope) (any, error) {
	var req wire.ExportRequest
	if err := decodeIn(r, scope, "read", &req); err != nil {
		return nil, err
	}
	sess, err := s.session(r.Context(), scope, r.PathValue("name"), "read")
	if err != nil {
		return nil, err
	}
	o, err := req.SliceOptions()
	if err != nil {
		return nil, err
	}
	sl, err := sess.ExportSlice(r.Context(), req.Q, o)
	if err != nil {
		return nil, s.callError(r.Context(), err)
	}
	return wire.SliceOf(sl), nil
}

// absorb answers POST /v1/sessions/{name}/absorb.
func (s *Server) absorb(_ http.ResponseWriter, r *http.Request, scope *Scope) (any, error) {
	var req wire.AbsorbRequest
	if err := decodeIn(r, scope, "write", &req); err != nil {
		return nil, err
	}
	name := r.PathValue("name")
	sess, agent, err := s.sessionAs(r.Context(), scope, name, "write", req.Agent)
	if err != nil {
		return nil, err
	}
	policy, err := goldfish.ParseAbsorbPolicy(req.Policy)
	if err != nil {
		return nil, err
	}
	res, err := sess.AbsorbWith(r.Context(), req.Slice, policy, goldfish.CommitOptions{Agent: agent})
	if err != nil {
		return nil, s.callError(r.Context(), err)
	}
	s.metrics.committed(&res.CommitResult)
	return wire.AbsorbOf(res), nil
}
