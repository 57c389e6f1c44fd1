package main

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/goldfish-gql/goldfish/repl"
	"github.com/goldfish-gql/goldfish/snap"
)

const snapUsage = "Usage: gqlsh snap-go DIR --prefix NAME [--cabinet PATH | --mem] [--part-nodes N] [--tests] [--no-calls]"

// runSnapGo partitions a Go source tree into a catalogue session and
// interior sessions (Model Snap) with the ingest id rule, so running it
// again on an unchanged tree changes nothing.
func runSnapGo(args []string, e env) int {
	fs := flag.NewFlagSet("gqlsh snap-go", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	prefix := fs.String("prefix", "", "catalogue session `NAME`; the parts are NAME.<part>")
	mem := fs.Bool("mem", false, "keep the sessions in memory only")
	cab := fs.String("cabinet", "", "cabinet file `PATH` (default: as gqlsh)")
	partNodes := fs.Int("part-nodes", snap.DefaultPartNodes, "most nodes (stubs included) of one part")
	tests := fs.Bool("tests", false, "include _test.go files")
	noCalls := fs.Bool("no-calls", false, "leave calls edges out")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), snapUsage)
		fs.PrintDefaults()
	}
	var dir string
	for len(args) > 0 { // flags may come before and after DIR
		if code, done := parseFlags(fs, args, e.stdout, e.stderr); done {
			return code
		}
		if fs.NArg() == 0 {
			break
		}
		if dir != "" {
			fmt.Fprintf(e.stderr, "gqlsh snap-go: give one DIR, got %q too\n", fs.Arg(0))
			return 2
		}
		dir, args = fs.Arg(0), fs.Args()[1:]
	}
	if dir == "" || *prefix == "" {
		fmt.Fprintln(fs.Output(), snapUsage)
		if dir != "" {
			fmt.Fprintln(e.stderr, "gqlsh snap-go: give --prefix NAME, the name of the catalogue session (e.g. --prefix http)")
		}
		return 2
	}
	if *mem && *cab != "" {
		fmt.Fprintln(e.stderr, "gqlsh snap-go: give --cabinet or --mem, not both")
		return 2
	}
	db, backend, err := openDB(dbOptions{mem: *mem, cabinet: *cab, lookupEnv: e.lookupEnv, goos: e.goos})
	if err != nil {
		fmt.Fprintf(e.stderr, "gqlsh: %v\n", err)
		return 1
	}
	defer db.Close()
	rep, err := snap.Go(context.Background(), db, dir, snap.Options{Prefix: *prefix, PartNodes: *partNodes, Tests: *tests, NoCalls: *noCalls})
	if err != nil {
		repl.WriteError(e.stderr, err)
		return 1
	}
	big := rep.Largest()
	changed := "no session changed"
	if len(rep.Changed) > 0 {
		changed = fmt.Sprintf("%d changed (%s)", len(rep.Changed), clipList(rep.Changed, 4))
	}
	parts := "parts"
	if len(rep.Parts) == 1 {
		parts = "part"
	}
	fmt.Fprintf(e.stdout, "%s: %d packages, %d files in %d %s: %d sessions (catalogue %s); largest part %d nodes (%s); %d elements; %d of %d Δs applied, %d elements deleted; %s; %.2f s, %.0f elements/s\n",
		backend, rep.Packages, rep.Files, len(rep.Parts), parts, rep.Sessions(), rep.Catalog, big.Nodes, big.Session,
		rep.Elements, rep.Applied, rep.Deltas, rep.Deleted, changed, rep.Seconds(), rep.ElementsPerSecond())
	if len(rep.Dropped) > 0 {
		fmt.Fprintf(e.stdout, "dropped %d sessions of parts the tree no longer has: %s\n", len(rep.Dropped), clipList(rep.Dropped, 8))
	}
	return 0
}

// clipList joins the first n names, saying how many more there are.
func clipList(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:n], ", "), len(names)-n)
}
