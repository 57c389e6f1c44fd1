package shapewalk

import (
	"context"
	"errors"
	"testing"
)

// TestWalkStopsWhenCancelled: a walk under a done context stops with the
// context's error and no Shape, and so does Peaks (a whole-session scan);
// under a live context both give what they give without one.
func TestWalkStopsWhenCancelled(t *testing.T) {
	b := build(t, starSpec(40), nil, nil)
	done, cancel := context.WithCancel(context.Background())
	cancel()
	sh, err := WalkIntoContext(done, new(Shape), b.snap, b.nodes(0), Options{})
	if !errors.Is(err, context.Canceled) || sh != nil {
		t.Fatalf("walk under a cancelled context: %v, %v; want context.Canceled and no Shape", sh, err)
	}
	if _, err := PeaksContext(done, b.snap, 4, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("peaks under a cancelled context: %v; want context.Canceled", err)
	}
	live, stop := context.WithCancel(context.Background())
	defer stop()
	sh, err = WalkIntoContext(live, new(Shape), b.snap, b.nodes(0), Options{})
	if err != nil || sh.Rows() != Walk(b.snap, b.nodes(0), Options{}).Rows() {
		t.Fatalf("walk under a live context: %v, %v", sh, err)
	}
	peaks, err := PeaksContext(live, b.snap, 4, nil)
	if err != nil || len(peaks) != len(Peaks(b.snap, 4, nil)) {
		t.Fatalf("peaks under a live context: %v, %v", peaks, err)
	}
}
