package main

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/goldfish-gql/goldfish/ingest/golang"
	"github.com/goldfish-gql/goldfish/repl"
)

// runIngestGo ingests a Go source tree into a session with the ingest id
// rule, so running it again changes nothing: gqlsh ingest-go DIR
// [--session NAME] [--mem | --cabinet PATH | --postgres URL] [--tests] [--no-calls].
const ingestUsage = "Usage: gqlsh ingest-go DIR [--session NAME] [--mem | --cabinet PATH | --postgres URL] [--tests] [--no-calls]"

func runIngestGo(args []string, e env) int {
	fs := flag.NewFlagSet("gqlsh ingest-go", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	session := fs.String("session", "code", "session `NAME` to ingest into")
	mem := fs.Bool("mem", false, "keep the session in memory only")
	cab := fs.String("cabinet", "", "cabinet file `PATH` (default: as gqlsh)")
	pgURL := fs.String("postgres", "", "PostgreSQL `URL` (default: as gqlsh)")
	pgSchema := fs.String("postgres-schema", "", "PostgreSQL schema `NAME` (default goldfish)")
	tests := fs.Bool("tests", false, "include _test.go files")
	noCalls := fs.Bool("no-calls", false, "leave calls edges out")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), ingestUsage+"\n\nIngests the Go code under DIR (syntax only: see snap-go for parts) into one session with the\ningest rule, so running it again changes nothing.")
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
			fmt.Fprintf(e.stderr, "gqlsh ingest-go: give one DIR, got %q too\n", fs.Arg(0))
			return 2
		}
		dir, args = fs.Arg(0), fs.Args()[1:]
	}
	if dir == "" {
		fmt.Fprintln(e.stderr, ingestUsage)
		return 2
	}
	db, backend, err := openDB(dbOptions{mem: *mem, cabinet: *cab, postgres: *pgURL, schema: *pgSchema, lookupEnv: e.lookupEnv, goos: e.goos})
	if err != nil {
		fmt.Fprintf(e.stderr, "gqlsh: %v\n", err)
		return 1
	}
	defer db.Close()
	s, err := db.Session(context.Background(), *session)
	if err != nil {
		repl.WriteError(e.stderr, err)
		return 2
	}
	st, err := golang.IngestDir(context.Background(), s, dir, golang.Options{Tests: *tests, NoCalls: *noCalls})
	if err != nil {
		fmt.Fprintf(e.stderr, "gqlsh ingest-go: %v\n", err)
		return 1
	}
	fmt.Fprintf(e.stdout, "%s: %d packages, %d files, %d declarations: %d nodes, %d edges; %d of %d Δs applied in %s; session %s at version %d\n",
		backend, st.Packages, st.Files, st.Decls, st.Nodes, st.Edges, st.Applied, st.Deltas,
		(st.Load + st.Ingest).Round(time.Millisecond), *session, s.Version())
	return 0
}
