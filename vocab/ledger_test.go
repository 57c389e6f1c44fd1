package vocab

import (
	"encoding/binary"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"pgregory.net/rapid"

	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/values"
)

// commits records one Delta per entry of ws: each a list of
// "KIND.key" (raw) or "KIND.key@" (inside an action) writes, with one
// changed element per write.
func commits(s *State, ws ...[]string) *State {
	for _, w := range ws {
		var d Delta
		for i, spec := range w {
			inAction := strings.HasSuffix(spec, "@")
			kind, key, _ := strings.Cut(strings.TrimSuffix(spec, "@"), ".")
			d.Wrote(kind, key, inAction)
			d.Touch(store.ID(i + 1))
		}
		s = s.Record(&d)
	}
	return s
}

func repeat(n int, w ...string) [][]string {
	out := make([][]string, n)
	for i := range out {
		out[i] = w
	}
	return out
}

func TestRecordCountsOncePerSide(t *testing.T) {
	var d Delta
	for range 3 {
		d.Wrote("TSK", "status", false)
	}
	d.Wrote("TSK", "status", true)
	d.Wrote("TSK", "status", true)
	d.Wrote("EDGE", "w", false)
	for i := range 40 { // past the linear set: the map takes over
		d.Touch(store.ID(i % 20))
		d.Wrote("K", fmt.Sprint("k", i%25), i%2 == 0)
	}
	if got := d.Changed(); got != 20 {
		t.Fatalf("Delta.Changed = %d, want 20", got)
	}
	s := (*State)(nil).Record(&d)
	if s.Changed() != 20 {
		t.Fatalf("Changed = %d, want 20", s.Changed())
	}
	ws := s.Writes()
	if len(ws) != 27 {
		t.Fatalf("%d pairs, want 27: %v", len(ws), ws)
	}
	want := map[string]WriteCount{
		"TSK.status": {Kind: "TSK", Key: "status", Raw: 1, InAction: 1},
		"EDGE.w":     {Kind: "EDGE", Key: "w", Raw: 1},
	}
	for _, w := range ws {
		if e, ok := want[w.Kind+"."+w.Key]; ok && e != w {
			t.Errorf("%s.%s = %+v, want %+v", w.Kind, w.Key, w, e)
		}
		if w.Kind == "K" && w.Raw+w.InAction == 0 {
			t.Errorf("%+v counted nothing", w)
		}
	}
	if !slices.IsSortedFunc(ws, func(a, b WriteCount) int { return comparePair(a.Kind, a.Key, b.Kind, b.Key) }) {
		t.Fatalf("Writes not sorted: %v", ws)
	}
	if (*State)(nil).Record(&Delta{}) != nil {
		t.Fatal("an empty Delta made a new State")
	}
	if s.Record(nil) != s {
		t.Fatal("a nil Delta made a new State")
	}
}

