package cabinet

import (
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"
)

// gop is an op of the test backend.
type gop struct {
	session string
	n       int
	alone   bool
	fail    bool // a group holding it fails
}

// recorder is a backend for a Group: it records every group Write is
// given and can hold the writer inside Write.
type recorder struct {
	mu     sync.Mutex
	groups [][]gop
	hold   chan struct{} // when set, Write waits for it to close
	in     chan struct{} // Write signals here before waiting
	fails  map[string]int
}

func (r *recorder) write(ops []gop) error {
	r.mu.Lock()
	r.groups = append(r.groups, append([]gop(nil), ops...))
	hold, in := r.hold, r.in
	r.mu.Unlock()
	if in != nil {
		in <- struct{}{}
	}
	if hold != nil {
		<-hold
	}
	for _, o := range ops {
		if o.fail {
			return fmt.Errorf("write of %s failed", o.session)
		}
	}
	return nil
}

func (r *recorder) failed(session string, ops []gop, err error) (error, bool) {
	r.mu.Lock()
	if r.fails == nil {
		r.fails = map[string]int{}
	}
	r.fails[session]++
	r.mu.Unlock()
	return fmt.Errorf("%w: %s: %v", ErrPoisoned, session, err), true
}

func (r *recorder) written() [][]gop {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([][]gop(nil), r.groups...)
}

func newRecorded(r *recorder) *Group[gop] {
	return NewGroup(GroupHooks[gop]{Write: r.write, Failed: r.failed, Alone: func(o gop) bool { return o.alone }})
}

// holdWriter makes the next Write wait until the returned func is
// called, and returns once the writer is inside it.
func holdWriter(t *testing.T, r *recorder, g *Group[gop]) (release func(), first *Ticket) {
	t.Helper()
	hold, in := make(chan struct{}), make(chan struct{})
	r.mu.Lock()
	r.hold, r.in = hold, in
	r.mu.Unlock()
	first = g.Enqueue("held", gop{session: "held"})
	select {
	case <-in:
	case <-time.After(10 * time.Second):
		t.Fatal("the writer never reached Write")
	}
	r.mu.Lock()
	r.hold, r.in = nil, nil
	r.mu.Unlock()
	return func() { close(hold) }, first
}

func waitAll(t *testing.T, ts []*Ticket) []error {
	t.Helper()
	errs := make([]error, len(ts))
	for i, tk := range ts {
		errs[i] = tk.Wait()
	}
	return errs
}

// TestGroupOrder: ops are written in the order queued, what is queued
// while a group is being written makes the next group, and an Alone op
// is a group of its own, in its place.
func TestGroupOrder(t *testing.T) {
	r := &recorder{}
	g := newRecorded(r)
	defer g.Close()
	release, first := holdWriter(t, r, g)
	var ts []*Ticket
	for i := range 5 {
		ts = append(ts, g.Enqueue("a", gop{session: "a", n: i}))
	}
	ts = append(ts, g.Enqueue("b", gop{session: "b", n: 5, alone: true}))
	for i := 6; i < 9; i++ {
		ts = append(ts, g.Enqueue("a", gop{session: "a", n: i}))
	}
	release()
	for _, err := range waitAll(t, append(ts, first)) {
		if err != nil {
			t.Fatal(err)
		}
	}
	var got [][]int
	for _, grp := range r.written()[1:] {
		var ns []int
		for _, o := range grp {
			ns = append(ns, o.n)
		}
		got = append(got, ns)
	}
	if want := [][]int{{0, 1, 2, 3, 4}, {5}, {6, 7, 8}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("groups %v, want %v", got, want)
	}
}

