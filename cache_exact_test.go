package goldfish_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/goldfish-gql/goldfish"
)

// exactSession holds names that a careless cache key would confuse: a
// label holding a colon, a key holding "=" and a blank, kinds named after
// an option, a kind holding a comma.
const exactSession = "INSERT (:A {a: 1, b: 2}), (:A {`a=1 b`: 2}), (:`A:B` {nick: 'q'}), (:A:B {nick: 'r'})," +
	" (:K {nick: 'k'})-[:r]->(:J {nick: 'j'}), (:`K,J` {nick: 'kj'}), (:nopeaks {nick: 'np'})-[:r]->(:nopeaks {nick: 'np2'})," +
	" (:P {f: 1}), (:P {f: 1.0}), (:P {f: '1'})"

// request is one Recall: a token and its options.
type request struct {
	q    string
	opts goldfish.RecallOptions
}

func (r request) String() string { return fmt.Sprintf("%s %+v", r.q, r.opts) }

func openExact(t interface {
	Helper()
	Fatal(...any)
	Cleanup(func())
}, opts ...goldfish.Option) *goldfish.Session {
	t.Helper()
	db, err := goldfish.Open(opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	s, err := db.Session(context.Background(), "exact")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Commit(context.Background(), exactSession, nil); err != nil {
		t.Fatal(err)
	}
	return s
}

func recallText(s *goldfish.Session, r request) string {
	sh, err := s.Recall(context.Background(), r.q, r.opts)
	if err != nil {
		return "error: " + err.Error()
	}
	return sh.Text
}

// TestShapeCacheKeysExact: requests that differ only in how their names
// would concatenate get their own Shapes, as with the cache off.
func TestShapeCacheKeysExact(t *testing.T) {
	pairs := [][2]request{
		{{q: "MATCH (n {a: 1, b: 2})"}, {q: "MATCH (n {`a=1 b`: 2})"}},
		{{q: "MATCH (n:A:B)"}, {q: "MATCH (n:`A:B`)"}},
		{{q: "MATCH (n:Z)", opts: goldfish.RecallOptions{Pinned: []string{"K", "J"}}},
			{q: "MATCH (n:Z)", opts: goldfish.RecallOptions{Pinned: []string{"K,J"}}}},
		{{q: "MATCH (n:Z)", opts: goldfish.RecallOptions{Pinned: []string{"nopeaks"}}},
			{q: "MATCH (n:Z)", opts: goldfish.RecallOptions{NoPeaks: true}}},
		{{q: "MATCH (n:P {f: $f})", opts: goldfish.RecallOptions{Params: map[string]any{"f": 1}}},
			{q: "MATCH (n:P {f: $f})", opts: goldfish.RecallOptions{Params: map[string]any{"f": "1"}}}},
	}
	cached := openExact(t)
	uncached := openExact(t, goldfish.WithShapeCacheBytes(0))
	for _, p := range pairs {
		for _, r := range []request{p[0], p[1], p[0], p[1]} {
			if got, want := recallText(cached, r), recallText(uncached, r); got != want {
				t.Errorf("%v with the cache:\n%s\nwithout:\n%s", r, got, want)
			}
		}
	}
}

// The names of each part are few, so random requests often share every
// part but the one a careless key would confuse.
var (
	exactLabels = []string{"A", "B", "A:B"}
	exactKeys   = []string{"a", "b", "a=1 b"}
	exactPins   = []string{"K", "J", "K,J", "nopeaks"}
)

// requestParts is a request drawn part by part, so a second request can
// differ from the first in one part only: the pairs a careless key
// confuses are near each other.
type requestParts struct {
	labels, keys, vals []string
	limit              string
	param              any
	opts               goldfish.RecallOptions
}

func (p requestParts) request() request {
	quote := func(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }
	var b strings.Builder
	b.WriteString("MATCH (n")
	for _, l := range p.labels {
		b.WriteString(":" + quote(l))
	}
	if len(p.keys) > 0 {
		b.WriteString(" {")
		for i, k := range p.keys {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(quote(k) + ": " + p.vals[i])
		}
		b.WriteString("}")
	}
	b.WriteString(")" + p.limit)
	r := request{q: b.String(), opts: p.opts}
	if strings.Contains(r.q, "$v") {
		r.opts.Params = map[string]any{"v": p.param}
	}
	return r
}

func drawPart(t *rapid.T, p *requestParts, part int) {
	names := func(from []string, label string) []string {
		var out []string
		for i, n := 0, rapid.IntRange(0, 2).Draw(t, label); i < n; i++ {
			out = append(out, rapid.SampledFrom(from).Draw(t, label))
		}
		return out
	}
	switch part {
	case 0:
		p.labels = names(exactLabels, "labels")
	case 1:
		p.keys = names(exactKeys, "keys")
		p.vals = nil
		for range p.keys {
			p.vals = append(p.vals, rapid.SampledFrom([]string{"1", "2", "$v"}).Draw(t, "val"))
		}
	case 2:
		p.limit = rapid.SampledFrom([]string{"", " LIMIT 0", " LIMIT 1", " LIMIT 3"}).Draw(t, "limit")
	case 3:
		p.param = rapid.SampledFrom([]any{1, 1.0, "1", 2, []any{"K", "J"}, "K,J"}).Draw(t, "param")
	case 4:
		p.opts.Pinned = names(exactPins, "pinned")
	case 5:
		p.opts.NoPeaks = rapid.Bool().Draw(t, "nopeaks")
	case 6:
		p.opts.M = rapid.SampledFrom([]int{0, 3}).Draw(t, "M")
		p.opts.K = rapid.IntRange(0, 1).Draw(t, "k")
		p.opts.L = rapid.IntRange(0, 1).Draw(t, "L")
	case 7:
		p.opts.View = rapid.SampledFrom([]string{"", "shell"}).Draw(t, "view")
	}
}

const requestPartCount = 8

// TestShapeCacheAgreesWithNoCache: for random sequences of requests on
// one session (each request either new or one part away from an earlier
// one), the cache-on engine gives the bytes the cache-off engine gives.
func TestShapeCacheAgreesWithNoCache(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cached := openExact(t)
		uncached := openExact(t, goldfish.WithShapeCacheBytes(0))
		var seen []requestParts
		for i, n := 0, rapid.IntRange(2, 40).Draw(t, "requests"); i < n; i++ {
			var p requestParts
			if len(seen) > 0 && rapid.Bool().Draw(t, "near") {
				p = rapid.SampledFrom(seen).Draw(t, "base")
				p.opts.Pinned = slices.Clone(p.opts.Pinned)
				drawPart(t, &p, rapid.IntRange(0, requestPartCount-1).Draw(t, "differs"))
			} else {
				for j := range requestPartCount {
					drawPart(t, &p, j)
				}
			}
			seen = append(seen, p)
			r := p.request()
			if got, want := recallText(cached, r), recallText(uncached, r); got != want {
				t.Fatalf("%v with the cache:\n%s\nwithout:\n%s", r, got, want)
			}
		}
	})
}