func TestGaps(t *testing.T) {
	var hist [][]string
	hist = append(hist, repeat(8, "TSK.status")...)  // 8 raw, 0 in actions
	hist = append(hist, repeat(2, "TSK.status@")...) // 8 raw, 2 in actions
	hist = append(hist, repeat(5, "TSK.pri", "TSK.pri@", "NOTE.text@")...)
	hist = append(hist, repeat(4, "MOD.lines")...) // 4 raw
	hist = append(hist, repeat(5, "touches.w", "TSK.owner")...)
	s := commits(nil, hist...)
	wc := func(kind, key string, raw, in uint64) WriteCount {
		return WriteCount{Kind: kind, Key: key, Raw: raw, InAction: in}
	}
	for _, c := range []struct {
		minRaw uint64
		ratio  float64
		want   []WriteCount
	}{
		{5, 4, []WriteCount{wc("TSK", "status", 8, 2), wc("TSK", "owner", 5, 0), wc("touches", "w", 5, 0)}},
		{5, 4.01, []WriteCount{wc("TSK", "owner", 5, 0), wc("touches", "w", 5, 0)}},
		{5, 1, []WriteCount{wc("TSK", "status", 8, 2), wc("TSK", "owner", 5, 0), wc("TSK", "pri", 5, 5), wc("touches", "w", 5, 0)}},
		{4, 4, []WriteCount{wc("TSK", "status", 8, 2), wc("TSK", "owner", 5, 0), wc("touches", "w", 5, 0), wc("MOD", "lines", 4, 0)}},
		{9, 0, nil},
		// Raw first: NOTE.text, never written raw, sorts last.
		{0, 0, []WriteCount{wc("TSK", "status", 8, 2), wc("TSK", "owner", 5, 0), wc("TSK", "pri", 5, 5), wc("touches", "w", 5, 0), wc("MOD", "lines", 4, 0), wc("NOTE", "text", 0, 5)}},
	} {
		got := s.Gaps(values.MaxGapWindow, c.minRaw, c.ratio)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("Gaps(%d, %g) =\n %v\nwant\n %v", c.minRaw, c.ratio, got, c.want)
		}
	}
	if s.Changed() != 8+2+15+4+10 {
		t.Errorf("Changed = %d", s.Changed())
	}
	var none *State
	if none.Gaps(values.MaxGapWindow, 0, 0) != nil || none.Writes() != nil || none.Changed() != 0 || none.HasLedger() {
		t.Error("the nil State has a ledger")
	}
}

// TestLedgerMatchesModel: for random histories of Commits over a schema
// of up to a few hundred pairs, the counters are those a plain map of
// them counts, and every earlier State still holds what it held.
func TestLedgerMatchesModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		type pair struct{ kind, key string }
		model := map[pair]WriteCount{}
		var changed uint64
		var s *State
		var states []*State
		var wants []string
		kinds := rapid.IntRange(1, 20).Draw(t, "kinds")
		keys := rapid.IntRange(1, 30).Draw(t, "keys")
		for range rapid.IntRange(1, 60).Draw(t, "commits") {
			var d Delta
			seen := map[Write]bool{}
			ids := map[store.ID]bool{}
			for range rapid.IntRange(0, 40).Draw(t, "writes") {
				w := Write{Kind: fmt.Sprint("K", rapid.IntRange(0, kinds-1).Draw(t, "kind")),
					Key: fmt.Sprint("k", rapid.IntRange(0, keys-1).Draw(t, "key")), InAction: rapid.Bool().Draw(t, "in")}
				d.Wrote(w.Kind, w.Key, w.InAction)
				id := store.ID(rapid.IntRange(1, 50).Draw(t, "id"))
				d.Touch(id)
				ids[id] = true
				if !seen[w] {
					seen[w] = true
					c := model[pair{w.Kind, w.Key}]
					c.Kind, c.Key = w.Kind, w.Key
					if w.InAction {
						c.InAction++
					} else {
						c.Raw++
					}
					model[pair{w.Kind, w.Key}] = c
				}
			}
			changed += uint64(len(ids))
			s = s.Record(&d)
			want := slices.SortedFunc(maps.Values(model), func(a, b WriteCount) int { return comparePair(a.Kind, a.Key, b.Kind, b.Key) })
			if got := s.Writes(); !slices.Equal(got, want) && len(got)+len(want) > 0 {
				t.Fatalf("Writes\n %v\nwant\n %v", got, want)
			}
			if s.Changed() != changed {
				t.Fatalf("Changed %d, want %d", s.Changed(), changed)
			}
			states, wants = append(states, s), append(wants, fmt.Sprint(want))
		}
		for i, st := range states {
			if got := fmt.Sprint(st.Writes()); got != wants[i] && wants[i] != "[]" {
				t.Fatalf("state %d changed: %s, was %s", i, got, wants[i])
			}
		}
		// And the encoding keeps them.
		back, err := Decode(s.AppendExt(nil), testPlan)
		if err != nil || ledgerOf(back) != ledgerOf(s) {
			t.Fatalf("decoded %v: %s, want %s", err, ledgerOf(back), ledgerOf(s))
		}
	})
}

