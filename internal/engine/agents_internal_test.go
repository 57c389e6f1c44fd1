package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"pgregory.net/rapid"

	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/store/cabinet"
	"github.com/goldfish-gql/goldfish/values"
	"github.com/goldfish-gql/goldfish/vocab"
)

// loggedCabinet records the writes a real cabinet is given, in order.
type loggedCabinet struct {
	cabinet.Cabinet
	mu  sync.Mutex
	ops []string
}

func (c *loggedCabinet) log(op string) {
	c.mu.Lock()
	c.ops = append(c.ops, op)
	c.mu.Unlock()
}

func (c *loggedCabinet) Append(name string, e cabinet.Entry, m cabinet.Meta) *cabinet.Ticket {
	c.log(fmt.Sprintf("append v%d %s", e.Version, e.Agent))
	return c.Cabinet.Append(name, e, m)
}

func (c *loggedCabinet) SaveAttention(name string, data []byte) *cabinet.Ticket {
	t := &Session{}
	if err := decodeAttention(data, t); err != nil {
		c.log("attention: " + err.Error())
	} else {
		var parts []string
		for _, r := range t.agents.list() {
			parts = append(parts, fmt.Sprintf("%s=%d/%d", r.name, r.seen.Version, r.seen.Reads))
		}
		c.log("attention " + strings.Join(parts, " "))
	}
	return c.Cabinet.SaveAttention(name, data)
}

func (c *loggedCabinet) Flush(name string, snap *store.Snapshot, m cabinet.Meta, base *store.Snapshot) error {
	c.log(fmt.Sprintf("flush v%d", snap.Version()))
	return c.Cabinet.Flush(name, snap, m, base)
}

func (c *loggedCabinet) take() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	ops := c.ops
	c.ops = nil
	return ops
}

// TestAttentionSaves: the record is queued right before the log entry of
// the first Commit (or purge) after a read, never when nothing was read
// since the last save, never by a Recall itself, and on Flush and Close
// when it changed; a session the cabinet does not hold yet is not saved.
func TestAttentionSaves(t *testing.T) {
	ctx := context.Background()
	bolt, err := cabinet.Open(filepath.Join(t.TempDir(), "c.gf"), nil)
	if err != nil {
		t.Fatal(err)
	}
	lc := &loggedCabinet{Cabinet: bolt}
	db, err := openTest(withCabinetBackend(lc))
	if err != nil {
		t.Fatal(err)
	}
	s, _ := db.Session(ctx, "s")
	read := func(agent string) {
		t.Helper()
		if _, err := s.recallShape(ctx, `MATCH (t:TSK)`, values.RecallOptions{Agent: agent}); err != nil {
			t.Fatal(err)
		}
	}
	commit := func(agent string) {
		t.Helper()
		if _, err := s.commitWith(ctx, `INSERT (:TSK)`, nil, values.CommitOptions{Agent: agent}); err != nil {
			t.Fatal(err)
		}
	}
	want := func(ops ...string) {
		t.Helper()
		if got := lc.take(); !reflect.DeepEqual(got, ops) {
			t.Fatalf("cabinet ops\n%q\nwant\n%q", got, ops)
		}
	}
	read("ana")
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	want() // version 0: nothing in the cabinet to keep it beside
	commit("bob")
	want("attention ana=0/1", "append v1 bob")
	commit("")
	want("append v2 ")
	read("ana")
	read("bob")
	read("ana")
	want() // reads queue nothing
	commit("ana")
	want("attention ana=2/3 bob=2/1", "append v3 ana")
	read("bob")
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	want("attention ana=2/3 bob=3/2", "flush v3")
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	want()
	read("carl")
	if _, err := s.Purge(ctx); err != nil { // nothing to purge: no version, no save
		t.Fatal(err)
	}
	want()
	if _, err := s.commitText(ctx, `MATCH (t:TSK) DELETE t`, nil); err != nil {
		t.Fatal(err)
	}
	want("attention ana=2/3 bob=3/2 carl=3/1", "append v4 ")
	read("carl")
	if n, err := s.Purge(ctx); err != nil || n == 0 {
		t.Fatal(n, err)
	}
	// A purge cuts the history at its version: a flush with it as base.
	want("attention ana=2/3 bob=3/2 carl=4/2", "append v5 ", "flush v5")
	read("dora")
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	want("attention ana=2/3 bob=3/2 carl=4/2 dora=5/1")
}

