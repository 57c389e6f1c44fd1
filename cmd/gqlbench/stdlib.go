package main

import (
	"context"
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/ingest/golang"
	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/store/cabinet"
	"github.com/goldfish-gql/goldfish/tokens"
)

// settle collects the garbage earlier phases left (re-ingest, the peer's
// load and reads, exact token counts), so that no collection of it runs
// during the next timed phase, whichever engine it times (what testing.B
// does before each benchmark).
func settle() { runtime.GC() }

// sessionBytesPerElem drops the session name, which no one else holds
// now, and says what that freed per element: the heap at, the heap right
// after it was built, less the heap without it. What the database keeps
// beside its sessions (its plan cache) stays out.
func sessionBytesPerElem(ctx context.Context, db *goldfish.DB, name string, at uint64, elems int) (float64, error) {
	if err := db.Drop(ctx, name); err != nil {
		return 0, err
	}
	return (float64(at) - float64(heapNow())) / float64(elems), nil
}

// heapNow is the live heap after a full collection.
func heapNow() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// probe is one token of the workload: the Recall's text and parameters,
// and the SQLite peer's seed form and values.
type probe struct {
	params map[string]any
	value  string // SQLite seed value
}

type kindSpec struct {
	name   string
	token  string
	shell  bool
	form   string // SQLite seed form
	kind   string // SQLite seed kind
	probes []probe
}

