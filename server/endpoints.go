package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/gqlstatus"
)

// RecallRequest is the body of POST /v1/sessions/{name}/recall.
type RecallRequest struct {
	// Q is the codebook token: a MATCH of node patterns (MATCH () for
	// the outline).
	Q string `json:"q" jsonschema:"the codebook token: a GQL MATCH of node patterns with optional WHERE and LIMIT, e.g. MATCH (t:TSK {status: 'open'}) LIMIT 4; MATCH () for the outline"`
	// Params are the values of the token's $parameters.
	Params Params `json:"params,omitempty" jsonschema:"values of the $parameters the text uses"`
	// Agent names who reads, for the attention envelope.
	Agent   string         `json:"agent,omitempty" jsonschema:"the reading agent's name: the envelope then says what changed since its last read"`
	Options RecallSettings `json:"options,omitempty" jsonschema:"budgets and sections of this Recall; each may be lowered freely"`
	// AtVersion reads the session as of that version
	// (goldfish.RecallOptions.AtVersion; 0 or left out: the newest).
	AtVersion uint64 `json:"at_version,omitempty" jsonschema:"read the session as it was at this version (left out: the newest); the Shape's body is the one it gave then, the header says at=N"`
}

// RecallSettings are a Recall's budgets and sections (SPEC §3, §9). A
// budget left out, or 0, takes its default, but for K: its 0 is a value
// of its own, "k": 0 walks no hop (the seeds alone), and only k left out
// (or null) takes the default 2; so K is a pointer (Hops makes one from
// the API's K).
type RecallSettings struct {
	M     int      `json:"M,omitempty" jsonschema:"most rows in the Shape (default 50)"`
	K     *int     `json:"k,omitempty" jsonschema:"most hops from the seeds: 0 walks no hop (the seeds alone); left out (or 2), the default 2"`
	L     int      `json:"L,omitempty" jsonschema:"most seeds (default 4)"`
	F     int      `json:"F,omitempty" jsonschema:"most new neighbours one node adds (default 8)"`
	T     int      `json:"T,omitempty" jsonschema:"token target (default 4000): over it, nodes beyond the seeds show identity properties only, farthest first"`
	View  string   `json:"view,omitempty" jsonschema:"interior (default) or shell: hierarchical edges and identity properties only"`
	Depth string   `json:"depth,omitempty" jsonschema:"lean (default) or full: how much the attention envelope shows"`
	Only  Sections `json:"only,omitempty" jsonschema:"the sections to keep, any of shape, views, actions, attention (none: all)"`
	// Pinned, NoPeaks and Exact are the Recall options of the same
	// names (goldfish.RecallOptions).
	Pinned  Sections `json:"pinned,omitempty" jsonschema:"kinds whose nodes go into the Shape first, at most max(1, M/4) besides the seeds (empty: the session's pinned kinds, from its settings)"`
	NoPeaks bool     `json:"nopeaks,omitempty" jsonschema:"no fallback (live tasks, then Peak_L): a q that matches nothing seeds nothing"`
	Exact   bool     `json:"exact,omitempty" jsonschema:"count the Shape's tokens with the o200k tokenizer instead of the estimate"`
}

// Sections are the sections of a Recall's "only": a JSON list of names,
// or one string of comma-separated names as the shell's :set only takes.
type Sections []string

// UnmarshalJSON takes ["shape","views"] or "shape,views".
func (s *Sections) UnmarshalJSON(b []byte) error {
	var list []string
	if err := json.Unmarshal(b, &list); err == nil {
		*s = list
		return nil
	}
	var one string
	if err := json.Unmarshal(b, &one); err != nil {
		return fmt.Errorf("only is a list of section names or one string of them separated by commas")
	}
	*s = nil
	for _, p := range strings.Split(one, ",") {
		if p = strings.TrimSpace(p); p != "" {
			*s = append(*s, p)
		}
	}
	return nil
}

