package engine

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/values"
	"pgregory.net/rapid"
)

// The tests of past.go: a Recall as of a version gives, byte for byte,
// what the same token gave when that version was the newest.

// shapeBody is a Shape's text without its header line and the envelope's
// lines (which are today's, whatever version the Shape is of).
func shapeBody(text string) string {
	_, rest, _ := strings.Cut(text, "\n")
	var b strings.Builder
	for _, l := range strings.SplitAfter(rest, "\n") {
		if strings.HasPrefix(l, "// attention ") || strings.HasPrefix(l, "// view ") ||
			strings.HasPrefix(l, "// action ") || strings.HasPrefix(l, "//   ") || strings.Contains(l, "left out at depth=lean") {
			continue
		}
		b.WriteString(l)
	}
	return b.String()
}

// TestRecallAtVersionRapid: for a random history of Commits, a Recall at
// every version N gives the body the same token gave when N was the
// newest, with the header saying version=N at=N; also after a reopen,
// for the versions the log replays.
func TestRecallAtVersionRapid(t *testing.T) {
	dir, run := t.TempDir(), 0
	rapid.Check(t, func(t *rapid.T) {
		ctx := context.Background()
		run++
		path := filepath.Join(dir, fmt.Sprintf("at%d.gf", run))
		db, err := openTest(WithCabinet(path))
		if err != nil {
			t.Fatal(err)
		}
		s, _ := db.Session(ctx, "h")
		tokens := []string{`MATCH (t:TSK)`, `MATCH (n:NOTE)`, `MATCH ()`, `MATCH (t:TSK {nick: "t1"})`}
		seen := map[uint64][]string{} // version → body per token
		steps := rapid.IntRange(1, 25).Draw(t, "steps")
		for i := range steps {
			var text string
			switch rapid.IntRange(0, 4).Draw(t, "op") {
			case 0:
				text = fmt.Sprintf(`INSERT (:TSK {nick: "t%d", status: "open"})`, rapid.IntRange(1, 6).Draw(t, "n"))
			case 1:
				text = fmt.Sprintf(`INSERT (:NOTE {text: "note %d"})`, i)
			case 2:
				text = fmt.Sprintf(`MATCH (t:TSK {nick: "t%d"}) SET t.status = "done"`, rapid.IntRange(1, 6).Draw(t, "n"))
			case 3:
				text = fmt.Sprintf(`MATCH (t:TSK {nick: "t%d"}) DETACH DELETE t`, rapid.IntRange(1, 6).Draw(t, "n"))
			default:
				text = fmt.Sprintf(`MATCH (t:TSK {nick: "t%d"}) INSERT (t)-[:has_note]->(:NOTE {text: "on %d"})`, rapid.IntRange(1, 6).Draw(t, "n"), i)
			}
			if rapid.IntRange(0, 5).Draw(t, "flush") == 0 {
				// The versions a flush covers stay readable, from the
				// history it keeps in the cabinet.
				if err := s.Flush(ctx); err != nil {
					t.Fatal(err)
				}
			}
			res, err := s.commitText(ctx, text, nil)
			if err != nil {
				continue // a nick taken, say: no version
			}
			if _, ok := seen[res.Version]; ok || !res.Applied {
				continue
			}
			for _, q := range tokens {
				sh, err := s.recallShape(ctx, q, values.RecallOptions{})
				if err != nil {
					t.Fatal(err)
				}
				seen[res.Version] = append(seen[res.Version], shapeBody(sh.Text))
			}
		}
		check := func(s *Session, when string) {
			for v, bodies := range seen {
				for i, q := range tokens {
					sh, err := s.recallShape(ctx, q, values.RecallOptions{AtVersion: v})
					if err != nil {
						t.Fatalf("%s: %s at %d: %v", when, q, v, err)
					}
					if !strings.Contains(sh.Text, fmt.Sprintf(" version=%d at=%d ", v, v)) || !sh.AsOf || sh.Version != v {
						t.Fatalf("%s: %s at %d: header %q", when, q, v, strings.SplitN(sh.Text, "\n", 2)[0])
					}
					if got := shapeBody(sh.Text); got != bodies[i] {
						t.Fatalf("%s: %s at %d:\n%s\nwhen it was the newest:\n%s", when, q, v, got, bodies[i])
					}
				}
			}
		}
		check(s, "live")
		db.Close()
		db, err = openTest(WithCabinet(path))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		s, _ = db.Session(ctx, "h")
		check(s, "after a reopen")
	})
}