// TestAttentionEncoding: records round-trip; a record read back gives the
// same bytes; any cut or changed byte of a record is refused or read as
// some valid record, never a panic; a later encoding's extra section and
// extra fields are skipped.
func TestAttentionEncoding(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		tab := &Session{}
		for _, name := range rapid.SliceOfNDistinct(rapid.StringMatching(`[a-z_][a-z0-9_.-]{0,8}`), 0, 8, rapid.ID[string]).Draw(t, "names") {
			r := tab.agents.insert(name)
			r.seen = vocab.Seen{Version: rapid.Uint64().Draw(t, "last"), Reads: rapid.Uint64().Draw(t, "reads"),
				Changed: rapid.Uint64().Draw(t, "changed"), Shape: rapid.Uint64().Draw(t, "shape"),
				Views: rapid.Uint64().Draw(t, "views"), Actions: rapid.Uint64().Draw(t, "actions"),
				Attention: rapid.Uint64().Draw(t, "attention"), ViewRead: rapid.Uint64().Draw(t, "viewRead")}
			for _, tick := range rapid.SliceOfN(rapid.Uint64(), 0, vocab.RecentReads+8).Draw(t, "recent") {
				r.recent.Add(tick)
			}
		}
		tab.attn.tick.Store(rapid.Uint64().Draw(t, "tick"))
		set := values.DefaultAttentionSettings
		set.StaleReads = rapid.Uint64Range(1, 1000).Draw(t, "stale")
		set.Decay = rapid.Float64Range(0.01, 1).Draw(t, "decay")
		set.GapWindow = rapid.Uint64Range(1, values.MaxGapWindow).Draw(t, "window")
		tab.attn.settings.Store(&set)
		marks := &vocab.Marks{Views: map[string]vocab.Mark{}, Actions: map[string]vocab.Mark{}}
		for _, name := range rapid.SliceOfN(rapid.StringMatching(`[a-z]{1,6}`), 0, 6).Draw(t, "marks") {
			mk := vocab.Mark{Score: rapid.Float64Range(0, 50).Draw(t, "score"), Tick: rapid.Uint64().Draw(t, "mtick"), RegTick: rapid.Uint64().Draw(t, "reg")}
			if rapid.Bool().Draw(t, "view") {
				marks.Views[name] = mk
			} else {
				marks.Actions[name] = mk
			}
		}
		for _, name := range rapid.SliceOfN(rapid.StringMatching(`[a-z]{1,6}`), 0, 4).Draw(t, "failed") {
			if marks.Failed == nil {
				marks.Failed = map[string]vocab.Failure{}
			}
			marks.Failed[name] = vocab.Failure{Count: rapid.Uint64Range(1, 1<<40).Draw(t, "fails"),
				Tick: rapid.Uint64().Draw(t, "ftick"), Error: rapid.String().Draw(t, "ferr")}
		}
		tab.attn.marks.Store(marks)
		tab.attn.base = map[string]viewSeen{}
		for _, name := range rapid.SliceOfN(rapid.StringMatching(`[a-z]{1,6}`), 0, 4).Draw(t, "values") {
			tab.attn.base[name] = viewSeen{hash: rapid.Uint64().Draw(t, "hash"), changedAt: rapid.Uint64().Draw(t, "at")}
		}
		data := encodeAttention(tab)
		back := &Session{}
		if err := decodeAttention(data, back); err != nil {
			t.Fatalf("decode: %v", err)
		}
		if again := encodeAttention(back); string(again) != string(data) {
			t.Fatalf("re-encoded %x, was %x", again, data)
		}
		for i, r := range tab.agents.list() {
			if got, want := back.agents.list()[i].recent.Ticks(), r.recent.Ticks(); !slices.Equal(got, want) {
				t.Fatalf("agent %s: recent reads %v, was %v", r.name, got, want)
			}
		}
		if len(data) > 1 {
			cut := rapid.IntRange(1, len(data)-1).Draw(t, "cut")
			_ = decodeAttention(data[:cut], &Session{})
			flip := append([]byte(nil), data...)
			flip[rapid.IntRange(0, len(data)-1).Draw(t, "at")] ^= byte(rapid.IntRange(1, 255).Draw(t, "xor"))
			_ = decodeAttention(flip, &Session{})
		}
	})
	// Version 1 with a later section (tag 9) and a later field per agent.
	later := []byte{1, 9, 2, 0xAA, 0xBB, 1, 7, 1, 1, 'a', 3, 7, 2, 0x55}
	tab := &Session{}
	if err := decodeAttention(later, tab); err != nil {
		t.Fatal(err)
	}
	if l := tab.agents.list(); len(l) != 1 || l[0].name != "a" || l[0].seen.Version != 7 || l[0].seen.Reads != 2 {
		t.Fatalf("read %+v", l)
	}
	for _, bad := range [][]byte{nil, {2}, {1, 1, 1, 5}, {1, 1, 4, 2, 1, 'b', 0}, {1, 1, 11, 2, 1, 'b', 2, 0, 0, 1, 'a', 2, 0, 0}, {1, 1, 6, 1, 1, '.', 2, 0, 0}, {1, 1, 1, 0, 1, 1, 0}} {
		if err := decodeAttention(bad, &Session{}); err == nil {
			t.Errorf("%x decoded", bad)
		}
	}
}