// CommitRequest is the body of POST /v1/sessions/{name}/commit.
type CommitRequest struct {
	// Text is the Δ: GQL data-modifying statements, applied atomically.
	Text   string `json:"text" jsonschema:"the Δ: GQL INSERT, MATCH … SET/REMOVE/DELETE, CALL statements, applied as one atomic Commit"`
	Params Params `json:"params,omitempty" jsonschema:"values of the $parameters the text uses"`
	Agent  string `json:"agent,omitempty" jsonschema:"the committing agent's name"`
	// Mint is "default" (fresh ids) or "ingest" (ids from kind and loc,
	// so re-sending the same artefact updates instead of duplicating).
	Mint string `json:"mint,omitempty" jsonschema:"default (fresh ids) or ingest (nodes with loc get ids from kind and loc: re-sending updates instead of duplicating)"`
}

// Params are the values of a text's $parameters, as JSON gives them:
// an integer literal (no fraction, no exponent) is an INTEGER, any
// other number a FLOAT, strings, booleans, null and lists as they are,
// and {"date": "…"} or {"datetime": "…"} a DATE or a DATETIME.
type Params map[string]any

// UnmarshalJSON keeps integers and floats apart, which encoding/json's
// float64 would merge.
func (p *Params) UnmarshalJSON(b []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return fmt.Errorf("params is an object of parameter names and values")
	}
	out := make(Params, len(raw))
	for k, v := range raw {
		var x any
		var err error
		dec := json.NewDecoder(strings.NewReader(string(v)))
		dec.UseNumber()
		if err = dec.Decode(&x); err != nil {
			return err
		}
		if out[k], err = paramValue(x); err != nil {
			return err
		}
	}
	*p = out
	return nil
}

// paramValue turns json.Number into int64 or float64, inside lists too.
func paramValue(v any) (any, error) {
	switch x := v.(type) {
	case json.Number:
		str := string(x)
		if !strings.ContainsAny(str, ".eE") {
			if i, err := strconv.ParseInt(str, 10, 64); err == nil {
				return i, nil
			}
		} else if f, err := strconv.ParseFloat(str, 64); err == nil && !math.IsInf(f, 0) {
			return f, nil
		}
		return nil, gqlstatus.Errorf(gqlstatus.NumericOutOfRange, "the parameter value %s is outside INTEGER and FLOAT", str).
			WithHint("integers are 64-bit; pass a larger number as a string")
	case []any:
		for i := range x {
			var err error
			if x[i], err = paramValue(x[i]); err != nil {
				return nil, err
			}
		}
	case map[string]any:
		return temporalParam(x)
	}
	return v, nil
}

// temporalParam reads the JSON of a DATE or DATETIME parameter, which
// JSON has no literal for: {"date": "2026-01-31"} or {"datetime":
// "2026-01-31T10:00:00+02:00"}, by the rules of the GQL literals.
func temporalParam(x map[string]any) (any, error) {
	bad := gqlstatus.Errorf(gqlstatus.InvalidValueType, "a parameter's value is an object, which GQL has no value for").
		WithHint(`pass a DATE as {"date": "2026-01-31"} and a DATETIME as {"datetime": "2026-01-31T10:00:00Z"}; other values as JSON numbers, strings, booleans, null or lists`)
	if len(x) != 1 {
		return nil, bad
	}
	for key, v := range x {
		text, ok := v.(string)
		if !ok || strings.ContainsAny(text, "'\\") || key != "date" && key != "datetime" {
			return nil, bad
		}
		lit, err := goldfish.ParseLiteral(strings.ToUpper(key) + " '" + text + "'")
		if err != nil {
			var ge *gqlstatus.Error
			if errors.As(err, &ge) {
				return nil, gqlstatus.Errorf(ge.Code, "the parameter value {%q: %q}: %s", key, text, ge.Msg).WithHint(ge.Hint)
			}
			return nil, err
		}
		return lit, nil
	}
	return nil, bad
}

// recall answers POST /v1/sessions/{name}/recall.
func (s *Server) recall(_ http.ResponseWriter, r *http.Request, scope *Scope) (any, error) {
	var req RecallRequest
	if err := decode(r, &req); err != nil {
		return nil, err
	}
	sh, err := s.doRecall(r.Context(), scope, r.PathValue("name"), req)
	if err != nil {
		return nil, err
	}
	return shapeJSON(sh), nil
}

