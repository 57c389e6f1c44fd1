package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/ingest/golang"
)

// The generated graph has the shape of recall_bench_test.go: five kinds,
// three edges per node to random nodes (touches, calls, contains) and a
// refs edge from one node in a hundred to one of five hubs.
var genKinds = []string{"TSK", "MOD", "NOTE", "FILE", "FN"}
var genTypes = []string{"touches", "calls", "contains"}

type genNode struct {
	i                 int
	kind, nick, title string
	weight            int
}

func genNodeOf(i int) genNode {
	kind := genKinds[i%len(genKinds)]
	return genNode{i: i, kind: kind, nick: kind + "_" + strconv.Itoa(i),
		title: "element " + strconv.Itoa(i) + " of the bench session", weight: i % 97}
}

// genEdges calls fn for every edge of the graph of n nodes, in a fixed
// order (the same seed as recall_bench_test.go).
func genEdges(n int, fn func(from, to int, typ string) error) error {
	rng := rand.New(rand.NewPCG(1, uint64(n)))
	for i := range n {
		for j := range 3 {
			if err := fn(i, rng.IntN(n), genTypes[j]); err != nil {
				return err
			}
		}
		if i%100 == 0 {
			if err := fn(i, i%5, "refs"); err != nil {
				return err
			}
		}
	}
	return nil
}

// batcher groups parameter rows by statement template and sends one Ingest
// per full chunk; flush sends the rest along the chunk ladder, so each
// template has a handful of texts and the plan cache parses each once.
type batcher struct {
	ctx    context.Context
	s      *goldfish.Session
	max    int
	rows   map[string][][]any
	build  map[string]func(n int) string
	texts  map[string]string
	deltas int
}

func newBatcher(ctx context.Context, s *goldfish.Session, max int) *batcher {
	return &batcher{ctx: ctx, s: s, max: max, rows: map[string][][]any{}, build: map[string]func(int) string{}, texts: map[string]string{}}
}

var fieldNames = []string{"l", "n", "s", "w"}

func (b *batcher) add(key string, build func(n int) string, row ...any) error {
	b.build[key] = build
	b.rows[key] = append(b.rows[key], row)
	if len(b.rows[key]) >= b.max {
		err := b.send(key, b.rows[key])
		b.rows[key] = b.rows[key][:0]
		return err
	}
	return nil
}

func (b *batcher) send(key string, rows [][]any) error {
	tk := key + "/" + strconv.Itoa(len(rows))
	text, ok := b.texts[tk]
	if !ok {
		text = b.build[key](len(rows))
		b.texts[tk] = text
	}
	params := make(map[string]any, len(rows)*len(rows[0]))
	for i, r := range rows {
		is := strconv.Itoa(i)
		for f, v := range r {
			params[fieldNames[f]+is] = v
		}
	}
	b.deltas++
	_, err := b.s.Ingest(b.ctx, text, params)
	return err
}

func (b *batcher) flush() error {
	for key, rows := range b.rows {
		for lo := 0; lo < len(rows); {
			size := 1 << int(math.Log2(float64(len(rows)-lo)))
			if err := b.send(key, rows[lo:lo+size]); err != nil {
				return err
			}
			lo += size
		}
		delete(b.rows, key)
	}
	return nil
}

func nodeText(kind string) func(n int) string {
	return golang.InsertOf(func(i int) string {
		return fmt.Sprintf("(:%s {loc: $l%d, nick: $n%d, title: $s%d, weight: $w%d})", kind, i, i, i, i)
	})
}

func edgeText(from, typ, to string) func(n int) string {
	return golang.InsertOf(func(i int) string {
		return fmt.Sprintf("(:%s {loc: $l%d})-[:%s]->(:%s {loc: $n%d})", from, i, typ, to, i)
	})
}

// buildGenerated builds the graph of n nodes in s through Session.Ingest:
// nodes carry loc = nick, so edges find their ends by (kind, loc) ids.
func buildGenerated(ctx context.Context, s *goldfish.Session, n int) (int, error) {
	b := newBatcher(ctx, s, 256)
	for i := range n {
		g := genNodeOf(i)
		if err := b.add("N"+g.kind, nodeText(g.kind), g.nick, g.nick, g.title, g.weight); err != nil {
			return b.deltas, err
		}
	}
	if err := b.flush(); err != nil {
		return b.deltas, err
	}
	err := genEdges(n, func(from, to int, typ string) error {
		f, t := genNodeOf(from), genNodeOf(to)
		return b.add(f.kind+typ+t.kind, edgeText(f.kind, typ, t.kind), f.nick, t.nick)
	})
	if err != nil {
		return b.deltas, err
	}
	return b.deltas, b.flush()
}

