package repl

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/gqlstatus"
)

// A single transaction (Options.SingleTransaction, gqlsh -1) runs the
// whole input as one Δ: the shell reads every input to its end first,
// keeping the statements and running only the meta-commands that set the
// shell itself, then sends the statements as one text to Session.Commit.
// Nothing reaches the session before the end, so an error anywhere (in
// the input, a refused meta-command, the engine's parse, plan or run of
// any statement) leaves it as it was.
type singleTx struct {
	stmts []Stmt
	bytes int // the Δ text the statements join into (";\n" between them)
}

// runSingle runs the input as one transaction and returns the exit status.
func (sh *Shell) runSingle(ctx context.Context) int {
	// One error drops the whole transaction: running on after it (as
	// --fail-at-end would) could not apply anything.
	failAtEnd := sh.opts.FailAtEnd
	sh.opts.FailAtEnd = false
	sh.single = &singleTx{}
	code, _ := sh.script(ctx)
	tx := sh.single
	sh.single, sh.opts.FailAtEnd = nil, failAtEnd
	switch code {
	case 0:
	case ExitInterrupted, ExitBrokenPipe:
		return code
	default:
		sh.dropped()
		return code
	}
	return sh.commitSingle(ctx, tx)
}

// dropped says that nothing of the transaction applied.
func (sh *Shell) dropped() {
	sh.flush()
	fmt.Fprintln(sh.r.Err, "gqlsh: the single transaction (-1) is dropped: nothing applied")
}

// commitSingle sends the statements read as one Δ.
func (sh *Shell) commitSingle(ctx context.Context, tx *singleTx) int {
	r := sh.r
	if fit := sh.opts.FitSingle; fit != nil {
		if err := fit(ctx, len(tx.stmts)); err != nil {
			sh.flush()
			fmt.Fprintln(r.Err, Visible("gqlsh: "+err.Error()))
			return 1
		}
	}
	// A Recall would read the session before the transaction, which
	// applies only at its end: refused, as the engine refuses a MATCH
	// without a change in a Δ, but saying what to do with -1.
	for _, st := range tx.stmts {
		if verb, _ := st.Verb(); verb == "MATCH" && r.Session.IsRecall(st.Text) {
			r.fail(st.at(&gqlstatus.Error{Code: codeSingle,
				Msg:  "a Recall inside the single transaction (-1) would read the session as it was before the transaction, whose statements apply together at its end",
				Hint: "run the Recall after the load (gqlsh -c 'MATCH …'), or the script without -1"}))
			sh.dropped()
			return 1
		}
	}
	if len(tx.stmts) == 0 {
		r.note(fmt.Sprintf("ok v=%d empty transaction", r.Session.Version()), "committed")
		return 0
	}
	r.explain = sh.explainSingle
	err := r.commit(ctx, tx.stmts, len(tx.stmts), timing{})
	r.explain = nil
	switch {
	case err == nil:
		return 0
	case ctx.Err() != nil:
		return ExitInterrupted // the error said what became of the Commit
	}
	sh.dropped()
	return 1
}

// explainSingle words the engine's refusal of the whole transaction for
// the user of -1. Over a server the server's Commit budget holds (the
// shell cannot raise it), so a script over it has to be split or loaded
// on a database of the user's own.
func (sh *Shell) explainSingle(err error) error {
	var ge *gqlstatus.Error
	if !errors.As(err, &ge) || ge.Code != gqlstatus.CommitBudget || sh.host == nil || sh.host.Remote() == "" {
		return err
	}
	out := *ge
	out.Msg = "the single transaction (-1) is over the Commit budget of the server at " + sh.host.Remote() + ": " + ge.Msg
	out.Hint = "split the script into runs of gqlsh -1 that each stay under the server's budget, " +
		"or load it into a database gqlsh opens itself (gqlsh --cabinet PATH -1 -f FILE), which fits its budget to the script"
	return &out
}

// singleItem takes one item of a single transaction's input: a statement
// is kept for the end, a meta-command runs now if it only sets the shell.
func (sh *Shell) singleItem(ctx context.Context, it Item) error {
	if it.Meta != nil {
		if err := singleMeta(*it.Meta, len(sh.single.stmts)); err != nil {
			return sh.metaFail(err, *it.Meta)
		}
		return sh.meta(ctx, *it.Meta)
	}
	if err := sh.single.add(*it.Stmt); err != nil {
		sh.r.fail(err)
		return err
	}
	return nil
}

