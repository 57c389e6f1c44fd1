package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/server/ui"
	"github.com/goldfish-gql/goldfish/wire"
)

// MaxFrame is the most bytes of one request body or response (docs/design.md#budgets).
const MaxFrame = wire.MaxFrame

// DefaultMemorySession is the session the memory-server tools work on.
const DefaultMemorySession = "memory"

// Options configure a Server.
type Options struct {
	// Tokens are the tokens the server accepts; nil serves every caller
	// with every right (the command allows that on loopback only).
	Tokens *Tokens
	// Deadline bounds each request's work (0: none); a call over it is
	// cancelled through its context and answers 503.
	Deadline time.Duration
	// MemorySession is the session of the memory-server tools
	// (DefaultMemorySession when empty).
	MemorySession string
	// Version is reported as the MCP server's version.
	Version string
	// Logger logs each failed request (nil: slog's default logger).
	Logger *slog.Logger
	// Ready probes the cabinet for GET /readyz: nil when it is
	// reachable. It is called at most once a second (the answer is kept
	// for a second, and a request that found the cabinet unreachable
	// counts as a probe), one call at a time, each bounded by one second.
	// Nil: the database's Ping (a query of the PostgreSQL cabinet; a
	// cabinet file or memory is always reachable).
	Ready func(context.Context) error
	// PrivateMetrics puts /metrics behind a token that may read every
	// session (with Tokens). Without it /metrics needs no token and
	// shows totals only: no series names a session, a token or an agent,
	// but the totals count every session's requests and Commits.
	PrivateMetrics bool
}

// Server answers HTTP/JSON and MCP requests on one database.
type Server struct {
	db       *goldfish.DB
	opts     Options
	mux      *http.ServeMux
	metrics  *metrics
	draining atomic.Bool
	ready    readiness
	warm     warmth
	// memory serialises the drop-in's writes per session.
	memory memoryLocks
	// agentSlots bounds the agents each token acts as per session.
	agentSlots agentSlots

	mcpOnce   sync.Once
	mcpServer *mcp.Server
	origins   *http.CrossOriginProtection
}

// New makes a server on db.
func New(db *goldfish.DB, opts Options) (*Server, error) {
	if opts.MemorySession == "" {
		opts.MemorySession = DefaultMemorySession
	}
	if err := goldfish.ValidSessionName(opts.MemorySession); err != nil {
		return nil, err
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Ready == nil {
		opts.Ready = db.Ping
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	s := &Server{db: db, opts: opts, mux: http.NewServeMux(), origins: http.NewCrossOriginProtection()}
	s.metrics = newMetrics(db)
	s.mux.Handle("POST /v1/sessions/{name}/recall", s.api("recall", s.recall))
	s.mux.Handle("POST /v1/sessions/{name}/commit", s.api("commit", s.commit))
	s.mux.Handle("GET /v1/sessions", s.api("sessions", s.sessions))
	s.mux.Handle("GET /v1/sessions/{name}/vocabulary", s.api("vocabulary", s.vocabulary))
	s.mux.Handle("GET /v1/sessions/{name}/settings", s.api("settings", s.settings))
	s.mux.Handle("POST /v1/sessions/{name}/settings", s.api("settings", s.setSettings))
	s.mux.Handle("GET /v1/sessions/{name}/dump", s.api("dump", s.dump))
	s.mux.Handle("GET /v1/sessions/{name}/diff", s.api("diff", s.diff))
	s.mux.Handle("GET /v1/sessions/{name}/history", s.api("history", s.history))
	s.mux.Handle("GET /v1/sessions/{name}/versions", s.api("versions", s.versions))
	s.mux.Handle("POST /v1/sessions/{name}/export", s.api("export", s.export))
	s.mux.Handle("POST /v1/sessions/{name}/absorb", s.api("absorb", s.absorb))
	s.mux.Handle("GET /v1/sessions/{name}", s.api("session", s.sessionInfo))
	s.mux.Handle("DELETE /v1/sessions/{name}", s.api("drop", s.drop))
	s.mux.Handle("GET /v1/sessions/{name}/agents", s.api("agents", s.agents))
	s.mux.Handle("DELETE /v1/sessions/{name}/agents/{agent}", s.api("agents", s.forgetAgent))
	s.mux.Handle("GET /v1/sessions/{name}/kinds", s.api("kinds", s.kinds))
	s.mux.Handle("POST /v1/sessions/{name}/purge", s.api("purge", s.purge))
	s.mux.Handle("GET /v1/sessions/{name}/names", s.api("names", s.names))
	s.mux.Handle("POST /v1/flush", s.api("flush", s.flush))
	s.mux.Handle("GET /v1/backup", s.api("backup", s.backup))
	s.mux.Handle("GET /v1/help", s.api("help", s.helpTopics))
	s.mux.Handle("GET /v1/help/{topic}", s.api("help", s.help))
	s.mux.Handle("GET /healthz", s.metrics.instrument("healthz", http.HandlerFunc(s.healthz)))
	s.mux.Handle("GET /readyz", s.metrics.instrument("readyz", http.HandlerFunc(s.readyz)))
	s.mux.Handle("GET /metrics", s.metrics.instrument("metrics", s.metricsHandler()))
	s.mux.Handle("/mcp", s.metrics.instrument("mcp", s.mcpHTTP()))
	// The memory browser's page holds no data (it reads the API with the
	// person's token), so it is served without one.
	s.mux.Handle("GET "+ui.Prefix, s.metrics.instrument("ui", ui.Handler()))
	s.mux.Handle("GET /ui", http.RedirectHandler(ui.Prefix, http.StatusMovedPermanently))
	// An MCP client looking for OAuth finds words instead, without a
	// token: there is none to find.
	s.mux.Handle("/.well-known/", s.metrics.instrument("other", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.writeError(w, r, errNoOAuth(r))
	})))
	s.mux.Handle("/", s.api("other", func(_ http.ResponseWriter, r *http.Request, _ *Scope) (any, error) {
		return nil, routeError(r)
	}))
	return s, nil
}

