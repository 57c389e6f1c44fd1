package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
)

// parseFlags parses args into fs, as every subcommand does: --help
// prints fs's usage (which ends with every flag it accepts) to stdout and
// ends the command with 0; a bad flag prints one line, and where the
// help is, to stderr and ends it with 2. done says the command ends.
func parseFlags(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (code int, done bool) {
	var buf strings.Builder
	fs.SetOutput(&buf)
	err := fs.Parse(args)
	switch {
	case err == nil:
		return 0, false
	case errors.Is(err, flag.ErrHelp):
		io.WriteString(stdout, buf.String())
		return 0, true
	}
	fmt.Fprintf(stderr, "%s: %v; see %s --help\n", fs.Name(), err, fs.Name())
	return 2, true
}

// parseNoArgs is parseFlags for a command that takes flags alone: an
// argument left over is refused, naming it (exit 2).
func parseNoArgs(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (code int, done bool) {
	if code, done := parseFlags(fs, args, stdout, stderr); done {
		return code, true
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "%s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		return 2, true
	}
	return 0, false
}

// subcommands are gqlsh's commands besides the shell, for gqlsh help.
var subcommands = []string{"serve", "mcp", "token", "ingest-go", "snap-go", "conformance", "import-memory", "export-memory"}

// runHelp is gqlsh help [TOPIC]: the shell's usage, a subcommand's
// (gqlsh help serve is gqlsh serve --help), or the shell's :help TOPIC
// (gqlsh help recall).
func runHelp(args []string, e env) int {
	switch {
	case len(args) == 0:
		return runEnv([]string{"--help"}, e)
	case slices.Contains(subcommands, args[0]):
		return runEnv([]string{args[0], "--help"}, e)
	}
	return runEnv([]string{"--mem", "-c", ":help " + args[0]}, e)
}