// TestTrieFullDepth: pairs whose hashes agree in every bit share a leaf
// at the trie's last level, however many there are.
func TestTrieFullDepth(t *testing.T) {
	l := &ledger{}
	var want []WriteCount
	for i := range 3 * leafMax {
		key := fmt.Sprintf("k%02d", i)
		var e *entry
		l.writes, e = l.at(l.writes, "K", key, 42, 0)
		e.Raw = uint64(i + 1)
		want = append(want, WriteCount{Kind: "K", Key: key, Raw: uint64(i + 1)})
	}
	// Others spread out beside them.
	for i := range 3 * leafMax {
		key := fmt.Sprintf("x%02d", i)
		l.put(WriteCount{Kind: "K", Key: key, InAction: 1})
		want = append(want, WriteCount{Kind: "K", Key: key, InAction: 1})
	}
	s := &State{led: l}
	if got := s.Writes(); !slices.Equal(got, want) || l.pairs != len(want) {
		t.Fatalf("Writes %v (%d pairs), want %v", got, l.pairs, want)
	}
	depth := 0
	for n := l.writes; n.inner; depth++ {
		n = n.kids[42>>(depth*trieBits)%trieFan]
	}
	if depth != trieMaxDepth {
		t.Fatalf("colliding pairs at depth %d, want %d", depth, trieMaxDepth)
	}
}

// TestRecordLeavesOlderStates: a State recorded from another leaves it
// as it was, also when two Commits are recorded from one State at once
// (run with -race).
func TestRecordLeavesOlderStates(t *testing.T) {
	var keys [][]string
	for i := range 600 {
		keys = append(keys, []string{fmt.Sprintf("K%d.k%d", i%7, i)})
	}
	base := commits(nil, keys...)
	before := base.Writes()
	var wg sync.WaitGroup
	out := make([]*State, 4)
	for g := range out {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := base
			for i := range 200 {
				s = commits(s, []string{fmt.Sprintf("K%d.k%d", i%7, i*3), fmt.Sprintf("N%d.new", g)})
				_ = base.Writes()
			}
			out[g] = s
		}()
	}
	wg.Wait()
	if !reflect.DeepEqual(base.Writes(), before) || base.Changed() != 600 {
		t.Fatal("recording changed an older State")
	}
	for g, s := range out {
		if s.Changed() != 600+400 {
			t.Fatalf("state %d: Changed = %d", g, s.Changed())
		}
		n := 0
		for _, w := range s.Writes() {
			if strings.HasPrefix(w.Kind, "N") {
				if w.Kind != fmt.Sprint("N", g) || w.Raw != 200 {
					t.Fatalf("state %d holds %+v", g, w)
				}
				n++
			}
		}
		if n != 1 {
			t.Fatalf("state %d: %d N pairs", g, n)
		}
	}
}

