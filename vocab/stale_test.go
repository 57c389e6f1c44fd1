package vocab

import (
	"slices"
	"testing"

	"github.com/goldfish-gql/goldfish/values"
)

// TestStaleSinceLastInvocation: an action invoked once and then idle is
// stale once stale_reads Recalls passed since that invocation (it never
// was, before: an invocation since registration kept it fresh for ever);
// one never invoked is stale stale_reads Recalls after its registration.
func TestStaleSinceLastInvocation(t *testing.T) {
	s, err := (*State)(nil).DefineAction(ActionDef{Name: "used", Intent: "x"}, false, "", 1)
	if err != nil {
		t.Fatal(err)
	}
	s, _ = s.DefineAction(ActionDef{Name: "idle", Intent: "y"}, false, "", 2)
	s = s.Invoked("used", 3)
	p := Prepare(s, &Values{Results: map[string]Result{}})
	set := values.DefaultAttentionSettings // stale_reads 10
	// used was registered at Recall count 0 and invoked at 1; idle
	// registered at 0.
	marks := &Marks{Actions: map[string]Mark{
		"used": Fresh(0).Raised(1, set.Decay),
		"idle": Fresh(0),
	}}
	stale := func(tick uint64) []string {
		return staleActions(p, p.rankingFor(marks, set.Decay), &Read{Prepared: p, Tick: tick, Settings: set, Marks: marks}, true).names
	}
	for _, c := range []struct {
		tick uint64
		want []string
	}{
		{9, nil},
		{10, []string{"idle"}},
		{11, []string{"idle", "used"}},
		{42, []string{"idle", "used"}},
	} {
		got := stale(c.tick)
		slices.Sort(got)
		if !slices.Equal(got, c.want) {
			t.Errorf("at Recall %d stale %q, want %q", c.tick, got, c.want)
		}
	}
}
