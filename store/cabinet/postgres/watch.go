package postgres

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/goldfish-gql/goldfish/store/cabinet"
)

// watcher follows other hosts' Commits for Watch.
type watcher struct {
	c        *Cabinet
	interval time.Duration
	listen   bool
	fn       func(asked []string, heads []Head)

	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}

	known     atomic.Int64 // unix nanoseconds: every Commit before it is known
	listening atomic.Bool

	mu      sync.Mutex
	pending map[string]bool // names notified, not yet read
}

// Watch follows the Commits of other hosts until Close. fn is called
// from one goroutine with the heads of the sessions that may have
// changed: asked holds the names a notification named (a name without a
// head was dropped), or is nil after every head was read (a session
// without a head is gone). With listen, and where the server has
// LISTEN/NOTIFY, Watch listens, and confirms at least every half
// interval that nothing is pending; otherwise it reads every head at
// every interval. Watch may be called once.
func (c *Cabinet) Watch(interval time.Duration, listen bool, fn func(asked []string, heads []Head)) {
	if interval <= 0 {
		interval = time.Second
	}
	w := &watcher{c: c, interval: interval, listen: listen && c.notifies(), fn: fn, done: make(chan struct{}), pending: map[string]bool{}}
	w.ctx, w.cancel = context.WithCancel(context.Background())
	c.mu.Lock()
	if c.group.Closed() || c.watch != nil {
		c.mu.Unlock()
		return
	}
	c.watch = w
	c.mu.Unlock()
	go w.run()
}

// KnownAt returns the time up to which every Commit of another host is
// known to Watch's fn (the zero time without Watch, or before its first
// read).
func (c *Cabinet) KnownAt() time.Time {
	c.mu.Lock()
	w := c.watch
	c.mu.Unlock()
	if w == nil {
		return time.Time{}
	}
	if ns := w.known.Load(); ns != 0 {
		return time.Unix(0, ns)
	}
	return time.Time{}
}

// Listening reports whether Watch follows the other hosts by
// LISTEN/NOTIFY right now (false while polling, or reconnecting).
func (c *Cabinet) Listening() bool {
	c.mu.Lock()
	w := c.watch
	c.mu.Unlock()
	return w != nil && w.listening.Load()
}

func (w *watcher) stop() {
	w.cancel()
	<-w.done
}

func (w *watcher) stamp(t time.Time) { w.known.Store(t.UnixNano()) }

func (w *watcher) run() {
	defer close(w.done)
	for w.ctx.Err() == nil {
		if w.listen {
			_ = w.follow() // returns when the connection fails: poll once, then listen again
			w.listening.Store(false)
			if w.ctx.Err() != nil {
				return
			}
		}
		w.poll()
		if cabinet.Sleep(w.ctx, w.interval) != nil {
			return
		}
	}
}

// poll reads every head.
func (w *watcher) poll() {
	t0 := time.Now()
	heads, err := w.c.Heads(w.ctx, nil)
	if err != nil {
		return // the next round tries again; KnownAt stays behind meanwhile
	}
	w.fn(nil, heads)
	w.stamp(t0)
}

// follow listens on a connection of its own: LISTEN first, then every
// head (the backlog: what was committed before the LISTEN), then one
// round per notification or half interval. A round trip on the
// listening connection sent at t0 comes back after every notification
// of a Commit made before t0, so after each round every Commit before
// its t0 is known.
func (w *watcher) follow() error {
	cfg := w.c.conn.Copy()
	cfg.OnNotification = func(_ *pgconn.PgConn, n *pgconn.Notification) {
		w.mu.Lock()
		w.pending[n.Payload] = true
		w.mu.Unlock()
	}
	conn, err := pgx.ConnectConfig(w.ctx, cfg)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(w.ctx, "LISTEN "+pgx.Identifier{w.c.channel()}.Sanitize()); err != nil {
		return err
	}
	w.mu.Lock()
	clear(w.pending)
	w.mu.Unlock()
	t0 := time.Now()
	heads, err := w.c.Heads(w.ctx, nil)
	if err != nil {
		return err
	}
	w.fn(nil, heads)
	w.stamp(t0)
	w.listening.Store(true)
	for {
		wait, cancel := context.WithTimeout(w.ctx, w.interval/2)
		_, err := conn.WaitForNotification(wait)
		cancel()
		if err != nil && !errors.Is(err, context.DeadlineExceeded) && !pgconn.Timeout(err) {
			return err
		}
		if w.ctx.Err() != nil {
			return w.ctx.Err()
		}
		t0 := time.Now()
		if _, err := conn.Exec(w.ctx, "SELECT 1"); err != nil {
			return err
		}
		w.mu.Lock()
		var names []string
		for n := range w.pending {
			if n != "" {
				names = append(names, n)
			}
		}
		clear(w.pending)
		w.mu.Unlock()
		if len(names) > 0 {
			heads, err := w.c.Heads(w.ctx, names)
			if err != nil {
				return err
			}
			w.fn(names, heads)
		}
		w.stamp(t0)
	}
}
