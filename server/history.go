package server

import (
	"net/http"
	"strconv"
	"time"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/gqlstatus"
)

// The endpoints that read a session's past as GQL (SPEC §7, History),
// as gqlsh's :diff and :history do: GET /v1/sessions/{name}/diff and
// /history, and /dump?at=N, the dump a diff committed elsewhere is
// checked against.

// DiffJSON is the answer of GET /v1/sessions/{name}/diff: the Δ that,
// committed on a copy of version from, gives version to, in goldfish.Diff's
// JSON form.
type DiffJSON = goldfish.Diff

// HistoryJSON is the answer of GET /v1/sessions/{name}/history.
type HistoryJSON struct {
	Nick    string             `json:"nick"`
	Entries []HistoryEntryJSON `json:"entries"`
	More    bool               `json:"more"`
	Oldest  uint64             `json:"oldest"`
}

// HistoryEntryJSON is one version that changed the node.
type HistoryEntryJSON struct {
	Version uint64   `json:"version"`
	How     string   `json:"how"`
	Agent   string   `json:"agent,omitempty"`
	Time    string   `json:"time,omitempty"`
	Change  DiffJSON `json:"change"`
}

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
	out := HistoryJSON{Nick: h.Nick, More: h.More, Oldest: h.Oldest, Entries: []HistoryEntryJSON{}}
	for _, e := range h.Entries {
		he := HistoryEntryJSON{Version: e.Version, How: e.How, Agent: e.Agent, Change: *e.Change}
		if !e.Time.IsZero() {
			he.Time = e.Time.UTC().Format(time.RFC3339Nano)
		}
		out.Entries = append(out.Entries, he)
	}
	return out, nil
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
	return DumpJSON{Version: v, Dump: text}, nil
}

// VersionsJSON is the answer of GET /v1/sessions/{name}/versions: the
// versions the session keeps readable, newest first (a timeline).
type VersionsJSON struct {
	Version  uint64             `json:"version"`
	Versions []VersionEntryJSON `json:"versions"`
	More     bool               `json:"more"`
	Oldest   uint64             `json:"oldest"`
}

// VersionEntryJSON is one version: what made it, who, when.
type VersionEntryJSON struct {
	Version uint64 `json:"version"`
	How     string `json:"how"`
	Agent   string `json:"agent,omitempty"`
	Time    string `json:"time,omitempty"`
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
	out := VersionsJSON{Version: newest, More: more, Oldest: oldest, Versions: []VersionEntryJSON{}}
	for _, e := range es {
		ve := VersionEntryJSON{Version: e.Version, How: e.How, Agent: e.Agent}
		if !e.Time.IsZero() {
			ve.Time = e.Time.UTC().Format(time.RFC3339Nano)
		}
		out.Versions = append(out.Versions, ve)
		if e.Version > out.Version {
			out.Version = e.Version
		}
	}
	return out, nil
}
