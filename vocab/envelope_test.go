package vocab

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/goldfish-gql/goldfish/values"
)

func TestKeywords(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"close a finished task and keep why it was closed", []string{"close", "closed", "finished", "keep", "task"}},
		{"Close the TASK, close it!", []string{"close", "task"}},
		{"", nil},
		{"a an of to is", nil},
		{"überprüfen die Aufgabe_2", []string{"aufgabe_2", "die", "überprüfen"}},
	} {
		if got := Keywords(c.in); !slices.Equal(got, c.want) {
			t.Errorf("Keywords(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestOverlapsBounded: thousands of actions with one intent give the
// first MaxOverlapPairs pairs in name order and a count, without
// comparing more than overlapWork pairs.
func TestOverlapsBounded(t *testing.T) {
	var acts []*Action
	for i := range 3000 {
		acts = append(acts, &Action{ActionDef: ActionDef{Name: fmt.Sprintf("a%04d", i), Intent: "close a finished task"}})
	}
	pairs, total := overlaps(acts)
	if len(pairs) != MaxOverlapPairs || pairs[0] != (values.IntentOverlap{A: "a0000", B: "a0001", Jaccard: 1}) {
		t.Fatalf("pairs %d, first %+v", len(pairs), pairs[0])
	}
	if total < len(pairs) || total > 3000*2999/2 {
		t.Fatalf("total %d", total)
	}
	few := []*Action{
		{ActionDef: ActionDef{Name: "a", Intent: "close a finished task and keep why"}},
		{ActionDef: ActionDef{Name: "b", Intent: "close the finished task"}},
		{ActionDef: ActionDef{Name: "c", Intent: "reopen a closed ticket"}},
	}
	pairs, total = overlaps(few)
	if total != 1 || pairs[0] != (values.IntentOverlap{A: "a", B: "b", Jaccard: 0.75}) {
		t.Fatalf("overlaps %+v %d", pairs, total)
	}
}

// TestRankingOrderHolds: the order by key is the order by salience at
// every later Recall count, and the threshold test by key agrees with
// the salience itself away from the boundary.
func TestRankingOrderHolds(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		decay := rapid.Float64Range(0.01, 1).Draw(t, "decay")
		r := &ranking{decay: decay, lambda: -math.Log(decay)}
		n := rapid.IntRange(1, 20).Draw(t, "n")
		marks := make([]Mark, n)
		for i := range marks {
			marks[i] = Mark{Score: rapid.Float64Range(0.01, 10).Draw(t, "score"), Tick: rapid.Uint64Range(0, 50).Draw(t, "tick")}
		}
		tick := rapid.Uint64Range(50, 120).Draw(t, "now")
		thr := rapid.Float64Range(0.0001, 1).Draw(t, "thr")
		lowKey := r.lowKey(tick, thr)
		for i := range marks {
			for j := range marks {
				ki, kj := r.key(marks[i]), r.key(marks[j])
				si, sj := marks[i].At(tick, decay), marks[j].At(tick, decay)
				if ki > kj && si < sj*(1-1e-9) {
					t.Fatalf("key order %v > %v but salience %v < %v", ki, kj, si, sj)
				}
			}
			s := marks[i].At(tick, decay)
			if math.Abs(s-thr) > 1e-9*thr && (r.key(marks[i]) < lowKey) != (s < thr) {
				t.Fatalf("mark %+v at %d: salience %v, threshold %v, key says low=%v", marks[i], tick, s, thr, r.key(marks[i]) < lowKey)
			}
		}
	})
}

func TestSettings(t *testing.T) {
	s, err := values.DefaultAttentionSettings.Set("decay", "0.5")
	if err != nil || s.Decay != 0.5 {
		t.Fatal(s, err)
	}
	for _, bad := range [][2]string{{"decay", "0"}, {"decay", "1.5"}, {"decay", "0.5x"}, {"stale_reads", "-1"},
		{"stale_reads", "0"}, {"gap_ratio", "0.5"}, {"gap_min", "0"}, {"salience_threshold", "NaN"}, {"nope", "1"}} {
		if _, err := values.DefaultAttentionSettings.Set(bad[0], bad[1]); err == nil {
			t.Errorf("%s=%s accepted", bad[0], bad[1])
		}
	}
	if err := values.DefaultAttentionSettings.Check(); err != nil {
		t.Fatal(err)
	}
}

func TestParseSections(t *testing.T) {
	s, err := ParseSections([]string{"Views", " attention"})
	if err != nil || s != SectionViews|SectionAttention || !slices.Equal(s.Names(), []string{"views", "attention"}) {
		t.Fatal(s, err)
	}
	if s, _ := ParseSections(nil); s != AllSections {
		t.Fatal(s)
	}
	if _, err := ParseSections([]string{"graph"}); err == nil {
		t.Fatal("graph accepted")
	}
}
