// Command gqlsh is the Goldfish GQL shell: it runs GQL statements against a
// session and prints one result per statement.
//
// Usage:
//
//	gqlsh [--mem] [--session NAME] [--format gql|json] [-c TEXT | -f FILE]
//	gqlsh conformance [DIR]
//	gqlsh --version | --help
//
// Without -c or -f the statements are read from standard input. Each
// statement outside START TRANSACTION … COMMIT is its own Commit. The first
// error is printed on standard error with its GQLSTATUS, line, column and a
// caret, and ends the run with exit status 1.
//
// The only backend so far is memory (--mem, also the default): the session
// lives as long as the process. "gqlsh conformance" runs the conformance
// suite (the copy built into the binary, or the *.txt files of DIR) against
// the embedded engine and prints one line per failing case.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/conformance"
	"github.com/goldfish-gql/goldfish/repl"
)

// version is the gqlsh version; release builds set it with -ldflags -X.
var version = "0.1.0-dev"

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

const usage = `gqlsh: the Goldfish GQL shell

Usage:
  gqlsh [--mem] [--session NAME] [--format gql|json] [-c TEXT | -f FILE]
  gqlsh conformance [DIR]
  gqlsh --version | --help

Statements are read from -c TEXT, from -f FILE, or from standard input,
split at ';' and run in order; each is its own Commit unless enclosed in
START TRANSACTION … COMMIT, which commits them as one atomic Δ. The first
error stops the run with exit status 1.

Options:
`

// run is gqlsh without the process around it, so tests call it directly.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "conformance" {
		return runConformance(args[1:], stdout, stderr)
	}
	fs := flag.NewFlagSet("gqlsh", flag.ContinueOnError)
	var flagOut strings.Builder // usage goes to stdout for --help, else stderr
	fs.SetOutput(&flagOut)
	var (
		mem       = fs.Bool("mem", false, "keep sessions in memory (the only backend so far, and the default)")
		session   = fs.String("session", "main", "session `NAME` to run the statements against")
		format    = fs.String("format", "gql", "output `format`: gql (one summary line per statement) or json (one object per line)")
		command   = fs.String("c", "", "run the statements in `TEXT`")
		file      = fs.String("f", "", "run the statements in `FILE` (- for standard input)")
		failAtEnd = fs.Bool("fail-at-end", false, "run every statement even after an error; exit status 1 at the end")
		showVer   = fs.Bool("version", false, "print the version and exit")
	)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), usage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			io.WriteString(stdout, flagOut.String())
			return 0
		}
		io.WriteString(stderr, flagOut.String())
		return 2
	}
	_ = *mem // memory is the default and, for now, the only backend
	if *showVer {
		fmt.Fprintf(stdout, "gqlsh %s\n", version)
		return 0
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "gqlsh: unexpected argument %q; pass statements with -c, -f or standard input\n", fs.Arg(0))
		return 2
	}
	fmtv, err := repl.ParseFormat(*format)
	if err != nil {
		fmt.Fprintf(stderr, "gqlsh: %v\n", err)
		return 2
	}
	if *command != "" && *file != "" {
		fmt.Fprintln(stderr, "gqlsh: give -c or -f, not both")
		return 2
	}
	var in io.Reader = stdin
	switch {
	case *command != "":
		in = strings.NewReader(*command)
	case *file != "" && *file != "-":
		f, err := os.Open(*file)
		if err != nil {
			fmt.Fprintf(stderr, "gqlsh: %v\n", err)
			return 1
		}
		defer f.Close()
		in = f
	}
	db, err := goldfish.Open()
	if err != nil {
		fmt.Fprintf(stderr, "gqlsh: %v\n", err)
		return 1
	}
	defer db.Close()
	s, err := db.Session(*session)
	if err != nil {
		repl.WriteError(stderr, err)
		return 2
	}
	return repl.Run(context.Background(), s, &repl.ReaderIO{R: in, Out: stdout, Err: stderr},
		repl.Options{Format: fmtv, FailAtEnd: *failAtEnd})
}

// runConformance runs the suite and prints one line per failing case
// (followed by the wanted and actual output, indented), then the totals.
func runConformance(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("gqlsh conformance", flag.ContinueOnError)
	fs.SetOutput(stderr)
	verbose := fs.Bool("v", false, "print the wanted and actual output of each failing case")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: gqlsh conformance [-v] [DIR]\n\nRuns DIR/*.txt (default: the suite built into gqlsh) against the embedded engine.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 1 {
		fmt.Fprintln(stderr, "gqlsh conformance: at most one DIR")
		return 2
	}
	ctx := context.Background()
	var (
		rep conformance.Report
		err error
	)
	if fs.NArg() == 1 {
		rep, err = conformance.RunDir(ctx, fs.Arg(0))
	} else {
		rep, err = conformance.Run(ctx, conformance.Suite())
	}
	if err != nil {
		fmt.Fprintf(stderr, "gqlsh conformance: %v\n", err)
		return 1
	}
	for _, f := range rep.Failures {
		if f.Err != nil {
			fmt.Fprintf(stdout, "FAIL %s %s: %v\n", f.Pos, f.Cmd, f.Err)
			continue
		}
		fmt.Fprintf(stdout, "FAIL %s %s: output differs\n", f.Pos, f.Cmd)
		if *verbose {
			fmt.Fprintf(stdout, "  want:\n%s  got:\n%s", indent(f.Want), indent(f.Got))
		}
	}
	fmt.Fprintf(stdout, "%d passed, %d failed\n", rep.Passed, rep.Failed())
	if rep.Failed() > 0 {
		return 1
	}
	return 0
}

func indent(s string) string {
	if s == "" {
		return "    (nothing)\n"
	}
	lines := strings.SplitAfter(s, "\n")
	var b strings.Builder
	for _, l := range lines {
		if l != "" {
			b.WriteString("    ")
			b.WriteString(l)
		}
	}
	if !strings.HasSuffix(s, "\n") {
		b.WriteByte('\n')
	}
	return b.String()
}
