package main

import (
	"fmt"

	"github.com/goldfish-gql/goldfish"
	"slices"
	"strings"
	"time"
)

// Report holds every figure of one run; it is also the JSON output.
type Report struct {
	Command   string  `json:"command"`
	Quick     bool    `json:"quick"`
	GoVersion string  `json:"go_version"`
	GOOS      string  `json:"goos"`
	GOARCH    string  `json:"goarch"`
	CPUs      int     `json:"cpus"`
	Src       string  `json:"src"`
	Budgets   string  `json:"budgets"`
	Seconds   float64 `json:"seconds"`

	Ingest   IngestReport `json:"ingest"`
	Workload []KindReport `json:"workload"`
	Tokens   TokenReport  `json:"tokens"`
	Growth   []SizeReport `json:"growth"`
	// GrowthRatio is p50(largest)/p50(smallest) of the cache-miss Recall.
	GrowthRatio float64        `json:"growth_ratio"`
	GrowthFrom  int            `json:"growth_from"`
	GrowthTo    int            `json:"growth_to"`
	Commit      []CommitReport `json:"commit"`
	Snap        SnapReport     `json:"snap"`
	Targets     []Target       `json:"targets"`
}

// SnapReport is Model Snap of the source tree, typed and syntax only.
type SnapReport struct {
	TypedSec, SyntaxSec           float64
	Ratio                         float64 // TypedSec / SyntaxSec
	TypedElements, SyntaxElements int
}

// IngestReport is the standard-library ingest.
type IngestReport struct {
	Packages, Files, Decls int
	Nodes, Edges           int
	Imports, Calls         int
	Deltas                 int
	SourceMB               float64
	LoadSec                float64 // parse and build the Δs (parallel)
	IngestSec              float64 // apply them (one writer)
	ElemsPerSec            float64 // elements / IngestSec
	EndToEndPerSec         float64 // elements / (LoadSec + IngestSec)
	// BytesPerElem is what the session holds: the heap right after the
	// ingest less the heap once the session is dropped (at the end of
	// the run), per element. HeapPerElem is the heap the ingest added,
	// the database's own plan cache included.
	BytesPerElem, HeapPerElem float64
	ReingestApplied           int // Δs the second ingest applied (want 0)
	ReingestSec               float64
	ReingestSameDump          bool
	SQLiteLoadSec             float64
	// CabinetBytesHistory and CabinetBytesNone are the sizes of a
	// cabinet file holding the session, ingested and flushed, with
	// history=all (every version kept) and history=none.
	CabinetBytesHistory, CabinetBytesNone int64
	CabinetHistoryRatio                   float64
	// Footprint is where the session's memory goes (Session.Footprint).
	Footprint goldfish.Footprint
}

// Lat are latency percentiles in microseconds.
type Lat struct {
	N   int     `json:"n"`
	P50 float64 `json:"p50_us"`
	P99 float64 `json:"p99_us"`
}

func latOf(d []time.Duration) Lat {
	if len(d) == 0 {
		return Lat{}
	}
	s := slices.Clone(d)
	slices.Sort(s)
	us := func(x time.Duration) float64 { return float64(x.Nanoseconds()) / 1e3 }
	return Lat{N: len(s), P50: us(s[len(s)/2]), P99: us(s[min(len(s)-1, len(s)*99/100)])}
}

// KindReport is one workload kind on the standard-library session.
type KindReport struct {
	Kind   string  `json:"kind"`
	Token  string  `json:"token"`
	Miss   Lat     `json:"miss"`
	Hit    Lat     `json:"hit"`
	SQLite Lat     `json:"sqlite"`
	Ratio  float64 `json:"sqlite_over_goldfish"` // SQLite p50 / goldfish miss p50
	Rows   float64 `json:"rows_mean"`            // goldfish Shape rows
	SQLRow float64 `json:"sqlite_rows_mean"`     // SQLite rows (nodes + edges)
	Cues   string  `json:"cues"`
	Tokens float64 `json:"tokens_mean"` // exact o200k per Shape
	TokP50 int     `json:"tokens_p50"`
	TokMax int     `json:"tokens_max"`
}

