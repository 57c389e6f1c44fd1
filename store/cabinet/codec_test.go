package cabinet

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/values"
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
	nick := func(s string) values.Props {
		return values.MakeProps(map[string]values.Value{"nick": values.String(s)})
	}
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
		_, err := tx.InsertEdge(tx.NewID(), "r", x, w, values.MakeProps(map[string]values.Value{"f": values.Float(-0.0)}))
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
		_, err := tx.InsertNode(store.DeterministicNodeID("MOD", "m.go"), []string{"MOD"}, values.MakeProps(map[string]values.Value{
			"loc": values.String("m.go"), "l": values.List(values.Int(-5), values.DateValue("2024-01-01"), values.List(values.Bool(true))),
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
		Params: map[string]values.Value{"a": values.List(values.Float(1.5), values.Null(), values.DateTimeValue("2024-01-01T00:00:00Z")), "b": values.Bool(true)}}
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
// may hold (values.MaxNesting) and refuses one level more, whatever the
// innermost list holds, so the limit Commit enforces is the one hydrate
// reads back.
func TestEntryNesting(t *testing.T) {
	nest := func(depth int, leaf values.Value) values.Value {
		for range depth {
			leaf = values.List(leaf)
		}
		return leaf
	}
	cases := []struct {
		v  values.Value
		ok bool
	}{
		{nest(values.MaxNesting, values.Int(1)), true},
		{nest(values.MaxNesting-1, values.List()), true},
		{nest(values.MaxNesting-1, values.List(values.Int(1), values.List())), false},
		{nest(values.MaxNesting+1, values.Int(1)), false},
		{nest(values.MaxNesting, values.List()), false},
	}
	for i, c := range cases {
		if got := c.v.Nesting() <= values.MaxNesting; got != c.ok {
			t.Fatalf("case %d: nesting %d", i, c.v.Nesting())
		}
		e := Entry{Version: 1, Kind: EntryDelta, Text: "INSERT (:X {a: $a})", Params: map[string]values.Value{"a": c.v}}
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