func TestDroppedSince(t *testing.T) {
	var s *State
	step := func(f func(*State) (*State, error)) {
		t.Helper()
		next, err := f(s)
		if err != nil {
			t.Fatal(err)
		}
		s = next
	}
	view := func(name string, v uint64) func(*State) (*State, error) {
		return func(s *State) (*State, error) { return s.DefineView(name, "", "1", true, "", v) }
	}
	action := func(name string, v uint64) func(*State) (*State, error) {
		return func(s *State) (*State, error) { return s.DefineAction(ActionDef{Name: name}, true, "", v) }
	}
	step(view("a", 1))
	step(view("b", 1))
	step(view("c", 1))
	step(action("x", 1))
	step(action("y", 1))
	step(func(s *State) (*State, error) { return s.DropView("b", 3) })
	step(func(s *State) (*State, error) { return s.DropAction("y", 4) })
	step(func(s *State) (*State, error) { return s.DropView("a", 5) })
	step(func(s *State) (*State, error) { return s.DropView("c", 5) })
	afterDrops := s
	step(view("c", 6)) // registered again: no longer dropped
	for _, c := range []struct {
		since          uint64
		views, actions []string
	}{
		{0, []string{"a", "b"}, []string{"y"}},
		{2, []string{"a", "b"}, []string{"y"}},
		{3, []string{"a"}, []string{"y"}},
		{4, []string{"a"}, nil},
		{5, nil, nil},
	} {
		v, a := s.DroppedSince(c.since)
		if !slices.Equal(v, c.views) || !slices.Equal(a, c.actions) {
			t.Errorf("DroppedSince(%d) = %v, %v; want %v, %v", c.since, v, a, c.views, c.actions)
		}
	}
	if v, _ := afterDrops.DroppedSince(4); !slices.Equal(v, []string{"a", "c"}) {
		t.Errorf("the State before c was registered again lost its tombstone: %v", v)
	}
	if !s.HasLedger() || s.Empty() {
		t.Errorf("HasLedger %v, Empty %v", s.HasLedger(), s.Empty())
	}
	if _, err := s.DropView("nope", 7); err == nil {
		t.Error("dropping an unknown view")
	}
	var none *State
	if v, a := none.DroppedSince(0); v != nil || a != nil {
		t.Error("the nil State remembers drops")
	}
	// The ledger is not vocabulary.
	gone, _ := (*State)(nil).DefineView("v", "", "1", false, "", 1)
	gone, _ = gone.DropView("v", 2)
	if !gone.Empty() || !gone.HasLedger() {
		t.Errorf("after its only view is dropped: Empty %v, HasLedger %v", gone.Empty(), gone.HasLedger())
	}
}

// TestTombstonesAreCapped: past MaxTombstones the oldest drops are
// forgotten, ties by name.
func TestTombstonesAreCapped(t *testing.T) {
	var s *State
	n := MaxTombstones + 40
	for i := range n {
		var err error
		if s, err = s.DefineAction(ActionDef{Name: fmt.Sprintf("a%03d", i)}, false, "", 1); err != nil {
			t.Fatal(err)
		}
	}
	// Drops two by two in one version each, the later name first.
	for i := n - 1; i >= 0; i-- {
		var err error
		if s, err = s.DropAction(fmt.Sprintf("a%03d", i), uint64(10+(n-1-i)/2)); err != nil {
			t.Fatal(err)
		}
	}
	_, got := s.DroppedSince(0)
	if len(got) != MaxTombstones {
		t.Fatalf("%d tombstones kept, want %d", len(got), MaxTombstones)
	}
	// The 40 oldest drops were of the 40 highest names.
	want := make([]string, MaxTombstones)
	for i := range want {
		want[i] = fmt.Sprintf("a%03d", i)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("kept %v…, want %v…", got[:4], want[:4])
	}
	// A tie at the cap: the name sorting first goes.
	var u *State
	for i := range MaxTombstones + 1 {
		name := fmt.Sprintf("v%03d", i)
		u, _ = u.DefineView(name, "", "1", false, "", 1)
		u, _ = u.DropView(name, 5)
	}
	views, _ := u.DroppedSince(0)
	if len(views) != MaxTombstones || views[0] != "v001" {
		t.Fatalf("tie at the cap kept %d, first %s", len(views), views[0])
	}
	b := u.AppendExt(nil)
	if _, err := Decode(b, nil); err != nil {
		t.Fatalf("decoding a capped state: %v", err)
	}
}

// testPlan stands for the planner: an action's source is its name.
func testPlan(source string) (ActionDef, error) {
	if source == "" {
		return ActionDef{}, fmt.Errorf("no source")
	}
	return ActionDef{Name: source, Source: source}, nil
}

func richState(t testing.TB) *State {
	s, err := (*State)(nil).DefineView("open", "what is open", `count("TSK")`, false, "ana", 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"settle", "gone", "add"} {
		if s, err = s.DefineAction(ActionDef{Name: name, Source: name}, false, "bo", 2); err != nil {
			t.Fatal(err)
		}
	}
	s, _ = s.DefineView("old", "", "1", false, "", 3)
	s, _ = s.DropView("old", 4)
	s, _ = s.DropAction("gone", 5)
	s = s.Invoked("settle", 6)
	return commits(s, []string{"TSK.status", "TSK.status@", "has_note.w"}, []string{"NOTE.text@", "TSK.status"})
}