// TokenReport compares Shapes with the whole session as read_graph JSON.
type TokenReport struct {
	ReadGraphBytes  int     `json:"read_graph_bytes"`
	ReadGraphTokens int     `json:"read_graph_tokens"`
	ShapeTokensMean float64 `json:"shape_tokens_mean"`
	Ratio           float64 `json:"read_graph_over_shape"`
	CountSec        float64 `json:"count_sec"`
}

// SizeReport is the Recall workload on one generated graph.
type SizeReport struct {
	Nodes, Elements int
	BuildSec        float64
	ElemsPerSec     float64
	BytesPerElem    float64 // what dropping the session frees, per element (see IngestReport)
	HeapPerElem     float64
	Miss, Hit       Lat
	SQLite          Lat
	SQLiteLoadSec   float64
	Ratio           float64 // SQLite p50 / goldfish miss p50
	Footprint       goldfish.Footprint
}

// CommitReport is durable Commit throughput with some writers.
type CommitReport struct {
	Writers int     `json:"writers"`
	Commits int     `json:"commits"`
	PerSec  float64 `json:"commits_per_sec"`
	P50ms   float64 `json:"p50_ms"`
	P99ms   float64 `json:"p99_ms"`
}

// Target is one of the targets, judged on this run.
type Target struct {
	Name string  `json:"name"`
	Want string  `json:"want"`
	Got  float64 `json:"got"`
	Met  bool    `json:"met"`
}

func (r *Report) judge() {
	add := func(name, want string, got float64, met bool) {
		r.Targets = append(r.Targets, Target{Name: name, Want: want, Got: got, Met: met})
	}
	for _, g := range r.Growth {
		switch g.Nodes {
		case 100_000:
			add("SQLite/goldfish, cache-miss p50, 100k generated", "≥ 20", g.Ratio, g.Ratio >= 20)
			add("build elements/s, 100k generated (Ingest calls)", "≥ 50000", g.ElemsPerSec, g.ElemsPerSec >= 50_000)
			add("bytes per element in memory, 100k generated", "≤ 400", g.BytesPerElem, g.BytesPerElem <= 400)
		case 1_000_000:
			add("SQLite/goldfish, cache-miss p50, 1M generated", "≥ 18", g.Ratio, g.Ratio >= 18)
			add("build of the 1M generated graph, seconds", "< 150", g.BuildSec, g.BuildSec < 150)
			add("bytes per element in memory, 1M generated", "≤ 400", g.BytesPerElem, g.BytesPerElem <= 400)
		}
	}
	if len(r.Workload) > 0 {
		worst := r.Workload[0]
		for _, k := range r.Workload {
			if k.Ratio < worst.Ratio {
				worst = k
			}
		}
		add("SQLite/goldfish, cache-miss p50, stdlib (worst kind: "+worst.Kind+")", "≥ 20", worst.Ratio, worst.Ratio >= 20)
	}
	if r.GrowthRatio > 0 {
		add(fmt.Sprintf("growth p50(%s)/p50(%s)", short(r.GrowthTo), short(r.GrowthFrom)), "≤ 1.4", r.GrowthRatio, r.GrowthRatio <= 1.4)
	}
	add("ingest elements/s (stdlib, Ingest calls)", "≥ 100000", r.Ingest.ElemsPerSec, r.Ingest.ElemsPerSec >= 100_000)
	add("bytes per element in memory (stdlib session)", "≤ 400", r.Ingest.BytesPerElem, r.Ingest.BytesPerElem <= 400)
	if f := r.Ingest.Footprint; f.Present() > 0 {
		share := float64(f.History) / float64(f.Present())
		add("history in memory ÷ present (stdlib session, measured)", "≤ 0.10", share, share <= 0.10)
	}
	if r.Snap.SyntaxSec > 0 {
		add("Model Snap typed ÷ syntax only (stdlib)", "≤ 1.5", r.Snap.Ratio, r.Snap.Ratio <= 1.5)
	}
	if r.Ingest.CabinetBytesNone > 0 {
		add("cabinet size with full history / without (stdlib)", "≤ 2", r.Ingest.CabinetHistoryRatio, r.Ingest.CabinetHistoryRatio <= 2)
	}
	add("re-ingest applied Δs (idempotence)", "= 0", float64(r.Ingest.ReingestApplied), r.Ingest.ReingestApplied == 0 && r.Ingest.ReingestSameDump)
}