func benchStdlib(ctx context.Context, cfg Config, rep *Report, logf func(string, ...any)) error {
	opts := golang.Options{Only: cfg.Only}
	tree, err := golang.Load(cfg.Src, opts)
	if err != nil {
		return err
	}
	st := tree.Stats
	logf("loaded %s: %d packages, %d files, %d Δs in %.2fs", cfg.Src, st.Packages, st.Files, len(tree.Deltas), st.Load.Seconds())
	// What the run loads once and keeps (the tokenizer's tables, the
	// SQLite driver's) is loaded before the heap is first measured, so
	// that what dropping the session frees is the session's alone.
	if _, err := countTokens([]byte("warm")); err != nil {
		return err
	}
	if warm, err := openPeer(); err == nil {
		warm.Close()
	}
	base := heapNow()
	db, err := goldfish.Open()
	if err != nil {
		return err
	}
	defer db.Close()
	s, err := db.Session(context.Background(), "stdlib")
	if err != nil {
		return err
	}
	st, err = tree.Ingest(ctx, s)
	if err != nil {
		return err
	}
	heap := heapNow()
	snap, err := s.Info(ctx)
	if err != nil {
		return err
	}
	elems := snap.Nodes + snap.Edges
	if elems != st.Elements() {
		logf("note: the session holds %d elements, the Δs carry %d (some element is carried twice)", elems, st.Elements())
	}
	in := IngestReport{Packages: st.Packages, Files: st.Files, Decls: st.Decls, Nodes: snap.Nodes, Edges: snap.Edges,
		Imports: st.Imports, Calls: st.Calls, Deltas: st.Deltas, SourceMB: float64(st.SourceBytes) / 1e6,
		LoadSec: st.Load.Seconds(), IngestSec: st.Ingest.Seconds(),
		ElemsPerSec:    float64(elems) / st.Ingest.Seconds(),
		EndToEndPerSec: float64(elems) / (st.Load + st.Ingest).Seconds(),
		HeapPerElem:    float64(heap-base) / float64(elems)}
	if in.Footprint, err = s.Footprint(ctx); err != nil {
		return err
	}
	logf("ingested %d elements in %.2fs: %.0f elements/s, heap %.0f bytes/element (%s)", elems, in.IngestSec, in.ElemsPerSec, in.HeapPerElem, perElement(in.Footprint))
	before := sha256.Sum256([]byte(s.Dump()))
	again, err := tree.Ingest(ctx, s)
	if err != nil {
		return err
	}
	after := sha256.Sum256([]byte(s.Dump()))
	in.ReingestApplied, in.ReingestSec, in.ReingestSameDump = again.Applied, again.Ingest.Seconds(), before == after
	logf("re-ingested: %d of %d Δs applied, same dump %v, %.2fs", again.Applied, again.Deltas, before == after, in.ReingestSec)
	peerSnap, sizes, err := cabinetSnapshot(ctx, tree, "stdlib")
	if err != nil {
		return err
	}
	in.CabinetBytesHistory, in.CabinetBytesNone = sizes[0], sizes[1]
	if sizes[1] > 0 {
		in.CabinetHistoryRatio = float64(sizes[0]) / float64(sizes[1])
	}
	logf("cabinet file: %d bytes with history=all, %d with history=none (%.2f×)", sizes[0], sizes[1], in.CabinetHistoryRatio)

	t0 := time.Now()
	pr, err := openPeer()
	if err != nil {
		return err
	}
	defer pr.Close()
	if err := pr.loadSnapshot(peerSnap); err != nil {
		return fmt.Errorf("sqlite: %w", err)
	}
	in.SQLiteLoadSec = time.Since(t0).Seconds()
	logf("sqlite loaded in %.2fs", in.SQLiteLoadSec)
	rep.Ingest = in

	kinds := stdlibWorkload(peerSnap, cfg)
	var shapeTokens []int
	for _, k := range kinds {
		kr, toks, err := runKind(ctx, s, pr, k, cfg)
		if err != nil {
			return fmt.Errorf("%s: %w", k.name, err)
		}
		shapeTokens = append(shapeTokens, toks...)
		logf("%-8s miss p50 %s  hit p50 %s  sqlite p50 %s  ratio %.1f×  tokens %.0f", k.name, us(kr.Miss.P50), us(kr.Hit.P50), us(kr.SQLite.P50), kr.Ratio, kr.Tokens)
		rep.Workload = append(rep.Workload, kr)
	}

	t0 = time.Now()
	rg := readGraphJSON(peerSnap)
	n, err := countTokens(rg)
	if err != nil {
		return err
	}
	rep.Tokens = TokenReport{ReadGraphBytes: len(rg), ReadGraphTokens: n, CountSec: time.Since(t0).Seconds()}
	if len(shapeTokens) > 0 {
		sum := 0
		for _, t := range shapeTokens {
			sum += t
		}
		rep.Tokens.ShapeTokensMean = float64(sum) / float64(len(shapeTokens))
		rep.Tokens.Ratio = float64(n) / rep.Tokens.ShapeTokensMean
	}
	logf("read_graph JSON: %d bytes, %d tokens (%.1fs)", len(rg), n, rep.Tokens.CountSec)
	// What the session holds: everything else this run made is let go
	// first (the SQLite peer, the restored copy it was loaded from).
	s, rg, peerSnap, kinds = nil, nil, nil, nil
	if err := pr.Close(); err != nil {
		return err
	}
	if rep.Ingest.BytesPerElem, err = sessionBytesPerElem(ctx, db, "stdlib", heap, elems); err != nil {
		return err
	}
	logf("dropping the session frees %.0f bytes/element", rep.Ingest.BytesPerElem)
	runtime.KeepAlive(tree) // in the heap at both measures
	return nil
}

