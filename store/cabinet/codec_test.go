package cabinet

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/goldfish-gql/goldfish/store"
)

func dump(s *store.Snapshot) string {
	var b strings.Builder
	fmt.Fprintf(&b, "v%d next %d live %d/%d rec %d\n", s.Version(), s.NextID(), s.NodeCount(), s.EdgeCount(), s.RecycledCount())
	s.ScanAllNodes(func(n *store.Node) bool {
		fmt.Fprintf(&b, "n %d %v %v %s\n", n.ID, n.Recycled, n.Labels, n.Props.Literal())
		return true
	})
	s.ScanAllEdges(func(e *store.Edge) bool {
		fmt.Fprintf(&b, "e %d %v %s %d %d %s\n", e.ID, e.Recycled, e.Type, e.From, e.To, e.Props.Literal())
		return true
	})
	return b.String()
}

// TestSnapshotRestore round-trips a graph whose recycled nodes hold nicks
// now used by live nodes, recycled edges between them, and a counter above
// every surviving id.
func TestSnapshotRestore(t *testing.T) {
	g := store.New()
	nick := func(s string) store.Props { return store.MakeProps(map[string]store.Value{"nick": store.String(s)}) }
	step := func(fn func(tx *store.Tx) error) {
		tx := g.Begin()
		if err := fn(tx); err != nil {
			t.Fatal(err)
		}
		tx.Commit()
	}
	var x, w, y, tmp store.ID
	step(func(tx *store.Tx) error {
		x, w, tmp = tx.NewID(), tx.NewID(), tx.NewID()
		tx.InsertNode(x, []string{"A", "B"}, nick("a"))
		tx.InsertNode(w, []string{"A"}, nick("b"))
		tx.InsertNode(tmp, nil, nil)
		_, err := tx.InsertEdge(tx.NewID(), "r", x, w, store.MakeProps(map[string]store.Value{"f": store.Float(-0.0)}))
		return err
	})
	step(func(tx *store.Tx) error {
		var e store.ID
		tx.Snapshot().Edges(x, store.Out, func(ed *store.Edge) bool { e = ed.ID; return false })
		tx.RecycleEdge(e)
		tx.RecycleNode(x)
		tx.SetProps(w, nick("a")) // w takes x's nick
		tx.RecycleNode(w)
		y = tx.NewID()
		tx.InsertNode(y, []string{"A"}, nick("a")) // and a live node takes it again
		tx.RecycleNode(tmp)
		return tx.Purge(tmp)
	})
	step(func(tx *store.Tx) error {
		_, err := tx.InsertNode(store.DeterministicNodeID("MOD", "m.go"), []string{"MOD"}, store.MakeProps(map[string]store.Value{
			"loc": store.String("m.go"), "l": store.List(store.Int(-5), store.Date("2024-01-01"), store.List(store.Bool(true))),
		}))
		return err
	})
	want := dump(g.Snapshot())
	got, err := DecodeSnapshot(EncodeSnapshot(g.Snapshot()))
	if err != nil {
		t.Fatal(err)
	}
	if d := dump(got.Snapshot()); d != want {
		t.Fatalf("restored\n%s\nwant\n%s", d, want)
	}
	if n, ok := got.Snapshot().NodeByNick("a"); !ok || n.ID != y {
		t.Fatal("nick index wrong after restore")
	}
	b := EncodeSnapshot(g.Snapshot())
	b[len(b)/2] ^= 1
	if _, err := DecodeSnapshot(b); err == nil {
		t.Fatal("corrupt snapshot accepted")
	}
}

func TestEntryRoundTrip(t *testing.T) {
	e := Entry{Version: 7, Kind: EntryDelta, Mint: 1, Text: "INSERT (:X {a: $a})", Time: time.Unix(0, 12345).UTC(), Agent: "ana",
		Params: map[string]store.Value{"a": store.List(store.Float(1.5), store.Null(), store.DateTime("2024-01-01T00:00:00Z")), "b": store.Bool(true)}}
	b := EncodeEntry(e)
	got, err := DecodeEntry(b)
	if err != nil {
		t.Fatal(err)
	}
	if got.Version != 7 || got.Text != e.Text || got.Mint != 1 || !got.Time.Equal(e.Time) || got.Agent != "ana" ||
		!got.Params["a"].Equal(e.Params["a"]) || !got.Params["b"].Equal(e.Params["b"]) {
		t.Fatalf("got %+v", got)
	}
	for i := range b {
		c := append([]byte(nil), b...)
		c[i] ^= 0x10
		if _, err := DecodeEntry(c); err == nil {
			t.Fatalf("flipped byte %d accepted", i)
		}
	}
}

