package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/repl"
)

// singleFlags registers -1 and its long name --single-transaction, as
// psql spells them, on one value.
func singleFlags(fs *flag.FlagSet) *bool {
	single := new(bool)
	const help = "run the whole input of every -c and -f as one transaction: all of it applies, as one Δ and one version, or none of it " +
		"(on a database gqlsh opens itself the Commit budget is R per statement; over --url the server's holds)"
	fs.BoolVar(single, "1", false, help)
	fs.BoolVar(single, "single-transaction", false, "the same as -1")
	return single
}

// checkSingle refuses what -1 does not go with; false means gqlsh exits 2.
func checkSingle(single bool, sources []source, failAtEnd, readOnly bool, stderr io.Writer) bool {
	switch {
	case !single:
		return true
	case len(sources) == 0:
		fmt.Fprintln(stderr, "gqlsh: -1 runs the statements of -c and -f as one transaction: give at least one (-f - reads standard input)")
	case failAtEnd:
		fmt.Fprintln(stderr, "gqlsh: give -1 or --fail-at-end, not both: in one transaction the first error drops everything")
	case readOnly:
		fmt.Fprintln(stderr, "gqlsh: -1 commits the script: not with --read-only")
	default:
		return true
	}
	return false
}

// workPerRow is the work budget per row of R that a Budget whose Work is
// zero gets (values.Budget): given explicitly here, so that a budget of
// many rows never overflows it.
const workPerRow = 2000

// singleBudget is the Commit budget of a single transaction of n
// statements on a database gqlsh opens itself: R for each statement
// (DefaultBudget: 500 rows, 256 KiB, and the work they imply), so that a
// script loads as one transaction whenever each of its statements would
// load on its own. The shell owns that database for the run, and the
// budget lasts as long as the run.
func singleBudget(n int) goldfish.Budget {
	n = max(n, 1)
	d := goldfish.DefaultBudget
	return goldfish.Budget{Rows: times(d.Rows, n), Bytes: times(d.Bytes, n), Work: times(times(d.Rows, workPerRow), n)}
}

// times is a·b, at most math.MaxInt.
func times(a, b int) int {
	if a > 0 && b > math.MaxInt/a {
		return math.MaxInt
	}
	return a * b
}

// ownedSession is the session of a single transaction on a database gqlsh
// opens itself: the database is opened by open, when the whole input has
// been read and the number of statements, and so the budget, is known.
// Until then the shell calls only Name (repl.Options.FitSingle).
type ownedSession struct {
	*goldfish.Session
	name string
}

func (s *ownedSession) Name() string { return s.name }

// runOwnedSingle runs the shell's single transaction on the database o
// names, opened with singleBudget once the input has been read. A script
// refused before the end never opens the database at all.
func runOwnedSingle(o dbOptions, name string, opts repl.Options, inputs []repl.Input, e env) (code int) {
	s := &ownedSession{name: name}
	var (
		db      *goldfish.DB
		backend string
	)
	opts.FitSingle = func(ctx context.Context, n int) error {
		o.commitBudget = singleBudget(n)
		d, b, err := openDB(o)
		if err != nil {
			return err
		}
		db, backend = d, b
		es, err := db.Session(ctx, name)
		if err != nil {
			return err
		}
		s.Session = es
		return nil
	}
	defer func() {
		if db == nil {
			return
		}
		if err := db.Close(); err != nil {
			fmt.Fprintf(e.stderr, "gqlsh: closing %s: %v\n", backend, err)
			if code == 0 {
				code = 1
			}
		}
	}()
	return runShell(s, "", opts, inputs, false, e)
}