// stdlibWorkload draws the seeded tokens of each kind from the session.
func stdlibWorkload(snap *store.Snapshot, cfg Config) []*kindSpec {
	rng := rand.New(rand.NewPCG(cfg.Seed, 42))
	locs := func(kind string, keep func(*store.Node) bool) []string {
		var out []string
		snap.ScanLabel(kind, func(n *store.Node) bool {
			if keep == nil || keep(n) {
				out = append(out, propString(n.Props, "loc"))
			}
			return true
		})
		slices.Sort(out)
		return out
	}
	// pick draws n distinct values (fewer when from has fewer): a value
	// drawn twice would be a Shape-cache hit measured as a miss.
	pick := func(from []string, n int) []string {
		perm := rng.Perm(len(from))[:min(n, len(from))]
		out := make([]string, len(perm))
		for i, j := range perm {
			out[i] = from[j]
		}
		return out
	}
	fns := locs("FN", nil)
	typesWithMethods := locs("TYPE", func(n *store.Node) bool {
		has := false
		snap.EdgesOfType(n.ID, store.Out, "has_method", func(*store.Edge) bool { has = true; return false })
		return has
	})
	pkgs := locs("PKG", func(n *store.Node) bool { return propString(n.Props, "name") != "" })
	// keywords: identifiers of functions, lower-cased, so the match is
	// the case-insensitive keyword token
	var words []string
	snap.ScanLabel("FN", func(n *store.Node) bool {
		if w := propString(n.Props, "name"); len(w) >= 6 {
			words = append(words, strings.ToLower(w))
		}
		return true
	})
	slices.Sort(words)
	words = slices.Compact(words)

	mk := func(name, token, form, kind string, shell bool, vals []string, param string) *kindSpec {
		k := &kindSpec{name: name, token: token, form: form, kind: kind, shell: shell}
		if name == "keyword" || name == "codebook miss" {
			// these scan: fewer probes keep the full run under ten minutes
			vals = vals[:max(min(len(vals), 10), len(vals)/8)]
		}
		for _, v := range vals {
			k.probes = append(k.probes, probe{params: map[string]any{param: v}, value: v})
		}
		return k
	}
	n := cfg.Iters
	miss := make([]string, n)
	for i := range miss {
		miss[i] = fmt.Sprintf("nowhere/pkg%d.Missing%d", rng.IntN(1000), i)
	}
	return []*kindSpec{
		mk("function", `MATCH (f:FN {loc: $loc})`, "loc", "FN", false, pick(fns, n), "loc"),
		mk("type+methods", `MATCH (t:TYPE {loc: $loc})`, "loc", "TYPE", false, pick(typesWithMethods, n), "loc"),
		mk("package outline", `MATCH (p:PKG {loc: $loc})`+" view=shell", "loc", "PKG", true, pick(pkgs, n), "loc"),
		mk("keyword", `MATCH (n) WHERE n CONTAINS $w LIMIT 4`, "keyword", "", false, pick(words, n), "w"),
		mk("codebook miss", `MATCH (f:FN {loc: $loc})`, "miss", "FN", false, miss, "loc"),
	}
}

// recallText strips the " view=shell" marker of a kind's token.
func recallText(k *kindSpec) (string, string) {
	if t, ok := strings.CutSuffix(k.token, " view=shell"); ok {
		return t, "shell"
	}
	return k.token, ""
}

