package vocab

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish/values"
)

func TestContestedTargets(t *testing.T) {
	status := Target{Kind: "TSK", Key: "status"}
	var s *State
	s = act(t, s, "settle", status, Target{Kind: "NOTE"}, Target{Kind: "TSK", Edge: "has_note"})
	s = act(t, s, "add", Target{Kind: "TSK"})
	if c := s.Contested(); len(c) != 0 {
		t.Fatalf("one writer per target: contested %v", c)
	}
	s = act(t, s, "close", status)
	s = act(t, s, "note", Target{Kind: "NOTE"}, Target{Kind: "TSK", Edge: "has_note"})
	s = act(t, s, "wipe", Target{Key: "status"}) // a variable of no label: any kind
	var got []string
	for _, c := range s.Contested() {
		got = append(got, c.Target+" "+strings.Join(c.Actions, ","))
	}
	want := []string{"(:NOTE) note,settle", "(:TSK)-[:has_note]-> note,settle", "TSK.status close,settle,wipe"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("contested:\n got %q\nwant %q", got, want)
	}
	for i, c := range s.Contested() {
		if i == 2 && contestedText(c) != "TSK.status (close, settle, wipe)" {
			t.Errorf("text %q", contestedText(c))
		}
	}
	// Dropping and revising change the contests; the older State keeps its own.
	old := s
	s, _ = s.DropAction("note", 2)
	s = act(t, s, "wipe", Target{Kind: "MOD", Key: "status"})
	if got := s.Contested(); len(got) != 1 || !reflect.DeepEqual(got[0].Actions, []string{"close", "settle"}) {
		t.Fatalf("after the drop and the revision: %v", got)
	}
	if len(old.Contested()) != 3 {
		t.Fatalf("the older State changed: %v", old.Contested())
	}
	if Target.String(Target{}) != "()" || (Target{Edge: "e"}).String() != "()-[:e]->" || (Target{Key: "k"}).String() != "*.k" {
		t.Error("the any-kind targets' text")
	}
}

func TestContestedEnvelope(t *testing.T) {
	var s *State
	for i := range 100 {
		s = act(t, s, fmt.Sprintf("a%03d", i), Target{Kind: "TSK", Key: "status"}, Target{Kind: "TSK", Key: fmt.Sprint("k", i%7)})
	}
	vals, err := Evaluate(context.Background(), testGraph(t), s)
	if err != nil {
		t.Fatal(err)
	}
	p := Prepare(s, vals)
	for _, depth := range []Depth{DepthLean, DepthFull} {
		r := &Read{Prepared: p, Version: 1, Tick: 3, Settings: values.DefaultAttentionSettings, Marks: &Marks{}, Agent: "ana",
			Seen: Seen{Reads: 1, Version: 1}, Depth: depth}
		env := Compose(r)
		text := string(env.Text)
		if !strings.Contains(text, "// attention contested: TSK.k0 (") || !strings.Contains(text, "one action per target") {
			t.Fatalf("%s: no contested line:\n%s", depth, text)
		}
		if !strings.Contains(text, "8 contested targets") {
			t.Errorf("%s: vocabulary_health does not count them:\n%s", depth, text)
		}
		if env.Attention == nil || len(env.Attention.Contested) == 0 {
			t.Fatalf("%s: no contested field", depth)
		}
		if depth == DepthLean {
			if env.Milli > leanBudget {
				t.Errorf("lean envelope of %d milli-tokens, over %d", env.Milli, leanBudget)
			}
			if !strings.Contains(text, "TSK.status (a000, a001, a002, +97)") && !strings.Contains(text, "+") {
				t.Errorf("lean contested not shortened:\n%s", text)
			}
		} else if !strings.Contains(text, "TSK.status (a000, a001") || !strings.Contains(text, "a099)") {
			t.Errorf("full contested does not name every action:\n%s", text)
		}
		if Compose(r).Text == nil || string(Compose(r).Text) != text {
			t.Errorf("%s: not deterministic", depth)
		}
	}
}
