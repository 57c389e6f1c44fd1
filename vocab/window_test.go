package vocab

import (
	"encoding/binary"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/values"
)

// windowCommits records one Commit per spec: fields "agent=NAME",
// "call=ACTION", or a write as commits takes it (KIND.key, @ for in an
// action).
func windowCommits(s *State, specs ...string) *State {
	for _, spec := range specs {
		var d Delta
		for i, f := range strings.Fields(spec) {
			switch {
			case strings.HasPrefix(f, "agent="):
				d.SetAgent(strings.TrimPrefix(f, "agent="))
			case strings.HasPrefix(f, "call="):
				d.Called(strings.TrimPrefix(f, "call="))
			default:
				kind, key, _ := strings.Cut(strings.TrimSuffix(f, "@"), ".")
				d.Wrote(kind, key, strings.HasSuffix(f, "@"))
			}
			d.Touch(store.ID(i + 1))
		}
		s = s.Record(&d)
	}
	return s
}

// windowOf writes the window as the tests compare it.
func windowOf(s *State) string {
	if s == nil || s.led == nil {
		return "[]"
	}
	w := &s.led.win
	parts := make([]string, w.len())
	for i := range parts {
		c := w.at(i)
		parts[i] = fmt.Sprintf("%s%v%v", c.agent, c.writes, c.calls)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

func rep(n int, spec string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = spec
	}
	return out
}

func TestGapsRoll(t *testing.T) {
	// 300 raw writes of TSK.status, then 200 Commits of an action writing
	// it: over the whole life a gap, over the last 200 none.
	s := windowCommits(nil, rep(300, "TSK.status")...)
	s = windowCommits(s, rep(200, "TSK.status@ call=settle")...)
	if got := s.Gaps(200, 5, 4); len(got) != 0 {
		t.Errorf("Gaps over the last 200 = %v, want none", got)
	}
	if got := s.Gaps(500, 5, 1); len(got) != 1 || got[0].Raw != 300 || got[0].InAction != 200 {
		t.Errorf("Gaps over 500 = %v", got)
	}
	// The window keeps values.MaxGapWindow Commits at least, and not many more.
	s = windowCommits(s, rep(2*values.MaxGapWindow, "MOD.lines")...)
	for range 3 * windowChunk { // its length at every point of a chunk
		if n := s.led.win.len(); n < values.MaxGapWindow || n > maxWindowLen {
			t.Fatalf("the window holds %d Commits", n)
		}
		s = windowCommits(s, "MOD.lines")
	}
	if n := s.led.win.len(); n < values.MaxGapWindow || n > maxWindowLen {
		t.Errorf("the window holds %d Commits", n)
	}
	if got := s.Window(values.MaxGapWindow); got.Commits != values.MaxGapWindow || got.RawCommits != values.MaxGapWindow || got.ActionCommits != 0 {
		t.Errorf("Window = %+v", got)
	}
	// The write table still counts the whole life.
	for _, w := range s.Writes() {
		if w.Kind == "TSK" && (w.Raw != 300 || w.InAction != 200) {
			t.Errorf("write table %v", w)
		}
	}
	// Commits that only touched elements (an ingest) take no place.
	var d Delta
	d.Touch(1)
	if got := s.Record(&d); got.led.win.len() != s.led.win.len() {
		t.Error("a Commit that wrote nothing took a place in the window")
	}
}

func TestWindowBranches(t *testing.T) {
	// A State recorded on twice (a Δ rolled back after it recorded, then
	// the next): each child sees its own Commit, the parent neither.
	base := windowCommits(nil, "agent=a TSK.x", "agent=a TSK.y")
	b := windowCommits(base, "agent=b NOTE.text")
	c := windowCommits(base, "agent=c MOD.lines")
	if got, want := windowOf(base), "[a[{TSK x false}][] a[{TSK y false}][]]"; got != want {
		t.Errorf("parent %s, want %s", got, want)
	}
	if !strings.HasSuffix(windowOf(b), "b[{NOTE text false}][]]") || !strings.HasSuffix(windowOf(c), "c[{MOD lines false}][]]") {
		t.Errorf("children %s and %s", windowOf(b), windowOf(c))
	}
	// Many Records at once on one State: every child sees only its own.
	var wg sync.WaitGroup
	kids := make([]*State, 16)
	for i := range kids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			kids[i] = windowCommits(base, fmt.Sprintf("agent=k%d TSK.x", i))
		}()
	}
	wg.Wait()
	for i, k := range kids {
		if w := &k.led.win; w.len() != 3 || w.at(2).agent != fmt.Sprintf("k%d", i) {
			t.Errorf("child %d: %s", i, windowOf(k))
		}
	}
	if windowOf(base) != "[a[{TSK x false}][] a[{TSK y false}][]]" {
		t.Errorf("the parent changed: %s", windowOf(base))
	}
}