// TestDroppedSessionIsGone: a session dropped and re-created under the
// same name, at the same version, never serves the old one's Shapes.
func TestDroppedSessionIsGone(t *testing.T) {
	ctx := context.Background()
	for _, path := range []string{"", t.TempDir() + "/c.gf"} {
		var opts []goldfish.Option
		if path != "" {
			opts = append(opts, goldfish.WithCabinet(path))
		}
		db, err := goldfish.Open(opts...)
		if err != nil {
			t.Fatal(err)
		}
		s, _ := db.Session(context.Background(), "s")
		if _, err := s.Commit(ctx, `INSERT (:TSK {nick: "t", title: "old"})`, nil); err != nil {
			t.Fatal(err)
		}
		q := `MATCH (t:TSK {nick: "t"})`
		old, _ := s.Recall(ctx, q, goldfish.RecallOptions{})
		if err := db.Drop(ctx, "s"); err != nil {
			t.Fatal(err)
		}
		if sh, err := s.Recall(ctx, q, goldfish.RecallOptions{}); !errors.Is(err, goldfish.ErrDropped) {
			t.Errorf("cabinet %q: a Recall on the dropped session's handle gives %v, %v; want ErrDropped", path, sh, err)
		}
		s, _ = db.Session(context.Background(), "s")
		if _, err := s.Commit(ctx, `INSERT (:TSK {nick: "t", title: "new"})`, nil); err != nil {
			t.Fatal(err)
		}
		now, _ := s.Recall(ctx, q, goldfish.RecallOptions{})
		if strings.Contains(now.Text, `"old"`) || !strings.Contains(now.Text, `"new"`) {
			t.Errorf("cabinet %q: after drop and re-create the Recall gives\n%s\n(before the drop:\n%s)", path, now.Text, old.Text)
		}
		db.Close()
	}
}

// TestReturnedShapeIsTheCallers: what one caller does to its Shape is not
// what the next caller of the same Recall receives.
func TestReturnedShapeIsTheCallers(t *testing.T) {
	ctx := context.Background()
	s := openExact(t)
	q := request{q: "MATCH (n:K)", opts: goldfish.RecallOptions{F: 1}}
	first, err := s.Recall(ctx, q.q, q.opts)
	if err != nil {
		t.Fatal(err)
	}
	want, notices := first.Text, len(first.Notices)
	first.Text = "changed"
	first.Notices = append(first.Notices[:len(first.Notices):len(first.Notices)], goldfish.Notice{Code: "01000", Msg: "added"})
	if len(first.Notices) > 0 {
		first.Notices[0].Msg = "edited"
	}
	for range 2 {
		again, err := s.Recall(ctx, q.q, q.opts)
		if err != nil {
			t.Fatal(err)
		}
		if again.Text != want || len(again.Notices) != notices {
			t.Fatalf("the next caller got text %q and %d notices, want the original (%d notices)", again.Text, len(again.Notices), notices)
		}
		for _, n := range again.Notices {
			if n.Msg == "edited" || n.Msg == "added" {
				t.Fatalf("the next caller sees the first caller's notice %q", n.Msg)
			}
		}
		again.Text = "changed again"
	}
}
