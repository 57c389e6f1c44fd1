package server

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/goldfish-gql/goldfish/gqlstatus"
)

// Readiness (GET /readyz): /healthz says the process serves (liveness),
// /readyz whether it can do its work now: 503 once shutdown began, 503
// while the cabinet is unreachable, so a load balancer sends the requests
// elsewhere until it is back, and 503 while Warm replays the logs a stop
// without a flush left, so that none waits for one.
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
	// Status is "ok", "unavailable" (the cabinet is unreachable),
	// "replaying" (Warm has sessions' logs to replay) or "shutting down".
	Status string `json:"status"`
	// Cabinet is "unreachable" when it is.
	Cabinet   string `json:"cabinet,omitempty"`
	GQLStatus string `json:"gqlstatus,omitempty"`
	Message   string `json:"message,omitempty"`
	// Replaying is the number of sessions whose logs Warm has still to
	// replay (0 while it lists them).
	Replaying int `json:"replaying,omitempty"`
}

// warmth is what Warm has done: whether it runs, and how many sessions
// it has hydrated of how many (total -1 while it lists them).
type warmth struct {
	mu          sync.Mutex
	active      bool
	done, total int
	// step, when set (by a test), is called after each report.
	step func(done, total int)
}

func (w *warmth) start() {
	w.mu.Lock()
	w.active, w.done, w.total = true, 0, -1
	w.mu.Unlock()
}

func (w *warmth) progress(done, total int) {
	w.mu.Lock()
	w.done, w.total = done, total
	w.mu.Unlock()
	if w.step != nil {
		w.step(done, total)
	}
}

// finish ends the warming and returns how many sessions it hydrated.
func (w *warmth) finish() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.active = false
	return w.done
}

// left is the number of sessions still to replay (-1 while they are
// listed), and whether Warm runs.
func (w *warmth) left() (int, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.total < 0 {
		return -1, w.active
	}
	return w.total - w.done, w.active
}

// Warm hydrates, in the background, the sessions whose logs hold
// Commits past their snapshot (goldfish.DB.Warm: after a kill or a
// crash, every session committed to since its last flush), so that no
// request waits for a replay. Until it ends, /readyz answers 503 with
// status "replaying" and the number of sessions left; /healthz and every
// request are served meanwhile (a request to a session being replayed
// waits for it, as it would have). It returns at once, and the channel
// is closed when it ends; ctx stops it.
func (s *Server) Warm(ctx context.Context) <-chan struct{} {
	s.warm.start()
	done := make(chan struct{})
	go func() {
		defer close(done)
		t0 := time.Now()
		err := s.db.Warm(ctx, s.warm.progress)
		n := s.warm.finish()
		switch {
		case err != nil && ctx.Err() == nil:
			s.opts.Logger.Warn("replaying the sessions' logs at start", "sessions", n, "error", err.Error())
		case n > 0:
			s.opts.Logger.Info("replayed the sessions' logs at start", "sessions", n, "took", time.Since(t0).Round(time.Millisecond).String())
		}
	}()
	return done
}

// readyz answers GET /readyz. It needs no token, as /healthz, so it says
// nothing but the state: the cabinet's error (which names its server) is
// logged, not answered.
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	if s.draining.Load() {
		w.Header().Set("Retry-After", retryAfter)
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
	if left, ok := s.warm.left(); ok {
		msg := fmt.Sprintf("replaying the logs of %d sessions committed to since their last flush; requests are served meanwhile, and one to such a session waits for its replay", left)
		if left < 0 {
			left, msg = 0, "listing the sessions whose logs hold Commits since their last flush, to replay them"
		}
		w.Header().Set("Retry-After", retryAfter)
		s.writeJSON(w, r, http.StatusServiceUnavailable, ReadyJSON{Status: "replaying", Replaying: left, Message: msg})
		return
	}
	s.writeJSON(w, r, http.StatusOK, ReadyJSON{Status: "ok"})
}