func TestPreAction(t *testing.T) {
	var specs []string
	for i := range 5 {
		// ana writes a note, bob writes in between, then ana calls
		// settle: the note precedes 5 of 5 CALLs; bob's pair is not ana's.
		specs = append(specs, "agent=ana NOTE.text", "agent=bob MOD.lines", "agent=ana TSK.status@ call=settle")
		if i < 2 {
			specs = append(specs, "agent=ana TSK.owner", "agent=ana call=assign TSK.owner@")
		}
	}
	s := windowCommits(nil, specs...)
	got := s.PreAction(200, 3)
	want := []Preceding{{Kind: "NOTE", Key: "text", Action: "settle", Times: 5, Calls: 5}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("PreAction = %+v, want %+v", got, want)
	}
	if got := s.PreAction(200, 6); len(got) != 0 {
		t.Errorf("PreAction with min 6 = %+v", got)
	}
	// Over a window of the last 3 Commits only one CALL is seen.
	if got := s.PreAction(3, 1); len(got) != 1 || got[0].Times != 1 || got[0].Calls != 1 {
		t.Errorf("PreAction(3) = %+v", got)
	}
	if got := s.CalledBy("ana", 200); !reflect.DeepEqual(got, []string{"assign", "settle"}) {
		t.Errorf("CalledBy(ana) = %v", got)
	}
	if got := s.CalledBy("bob", 200); got != nil {
		t.Errorf("CalledBy(bob) = %v", got)
	}
	// The gaps say it, with the counts of the window.
	set := values.DefaultAttentionSettings
	set.GapMin = 3
	gaps := gapsOf(s, set)
	found := false
	for _, g := range gaps {
		if g.Kind == "NOTE" {
			found = g.BeforeCall == "settle" && g.BeforeTimes == 5 && g.BeforeCalls == 5 && g.Raw == 5
		}
	}
	if !found {
		t.Errorf("gaps %+v do not say NOTE.text precedes settle", gaps)
	}
}

func TestCodecWindow(t *testing.T) {
	s := windowCommits(nil, "agent=ana NOTE.text", "agent=bob TSK.status@ call=settle", "TSK.x NOTE.text", "call=ping")
	s = windowCommits(s, rep(values.MaxGapWindow, "agent=ana TSK.x")...)
	b := s.AppendExt(nil)
	got, err := Decode(b, testPlan)
	if err != nil {
		t.Fatal(err)
	}
	if windowOf(got) != windowOf(s) {
		t.Fatalf("window %s\nwant %s", windowOf(got), windowOf(s))
	}
	if string(got.AppendExt(nil)) != string(b) {
		t.Fatal("the encoding is not stable")
	}
	// Damaged windows are refused, never half read.
	head := func() []byte { return []byte{codecVersion, 0, 0, 1, 1, 3, 'T', 'S', 'K', 1, 'x', 1, 0, 0, 0} }
	u := binary.AppendUvarint
	str := func(b []byte, s string) []byte { return append(u(b, uint64(len(s))), s...) }
	for name, b := range map[string][]byte{
		"agent out of order": u(str(str(u(head(), 2), "b"), "a"), 0),
		"unknown agent":      u(u(u(u(str(u(head(), 1), "a"), 1), 1), 0), 0),
		"unknown pair":       u(u(u(u(str(u(head(), 1), "a"), 1), 0), 1), 2),
		"pair twice":         u(u(u(u(u(str(u(head(), 1), "a"), 1), 0), 2), 0), 0),
		"empty Commit":       u(u(u(u(str(u(head(), 1), "a"), 1), 0), 0), 0),
		"too long":           u(str(u(head(), 1), "a"), maxWindowLen+1),
		"truncated":          u(str(u(head(), 1), "a"), 1),
	} {
		if _, err := Decode(b, testPlan); err == nil {
			t.Errorf("%s: decoded", name)
		}
	}
	ok := u(u(u(u(u(str(u(head(), 1), "a"), 1), 0), 1), 0), 0)
	if _, err := Decode(ok, testPlan); err != nil {
		t.Errorf("a good window: %v", err)
	}
}
