// Package cabinettest is the test suite every cabinet backend runs (the
// bbolt file and PostgreSQL alike): one contract, checked the same way
// for each. A backend's test calls Run with a function that makes fresh,
// empty storage (a new file, a new schema) and returns how to open it;
// opening it again after Close must find what was written.
package cabinettest

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/store/cabinet"
	"github.com/goldfish-gql/goldfish/values"
)

// Opener opens one backend's storage; each call opens it again.
type Opener func() (cabinet.Cabinet, error)

// Run runs the suite; fresh makes new, empty storage for one test.
func Run(t *testing.T, fresh func(t *testing.T) Opener) {
	for _, tc := range []struct {
		name string
		fn   func(t *testing.T, open Opener)
	}{
		{"Empty", testEmpty},
		{"AppendLoad", testAppendLoad},
		{"Flush", testFlush},
		{"History", testHistory},
		{"BigSnapshot", testBigSnapshot},
		{"GroupCommit", testGroupCommit},
		{"OutOfOrderPoisons", testOutOfOrder},
		{"Drop", testDrop},
		{"Attention", testAttention},
		{"Closed", testClosed},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, fresh(t)) })
	}
}

func mustOpen(t *testing.T, open Opener) cabinet.Cabinet {
	t.Helper()
	c, err := open()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func closeCab(t *testing.T, c cabinet.Cabinet) {
	t.Helper()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
}

// entry is the Δ of version v: every field set, parameters of each kind.
func entry(v uint64) cabinet.Entry {
	return cabinet.Entry{Version: v, Kind: cabinet.EntryDelta, Mint: uint8(v % 2), Text: fmt.Sprintf("INSERT (:N {n: %d})", v),
		Params: map[string]values.Value{"i": values.Int(int64(v)), "s": values.String("é\x00"), "l": values.List(values.Float(-0.5), values.Bool(true), values.Null())},
		Time:   time.Unix(1700000000, int64(v)).UTC(), Agent: "ana"}
}

func meta(name string, v uint64) cabinet.Meta {
	return cabinet.Meta{Name: name, Version: v, Nodes: int(v), Edges: 1, Recycled: 2,
		Kinds: []cabinet.KindCount{{Kind: "A", Count: 1}, {Kind: "N", Count: int(v)}}, LastCommit: time.Unix(1700000000, int64(v)).UTC()}
}

func appendAll(t *testing.T, c cabinet.Cabinet, name string, from, to uint64) {
	t.Helper()
	var tickets []*cabinet.Ticket
	for v := from; v <= to; v++ {
		tickets = append(tickets, c.Append(name, entry(v), meta(name, v)))
	}
	for i, tk := range tickets {
		if err := tk.Wait(); err != nil {
			t.Fatalf("append %s v%d: %v", name, from+uint64(i), err)
		}
	}
}

// checkLog: the image holds exactly the entries from..to, as written.
func checkLog(t *testing.T, img *cabinet.Image, from, to uint64) {
	t.Helper()
	if want := int(to - from + 1); len(img.Log) != want {
		t.Fatalf("log holds %d entries, want %d (%d..%d)", len(img.Log), want, from, to)
	}
	for i, e := range img.Log {
		if want := entry(from + uint64(i)); !reflect.DeepEqual(e, want) {
			t.Fatalf("entry %d:\n got %+v\nwant %+v", i, e, want)
		}
	}
}

func testEmpty(t *testing.T, open Opener) {
	c := mustOpen(t, open)
	defer closeCab(t, c)
	if ms, err := c.Sessions(); err != nil || len(ms) != 0 {
		t.Fatalf("Sessions of a new cabinet: %v, %v", ms, err)
	}
	if _, err := c.Load("nothing"); !errors.Is(err, cabinet.ErrNoSession) {
		t.Fatalf("Load of an unknown session: %v, want ErrNoSession", err)
	}
	if c.Path() == "" {
		t.Fatal("Path is empty")
	}
}

func testAppendLoad(t *testing.T, open Opener) {
	c := mustOpen(t, open)
	appendAll(t, c, "b", 1, 5)
	appendAll(t, c, "a", 1, 2)
	check := func(c cabinet.Cabinet) {
		t.Helper()
		img, err := c.Load("b")
		if err != nil {
			t.Fatal(err)
		}
		if v := img.Graph.Snapshot().Version(); v != 0 {
			t.Fatalf("graph without a snapshot is at version %d", v)
		}
		checkLog(t, img, 1, 5)
		if img.LogBytes <= 0 {
			t.Fatalf("LogBytes %d", img.LogBytes)
		}
		m := img.Meta
		m.SnapVersion, m.LogEntries, m.LogBytes = 0, 0, 0
		if want := meta("b", 5); !reflect.DeepEqual(m, want) {
			t.Fatalf("meta\n got %+v\nwant %+v", m, want)
		}
		ms, err := c.Sessions()
		if err != nil {
			t.Fatal(err)
		}
		if len(ms) != 2 || ms[0].Name != "a" || ms[1].Name != "b" || ms[0].Version != 2 || ms[1].Version != 5 {
			t.Fatalf("Sessions: %+v", ms)
		}
		if !reflect.DeepEqual(ms[1].Kinds, meta("b", 5).Kinds) || ms[1].Nodes != 5 {
			t.Fatalf("Sessions' meta of b: %+v", ms[1])
		}
	}
	check(c)
	closeCab(t, c)
	c = mustOpen(t, open)
	defer closeCab(t, c)
	check(c)
	appendAll(t, c, "b", 6, 6) // a reopened cabinet continues the log
	img, err := c.Load("b")
	if err != nil {
		t.Fatal(err)
	}
	checkLog(t, img, 1, 6)
}

// graphAt builds a graph at the given version, one node per version.
func graphAt(t *testing.T, version int, pad int) *store.Graph {
	t.Helper()
	g := store.New()
	for i := range version {
		tx := g.Begin()
		if _, err := tx.InsertNode(tx.NewID(), []string{"N"}, values.MakeProps(map[string]values.Value{
			"n": values.Int(int64(i)), "pad": values.String(strings.Repeat("x", pad))})); err != nil {
			t.Fatal(err)
		}
		tx.Commit()
	}
	return g
}

func testFlush(t *testing.T, open Opener) {
	c := mustOpen(t, open)
	g := graphAt(t, 5, 10)
	appendAll(t, c, "s", 1, 5)
	snap3 := versionOf(t, g, 3)
	if err := c.Flush("s", snap3, cabinet.MetaOf("s", snap3, time.Time{}), snap3); err != nil {
		t.Fatal(err)
	}
	check := func(c cabinet.Cabinet, snapVer uint64) {
		t.Helper()
		img, err := c.Load("s")
		if err != nil {
			t.Fatal(err)
		}
		if got := img.Graph.Snapshot(); got.Version() != snapVer || got.NodeCount() != int(snapVer) {
			t.Fatalf("snapshot at version %d with %d nodes, want %d", got.Version(), got.NodeCount(), snapVer)
		}
		if img.Meta.SnapVersion != snapVer || img.Meta.Version != 5 {
			t.Fatalf("meta says snapshot %d, version %d", img.Meta.SnapVersion, img.Meta.Version)
		}
		if snapVer < 5 {
			checkLog(t, img, snapVer+1, 5)
		} else if len(img.Log) != 0 {
			t.Fatalf("log after a flush at the latest version: %d entries", len(img.Log))
		}
	}
	check(c, 3)
	// An older snapshot is ignored, and so is one past the log.
	snap2 := versionOf(t, g, 2)
	if err := c.Flush("s", snap2, cabinet.MetaOf("s", snap2, time.Time{}), snap2); err != nil {
		t.Fatal(err)
	}
	g7 := graphAt(t, 7, 10)
	if err := c.Flush("s", g7.Snapshot(), cabinet.MetaOf("s", g7.Snapshot(), time.Time{}), g7.Snapshot()); err != nil {
		t.Fatal(err)
	}
	check(c, 3)
	closeCab(t, c)
	c = mustOpen(t, open)
	defer closeCab(t, c)
	check(c, 3)
	if err := c.Flush("s", g.Snapshot(), cabinet.MetaOf("s", g.Snapshot(), time.Time{}), g.Snapshot()); err != nil {
		t.Fatal(err)
	}
	check(c, 5)
	ms, err := c.Sessions()
	if err != nil || len(ms) != 1 || ms[0].SnapVersion != 5 || ms[0].Version != 5 {
		t.Fatalf("Sessions after flush: %+v, %v", ms, err)
	}
	appendAll(t, c, "s", 6, 6)
	img, err := c.Load("s")
	if err != nil {
		t.Fatal(err)
	}
	checkLog(t, img, 6, 6)
}

// testHistory: a flush without a base keeps the entries it covers as the
// history, which History reads from the nearest stored state; a base
// moves the history's start and trims the entries up to it; a base at
// the snapshot keeps none; a drop takes it all.
func testHistory(t *testing.T, open Opener) {
	c := mustOpen(t, open)
	g := graphAt(t, 9, 10)
	appendAll(t, c, "s", 1, 9)
	snap6 := versionOf(t, g, 6)
	if err := c.Flush("s", snap6, cabinet.MetaOf("s", snap6, time.Time{}), nil); err != nil {
		t.Fatal(err)
	}
	at := func(c cabinet.Cabinet, v, to, from, graph uint64) {
		t.Helper()
		img, err := c.History("s", v, to)
		if err != nil {
			t.Fatalf("History(%d, %d): %v", v, to, err)
		}
		if img.HistoryFrom != from || img.Graph.Snapshot().Version() != graph || img.Graph.Snapshot().NodeCount() != int(graph) {
			t.Fatalf("History(%d, %d): starts at %d from a graph at %d, want %d from %d", v, to, img.HistoryFrom, img.Graph.Snapshot().Version(), from, graph)
		}
		if to > graph {
			checkLog(t, img, graph+1, to)
		} else if len(img.Log) != 0 {
			t.Fatalf("History(%d, %d): %d entries", v, to, len(img.Log))
		}
	}
	refused := func(c cabinet.Cabinet, v uint64) {
		t.Helper()
		if _, err := c.History("s", v, v); !errors.Is(err, cabinet.ErrNotKept) {
			t.Fatalf("History(%d): %v, want ErrNotKept", v, err)
		}
	}
	at(c, 1, 4, 0, 0) // from the empty graph
	at(c, 6, 8, 0, 6) // from the snapshot
	logOf := func(c cabinet.Cabinet, after, to uint64) {
		t.Helper()
		log, err := c.Log("s", after, to)
		if err != nil {
			t.Fatalf("Log(%d, %d): %v", after, to, err)
		}
		checkLog(t, &cabinet.Image{Log: log}, after+1, to)
	}
	logOf(c, 0, 9) // the entries the snapshot covers, and those after it
	logOf(c, 3, 5)
	logOf(c, 8, 9)
	if log, err := c.Log("s", 9, 9); err != nil || len(log) != 0 {
		t.Fatalf("Log(9, 9): %d entries, %v", len(log), err)
	}
	if _, err := c.Log("nope", 0, 1); !errors.Is(err, cabinet.ErrNoSession) && !errors.Is(err, cabinet.ErrNotKept) {
		t.Fatalf("Log of a session never written: %v", err)
	}
	closeCab(t, c)
	c = mustOpen(t, open)
	img, err := c.Load("s")
	if err != nil || img.HistoryFrom != 0 || img.Graph.Snapshot().Version() != 6 {
		t.Fatalf("Load after a flush keeping history: %v", err)
	}
	checkLog(t, img, 7, 9) // hydrating reads only what follows the snapshot
	at(c, 2, 9, 0, 0)
	// A base moves the start; the entries before it go.
	g9 := g.Snapshot()
	snap4 := versionOf(t, g, 4)
	if err := c.Flush("s", g9, cabinet.MetaOf("s", g9, time.Time{}), snap4); err != nil {
		t.Fatal(err)
	}
	refused(c, 3)
	if _, err := c.Log("s", 2, 5); !errors.Is(err, cabinet.ErrNotKept) {
		t.Fatalf("Log(2, 5) after a base at 4: %v, want ErrNotKept", err)
	}
	logOf(c, 4, 9)
	at(c, 4, 5, 4, 4)
	at(c, 9, 9, 4, 9)
	closeCab(t, c)
	c = mustOpen(t, open)
	defer closeCab(t, c)
	refused(c, 2)
	at(c, 5, 7, 4, 4)
	// An older base than the one kept changes nothing.
	snap2 := versionOf(t, g, 2)
	if err := c.Flush("s", g9, cabinet.MetaOf("s", g9, time.Time{}), snap2); err != nil {
		t.Fatal(err)
	}
	at(c, 4, 4, 4, 4)
	// A base at the snapshot keeps no history.
	appendAll(t, c, "s", 10, 11)
	g11 := graphAt(t, 11, 10).Snapshot()
	if err := c.Flush("s", g11, cabinet.MetaOf("s", g11, time.Time{}), g11); err != nil {
		t.Fatal(err)
	}
	refused(c, 10)
	at(c, 11, 11, 11, 11)
	if img, err := c.Load("s"); err != nil || img.HistoryFrom != 11 || len(img.Log) != 0 {
		t.Fatalf("Load after history none: %+v, %v", img, err)
	}
	appendAll(t, c, "s", 12, 12)
	at(c, 11, 12, 11, 11)
	if err := c.Drop("s"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.History("s", 11, 11); !errors.Is(err, cabinet.ErrNoSession) && !errors.Is(err, cabinet.ErrGone) {
		t.Fatalf("History after a drop: %v", err)
	}
	appendAll(t, c, "s", 1, 2)
	at(c, 1, 2, 0, 0) // a new incarnation keeps nothing of the old history
}

// versionOf rebuilds g's content at an earlier version (graphAt is
// deterministic).
func versionOf(t *testing.T, g *store.Graph, v int) *store.Snapshot {
	t.Helper()
	s := graphAt(t, v, 10).Snapshot()
	if s.Version() != uint64(v) || g.Snapshot().Version() < uint64(v) {
		t.Fatalf("graph at %d", v)
	}
	return s
}

// testBigSnapshot: a snapshot of a few MiB spans many chunks and comes
// back whole.
func testBigSnapshot(t *testing.T, open Opener) {
	c := mustOpen(t, open)
	defer closeCab(t, c)
	g := graphAt(t, 3000, 1000)
	appendAll(t, c, "big", 1, 1)
	for v := uint64(2); v <= 3000; v += 500 {
		appendAll(t, c, "big", v, min(v+499, 3000))
	}
	snap := g.Snapshot()
	if err := c.Flush("big", snap, cabinet.MetaOf("big", snap, time.Time{}), snap); err != nil {
		t.Fatal(err)
	}
	img, err := c.Load("big")
	if err != nil {
		t.Fatal(err)
	}
	got := img.Graph.Snapshot()
	if got.Version() != 3000 || got.NodeCount() != 3000 || len(img.Log) != 0 {
		t.Fatalf("big snapshot came back at version %d with %d nodes and %d entries", got.Version(), got.NodeCount(), len(img.Log))
	}
	n := 0
	got.ScanNodes(func(nd *store.Node) bool {
		if p, _ := nd.Props.Get("pad"); len(p.AsString()) != 1000 {
			t.Fatalf("node %d lost its padding", nd.ID)
		}
		n++
		return true
	})
	if n != 3000 {
		t.Fatalf("%d nodes scanned", n)
	}
}

// testGroupCommit: many writers on many sessions; every Ticket returns,
// every log is whole and in order.
func testGroupCommit(t *testing.T, open Opener) {
	c := mustOpen(t, open)
	defer closeCab(t, c)
	const sessions, per = 8, 40
	var wg sync.WaitGroup
	errs := make(chan error, sessions)
	for s := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := fmt.Sprintf("s%d", s)
			var tickets []*cabinet.Ticket
			for v := uint64(1); v <= per; v++ {
				tickets = append(tickets, c.Append(name, entry(v), meta(name, v)))
				if v%7 == 0 {
					tickets = append(tickets, c.SaveAttention(name, []byte(fmt.Sprint(v))))
				}
			}
			for _, tk := range tickets {
				if err := tk.Wait(); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for s := range sessions {
		img, err := c.Load(fmt.Sprintf("s%d", s))
		if err != nil {
			t.Fatal(err)
		}
		checkLog(t, img, 1, per)
		if string(img.Attention) != "35" {
			t.Fatalf("attention %q, want the latest (35)", img.Attention)
		}
	}
}

// testOutOfOrder: an entry that does not follow the session's version
// fails, the session refuses what follows (ErrPoisoned), other sessions
// are unaffected, and Drop starts the session over.
func testOutOfOrder(t *testing.T, open Opener) {
	c := mustOpen(t, open)
	defer closeCab(t, c)
	appendAll(t, c, "p", 1, 1)
	appendAll(t, c, "ok", 1, 1)
	if err := c.Append("p", entry(3), meta("p", 3)).Wait(); err == nil {
		t.Fatal("entry 3 after 1 accepted")
	}
	if err := c.Append("p", entry(2), meta("p", 2)).Wait(); !errors.Is(err, cabinet.ErrPoisoned) {
		t.Fatalf("after a failed write: %v, want ErrPoisoned", err)
	}
	appendAll(t, c, "ok", 2, 2)
	img, err := c.Load("p")
	if err != nil {
		t.Fatal(err)
	}
	checkLog(t, img, 1, 1)
	if err := c.Drop("p"); err != nil {
		t.Fatal(err)
	}
	appendAll(t, c, "p", 1, 2)
	img, err = c.Load("p")
	if err != nil {
		t.Fatal(err)
	}
	checkLog(t, img, 1, 2)
}

func testDrop(t *testing.T, open Opener) {
	c := mustOpen(t, open)
	g := graphAt(t, 3, 10)
	appendAll(t, c, "d", 1, 3)
	if err := c.Flush("d", versionOf(t, g, 2), meta("d", 2), versionOf(t, g, 2)); err != nil {
		t.Fatal(err)
	}
	if err := c.SaveAttention("d", []byte("read")).Wait(); err != nil {
		t.Fatal(err)
	}
	appendAll(t, c, "keep", 1, 1)
	if err := c.Drop("d"); err != nil {
		t.Fatal(err)
	}
	check := func(c cabinet.Cabinet) {
		t.Helper()
		if _, err := c.Load("d"); !errors.Is(err, cabinet.ErrNoSession) {
			t.Fatalf("Load after Drop: %v", err)
		}
		ms, err := c.Sessions()
		if err != nil || len(ms) != 1 || ms[0].Name != "keep" {
			t.Fatalf("Sessions after Drop: %+v, %v", ms, err)
		}
	}
	check(c)
	closeCab(t, c)
	c = mustOpen(t, open)
	defer closeCab(t, c)
	check(c)
	// Made again, the session holds nothing of its former self.
	appendAll(t, c, "d", 1, 1)
	img, err := c.Load("d")
	if err != nil {
		t.Fatal(err)
	}
	if img.Graph.Snapshot().Version() != 0 || img.Attention != nil {
		t.Fatalf("re-made session: snapshot %d, attention %q", img.Graph.Snapshot().Version(), img.Attention)
	}
	checkLog(t, img, 1, 1)
}

func testAttention(t *testing.T, open Opener) {
	c := mustOpen(t, open)
	appendAll(t, c, "a", 1, 1)
	for _, rec := range []string{"first", "", "\x00second"} {
		if err := c.SaveAttention("a", []byte(rec)).Wait(); err != nil {
			t.Fatal(err)
		}
	}
	closeCab(t, c)
	c = mustOpen(t, open)
	defer closeCab(t, c)
	img, err := c.Load("a")
	if err != nil {
		t.Fatal(err)
	}
	if string(img.Attention) != "\x00second" {
		t.Fatalf("attention %q, want the latest", img.Attention)
	}
}

func testClosed(t *testing.T, open Opener) {
	c := mustOpen(t, open)
	appendAll(t, c, "c", 1, 1)
	closeCab(t, c)
	if err := c.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if err := c.Append("c", entry(2), meta("c", 2)).Wait(); !errors.Is(err, cabinet.ErrClosed) {
		t.Fatalf("Append after Close: %v", err)
	}
	if err := c.SaveAttention("c", nil).Wait(); !errors.Is(err, cabinet.ErrClosed) {
		t.Fatalf("SaveAttention after Close: %v", err)
	}
	if err := c.Drop("c"); !errors.Is(err, cabinet.ErrClosed) {
		t.Fatalf("Drop after Close: %v", err)
	}
}