// TestEntryNesting: the decoder reads every list as deep as a property
// may hold (store.MaxNesting) and refuses one level more, whatever the
// innermost list holds, so the limit Commit enforces is the one hydrate
// reads back.
func TestEntryNesting(t *testing.T) {
	nest := func(depth int, leaf store.Value) store.Value {
		for range depth {
			leaf = store.List(leaf)
		}
		return leaf
	}
	cases := []struct {
		v  store.Value
		ok bool
	}{
		{nest(store.MaxNesting, store.Int(1)), true},
		{nest(store.MaxNesting-1, store.List()), true},
		{nest(store.MaxNesting-1, store.List(store.Int(1), store.List())), false},
		{nest(store.MaxNesting+1, store.Int(1)), false},
		{nest(store.MaxNesting, store.List()), false},
	}
	for i, c := range cases {
		if got := c.v.Nesting() <= store.MaxNesting; got != c.ok {
			t.Fatalf("case %d: nesting %d", i, c.v.Nesting())
		}
		e := Entry{Version: 1, Kind: EntryDelta, Text: "INSERT (:X {a: $a})", Params: map[string]store.Value{"a": c.v}}
		got, err := DecodeEntry(EncodeEntry(e))
		switch {
		case c.ok && err != nil:
			t.Errorf("case %d: a value %d deep does not decode: %v", i, c.v.Nesting(), err)
		case c.ok && !got.Params["a"].Equal(c.v):
			t.Errorf("case %d: decoded %s", i, got.Params["a"].Literal())
		case !c.ok && err == nil:
			t.Errorf("case %d: a value %d deep decodes", i, c.v.Nesting())
		}
	}
}

// TestEntryWithoutAgent: an entry that names no agent encodes as entries
// did before agents were kept, and decodes with none.
func TestEntryWithoutAgent(t *testing.T) {
	e := Entry{Version: 1, Kind: EntryDelta, Text: "INSERT (:X)", Time: time.Unix(0, 1).UTC()}
	got, err := DecodeEntry(EncodeEntry(e))
	if err != nil || got.Agent != "" || got.Text != e.Text {
		t.Fatalf("got %+v, %v", got, err)
	}
}

// TestSnapshotExt: a snapshot keeps its graph's extension state, encoded,
// and restores it as a store.RawExt for its owner to decode.
func TestSnapshotExt(t *testing.T) {
	g := store.New()
	tx := g.Begin()
	tx.InsertNode(tx.NewID(), []string{"A"}, nil)
	tx.SetExt(store.RawExt("vocabulary"))
	tx.Commit()
	got, err := DecodeSnapshot(EncodeSnapshot(g.Snapshot()))
	if err != nil {
		t.Fatal(err)
	}
	if x, ok := got.Snapshot().Ext().(store.RawExt); !ok || string(x) != "vocabulary" {
		t.Fatalf("ext %#v", got.Snapshot().Ext())
	}
	if dump(got.Snapshot()) != dump(g.Snapshot()) {
		t.Fatal("graph differs")
	}
}

// TestAttentionRecord: a session's attention record is kept beside its
// log, returned by Load, replaced by the next save, and gone with Drop.
func TestAttentionRecord(t *testing.T) {
	path := t.TempDir() + "/c.gf"
	b, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	g := store.New()
	tx := g.Begin()
	tx.InsertNode(tx.NewID(), nil, nil)
	snap := tx.Commit()
	if err := b.SaveAttention("s", []byte("first")).Wait(); err != nil {
		t.Fatal(err)
	}
	if err := b.Append("s", Entry{Version: 1, Kind: EntryDelta, Text: "INSERT ()"}, MetaOf("s", snap, time.Time{})).Wait(); err != nil {
		t.Fatal(err)
	}
	if err := b.SaveAttention("s", []byte("second")).Wait(); err != nil {
		t.Fatal(err)
	}
	b.Close()
	b, err = Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	img, err := b.Load("s")
	if err != nil || string(img.Attention) != "second" {
		t.Fatalf("attention %q, %v", img.Attention, err)
	}
	if err := b.Drop("s"); err != nil {
		t.Fatal(err)
	}
	if err := b.Append("s", Entry{Version: 1, Kind: EntryDelta, Text: "INSERT ()"}, MetaOf("s", snap, time.Time{})).Wait(); err != nil {
		t.Fatal(err)
	}
	if img, err := b.Load("s"); err != nil || img.Attention != nil {
		t.Fatalf("a re-created session has attention %q, %v", img.Attention, err)
	}
}