// loadGenerated loads the same graph into the SQLite peer.
func loadGenerated(pr *peer, n int) error {
	deg := make([]int32, n)
	_ = genEdges(n, func(from, to int, typ string) error {
		if typ != "contains" {
			deg[from]++
			deg[to]++
		}
		return nil
	})
	l, err := pr.begin()
	if err != nil {
		return err
	}
	for i := range n {
		g := genNodeOf(i)
		props, _ := json.Marshal(map[string]any{"loc": g.nick, "nick": g.nick, "title": g.title, "weight": g.weight})
		if err := l.node(int64(i), g.kind, g.nick, g.nick, "", int(deg[i]), props); err != nil {
			return err
		}
	}
	if err := genEdges(n, func(from, to int, typ string) error { return l.edge(int64(from), int64(to), typ) }); err != nil {
		return err
	}
	if err := l.commit(); err != nil {
		return err
	}
	return pr.index()
}

func benchGenerated(ctx context.Context, cfg Config, n int, rep *Report, logf func(string, ...any)) error {
	sr := SizeReport{Nodes: n}
	// distinct seeded nodes: each cache-miss token is new
	rng := rand.New(rand.NewPCG(7, 7))
	perm := rng.Perm(n)[:min(n, cfg.Iters)]
	base := heapNow()
	db, err := goldfish.Open(goldfish.WithCommitBudget(goldfish.Budget{Rows: 1 << 20, Bytes: 64 << 20}))
	if err != nil {
		return err
	}
	s, err := db.Session(context.Background(), fmt.Sprintf("gen%d", n))
	if err != nil {
		db.Close()
		return err
	}
	t0 := time.Now()
	deltas, err := buildGenerated(ctx, s, n)
	if err != nil {
		db.Close()
		return err
	}
	sr.BuildSec = time.Since(t0).Seconds()
	snap, err := s.Info(ctx)
	if err != nil {
		return err
	}
	sr.Elements = snap.Nodes + snap.Edges
	sr.ElemsPerSec = float64(sr.Elements) / sr.BuildSec
	built := heapNow()
	sr.HeapPerElem = float64(built-base) / float64(sr.Elements)
	if sr.Footprint, err = s.Footprint(ctx); err != nil {
		return err
	}
	logf("generated %s: %d elements in %d Δs, %.1fs (%.0f/s), heap %.0f bytes/element (%s)", short(n), sr.Elements, deltas, sr.BuildSec, sr.ElemsPerSec, sr.HeapPerElem, perElement(sr.Footprint))

	token := func(i int) (string, map[string]any) {
		g := genNodeOf(i)
		return "MATCH (t:" + g.kind + " {nick: $nick})", map[string]any{"nick": g.nick}
	}
	var miss, hit []time.Duration // heapNow has just collected
	for _, i := range perm {
		q, p := token(i)
		t := time.Now()
		sh, err := s.Recall(ctx, q, goldfish.RecallOptions{Params: p})
		miss = append(miss, time.Since(t))
		if err != nil {
			db.Close()
			return err
		}
		if sh.Cue != goldfish.CueMatch {
			db.Close()
			return fmt.Errorf("token %s %v: cue %s", q, p, sh.Cue)
		}
	}
	time.Sleep(20 * time.Millisecond)
	hot := perm[:min(len(perm), 16)]
	settle()
	for i := range cfg.Hits {
		q, p := token(hot[i%len(hot)])
		t := time.Now()
		if _, err := s.Recall(ctx, q, goldfish.RecallOptions{Params: p}); err != nil {
			db.Close()
			return err
		}
		hit = append(hit, time.Since(t))
	}
	sr.Miss, sr.Hit = latOf(miss), latOf(hit)
	s = nil
	if sr.BytesPerElem, err = sessionBytesPerElem(ctx, db, fmt.Sprintf("gen%d", n), built, sr.Elements); err != nil {
		db.Close()
		return err
	}
	logf("generated %s: dropping the session frees %.0f bytes/element", short(n), sr.BytesPerElem)
	db.Close()
	s, db = nil, nil

	t0 = time.Now()
	pr, err := openPeer()
	if err != nil {
		return err
	}
	defer pr.Close()
	if err := loadGenerated(pr, n); err != nil {
		return fmt.Errorf("sqlite: %w", err)
	}
	sr.SQLiteLoadSec = time.Since(t0).Seconds()
	var sq []time.Duration
	settle()
	for _, i := range perm {
		g := genNodeOf(i)
		t := time.Now()
		if _, err := pr.read(ctx, "nick", false, g.nick, g.kind, 4, 2, 50); err != nil {
			return err
		}
		sq = append(sq, time.Since(t))
	}
	sr.SQLite = latOf(sq)
	sr.Ratio = sr.SQLite.P50 / sr.Miss.P50
	logf("generated %s: miss p50 %s p99 %s, hit p50 %s, sqlite p50 %s (load %.1fs): %.1f×", short(n), us(sr.Miss.P50), us(sr.Miss.P99), us(sr.Hit.P50), us(sr.SQLite.P50), sr.SQLiteLoadSec, sr.Ratio)
	rep.Growth = append(rep.Growth, sr)
	return nil
}