// TestRecallAtVersionRefused: a version not made yet, one compacted into
// the snapshot by Flush, and the catalogue's past are refused with 22Q08,
// naming the versions kept.
func TestRecallAtVersionRefused(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "at.gf")
	db, err := openTest(WithCabinet(path))
	if err != nil {
		t.Fatal(err)
	}
	s, _ := db.Session(ctx, "h")
	for i := range 5 {
		if _, err := s.commitText(ctx, fmt.Sprintf(`INSERT (:NOTE {text: "n%d"})`, i), nil); err != nil {
			t.Fatal(err)
		}
	}
	code := func(err error) gqlstatus.Code {
		var ge *gqlstatus.Error
		if errors.As(err, &ge) {
			return ge.Code
		}
		return ""
	}
	_, err = s.recallShape(ctx, `MATCH (n:NOTE)`, values.RecallOptions{AtVersion: 9})
	if code(err) != gqlstatus.VersionNotKept || !strings.Contains(err.Error(), "no version 9 yet: its newest is 5") {
		t.Fatalf("a version not made yet: %v", err)
	}
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.commitText(ctx, `INSERT (:NOTE {text: "after"})`, nil); err != nil {
		t.Fatal(err)
	}
	db, s = reopen(t, db, path, "h")
	// The history keeps what the flush covered (history=all, the
	// default); history=none trims it at the next flush.
	if _, err := s.recallShape(ctx, `MATCH (n:NOTE)`, values.RecallOptions{AtVersion: 3}); err != nil {
		t.Fatalf("a version the flush covered: %v", err)
	}
	set, _ := s.AttentionSettings(ctx)
	set.History = values.HistoryNone
	if err := s.SetAttentionSettings(ctx, set); err != nil {
		t.Fatal(err)
	}
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	_, err = s.recallShape(ctx, `MATCH (n:NOTE)`, values.RecallOptions{AtVersion: 3})
	if code(err) != gqlstatus.VersionNotKept || !strings.Contains(err.Error(), "keeps versions 6 to 6") || !strings.Contains(err.Error(), "history setting (now none") {
		t.Fatalf("a version history=none trimmed: %v", err)
	}
	set.History = values.HistoryAll
	if err := s.SetAttentionSettings(ctx, set); err != nil {
		t.Fatal(err)
	}
	if _, err := s.recallShape(ctx, `MATCH (n:NOTE)`, values.RecallOptions{AtVersion: 6}); err != nil {
		t.Fatalf("the snapshot's version: %v", err)
	}
	// A purge leaves no version before it readable: what it removed for
	// good is gone from the past too.
	if _, err := s.commitText(ctx, `MATCH (n:NOTE {text: "n0"}) DELETE n`, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.recallShape(ctx, `MATCH (n:NOTE)`, values.RecallOptions{AtVersion: 6}); err != nil {
		t.Fatalf("before the purge: %v", err)
	}
	if _, err := s.Purge(ctx); err != nil {
		t.Fatal(err)
	}
	_, err = s.recallShape(ctx, `MATCH (n:NOTE)`, values.RecallOptions{AtVersion: 6})
	if code(err) != gqlstatus.VersionNotKept || !strings.Contains(err.Error(), "keeps versions 8 to 8") {
		t.Fatalf("a version before a purge: %v", err)
	}
	cat, _ := db.Session(ctx, values.CatalogName)
	if _, err := cat.recallShape(ctx, `MATCH ()`, values.RecallOptions{AtVersion: 1000}); code(err) != gqlstatus.VersionNotKept ||
		!strings.Contains(err.Error(), "catalogue keeps no past versions") {
		t.Fatalf("the catalogue's past: %v", err)
	}
}