func ledgerOf(s *State) string {
	v, a := s.DroppedSince(0)
	return fmt.Sprintf("changed %d writes %v dropped %v %v window %s", s.Changed(), s.Writes(), v, a, windowOf(s))
}

func TestCodecLedger(t *testing.T) {
	s := richState(t)
	b := s.AppendExt(nil)
	if b[0] != codecVersion {
		t.Fatalf("encoding version %d", b[0])
	}
	got, err := Decode(b, testPlan)
	if err != nil {
		t.Fatal(err)
	}
	if ledgerOf(got) != ledgerOf(s) {
		t.Fatalf("decoded ledger\n %s\nwant\n %s", ledgerOf(got), ledgerOf(s))
	}
	if ledgerOf(s) != "changed 5 writes [{NOTE text 0 1} {TSK status 2 1} {has_note w 1 0}] dropped [old] [gone]"+
		" window [[{TSK status false} {TSK status true} {has_note w false}][] [{NOTE text true} {TSK status false}][]]" {
		t.Fatalf("ledger %s", ledgerOf(s))
	}
	if string(got.AppendExt(nil)) != string(b) {
		t.Fatal("re-encoding the decoded state differs")
	}
	a, _ := got.Action("settle")
	if a.Invocations != 1 || len(got.Views()) != 1 || len(got.Actions()) != 2 {
		t.Fatalf("vocabulary after decoding: %+v %v %v", a, got.Views(), got.Actions())
	}
	// Every strict prefix fails, none panics.
	for i := range len(b) {
		if _, err := Decode(b[:i], testPlan); err == nil {
			t.Fatalf("a prefix of %d of %d bytes decoded", i, len(b))
		}
	}
	// A ledger of nothing still round-trips.
	empty, err := Decode((*State)(nil).AppendExt(nil), testPlan)
	if err != nil || !empty.Empty() || empty.HasLedger() {
		t.Fatalf("empty state: %v %v", empty, err)
	}
}

// v1 is a version 1 encoding: one view and one action, as the previous
// release wrote it.
func v1() []byte {
	b := []byte{1}
	str := func(s string) { b = binary.AppendUvarint(b, uint64(len(s))); b = append(b, s...) }
	num := func(ns ...uint64) {
		for _, n := range ns {
			b = binary.AppendUvarint(b, n)
		}
	}
	num(1)
	str("open")
	str("intent")
	str(`count("TSK")`)
	str("ana")
	num(3, 4, 1)
	num(1)
	str("settle")
	str("bo")
	num(5, 5, 0, 2, 7)
	return b
}

func TestDecodeVersion1(t *testing.T) {
	s, err := Decode(v1(), testPlan)
	if err != nil {
		t.Fatal(err)
	}
	v, ok := s.View("open")
	a, ok2 := s.Action("settle")
	if !ok || !ok2 || v.Revisions != 1 || v.Revised != 4 || a.Invocations != 2 || a.LastInvoked != 7 {
		t.Fatalf("decoded %+v %+v", v, a)
	}
	if s.HasLedger() || s.Changed() != 0 || s.Writes() != nil {
		t.Fatalf("a version 1 encoding has a ledger: %s", ledgerOf(s))
	}
	if _, err := Decode(append(v1(), 0), testPlan); err == nil {
		t.Fatal("trailing bytes after a version 1 encoding decoded")
	}
	if got := s.AppendExt(nil); got[0] != codecVersion {
		t.Fatalf("re-encoded as version %d", got[0])
	}
}

