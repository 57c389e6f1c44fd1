package vocab

import (
	"context"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish/values"
)

func act(t testing.TB, s *State, name string, writes ...Target) *State {
	t.Helper()
	if writes == nil {
		writes = []Target{}
	}
	n, err := s.DefineAction(ActionDef{Name: name, Source: name, Writes: writes}, true, "ana", 1)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestSystemViews(t *testing.T) {
	snap := testGraph(t)
	var s *State
	s = act(t, s, "settle", Target{Kind: "TSK", Key: "status"})
	s = act(t, s, "close", Target{Kind: "TSK", Key: "status"})
	s = s.Invoked("close", 2)
	for name, expr := range map[string]string{
		"health":    `view("_vocabulary_health")`,
		"broken_n":  `view("_vocabulary_health").broken`,
		"via":       `view("broken_n") + 0`,
		"contested": `view("_contested")`,
		"first":     `view("_contested")[0].actions`,
		"bad":       `nodes("TSK").filter(t, t.nope == 1).size()`,
		"unknown":   `view("_nope")`,
	} {
		s = define(t, s, name, expr)
	}
	vals, err := Evaluate(context.Background(), snap, s)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		// bad and unknown are broken; unknown reads a system view (one that
		// does not exist), so the cycle rule leaves it out, as it leaves
		// out health, broken_n, via, contested and first.
		"health":    `{action_commits: 0, broken: 1, contested: 1, gaps: 0, overlaps: 0, ratio: 0.0, raw_commits: 0, stale: 1, state: "degenerating", suggestions: ["1 broken view: CREATE OR REPLACE VIEW with what its error…`,
		"broken_n":  `1`,
		"via":       `1`,
		"contested": `[{actions: ["close", "settle"], target: "TSK.status"}]`,
		"first":     `["close", "settle"]`,
	} {
		if r := vals.Results[name]; r.Err != nil || r.Text != want {
			t.Errorf("%s = %s (%v), want %s", name, r.Text, r.Err, want)
		}
	}
	if r := vals.Results["unknown"]; r.Err == nil || !strings.Contains(r.Err.Error(), "no system view named _nope") {
		t.Errorf("unknown: %v", r.Err)
	}
	// Never stored: the system views are no registered views, nor values.
	if _, ok := s.View(SystemHealth); ok {
		t.Error("_vocabulary_health is registered")
	}
	if _, ok := vals.Results[SystemContested]; ok {
		t.Error("_contested has a stored value")
	}

	// A precondition reads them too.
	def := ActionDef{Name: "tidy", Source: "tidy", If: `view("_vocabulary_health").contested == 0 && size(view("_contested")) == 0`, Writes: []Target{}}
	s2, err := s.DefineAction(def, false, "ana", 3)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := s2.Action("tidy")
	ok, err := a.Precondition(context.Background(), snap, s2, map[string]values.Value{})
	if err != nil || ok {
		t.Fatalf("precondition with a contest: %v, %v", ok, err)
	}
	s3, _ := s2.DropAction("close", 4)
	a, _ = s3.Action("tidy")
	if ok, err = a.Precondition(context.Background(), snap, s3, map[string]values.Value{}); err != nil || !ok {
		t.Fatalf("precondition without one: %v, %v", ok, err)
	}
}

// A view that reaches _vocabulary_health by a name computed at run time
// is not left out by its literal names: read first, it is in progress and
// not counted; read while the health of another is computed, it meets
// the health in progress and is broken with a cycle. Either way the same
// every time.
func TestSystemHealthCycle(t *testing.T) {
	s := define(t, nil, "sneaky", `view("_vocabulary" + "_health").broken`)
	s = define(t, s, "a_first", `view("_vocabulary_health").broken`)
	for range 3 {
		vals, err := Evaluate(context.Background(), testGraph(t), s)
		if err != nil {
			t.Fatal(err)
		}
		if r := vals.Results["sneaky"]; r.Err == nil || !strings.Contains(r.Err.Error(), "cycle") {
			t.Fatalf("sneaky = %s (%v)", r.Text, r.Err)
		}
		if r := vals.Results["a_first"]; r.Err != nil || r.Text != "1" {
			t.Fatalf("a_first = %s (%v)", r.Text, r.Err)
		}
	}
	vals, _ := Evaluate(context.Background(), testGraph(t), define(t, nil, "sneaky", `view("_vocabulary" + "_health").broken`))
	if r := vals.Results["sneaky"]; r.Err != nil || r.Text != "0" {
		t.Fatalf("alone, sneaky = %s (%v)", r.Text, r.Err)
	}
}
