package cabinet

import "sync"

// Group is a group-commit queue: the writes of a backend, queued by many
// goroutines and written by one, in groups.
//
// Why group commit: what makes a Commit durable is one fsync (bbolt) or
// one transaction's WAL flush (PostgreSQL), and that costs about the same
// for one entry as for a hundred. While the writer waits on one group,
// the writes queued meanwhile gather into the next, so concurrent Commits
// share a single flush instead of queueing for one each.
//
// Order: ops are written in the order they were queued (a group is a run
// of the queue, groups one after another), so durability is prefix-closed
// per session: once an entry is durable, so is every entry queued before
// it, and a log never has a gap.
//
// Outcome: each op has a Ticket, finished once the group that holds it
// has been written: nil only when the backend's Write returned, that is
// when the op is durable. When a group of more than one op fails, each
// session's ops are written again, in a group of their own, so that one
// session's failure fails only its own waiters; the ops of a session
// whose write failed all get the error GroupHooks.Failed words for them,
// none is left waiting. A failure may poison the session (the caller's
// memory is then ahead of what is stored): its ops queued behind, and
// any queued later, fail with the same error without being written,
// until Clear. A drop (EnqueueDrop) is written even so, since it is how a
// poisoned session starts over.
//
// Close refuses new ops (ErrClosed) and returns once every op queued
// before it is written and the writer has stopped: Close never abandons
// a waiter.
type Group[T any] struct {
	hooks GroupHooks[T]

	mu       sync.Mutex
	cond     *sync.Cond
	queue    []queued[T]
	closed   bool
	poisoned map[string]error
	stopped  chan struct{}
}

// GroupHooks are what a backend supplies to a Group.
type GroupHooks[T any] struct {
	// Write writes ops durably, all of them or none (one bbolt or SQL
	// transaction), in order. It runs on the Group's writer goroutine
	// only, one call at a time.
	Write func(ops []T) error
	// Alone, if set, reports an op that is written in a group of its own
	// (a snapshot, a drop: writes too large or too different to share a
	// transaction with their neighbours). It keeps its place in the order.
	Alone func(op T) bool
	// Failed is given the ops of one session that Write failed to write,
	// with Write's error; it returns the error their Tickets report, and
	// whether the session is poisoned from now on.
	Failed func(session string, ops []T, err error) (error, bool)
}

type queued[T any] struct {
	session string
	op      T
	drop    bool
	t       *Ticket
}

// NewGroup returns a Group writing through hooks, and starts its writer.
func NewGroup[T any](hooks GroupHooks[T]) *Group[T] {
	g := &Group[T]{hooks: hooks, poisoned: map[string]error{}, stopped: make(chan struct{})}
	g.cond = sync.NewCond(&g.mu)
	go g.writer()
	return g
}

// Enqueue queues op, a write of the session, and returns its Ticket. It
// fails at once, writing nothing, when the Group is closed (ErrClosed) or
// the session is poisoned.
func (g *Group[T]) Enqueue(session string, op T) *Ticket {
	return g.enqueue(queued[T]{session: session, op: op})
}

// EnqueueDrop queues op, which removes the session: unlike Enqueue it
// is queued, and written, when the session is poisoned.
func (g *Group[T]) EnqueueDrop(session string, op T) *Ticket {
	return g.enqueue(queued[T]{session: session, op: op, drop: true})
}

func (g *Group[T]) enqueue(q queued[T]) *Ticket {
	q.t = newTicket()
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		q.t.finish(ErrClosed)
		return q.t
	}
	if err := g.poisoned[q.session]; err != nil && !q.drop {
		q.t.finish(err)
		return q.t
	}
	g.queue = append(g.queue, q)
	g.cond.Signal()
	return q.t
}

// Clear lifts the session's poison (once it was dropped).
func (g *Group[T]) Clear(session string) {
	g.mu.Lock()
	delete(g.poisoned, session)
	g.mu.Unlock()
}

// Closed reports whether Close was called.
func (g *Group[T]) Closed() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.closed
}

// Close refuses new ops, waits until the ops queued before it are
// written, and stops the writer. It reports false, without waiting, when
// the Group was closed already.
func (g *Group[T]) Close() bool {
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return false
	}
	g.closed = true
	g.cond.Signal()
	g.mu.Unlock()
	<-g.stopped
	return true
}

// writer takes everything queued, writes it group by group, and goes
// back for what was queued meanwhile; once closed, it stops when the
// queue is empty.
func (g *Group[T]) writer() {
	defer close(g.stopped)
	for {
		g.mu.Lock()
		for len(g.queue) == 0 && !g.closed {
			g.cond.Wait()
		}
		batch := g.queue
		g.queue = nil
		closed := g.closed
		g.mu.Unlock()
		if len(batch) == 0 && closed {
			return
		}
		for len(batch) > 0 {
			n := 1
			if !g.alone(batch[0]) {
				for n < len(batch) && !g.alone(batch[n]) {
					n++
				}
			}
			g.write(batch[:n])
			batch = batch[n:]
		}
	}
}

func (g *Group[T]) alone(q queued[T]) bool { return g.hooks.Alone != nil && g.hooks.Alone(q.op) }

// write writes one group and finishes its Tickets.
func (g *Group[T]) write(group []queued[T]) {
	// Ops of sessions poisoned since they were queued fail unwritten.
	g.mu.Lock()
	live := group[:0:0]
	for _, q := range group {
		if err := g.poisoned[q.session]; err != nil && !q.drop {
			q.t.finish(err)
			continue
		}
		live = append(live, q)
	}
	g.mu.Unlock()
	if len(live) == 0 {
		return
	}
	err := g.hooks.Write(ops(live))
	switch {
	case err == nil:
		for _, q := range live {
			q.t.finish(nil)
		}
		return
	case len(live) == 1:
		g.fail(live, err)
		return
	}
	var order []string
	by := map[string][]queued[T]{}
	for _, q := range live {
		if _, ok := by[q.session]; !ok {
			order = append(order, q.session)
		}
		by[q.session] = append(by[q.session], q)
	}
	for _, s := range order {
		if err := g.hooks.Write(ops(by[s])); err != nil {
			g.fail(by[s], err)
			continue
		}
		for _, q := range by[s] {
			q.t.finish(nil)
		}
	}
}

// fail finishes the ops of one session that failed to write with err,
// as Failed words it, poisoning the session first if Failed says so.
func (g *Group[T]) fail(group []queued[T], err error) {
	session := group[0].session
	err, poison := g.hooks.Failed(session, ops(group), err)
	if poison {
		g.mu.Lock()
		g.poisoned[session] = err
		g.mu.Unlock()
	}
	for _, q := range group {
		q.t.finish(err)
	}
}

func ops[T any](group []queued[T]) []T {
	out := make([]T, len(group))
	for i, q := range group {
		out[i] = q.op
	}
	return out
}