// BenchmarkAgentNote measures what counting one Recall costs its agent's
// record, with the Recalls of 16 agents running in parallel.
func BenchmarkAgentNote(b *testing.B) {
	tab := &agentTable{}
	names := make([]string, 16)
	for i := range names {
		names[i] = fmt.Sprintf("agent%d", i)
	}
	var next counter
	b.RunParallel(func(pb *testing.PB) {
		name := names[next.add()%len(names)]
		var v uint64
		for pb.Next() {
			v++
			r, err := tab.find(name)
			if err != nil {
				b.Error(err)
				return
			}
			tab.note(name, r, v, 0, nil)
		}
	})
}

type counter struct {
	mu sync.Mutex
	n  int
}

func (c *counter) add() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
	return c.n
}

// FuzzDecodeAttention: any bytes in the place of an attention record are
// refused or read as a record that encodes back to a record that reads
// the same, never a panic.
func FuzzDecodeAttention(f *testing.F) {
	s := &Session{}
	s.agents.insert("ana").seen = vocab.Seen{Version: 3, Reads: 7, Changed: 9, Shape: 1, Views: 2, Actions: 3, Attention: 4}
	for _, tick := range []uint64{2, 5, 6, 11} {
		s.agents.insert("ana").recent.Add(tick)
	}
	s.attn.tick.Store(12)
	s.attn.marks.Store(&vocab.Marks{Views: map[string]vocab.Mark{"open": {Score: 1.5, Tick: 3, RegTick: 1}},
		Actions: map[string]vocab.Mark{"settle": {Score: 0.2, Tick: 9, RegTick: 2}}})
	s.attn.base = map[string]viewSeen{"open": {hash: 77, changedAt: 2}}
	f.Add(encodeAttention(s))
	s.attn.update(func(m *vocab.Marks) { // with failed CALLs
		m.Failed = map[string]vocab.Failure{"settle": {Count: 2, Tick: 9, Error: "the precondition is false"}}
	})
	f.Add(encodeAttention(s))
	f.Add(encodeAttention(&Session{}))
	s.pinned.Store(&[]string{"LAW", "RULE"}) // with the pinned section
	f.Add(encodeAttention(s))
	f.Add([]byte{1, 3, 4, 1, 2, 'b', 'a'}) // a pinned section alone
	f.Add([]byte{1, 9, 2, 0xAA, 0xBB, 1, 7, 1, 1, 'a', 3, 7, 2, 0x55})
	f.Fuzz(func(t *testing.T, data []byte) {
		back := &Session{}
		if decodeAttention(data, back) != nil {
			return
		}
		again := encodeAttention(back)
		third := &Session{}
		if err := decodeAttention(again, third); err != nil {
			t.Fatalf("a record encoded from a decoded one is refused: %v", err)
		}
		if string(encodeAttention(third)) != string(again) {
			t.Fatalf("not stable")
		}
	})
}