// TestRecallAtVersionUnderFire: Recalls at past versions while Commits
// make new ones: every answer is the version asked for, or 22Q08.
func TestRecallAtVersionUnderFire(t *testing.T) {
	ctx := context.Background()
	db, _ := openTest()
	defer db.Close()
	s, _ := db.Session(ctx, "fire")
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 300 {
			if _, err := s.commitText(ctx, fmt.Sprintf(`INSERT (:NOTE {text: "n%d"})`, i), nil); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for g := range 3 {
		t.Run(fmt.Sprint("reader", g), func(t *testing.T) {
			for i := 0; ; i++ {
				select {
				case <-done:
					return
				default:
				}
				v := uint64(i%300 + 1)
				sh, err := s.recallShape(ctx, `MATCH (n:NOTE)`, values.RecallOptions{AtVersion: v, M: 5})
				var ge *gqlstatus.Error
				switch {
				case errors.As(err, &ge) && ge.Code == gqlstatus.VersionNotKept:
				case err != nil:
					t.Fatal(err)
				case sh.Version != v || !strings.Contains(sh.Text, fmt.Sprintf("version=%d at=%d", v, v)):
					t.Fatalf("asked for %d, got %d", v, sh.Version)
				}
			}
		})
	}
	<-done
}

// TestPostgresRecallAtVersionOtherHost: on PostgreSQL, the versions
// another host committed are readable as of their version too, once this
// host caught up with them.
func TestPostgresRecallAtVersionOtherHost(t *testing.T) {
	url, schema := pgSchema(t)
	o := pgOptions{PollInterval: 200 * time.Millisecond, Poll: true}
	a := openPG(t, url, schema, o)
	b := openPG(t, url, schema, o)
	ctx := context.Background()
	sa, sb := mustSession(t, a, "h"), mustSession(t, b, "h")
	var bodies []string
	for i := range 4 {
		mustCommit(t, sa, fmt.Sprintf(`INSERT (:NOTE {text: "n%d"})`, i), nil)
		sh, err := sa.recallShape(ctx, `MATCH (n:NOTE)`, values.RecallOptions{})
		if err != nil {
			t.Fatal(err)
		}
		bodies = append(bodies, shapeBody(sh.Text))
	}
	mustCommit(t, sb, `INSERT (:NOTE {text: "from b"})`, nil) // b catches up first
	for v := uint64(1); v <= 4; v++ {
		sh, err := sb.recallShape(ctx, `MATCH (n:NOTE)`, values.RecallOptions{AtVersion: v})
		if err != nil {
			t.Fatalf("b at %d: %v", v, err)
		}
		if got := shapeBody(sh.Text); got != bodies[v-1] {
			t.Fatalf("b at %d:\n%s\na gave then:\n%s", v, got, bodies[v-1])
		}
	}
	// After a flush, a third host, which replays nothing of the versions
	// before the snapshot, rebuilds them from the history in the table.
	if err := sb.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	c := openPG(t, url, schema, o)
	sc := mustSession(t, c, "h")
	for v := uint64(1); v <= 4; v++ {
		sh, err := sc.recallShape(ctx, `MATCH (n:NOTE)`, values.RecallOptions{AtVersion: v})
		if err != nil {
			t.Fatalf("c at %d after a flush: %v", v, err)
		}
		if got := shapeBody(sh.Text); got != bodies[v-1] {
			t.Fatalf("c at %d after a flush:\n%s\na gave then:\n%s", v, got, bodies[v-1])
		}
	}
}
