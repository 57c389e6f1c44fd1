package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/values"
)

// boundSession is a session of n nodes (:X {v: i}), inserted in Δs of at
// most per nodes.
func boundSession(t *testing.T, db *DB, n, per int) *Session {
	t.Helper()
	s, err := db.Session(context.Background(), "bound")
	if err != nil {
		t.Fatal(err)
	}
	for lo := 0; lo < n; lo += per {
		var b strings.Builder
		b.WriteString("INSERT ")
		for i := lo; i < min(n, lo+per); i++ {
			if i > lo {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "(:X {v: %d})", i)
		}
		if _, err := s.commitText(context.Background(), b.String(), nil); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// wantStopped checks err is the error of a call its context stopped: a
// GQLSTATUS error (40000) that names why and wraps the context's error.
func wantStopped(t *testing.T, err, cause error, says string) {
	t.Helper()
	var ge *gqlstatus.Error
	if !errors.As(err, &ge) || ge.Code != gqlstatus.Rollback {
		t.Fatalf("got %v, want a GQLSTATUS 40000 error", err)
	}
	if !errors.Is(err, cause) {
		t.Errorf("%v does not wrap %v", err, cause)
	}
	if !strings.Contains(ge.Msg, says) {
		t.Errorf("message %q does not say %q", ge.Msg, says)
	}
}

// TestCommitStopsAtItsDeadline: a Δ whose MATCH would bind for far longer
// than its deadline stops inside the binding, applies nothing, and says
// its deadline passed; a cancelled one says it was cancelled.
func TestCommitStopsAtItsDeadline(t *testing.T) {
	db, _ := openTest()
	defer db.Close()
	s := boundSession(t, db, 300, 300)
	before := s.Version()
	// 90,000 pairs, each tested by WHERE: within the work budget, and
	// thousands of times the deadline's length.
	const pairs = `MATCH (a:X), (b:X) WHERE a.v + b.v = -1 SET a.z = 1`
	if _, err := db.plan(pairs); err != nil { // planned before the clock starts
		t.Fatal(err)
	}
	db.plans.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	_, err := s.commitText(ctx, pairs, nil)
	wantStopped(t, err, context.DeadlineExceeded, "deadline")
	if !strings.Contains(err.Error(), "nothing applied") {
		t.Errorf("%v does not say nothing applied", err)
	}
	done, stop := context.WithCancel(context.Background())
	stop()
	_, err = s.commitText(done, pairs, nil)
	wantStopped(t, err, context.Canceled, "cancelled")
	if s.Version() != before {
		t.Fatalf("version %d after stopped Δs, want %d", s.Version(), before)
	}
}

// TestRecallStopsAtItsDeadline: a Recall whose seed scan covers a large
// session stops inside the scan (or the Peak_L scan after it) once its
// deadline passes, and a Recall under a cancelled context does not run.
func TestRecallStopsAtItsDeadline(t *testing.T) {
	db, _ := openTest(WithShapeCacheBytes(0))
	defer db.Close()
	s := benchSession(t, db, 10_000)
	// No node has weight -1: the scan tests WHERE on all 10,000 nodes,
	// then Peak_L reads the whole session.
	const q = `MATCH (n) WHERE n.weight = -1`
	if _, err := db.plan(q); err != nil {
		t.Fatal(err)
	}
	db.plans.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	_, err := s.recallShape(ctx, q, values.RecallOptions{})
	wantStopped(t, err, context.DeadlineExceeded, "deadline")
	done, stop := context.WithCancel(context.Background())
	stop()
	_, err = s.recallShape(done, `MATCH (t:TSK {nick: "TSK_0"})`, values.RecallOptions{})
	wantStopped(t, err, context.Canceled, "cancelled")
}

// TestWorkBudgetStopsCartesianProducts: a Δ whose MATCH is a cartesian
// product fails whole on the work budget (derived from R), though its
// WHERE keeps no row and so R's row count is never reached; a MATCH that
// finds its nodes through the index stays within it.
func TestWorkBudgetStopsCartesianProducts(t *testing.T) {
	db, _ := openTest(WithCommitBudget(values.Budget{Rows: 10}))
	defer db.Close()
	s := boundSession(t, db, 40, 10)
	before := s.Version()
	// 64,000 triples; R = 10 rows allows 20,000 units of work.
	_, err := s.commitText(context.Background(), `MATCH (a:X), (b:X), (c:X) WHERE a.v + b.v + c.v = -1 SET a.z = 1`, nil)
	var ge *gqlstatus.Error
	if !errors.As(err, &ge) || ge.Code != gqlstatus.WorkBudget || !strings.Contains(ge.Msg, "work budget") || !strings.Contains(ge.Msg, "nothing applied") {
		t.Fatalf("got %v, want 22Q03 naming the work budget", err)
	}
	if ge.Hint == "" {
		t.Errorf("%v says nothing of what to do", err)
	}
	if s.Version() != before {
		t.Fatalf("version %d after a failed Δ, want %d", s.Version(), before)
	}
	res, err := s.commitText(context.Background(), `MATCH (a:X {v: 1}), (b:X {v: 2}), (c:X {v: 3}) INSERT (a)-[:r]->(b)-[:r]->(c)`, nil)
	if err != nil || !res.Applied {
		t.Fatalf("an indexed MATCH: %v, %v", res, err)
	}
}

// TestPlanCacheBoundedByBytes: the plan cache holds at most its size in
// bytes of texts, however few texts that is.
func TestPlanCacheBoundedByBytes(t *testing.T) {
	const limit = 1 << 20
	db, _ := openTest(WithPlanCacheBytes(limit))
	defer db.Close()
	pad := strings.Repeat("x", 128<<10)
	var texts []string
	for i := range 24 { // 3 MiB of text
		text := fmt.Sprintf("MATCH (t:TSK {nick: \"n%d\"}) SET t.seen = true // %s", i, pad)
		if _, err := db.plan(text); err != nil {
			t.Fatal(err)
		}
		texts = append(texts, text)
	}
	db.plans.Wait()
	held := 0
	for _, text := range texts {
		if _, ok := db.plans.Get(text); ok {
			held += len(text)
		}
	}
	if held > limit {
		t.Fatalf("the plan cache holds %d bytes of text, over its %d bytes", held, limit)
	}
	// A cache bounded by bytes still keeps a plan it has room for.
	fresh, _ := openTest(WithPlanCacheBytes(limit))
	defer fresh.Close()
	const small = `MATCH (t:TSK {nick: "small"}) SET t.seen = true`
	if _, err := fresh.plan(small); err != nil {
		t.Fatal(err)
	}
	fresh.plans.Wait()
	if _, ok := fresh.plans.Get(small); !ok {
		t.Fatalf("a small plan was not kept")
	}
}