// ServeHTTP answers one request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := s.checkBrowser(r); err != nil {
		s.writeError(w, r, err)
		return
	}
	s.mux.ServeHTTP(w, r)
}

// checkBrowser refuses what a web page could make a browser send: a
// request that changes something from another origin (cross-site request
// forgery), and a request on a loopback address that names another host
// (DNS rebinding, which makes a page's origin resolve to 127.0.0.1). A
// server without tokens trusts whoever reaches it, so a page the user
// happens to open must not be able to.
func (s *Server) checkBrowser(r *http.Request) error {
	if la, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && la != nil && isLoopback(la.String()) && !isLoopback(r.Host) {
		return gqlstatus.Errorf(gqlstatus.AccessDenied, "a request to a loopback address names the host %q", r.Host).
			WithHint("on a loopback address, send Host 127.0.0.1, [::1] or localhost")
	}
	if err := s.origins.Check(r); err != nil {
		return gqlstatus.Errorf(gqlstatus.AccessDenied, "a browser's cross-origin request is refused: %v", err).
			WithHint("call the server from a program, not from a web page of another origin")
	}
	return nil
}

// isLoopback reports whether a host or host:port is a loopback address or
// localhost.
func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = strings.Trim(addr, "[]")
	}
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// Drain makes every request from now on answer 503 (08Q03) and /healthz
// report the shutdown, so a load balancer stops sending; requests already
// admitted finish. http.Server.Shutdown then waits for them.
func (s *Server) Drain() { s.draining.Store(true) }

// Flush compacts the sessions in memory (each Commit is durable already:
// this only makes the cabinet quick to open). Sessions a memory budget
// unloaded are not hydrated again for it: what they hold is in the
// cabinet, and closing the database saves what their agents read.
func (s *Server) Flush(ctx context.Context) error { return s.db.Flush(ctx) }

// handlerFunc is one endpoint: it returns the answer to encode, or an error.
type handlerFunc func(w http.ResponseWriter, r *http.Request, scope *Scope) (any, error)

// api wraps an endpoint with what every /v1 request gets: the shutdown
// check, the token (both before the body is read: a refusal leaves it
// unread, see dropUnread), the frame cap, the deadline, metrics, and
// JSON out.
func (s *Server) api(route string, h handlerFunc) http.Handler {
	return s.metrics.instrument(route, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.draining.Load() {
			s.writeError(w, r, errShuttingDown())
			return
		}
		scope, err := s.authorize(r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		ctx, cancel := s.withDeadline(r.Context())
		defer cancel()
		r = r.WithContext(ctx)
		r.Body = http.MaxBytesReader(w, r.Body, MaxFrame)
		trackBody(r)
		v, err := h(w, r, scope)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		if _, ok := v.(written); ok {
			return
		}
		s.writeJSON(w, r, http.StatusOK, v)
	}))
}

// errDeadline is the cause of a request cut short by the server's deadline.
var errDeadline = errors.New("the server's request deadline passed")

func (s *Server) withDeadline(ctx context.Context) (context.Context, context.CancelFunc) {
	if s.opts.Deadline <= 0 {
		return ctx, func() {}
	}
	return context.WithTimeoutCause(ctx, s.opts.Deadline, fmt.Errorf("%w (%s)", errDeadline, s.opts.Deadline))
}