func short(n int) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return fmt.Sprintf("%dM", n/1_000_000)
	case n >= 1000 && n%1000 == 0:
		return fmt.Sprintf("%dk", n/1000)
	}
	return fmt.Sprint(n)
}

func us(x float64) string {
	switch {
	case x == 0:
		return "–"
	case x < 10:
		return fmt.Sprintf("%.2f µs", x)
	case x < 1000:
		return fmt.Sprintf("%.0f µs", x)
	case x < 1e6:
		return fmt.Sprintf("%.2f ms", x/1e3)
	}
	return fmt.Sprintf("%.2f s", x/1e6)
}

// Markdown renders the report as the README's tables.
func (r *Report) Markdown() string {
	var b strings.Builder
	w := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	mode := "full"
	if r.Quick {
		mode = "quick (a subset; not the reference figures)"
	}
	w("### gqlbench: %s run, %s %s/%s, %d CPUs, %.0f s\n\n", mode, r.GoVersion, r.GOOS, r.GOARCH, r.CPUs, r.Seconds)
	w("`%s` · Recall budgets %s · latencies are p50 / p99 per call, in one process\n\n", r.Command, r.Budgets)
	in := r.Ingest
	w("**Ingest** (%s): %d packages, %d files (%.1f MB of source), %d declarations → %d nodes + %d edges (%d imports, %d calls) in %d Δs.\n\n",
		r.Src, in.Packages, in.Files, in.SourceMB, in.Decls, in.Nodes, in.Edges, in.Imports, in.Calls, in.Deltas)
	w("| ingest | figure |\n|---|---|\n")
	w("| parse + build Δs (go/parser, parallel) | %.2f s |\n", in.LoadSec)
	w("| apply Δs (Session.Ingest, one writer) | %.2f s |\n", in.IngestSec)
	w("| **elements/s** (Ingest calls) | **%.0f** |\n", in.ElemsPerSec)
	w("| elements/s end to end (parse + Ingest) | %.0f |\n", in.EndToEndPerSec)
	w("| **bytes per element** (what dropping the session frees) | **%.0f** |\n", in.BytesPerElem)
	w("| heap the ingest added per element (the database's plan cache included) | %.0f |\n", in.HeapPerElem)
	w("| re-ingest: Δs applied / same dump | %d / %v (%.2f s) |\n", in.ReingestApplied, in.ReingestSameDump, in.ReingestSec)
	w("| SQLite load (same graph, indexed) | %.2f s |\n", in.SQLiteLoadSec)
	w("| **cabinet file, history=all / history=none** (ingested, flushed) | %.1f MB / %.1f MB = **%.2f×** |\n\n",
		float64(in.CabinetBytesHistory)/1e6, float64(in.CabinetBytesNone)/1e6, in.CabinetHistoryRatio)

	w("**Recall workload on the standard-library session** (seeded; each cache-miss token is distinct; SQLite runs the same seed and a recursive CTE bounded to k hops and M rows, fetching the rows' properties):\n\n")
	w("| kind | token | goldfish miss p50 / p99 | goldfish hit p50 / p99 | SQLite p50 / p99 | SQLite ÷ goldfish (p50, miss) | rows goldfish / SQLite | tokens per Shape mean / p50 / max | cues |\n")
	w("|---|---|---|---|---|---|---|---|---|\n")
	for _, k := range r.Workload {
		w("| %s | `%s` | %s / %s | %s / %s | %s / %s | **%.1f×** | %.1f / %.1f | %.0f / %d / %d | %s |\n",
			k.Kind, k.Token, us(k.Miss.P50), us(k.Miss.P99), us(k.Hit.P50), us(k.Hit.P99), us(k.SQLite.P50), us(k.SQLite.P99),
			k.Ratio, k.Rows, k.SQLRow, k.Tokens, k.TokP50, k.TokMax, k.Cues)
	}
	t := r.Tokens
	w("\n**Tokens** (exact o200k): the whole session as a memory server's `read_graph` JSON is %d bytes, **%d tokens**; a Shape averages %.0f tokens: **%.0f×** fewer.\n\n",
		t.ReadGraphBytes, t.ReadGraphTokens, t.ShapeTokensMean, t.Ratio)

	w("**Generated graphs** (5 kinds, 3 edges per node, hubs; built through Session.Ingest; token `MATCH (t:TSK {nick: $nick})`):\n\n")
	w("| nodes | elements | build (Ingest) | elements/s | bytes/element | goldfish miss p50 / p99 | goldfish hit p50 / p99 | SQLite p50 / p99 | SQLite ÷ goldfish |\n")
	w("|---|---|---|---|---|---|---|---|---|\n")
	for _, g := range r.Growth {
		w("| %s | %d | %.1f s | %.0f | %.0f | %s / %s | %s / %s | %s / %s | **%.1f×** |\n",
			short(g.Nodes), g.Elements, g.BuildSec, g.ElemsPerSec, g.BytesPerElem, us(g.Miss.P50), us(g.Miss.P99),
			us(g.Hit.P50), us(g.Hit.P99), us(g.SQLite.P50), us(g.SQLite.P99), g.Ratio)
	}
	if r.GrowthRatio > 0 {
		w("\nGrowth ratio p50(%s)/p50(%s), cache miss: **%.2f**\n", short(r.GrowthTo), short(r.GrowthFrom), r.GrowthRatio)
	}
	w("\n**Where the bytes go** (bytes per element: Session.Footprint, each object at its allocated length; *session* is what dropping the session frees, measured on the live heap after full collections, which adds each object's rounding to its size class):\n\n")
	w("| session | elements | node records | edge records | adjacency | id indexes | order indexes | nick, loc | keyword | **present** | history (versions) | **session** |\n")
	w("|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	row := func(name string, f goldfish.Footprint, heap float64) {
		e := float64(max(f.Elements, 1))
		w("| %s | %d | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | **%.0f** | %.0f (%d) | **%.0f** |\n", name, f.Elements,
			float64(f.NodeRecords)/e, float64(f.EdgeRecords)/e, float64(f.Adjacency)/e, float64(f.IDIndexes)/e, float64(f.OrderIndexes)/e,
			float64(f.NickIndex)/e, float64(f.KeywordIndex)/e, float64(f.Present())/e, float64(f.History)/e, f.HistoryVersions, heap)
	}
	row("standard library", in.Footprint, in.BytesPerElem)
	for _, g := range r.Growth {
		row(short(g.Nodes)+" generated", g.Footprint, g.BytesPerElem)
	}
	if sn := r.Snap; sn.SyntaxSec > 0 {
		w("\n**Model Snap** of %s: typed %.1f s (%d elements), syntax only %.1f s (%d elements): **%.2f×**\n", r.Src, sn.TypedSec, sn.TypedElements, sn.SyntaxSec, sn.SyntaxElements, sn.Ratio)
	}
	w("\n**Durable Commit** (bbolt cabinet, fsync before acknowledge, each writer its own session):\n\n")
	w("| writers | commits | commits/s | p50 | p99 |\n|---|---|---|---|---|\n")
	for _, c := range r.Commit {
		w("| %d | %d | %.0f | %.2f ms | %.2f ms |\n", c.Writers, c.Commits, c.PerSec, c.P50ms, c.P99ms)
	}
	w("\n**Targets**\n\n| target | want | got | met |\n|---|---|---|---|\n")
	for _, t := range r.Targets {
		met := "**missed**"
		if t.Met {
			met = "met"
		}
		w("| %s | %s | %.2f | %s |\n", t.Name, t.Want, t.Got, met)
	}
	return b.String()
}

// perElement says a footprint's parts per element, for the log.
func perElement(f goldfish.Footprint) string {
	e := float64(max(f.Elements, 1))
	return fmt.Sprintf("records %.0f+%.0f, adjacency %.0f, id indexes %.0f, order indexes %.0f, nick %.0f, keyword %.0f, history %.0f in %d versions",
		float64(f.NodeRecords)/e, float64(f.EdgeRecords)/e, float64(f.Adjacency)/e, float64(f.IDIndexes)/e,
		float64(f.OrderIndexes)/e, float64(f.NickIndex)/e, float64(f.KeywordIndex)/e, float64(f.History)/e, f.HistoryVersions)
}
