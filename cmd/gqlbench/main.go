// Command gqlbench measures goldfish on a real data set, offline, in one
// run on one machine: it ingests the Go standard library (ingest/golang)
// and says where each session's memory goes (Session.Footprint),
// runs a fixed, seeded workload of Recalls on it (cache miss and hit), runs
// the same neighbourhood reads on SQLite (modernc.org/sqlite, in memory,
// indexed tables, a recursive CTE bounded to k hops and M rows), repeats the
// Recall workload on generated graphs of 1k to 1M nodes, measures durable
// Commit throughput on a bbolt cabinet, times Model Snap of the library
// typed and syntax only (full run), and counts the Shapes' tokens
// against the whole session serialised as a memory server's read_graph
// JSON. It prints a Markdown table and, with --json FILE, the same figures
// as JSON.
//
//	go run ./cmd/gqlbench --json bench.json
//	go run ./cmd/gqlbench --quick          // a CI smoke run, under a minute
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"time"
)

// Config sizes one run.
type Config struct {
	Quick    bool
	Src      string   // tree to ingest (default $(go env GOROOT)/src)
	Only     []string // packages of Src to keep (quick mode)
	Sizes    []int    // generated graph sizes
	Iters    int      // Recalls per workload kind (cache miss: distinct tokens)
	Hits     int      // cache-hit Recalls per kind
	Commits  int      // durable Commits per writer count
	Writers  []int
	Seed     uint64
	TmpDir   string
	TokensOf int // Shapes per kind whose tokens are counted exactly
}

// FullConfig is the full run; QuickConfig the CI smoke run.
func FullConfig() Config {
	return Config{Src: defaultSrc(), Sizes: []int{1_000, 10_000, 100_000, 1_000_000},
		Iters: 400, Hits: 2000, Commits: 2000, Writers: []int{1, 8}, Seed: 1, TokensOf: 100}
}

func QuickConfig() Config {
	return Config{Quick: true, Src: defaultSrc(),
		Only:  []string{"strings", "strconv", "bufio", "bytes", "fmt", "io", "os", "sort", "unicode", "errors", "net/url", "encoding/json"},
		Sizes: []int{1_000, 10_000}, Iters: 60, Hits: 300, Commits: 200, Writers: []int{1, 8}, Seed: 1, TokensOf: 20}
}

func defaultSrc() string { return filepath.Join(runtime.GOROOT(), "src") }

func main() {
	quick := flag.Bool("quick", false, "a small subset for CI (a few packages, 1k and 10k generated nodes, few iterations)")
	jsonOut := flag.String("json", "", "write the figures as JSON to this file")
	src := flag.String("src", "", "Go source tree to ingest (default $(go env GOROOT)/src)")
	sizes := flag.String("sizes", "", "generated graph sizes, comma-separated (default 1000,10000,100000,1000000; quick 1000,10000)")
	iters := flag.Int("iters", 0, "Recalls per workload kind (default 400; quick 60)")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the run to this file (go tool pprof)")
	flag.Parse()
	cfg := FullConfig()
	if *quick {
		cfg = QuickConfig()
	}
	if *src != "" {
		cfg.Src = *src
	}
	if *iters > 0 {
		cfg.Iters = *iters
	}
	if *sizes != "" {
		cfg.Sizes = nil
		for _, f := range strings.Split(*sizes, ",") {
			var n int
			if _, err := fmt.Sscan(f, &n); err != nil || n < 10 {
				fmt.Fprintf(os.Stderr, "gqlbench: bad size %q\n", f)
				os.Exit(2)
			}
			cfg.Sizes = append(cfg.Sizes, n)
		}
	}
	tmp, err := os.MkdirTemp("", "gqlbench")
	if err != nil {
		fmt.Fprintln(os.Stderr, "gqlbench:", err)
		os.Exit(1)
	}
	defer os.RemoveAll(tmp)
	cfg.TmpDir = tmp
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "gqlbench:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	rep, err := Run(context.Background(), cfg, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gqlbench:", err)
		os.Exit(1)
	}
	rep.Command = "go run ./cmd/gqlbench " + strings.Join(os.Args[1:], " ")
	fmt.Print(rep.Markdown())
	if *jsonOut != "" {
		b, _ := json.MarshalIndent(rep, "", "  ")
		if err := os.WriteFile(*jsonOut, append(b, '\n'), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "gqlbench:", err)
			os.Exit(1)
		}
	}
}

// Run performs every measurement of cfg, logging progress to log.
func Run(ctx context.Context, cfg Config, log interface{ Write([]byte) (int, error) }) (*Report, error) {
	t0 := time.Now()
	logf := func(format string, a ...any) {
		fmt.Fprintf(log, "[%6.1fs] %s\n", time.Since(t0).Seconds(), fmt.Sprintf(format, a...))
	}
	rep := &Report{Quick: cfg.Quick, GoVersion: runtime.Version(), GOOS: runtime.GOOS, GOARCH: runtime.GOARCH,
		CPUs: runtime.NumCPU(), Src: cfg.Src, Budgets: "M=50 k=2 L=4 F=8"}
	if err := benchStdlib(ctx, cfg, rep, logf); err != nil {
		return nil, fmt.Errorf("standard library: %w", err)
	}
	for _, n := range cfg.Sizes {
		if err := benchGenerated(ctx, cfg, n, rep, logf); err != nil {
			return nil, fmt.Errorf("generated %d: %w", n, err)
		}
	}
	if len(rep.Growth) >= 2 {
		first, last := rep.Growth[0], rep.Growth[len(rep.Growth)-1]
		rep.GrowthRatio = last.Miss.P50 / first.Miss.P50
		rep.GrowthFrom, rep.GrowthTo = first.Nodes, last.Nodes
	}
	if !cfg.Quick {
		if err := benchSnap(ctx, cfg, rep, logf); err != nil {
			return nil, fmt.Errorf("model snap: %w", err)
		}
	}
	for _, w := range cfg.Writers {
		r, err := benchCommit(ctx, cfg, w)
		if err != nil {
			return nil, fmt.Errorf("durable commit: %w", err)
		}
		logf("durable commit, %d writers: %.0f commits/s", w, r.PerSec)
		rep.Commit = append(rep.Commit, r)
	}
	rep.judge()
	rep.Seconds = time.Since(t0).Seconds()
	logf("done")
	return rep, nil
}