// authorize returns the scope of the request's token.
func (s *Server) authorize(r *http.Request) (*Scope, error) {
	if s.opts.Tokens == nil {
		return Everything, nil
	}
	return s.opts.Tokens.scopeOf(r.Header.Get("Authorization"))
}

func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	s.writeErrorStatus(w, r, err, 0)
}

// writeErrorStatus writes err as writeError does, with the HTTP status
// code instead of the one err's code maps to when code is not 0.
func (s *Server) writeErrorStatus(w http.ResponseWriter, r *http.Request, err error, code int) {
	dropUnread(w, r)
	ge := statusOf(err)
	if code == 0 {
		code = httpStatus(ge)
		if errors.Is(err, errNoRoute) {
			code = routeStatus(r)
		}
	}
	if code == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="goldfish"`)
	}
	if code == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", retryAfter)
	}
	if ge.Code == gqlstatus.CabinetUnavailable {
		s.ready.set(ge)
	}
	if code >= 500 && code != http.StatusServiceUnavailable {
		s.opts.Logger.Warn("request failed", "method", r.Method, "path", r.URL.Path, "status", code, "error", ge.Error())
	}
	s.writeJSON(w, r, code, wire.ErrorOf(ge))
}

func (s *Server) writeJSON(w http.ResponseWriter, r *http.Request, code int, v any) {
	b, err := encodeAnswer(v)
	if err != nil {
		s.writeError(w, r, gqlstatus.Errorf(gqlstatus.Internal, "cannot write the answer as JSON: %v", err))
		return
	}
	if len(b) > MaxFrame {
		if _, isErr := v.(wire.Error); !isErr {
			s.writeError(w, r, errFrame("answer"))
			return
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	w.Write(b)
}

// encodeAnswer is v as the server writes it (wire.Marshal), then a
// newline.
func encodeAnswer(v any) ([]byte, error) {
	b, err := wire.Marshal(v)
	return append(b, '\n'), err
}

var errNoRoute = errors.New("no such endpoint")

// sessionVerbs are the endpoints under /v1/sessions/{name}/.
var sessionVerbs = map[string]bool{"recall": true, "commit": true, "export": true, "absorb": true,
	"settings": true, "vocabulary": true, "dump": true}

func routeError(r *http.Request) error {
	return &gqlstatus.Error{Code: gqlstatus.InvalidReference, Cause: errNoRoute,
		Msg:  fmt.Sprintf("there is no endpoint %s %s", r.Method, r.URL.Path),
		Hint: "POST /v1/sessions/NAME/recall, /commit, /export, /absorb or /settings; GET /v1/sessions, /v1/sessions/NAME/vocabulary, /settings, /dump, /diff, /history or /versions; GET /v1/help or /v1/help/TOPIC; GET /healthz, /readyz, /metrics; /mcp"}
}

// errNoOAuth answers the discovery documents of OAuth (RFC 8414, RFC
// 9728, OpenID): the server has none.
func errNoOAuth(r *http.Request) error {
	return &gqlstatus.Error{Code: gqlstatus.InvalidReference, Cause: errNoRoute,
		Msg:  fmt.Sprintf("there is no %s: this server does not do OAuth", r.URL.Path),
		Hint: `it takes a bearer token: make one with gqlsh token and send "Authorization: Bearer TOKEN" (in an MCP client's configuration, the headers of the server's entry)`}
}

// routeStatus is 405 for a known path with the wrong method, else 404.
func routeStatus(r *http.Request) int {
	p := r.URL.Path
	if p == "/v1/sessions" || p == "/v1/help" || p == "/healthz" || p == "/readyz" || p == "/metrics" {
		return http.StatusMethodNotAllowed
	}
	if topic, ok := strings.CutPrefix(p, "/v1/help/"); ok {
		if _, ok := goldfish.Help(topic); ok {
			return http.StatusMethodNotAllowed
		}
	}
	if rest, ok := strings.CutPrefix(p, "/v1/sessions/"); ok {
		if _, verb, ok := strings.Cut(rest, "/"); ok && sessionVerbs[verb] {
			return http.StatusMethodNotAllowed
		}
	}
	return http.StatusNotFound
}

func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	if s.draining.Load() {
		w.Header().Set("Retry-After", retryAfter)
		s.writeJSON(w, r, http.StatusServiceUnavailable, map[string]string{"status": "shutting down"})
		return
	}
	s.writeJSON(w, r, http.StatusOK, map[string]string{"status": "ok"})
}