// TestGroupConcurrentOrder: with many goroutines queueing at once, each
// session's ops reach Write in the order that session queued them.
func TestGroupConcurrentOrder(t *testing.T) {
	r := &recorder{}
	g := newRecorded(r)
	const sessions, per = 8, 200
	var wg sync.WaitGroup
	for s := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := fmt.Sprint("s", s)
			var ts []*Ticket
			for i := range per {
				ts = append(ts, g.Enqueue(name, gop{session: name, n: i, alone: i%50 == 49}))
			}
			for _, tk := range ts {
				if err := tk.Wait(); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	g.Close()
	next := map[string]int{}
	for _, grp := range r.written() {
		for _, o := range grp {
			if o.n != next[o.session] {
				t.Fatalf("session %s: op %d written after op %d", o.session, o.n, next[o.session]-1)
			}
			next[o.session]++
		}
	}
	for s := range sessions {
		if n := next[fmt.Sprint("s", s)]; n != per {
			t.Fatalf("session s%d: %d ops written, want %d", s, n, per)
		}
	}
}

// TestGroupErrors: when a group fails, every waiter of the failing
// session gets the error and none is left waiting, the other sessions of
// the group are written alone and succeed, the session refuses what
// follows until it is dropped, and a failed op on its own is written
// once.
func TestGroupErrors(t *testing.T) {
	r := &recorder{}
	g := newRecorded(r)
	defer g.Close()
	release, first := holdWriter(t, r, g)
	var bad, good []*Ticket
	for i := range 3 {
		good = append(good, g.Enqueue("ok", gop{session: "ok", n: i}))
		bad = append(bad, g.Enqueue("bad", gop{session: "bad", n: i, fail: i == 1}))
	}
	release()
	if err := first.Wait(); err != nil {
		t.Fatal(err)
	}
	for _, err := range waitAll(t, good) {
		if err != nil {
			t.Fatalf("a session beside the failing one: %v", err)
		}
	}
	errs := waitAll(t, bad)
	for _, err := range errs {
		if !errors.Is(err, ErrPoisoned) || err != errs[0] {
			t.Fatalf("waiters of the failed session got %v, want one ErrPoisoned for all", errs)
		}
	}
	// The group, then each session again on its own.
	if n := len(r.written()); n != 4 {
		t.Fatalf("%d writes, want 4 (held, the group, ok alone, bad alone)", n)
	}
	if err := g.Enqueue("bad", gop{session: "bad"}).Wait(); err != errs[0] {
		t.Fatalf("after the failure: %v, want the session's poison", err)
	}
	if n := len(r.written()); n != 4 {
		t.Fatal("an op of a poisoned session was written")
	}
	if err := g.EnqueueDrop("bad", gop{session: "bad"}).Wait(); err != nil {
		t.Fatalf("a drop of a poisoned session: %v", err)
	}
	g.Clear("bad")
	if err := g.Enqueue("bad", gop{session: "bad"}).Wait(); err != nil {
		t.Fatalf("after the drop: %v", err)
	}
	before := len(r.written())
	if err := g.Enqueue("lone", gop{session: "lone", fail: true}).Wait(); !errors.Is(err, ErrPoisoned) {
		t.Fatalf("a lone failing op: %v", err)
	}
	if n := len(r.written()) - before; n != 1 || r.fails["lone"] != 1 {
		t.Fatalf("a lone failing op was written %d times, failed %d times, want once", n, r.fails["lone"])
	}
}

// TestGroupPoisonedWhileQueued: ops queued behind a failing group of the
// same session fail with its error without being written.
func TestGroupPoisonedWhileQueued(t *testing.T) {
	r := &recorder{}
	g := newRecorded(r)
	defer g.Close()
	release, first := holdWriter(t, r, g)
	failing := g.Enqueue("p", gop{session: "p", n: 0, fail: true, alone: true})
	behind := g.Enqueue("p", gop{session: "p", n: 1})
	release()
	if err := first.Wait(); err != nil {
		t.Fatal(err)
	}
	err := failing.Wait()
	if !errors.Is(err, ErrPoisoned) {
		t.Fatalf("failing op: %v", err)
	}
	if got := behind.Wait(); got != err {
		t.Fatalf("op behind it: %v, want %v", got, err)
	}
	for _, grp := range r.written() {
		for _, o := range grp {
			if o.session == "p" && o.n == 1 {
				t.Fatal("the op behind a failed one was written")
			}
		}
	}
}

// TestGroupClose: Close, called while the writer is inside Write with
// more queued, returns only once all of it is written; afterwards ops
// fail with ErrClosed, and a second Close returns at once.
func TestGroupClose(t *testing.T) {
	r := &recorder{}
	g := newRecorded(r)
	release, first := holdWriter(t, r, g)
	var ts []*Ticket
	for i := range 10 {
		ts = append(ts, g.Enqueue("c", gop{session: "c", n: i}))
	}
	closed := make(chan bool)
	go func() { closed <- g.Close() }()
	for !g.Closed() {
		time.Sleep(time.Millisecond)
	}
	if err := g.Enqueue("c", gop{session: "c", n: 99}).Wait(); !errors.Is(err, ErrClosed) {
		t.Fatalf("Enqueue while closing: %v, want ErrClosed", err)
	}
	select {
	case <-closed:
		t.Fatal("Close returned while a write was in progress")
	case <-time.After(20 * time.Millisecond):
	}
	release()
	if !<-closed {
		t.Fatal("the first Close reported the group closed already")
	}
	for _, err := range waitAll(t, append(ts, first)) {
		if err != nil {
			t.Fatalf("an op queued before Close: %v", err)
		}
	}
	if n := len(r.written()); n != 2 {
		t.Fatalf("%d writes, want 2 (held, then what was queued)", n)
	}
	if g.Close() {
		t.Fatal("a second Close closed it again")
	}
	if err := g.EnqueueDrop("c", gop{session: "c"}).Wait(); !errors.Is(err, ErrClosed) {
		t.Fatalf("EnqueueDrop after Close: %v, want ErrClosed", err)
	}
}