// runKind measures one workload kind: every probe once (cache miss: each
// token is distinct), then the first probes again and again (cache hit),
// then the SQLite peer on every probe.
func runKind(ctx context.Context, s *goldfish.Session, pr *peer, k *kindSpec, cfg Config) (KindReport, []int, error) {
	text, view := recallText(k)
	kr := KindReport{Kind: k.name, Token: k.token}
	miss := make([]time.Duration, 0, len(k.probes))
	shapes := make([]*goldfish.Shape, 0, len(k.probes))
	cues := map[string]int{}
	rows := 0
	settle()
	for _, p := range k.probes {
		t0 := time.Now()
		sh, err := s.Recall(ctx, text, goldfish.RecallOptions{View: view, Params: p.params})
		miss = append(miss, time.Since(t0))
		if err != nil {
			return kr, nil, err
		}
		shapes = append(shapes, sh)
		cues[string(sh.Cue)]++
		rows += sh.Rows
	}
	kr.Miss = latOf(miss)
	kr.Rows = float64(rows) / float64(len(k.probes))
	var cs []string
	for c, n := range cues {
		cs = append(cs, fmt.Sprintf("%s %d", c, n))
	}
	slices.Sort(cs)
	kr.Cues = strings.Join(cs, ", ")
	time.Sleep(20 * time.Millisecond) // let the Shape cache admit the misses' Sets
	hot := k.probes[:min(len(k.probes), 32)]
	hit := make([]time.Duration, 0, cfg.Hits)
	settle()
	for i := range cfg.Hits {
		p := hot[i%len(hot)]
		t0 := time.Now()
		if _, err := s.Recall(ctx, text, goldfish.RecallOptions{View: view, Params: p.params}); err != nil {
			return kr, nil, err
		}
		hit = append(hit, time.Since(t0))
	}
	kr.Hit = latOf(hit)
	sq := make([]time.Duration, 0, len(k.probes))
	sqRows := 0
	settle()
	for _, p := range k.probes {
		t0 := time.Now()
		n, err := pr.read(ctx, k.form, k.shell, p.value, k.kind, 4, 2, 50)
		sq = append(sq, time.Since(t0))
		if err != nil {
			return kr, nil, err
		}
		sqRows += n
	}
	kr.SQLite = latOf(sq)
	kr.SQLRow = float64(sqRows) / float64(len(k.probes))
	kr.Ratio = kr.SQLite.P50 / kr.Miss.P50
	// exact o200k tokens of the first Shapes
	var toks []int
	for _, sh := range shapes[:min(len(shapes), cfg.TokensOf)] {
		n, err := tokens.Exact(sh.Text)
		if err != nil {
			return kr, nil, err
		}
		toks = append(toks, n)
	}
	if len(toks) > 0 {
		sum := 0
		for _, t := range toks {
			sum += t
		}
		kr.Tokens = float64(sum) / float64(len(toks))
		s := slices.Clone(toks)
		slices.Sort(s)
		kr.TokP50, kr.TokMax = s[len(s)/2], s[len(s)-1]
	}
	return kr, toks, nil
}

// cabinetSnapshot is the graph the peer loads: the same tree ingested
// into a session of a cabinet file, flushed, and read back from the file
// with the cabinet's own loader (the embedding API shows no graph), so
// the peer holds exactly what goldfish keeps. sizes are that file's size
// (history=all: the log the flush covers stays, as the session's
// history) and the size of a second file ingested with history=none
// (the flush trims the log), both closed.
func cabinetSnapshot(ctx context.Context, tree *golang.Tree, name string) (*store.Snapshot, [2]int64, error) {
	var sizes [2]int64
	dir, err := os.MkdirTemp("", "gqlbench-")
	if err != nil {
		return nil, sizes, err
	}
	defer os.RemoveAll(dir)
	for i, keep := range []goldfish.HistoryKeep{goldfish.HistoryAll, goldfish.HistoryNone} {
		path := filepath.Join(dir, fmt.Sprintf("peer%d.cabinet", i))
		if err := ingestFlushed(ctx, tree, path, name, keep); err != nil {
			return nil, sizes, err
		}
		st, err := os.Stat(path)
		if err != nil {
			return nil, sizes, err
		}
		sizes[i] = st.Size()
	}
	c, err := cabinet.Open(filepath.Join(dir, "peer0.cabinet"), nil)
	if err != nil {
		return nil, sizes, err
	}
	defer c.Close()
	img, err := c.Load(name)
	if err != nil {
		return nil, sizes, err
	}
	return img.Graph.Snapshot(), sizes, nil
}

// ingestFlushed ingests tree into session name of the cabinet file at
// path, with the given history setting, flushes and closes it.
func ingestFlushed(ctx context.Context, tree *golang.Tree, path, name string, keep goldfish.HistoryKeep) error {
	db, err := goldfish.Open(goldfish.WithCabinet(path))
	if err != nil {
		return err
	}
	s, err := db.Session(ctx, name)
	var set goldfish.AttentionSettings
	if err == nil {
		set, err = s.AttentionSettings(ctx)
	}
	if err == nil {
		set.History = keep
		err = s.SetAttentionSettings(ctx, set)
	}
	if err == nil {
		_, err = tree.Ingest(ctx, s)
	}
	if err == nil {
		err = db.Flush(ctx)
	}
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	return err
}