func TestDecodeRefusesBadLedgers(t *testing.T) {
	base := func() []byte { // a version 2 head without views or actions
		return []byte{2, 0, 0}
	}
	u := binary.AppendUvarint
	str := func(b []byte, s string) []byte { return append(u(b, uint64(len(s))), s...) }
	for name, b := range map[string][]byte{
		"version 0":           {0, 0, 0},
		"version 4":           {4, 0, 0, 0, 0, 0, 0, 0, 0},
		"out of order writes": u(u(str(str(u(u(str(str(u(u(base(), 1), 2), "T"), "b"), 1), 0), "T"), "a"), 1), 0),
		"duplicate writes":    u(u(str(str(u(u(str(str(u(u(base(), 1), 2), "T"), "a"), 1), 0), "T"), "a"), 1), 0),
		"zero counter":        append(u(u(str(str(u(u(base(), 1), 1), "T"), "a"), 0), 0), 0, 0),
		"tombstones unsorted": append(u(str(u(str(u(u(u(base(), 0), 0), 2), "b"), 1), "a"), 1), 0),
		"too many tombstones": append(u(u(u(base(), 0), 0), MaxTombstones+1), make([]byte, 2*(MaxTombstones+1))...),
		"huge count":          u(base(), 1<<62),
	} {
		if _, err := Decode(b, testPlan); err == nil {
			t.Errorf("%s: decoded", name)
		}
	}
	// And the well-formed neighbour of the cases above does decode.
	ok := append(u(u(str(str(u(u(base(), 1), 1), "T"), "a"), 2), 0), 1)
	ok = append(u(str(ok, "gone"), 9), 0)
	s, err := Decode(ok, testPlan)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := s.DroppedSince(8); ledgerOf(s) != "changed 1 writes [{T a 2 0}] dropped [gone] [] window []" || len(v) != 1 {
		t.Fatalf("decoded %s", ledgerOf(s))
	}
	// A tombstone may not name a live view.
	live, _ := (*State)(nil).DefineView("v", "", "1", false, "", 1)
	b := live.AppendExt(nil)
	b = append(b[:len(b)-2], 1, 1, 'v', 2, 0)
	if _, err := Decode(b, testPlan); err == nil {
		t.Error("a tombstone of a registered view decoded")
	}
}

// FuzzDecode: no byte string makes Decode panic, and what it accepts
// re-encodes to bytes it reads back as the same state.
func FuzzDecode(f *testing.F) {
	f.Add(v1())
	f.Add(richState(f).AppendExt(nil))
	f.Add((*State)(nil).AppendExt(nil))
	f.Add([]byte{2})
	f.Add([]byte{2, 0, 0, 0, 1, 1, 'K', 1, 'k', 1, 1, 0, 0})
	f.Add(windowCommits(nil, "agent=ana NOTE.text", "agent=bob TSK.status@ call=settle", "TSK.x NOTE.text", "call=ping").AppendExt(nil))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := Decode(b, testPlan)
		if err != nil {
			return
		}
		again := s.AppendExt(nil)
		s2, err := Decode(again, testPlan)
		if err != nil {
			t.Fatalf("re-encoding of an accepted state does not decode: %v", err)
		}
		if string(s2.AppendExt(nil)) != string(again) || ledgerOf(s2) != ledgerOf(s) {
			t.Fatalf("round trip differs: %s vs %s", ledgerOf(s2), ledgerOf(s))
		}
	})
}

// BenchmarkRecord: recording a Commit of one SET (one element, one pair)
// on a session whose ledger holds many pairs: the cost stays that of the
// path to the pair's leaf, whatever the number of pairs.
//
//	go test -run '^$' -bench Record -benchmem ./vocab
func BenchmarkRecord(b *testing.B) {
	for _, pairs := range []int{10, 1000, 100000} {
		b.Run(fmt.Sprint("pairs=", pairs), func(b *testing.B) {
			var s *State
			var d Delta
			for i := range pairs {
				d.Wrote(fmt.Sprint("K", i%50), fmt.Sprint("key", i), i%3 == 0)
			}
			s = s.Record(&d)
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				var d Delta
				d.Touch(store.ID(i))
				d.Wrote("K7", "key7", false)
				s = s.Record(&d)
			}
		})
	}
}