// add keeps st for the end. Transaction statements are refused: the
// input is one transaction already, and a COMMIT in it would promise
// that what came before applied alone.
func (t *singleTx) add(st Stmt) error {
	verb, words := st.Verb()
	switch {
	case verb == "START" && len(words) == 2 && words[1] == "TRANSACTION":
		return st.at(&gqlstatus.Error{Code: codeNestedTx,
			Msg:  "START TRANSACTION inside the single transaction (-1): the whole input is one transaction already",
			Hint: "remove START TRANSACTION, COMMIT and ROLLBACK from the script, or run it without -1 (each of its transactions then commits on its own)"})
	case verb == "COMMIT" || verb == "ROLLBACK":
		return st.at(&gqlstatus.Error{Code: codeSingle,
			Msg:  verb + " inside the single transaction (-1): the whole input is one transaction, committed at its end",
			Hint: "remove START TRANSACTION, COMMIT and ROLLBACK from the script, or run it without -1 (each of its transactions then commits on its own)"})
	}
	n := t.bytes + len(st.Text)
	if len(t.stmts) > 0 {
		n += len(";\n")
	}
	// The statements are parsed as one text, and the engine parses at
	// most MaxStatementBytes at once: refused here, before the rest of a
	// long input is read.
	if n > MaxStatementBytes {
		return st.at(&gqlstatus.Error{Code: codeTooLong,
			Msg: fmt.Sprintf("the single transaction (-1) is %d bytes of statements with this one, over the %d bytes one Δ text may hold",
				n, MaxStatementBytes),
			Hint: "split the script into files of less than 1 MiB of statements, each loaded with gqlsh -1, or run it without -1"})
	}
	t.stmts = append(t.stmts, st)
	t.bytes = n
	return nil
}

// singleMeta refuses a meta-command a single transaction cannot hold; stmts
// is the number of statements read before it. Those that only set the
// shell run: :help, :format, :output, :timing, :set of a Recall budget,
// :params to list them, :agent to show it, :source (its statements join
// the transaction) and :quit (the input ends there; what came before
// commits). :param, :params clear and :agent NAME set what the one
// Commit carries for all its statements, so they come before the first.
// Those that write the session at once (outside the transaction), read
// it (as it was before the transaction), or switch it are refused.
func singleMeta(m Meta, stmts int) error {
	fields := strings.Fields(strings.TrimPrefix(strings.TrimSpace(m.Text), ":"))
	if len(fields) == 0 {
		return nil // meta says what is wrong
	}
	mc := findMeta(strings.ToLower(fields[0]))
	if mc == nil {
		return nil
	}
	name, args := mc.name, fields[1:]
	switch name {
	case "help", "format", "output", "timing", "source", "quit":
		return nil
	case "param", "params", "agent":
		if stmts == 0 || name == "params" && len(args) == 0 || name == "agent" && len(args) == 0 {
			return nil
		}
		return metaErrorf(codeSingle, "give :param, :params clear and :agent before the first statement of the script",
			":%s after the first statement of the single transaction (-1): its statements are one Δ, sent at the end with one set of $parameters and one agent, so this would apply to the statements before it too", name)
	case "set":
		if len(args) == 0 {
			return singleRead(name)
		}
		knob, _, _ := strings.Cut(strings.ToLower(args[0]), "=")
		if knob == "pinned" || slices.Contains(goldfish.AttentionSettingNames, knob) {
			return singleWrite(":set " + knob)
		}
		return nil
	case "use":
		return metaErrorf(codeSingle, "load each session with a run of its own: gqlsh --session NAME -1 -f FILE",
			":use inside the single transaction (-1): the transaction is on one session")
	case "agents":
		if len(args) > 0 && strings.EqualFold(args[0], "forget") {
			return singleWrite(":agents forget")
		}
		return singleRead(name)
	case "drop", "purge", "flush", "backup", "absorb":
		return singleWrite(":" + name)
	}
	return singleRead(name) // :sessions, :kinds, :views, :actions, :export, :diff, :history
}

func singleWrite(what string) error {
	return metaErrorf(codeSingle, "run it with gqlsh before or after the load, or run the script without -1",
		"%s inside the single transaction (-1): it would write at once, outside the transaction, whether or not the transaction applies", what)
}

func singleRead(name string) error {
	return metaErrorf(codeSingle, fmt.Sprintf("run it after the load (gqlsh -c ':%s'), or run the script without -1", name),
		":%s inside the single transaction (-1): it would show the session as it was before the transaction, whose statements apply together at its end", name)
}
