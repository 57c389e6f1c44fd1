package server

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/goldfish-gql/goldfish/gqlstatus"
)

// Readiness (GET /readyz): /healthz says the process serves (liveness),
// /readyz whether it can do its work now: 503 once shutdown began, and
// 503 while the cabinet is unreachable, so a load balancer sends the
// requests elsewhere until it is back.
const (
	// readyFor is how long what the server learnt of the cabinet stands
	// for: a probe's answer, or a request that found it unreachable.
	readyFor = time.Second
	// readyTimeout bounds one probe.
	readyTimeout = time.Second
)

// readiness is what the server last learnt of the cabinet.
type readiness struct {
	probe   sync.Mutex // one probe at a time
	mu      sync.Mutex
	checked time.Time
	err     error // nil: reachable
}

// set records what a probe or a request learnt of the cabinet.
func (r *readiness) set(err error) {
	r.mu.Lock()
	r.checked, r.err = time.Now(), err
	r.mu.Unlock()
}

func (r *readiness) fresh() (error, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err, !r.checked.IsZero() && time.Since(r.checked) < readyFor
}

// check returns what is known of the cabinet, probing it when that is
// older than readyFor (nil probe: reachable).
func (r *readiness) check(ctx context.Context, probe func(context.Context) error) error {
	if err, ok := r.fresh(); ok {
		return err
	}
	r.probe.Lock()
	defer r.probe.Unlock()
	if err, ok := r.fresh(); ok { // a probe ended while this one waited
		return err
	}
	if probe == nil {
		r.set(nil)
		return nil
	}
	pctx, cancel := context.WithTimeout(ctx, readyTimeout)
	err := probe(pctx)
	cancel()
	if err != nil && ctx.Err() != nil {
		return err // the caller went away: nothing learnt of the cabinet
	}
	r.set(err)
	return err
}

// ReadyJSON is the answer of GET /readyz.
type ReadyJSON struct {
	// Status is "ok", "unavailable" (the cabinet is unreachable) or
	// "shutting down".
	Status string `json:"status"`
	// Cabinet is "unreachable" when it is.
	Cabinet   string `json:"cabinet,omitempty"`
	GQLStatus string `json:"gqlstatus,omitempty"`
	Message   string `json:"message,omitempty"`
}

// readyz answers GET /readyz. It needs no token, as /healthz, so it says
// nothing but the state: the cabinet's error (which names its server) is
// logged, not answered.
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	if s.draining.Load() {
		s.writeJSON(w, r, http.StatusServiceUnavailable, ReadyJSON{Status: "shutting down", GQLStatus: string(gqlstatus.ShuttingDown),
			Message: "the server is shutting down and takes no new requests"})
		return
	}
	if err := s.ready.check(r.Context(), s.opts.Ready); err != nil {
		s.opts.Logger.Warn("not ready: the cabinet is unreachable", "error", err.Error())
		w.Header().Set("Retry-After", retryAfter)
		s.writeJSON(w, r, http.StatusServiceUnavailable, ReadyJSON{Status: "unavailable", Cabinet: "unreachable",
			GQLStatus: string(gqlstatus.CabinetUnavailable), Message: "the cabinet is unreachable: requests that need it answer 503 until it is back"})
		return
	}
	s.writeJSON(w, r, http.StatusOK, ReadyJSON{Status: "ok"})
}