// doRecall is a Recall as every interface makes it: the scope checked
// first, so a session the token may not read answers 403 whether or not
// it exists.
func (s *Server) doRecall(ctx context.Context, scope *Scope, name string, req RecallRequest) (*goldfish.Shape, error) {
	sess, agent, err := s.sessionAs(ctx, scope, name, "read", req.Agent)
	if err != nil {
		return nil, err
	}
	k, err := hops(req.Options.K)
	if err != nil {
		return nil, err
	}
	o := goldfish.RecallOptions{M: req.Options.M, K: k, L: req.Options.L, F: req.Options.F, T: req.Options.T,
		View: req.Options.View, Depth: req.Options.Depth, Only: req.Options.Only, Agent: agent,
		Pinned: req.Options.Pinned, NoPeaks: req.Options.NoPeaks, ExactTokens: req.Options.Exact, AtVersion: req.AtVersion}
	if len(req.Params) > 0 {
		o.Params = req.Params.values()
	}
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

// hops is a k as the JSON requests give it, as the API takes it: left
// out (nil), the default; 0, no walk (goldfish.NoWalk).
func hops(k *int) (int, error) {
	switch {
	case k == nil:
		return 0, nil
	case *k == 0:
		return goldfish.NoWalk, nil
	case *k < 0:
		return 0, gqlstatus.Errorf(gqlstatus.RecallBudget, "budget k=%d is negative", *k).
			WithHint("k is a number of hops: 0 walks no hop (the seeds alone); leave k out for its default")
	}
	return *k, nil
}

// Hops is the JSON k of a Recall's or an export's options for the
// API's K: nil for the default, &0 for no walk (goldfish.NoWalk).
func Hops(k int) *int {
	switch k {
	case 0:
		return nil
	case goldfish.NoWalk:
		k = 0
	}
	return &k
}

// values gives the parameters to the database.
func (p Params) values() map[string]any { return map[string]any(p) }

// commit answers POST /v1/sessions/{name}/commit.
func (s *Server) commit(_ http.ResponseWriter, r *http.Request, scope *Scope) (any, error) {
	var req CommitRequest
	if err := decode(r, &req); err != nil {
		return nil, err
	}
	res, err := s.doCommit(r.Context(), scope, r.PathValue("name"), req)
	if err != nil {
		return nil, err
	}
	return commitJSON(res), nil
}

func (s *Server) doCommit(ctx context.Context, scope *Scope, name string, req CommitRequest) (*goldfish.CommitResult, error) {
	sess, agent, err := s.sessionAs(ctx, scope, name, "write", req.Agent)
	if err != nil {
		return nil, err
	}
	var params map[string]any
	if len(req.Params) > 0 {
		params = req.Params.values()
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
	return s.open(ctx, name)
}

// sessionAs is session for a Recall or Commit that names agent (""
// for none): it checks the scope, then the agents the token is bound to
// (Scope.Agent), then opens the session, and returns the agent the call
// acts as. Every interface's Recalls and Commits go through it, the MCP
// tools too.
func (s *Server) sessionAs(ctx context.Context, scope *Scope, name, verb, agent string) (*goldfish.Session, string, error) {
	if err := checkScope(scope, name, verb); err != nil {
		return nil, "", err
	}
	agent, err := scope.Agent(agent)
	if err != nil {
		return nil, "", err
	}
	sess, err := s.open(ctx, name)
	return sess, agent, err
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

func (s *Server) open(ctx context.Context, name string) (*goldfish.Session, error) {
	sess, err := s.db.Session(ctx, name)
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

func (s *Server) sessionList(scope *Scope) SessionsJSON {
	out := SessionsJSON{Sessions: []SessionJSON{}}
	for _, in := range s.db.SessionInfos() {
		if scope.CanRead(in.Name) {
			out.Sessions = append(out.Sessions, sessionJSON(in))
		}
	}
	return out
}
