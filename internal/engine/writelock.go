package engine

import "context"

// writeLock is the session writer's mutex, which a Commit can stop
// waiting for when its context ends: a Commit queued behind a long one
// honours its deadline instead of waiting out the other's work.
type writeLock struct{ ch chan struct{} }

func newWriteLock() writeLock { return writeLock{ch: make(chan struct{}, 1)} }

// Lock takes the lock.
func (l writeLock) Lock() { l.ch <- struct{}{} }

// LockContext takes the lock, or returns ctx's error when ctx ends first.
func (l writeLock) LockContext(ctx context.Context) error {
	select {
	case l.ch <- struct{}{}:
		return nil
	default:
	}
	select {
	case l.ch <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// TryLock takes the lock if it is free, without waiting.
func (l writeLock) TryLock() bool {
	select {
	case l.ch <- struct{}{}:
		return true
	default:
		return false
	}
}

// Unlock releases the lock.
func (l writeLock) Unlock() { <-l.ch }
