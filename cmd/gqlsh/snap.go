package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/goldfish-gql/goldfish/repl"
	"github.com/goldfish-gql/goldfish/snap"
)

const snapUsage = "Usage: gqlsh snap-go DIR --prefix NAME [--cabinet PATH | --mem] [--part-nodes N] [--tests] [--no-calls] [--no-types]"

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
	noTypes := fs.Bool("no-types", false, "resolve calls by syntax only (no go command, no type-checking; far fewer calls)")
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
	o := snap.Options{Prefix: *prefix, PartNodes: *partNodes, Tests: *tests, NoCalls: *noCalls, NoTypes: *noTypes}
	if e.stderrTerminal {
		o.Progress = snapProgress(e.stderr)
	}
	rep, err := snap.Go(context.Background(), db, dir, o)
	if o.Progress != nil {
		fmt.Fprint(e.stderr, "\r\033[K") // the progress line goes; the report stays
	}
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
	if c := rep.Code; !*noCalls {
		fmt.Fprintf(e.stdout, "calls %s: %d calls, %d to functions outside the tree, %d refs, %d implements", c.Resolve, c.Calls, c.External, c.Refs, c.Implements)
		if c.Untyped > 0 {
			fmt.Fprintf(e.stdout, "; %d of %d %s by syntax only: %s", c.Untyped, c.Packages, plural(c.Packages, "package", "packages"), c.TypeNote)
		}
		if c.TypeErrors > 0 {
			fmt.Fprintf(e.stdout, "; %d %s type errors (the calls are those the checker resolved)", c.TypeErrors, plural(c.TypeErrors, "package has", "packages have"))
		}
		fmt.Fprintln(e.stdout)
	}
	if len(rep.Dropped) > 0 {
		fmt.Fprintf(e.stdout, "dropped %d sessions of parts the tree no longer has: %s\n", len(rep.Dropped), clipList(rep.Dropped, 8))
	}
	return 0
}

// snapProgress draws one line on a terminal, rewritten at most ten times
// a second: packages type-checked, then parts written.
func snapProgress(w io.Writer) func(snap.Progress) {
	var last time.Time
	return func(p snap.Progress) {
		if p.Done < p.Total && time.Since(last) < 100*time.Millisecond {
			return
		}
		last = time.Now()
		fmt.Fprintf(w, "\r\033[Kgqlsh snap-go: %s: %d of %d", p.Stage, p.Done, p.Total)
	}
}

// clipList joins the first n names, saying how many more there are.
func clipList(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:n], ", "), len(names)-n)
}
