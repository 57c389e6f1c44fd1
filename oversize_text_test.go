package goldfish_test

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goldfish-gql/goldfish"
)

// oversizeTexts are texts within the R byte budget (256 KiB) whose list
// or expression is over the parser's budgets, as a Recall's token or a Δ.
func oversizeTexts() []struct {
	name, text string
	recall     bool
} {
	const r = 256 << 10
	list := strings.Repeat("1,", (r-64)/2) + "1"
	or := strings.Repeat(" OR n.v = 1", (r-64)/11)
	return []struct {
		name, text string
		recall     bool
	}{
		{"Recall IN list", "MATCH (n:TSK) WHERE n.v IN [" + list + "]", true},
		{"Recall OR chain", "MATCH (n:TSK) WHERE n.v = 1" + or, true},
		{"Commit IN list", "MATCH (n:TSK) WHERE n.v IN [" + list[:len(list)-20] + "] SET n.w = 1", false},
		{"Commit INSERT list", "INSERT (:TSK {v: [" + list + "]})", false},
		{"Commit SET list", "MATCH (n:TSK) SET n.v = [" + list + "]", false},
		{"Commit OR chain", "MATCH (n:TSK) WHERE n.v = 1" + or[:len(or)-22] + " SET n.w = 1", false},
	}
}

// TestOversizeTextRefusedCheaply: a Recall's token or a Δ within the R
// byte budget whose list or expression is over the parser's budgets is
// refused by the parser's pre-scan, through every verb (Recall, Commit,
// IsRecall then Commit as the shell does, Prepare), with 42Q01 and at
// most 16 bytes allocated per byte of text. Parsed, the 256 KB IN list
// cost +131 MiB and about a second before the planner refused it.
func TestOversizeTextRefusedCheaply(t *testing.T) {
	ctx := context.Background()
	db, err := goldfish.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s, err := db.Session(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Commit(ctx, `INSERT (:TSK {nick: "TSK_a", v: 1})`, nil); err != nil {
		t.Fatal(err)
	}
	for _, c := range oversizeTexts() {
		calls := map[string]func() error{
			"Commit":  func() error { _, err := s.Commit(ctx, c.text, nil); return err },
			"Prepare": func() error { _, _, err := s.Prepare(c.text); return err },
			"IsRecall then Commit": func() error {
				if s.IsRecall(c.text) {
					return errors.New("taken for a Recall")
				}
				_, err := s.Commit(ctx, c.text, nil)
				return err
			},
		}
		if c.recall {
			calls = map[string]func() error{
				"Recall": func() error { _, err := s.Recall(ctx, c.text, goldfish.RecallOptions{}); return err },
			}
		}
		for verb, call := range calls {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			err := call()
			runtime.ReadMemStats(&after)
			n := after.TotalAlloc - before.TotalAlloc
			var ge *goldfish.Error
			if !errors.As(err, &ge) || ge.Code != goldfish.CodeTextLimit {
				t.Errorf("%s, %s of %d bytes: %.200v, want %s", c.name, verb, len(c.text), err, goldfish.CodeTextLimit)
			}
			if n > 16*uint64(len(c.text)) {
				t.Errorf("%s, %s: refusing %d bytes allocated %d bytes, over 16 per byte", c.name, verb, len(c.text), n)
			}
		}
	}
}

// TestOversizeTextsAtOnce logs what 16 Recalls of 256 KB over the
// parser's budgets, sent at once, take from the heap: the bytes they
// allocate, and the most the heap held above what it held before, read
// every 100 µs while they run. (Parsed, 8 at once took the process from
// 206 MiB to 1.17 GB, 16 to 2.2 GB.)
func TestOversizeTextsAtOnce(t *testing.T) {
	ctx := context.Background()
	db, err := goldfish.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s, err := db.Session(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	text := oversizeTexts()[0].text
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	stop := make(chan struct{})
	peak := make(chan uint64)
	go func() {
		var top uint64
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			top = max(top, m.HeapAlloc)
			select {
			case <-stop:
				peak <- top
				return
			case <-time.After(100 * time.Microsecond):
			}
		}
	}()
	var wg sync.WaitGroup
	errs := make([]error, 16)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = s.Recall(ctx, text, goldfish.RecallOptions{})
		}()
	}
	wg.Wait()
	close(stop)
	top := <-peak
	runtime.ReadMemStats(&after)
	for _, err := range errs {
		var ge *goldfish.Error
		if !errors.As(err, &ge) || ge.Code != goldfish.CodeTextLimit {
			t.Errorf("%.200v, want %s", err, goldfish.CodeTextLimit)
		}
	}
	t.Logf("16 Recalls of %d bytes at once: %d KiB allocated in all; the heap's peak %d KiB above the %d KiB before",
		len(text), (after.TotalAlloc-before.TotalAlloc)>>10, (max(top, before.HeapAlloc)-before.HeapAlloc)>>10, before.HeapAlloc>>10)
}
