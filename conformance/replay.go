package conformance

import (
	"context"
	"errors"
	"io"
	"slices"
	"strings"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/client"
	"github.com/goldfish-gql/goldfish/repl"
)

// A script over a server: its output is gqlsh's own, printed by the
// statement loop around an embedded session (repl.Runner), so it is not
// judged there; but its statements reach the session as the loop would
// send them, so the sessions are as the file expects afterwards and what
// follows the script is judged. replay follows repl.Runner.Exec of a
// script (not a person typing: a transaction's statements wait for its
// COMMIT unchecked), which stops at the first error:
//
//   - a statement on its own is a Recall when it parses as one (a MATCH
//     of node patterns), else a Commit;
//   - START TRANSACTION … COMMIT is one Δ, the statements joined as the
//     loop joins them; a transaction rolled back, or open when the
//     script ends, sends nothing;
//   - START TRANSACTION, ROLLBACK and an empty transaction's COMMIT are
//     parsed and planned here, as the loop has them checked before it
//     goes on (parsing and planning read no session);
//   - the meta-commands that keep the loop's own state (:set of a Recall
//     budget, :param, :params, :agent, :format, :timing, :help and the
//     lists) run on a shell of their own, whose state the statements
//     after them then carry; :set of an attention setting goes to the
//     server's settings; :quit ends the script. A meta-command that
//     works on files or on the database (:source, :output, :export,
//     :absorb, :purge, :flush, :backup) is not replayed: the script is
//     skipped without its effects, as is one whose parameters JSON does
//     not carry as they are (a DATE).

// replayer is one script's replay.
type replayer struct {
	t       *remote
	session string
	// scratch parses and plans; sh keeps what the meta-commands set, in
	// its runner.
	scratch *goldfish.Session
	sh      *repl.Shell
	inTx    bool
	tx      []repl.Stmt
}

// errStop is the end of a replay at an error the shell would stop at.
var errStop = errors.New("the script stops here")

func (t *remote) replay(ctx context.Context, session, text string, format repl.Format) error {
	if t.scratch == nil {
		db, err := goldfish.Open()
		if err != nil {
			return &failure{err}
		}
		t.scratch = db
	}
	scratch, err := t.scratch.Session(ctx, session)
	if err != nil {
		return &failure{err}
	}
	quiet := &repl.ReaderIO{R: strings.NewReader(""), Out: io.Discard, Err: io.Discard}
	p := &replayer{t: t, session: session, scratch: scratch, sh: repl.NewShell(scratch, quiet, repl.Options{Format: format})}
	for _, it := range repl.Items(text, true) {
		switch {
		case it.Err != nil:
			err = errStop // input the parser never sees: the shell stops
		case it.Meta != nil:
			err = p.meta(ctx, *it.Meta)
		default:
			err = p.exec(ctx, *it.Stmt)
		}
		if err == errStop {
			return nil
		}
		if err != nil {
			return err
		}
	}
	return nil // a transaction still open is dropped, unsent
}

// exec is Runner.Exec of a script, sending to the server.
func (p *replayer) exec(ctx context.Context, st repl.Stmt) error {
	verb, words := st.Verb()
	switch {
	case verb == "START" && len(words) == 2 && words[1] == "TRANSACTION":
		if p.inTx {
			return errStop // transactions do not nest
		}
		if err := p.check(st, repl.Stmt{Text: "ROLLBACK"}); err != nil {
			return err
		}
		p.inTx, p.tx = true, []repl.Stmt{st}
		return nil
	case p.inTx && verb == "ROLLBACK":
		if err := p.check(p.tx[0], st); err != nil {
			return err
		}
		p.inTx, p.tx = false, nil
		return nil
	case p.inTx && verb == "COMMIT":
		all := append(p.tx, st)
		p.inTx, p.tx = false, nil
		if len(all) == 2 {
			return p.check(all...)
		}
		return p.commit(ctx, all)
	case p.inTx:
		p.tx = append(p.tx, st)
		return nil
	}
	r := p.sh.Runner()
	isRecall := false
	switch {
	case r.Timing:
		isRecall, _, _ = p.scratch.Prepare(st.Text) // as the loop's timing does
	case verb == "MATCH":
		isRecall = p.scratch.IsRecall(st.Text)
	}
	if isRecall {
		o := r.Recall
		if len(r.Params) > 0 {
			o.Params = r.Params
		}
		o.Agent = r.Agent
		if err := p.faithful(r.Params); err != nil {
			return err
		}
		_, err := p.t.Recall(ctx, p.session, st.Text, o)
		return stopAt(err)
	}
	return p.commit(ctx, []repl.Stmt{st})
}

// join is the one text the loop sends for stmts.
func join(stmts []repl.Stmt) string {
	texts := make([]string, len(stmts))
	for i, s := range stmts {
		texts[i] = s.Text
	}
	return strings.Join(texts, ";\n")
}

// check parses and plans stmts as one text, as the loop has the engine
// do: an error stops the script.
func (p *replayer) check(stmts ...repl.Stmt) error {
	if _, _, err := p.scratch.Prepare(join(stmts)); err != nil {
		return errStop
	}
	return nil
}

func (p *replayer) commit(ctx context.Context, stmts []repl.Stmt) error {
	r := p.sh.Runner()
	if err := p.faithful(r.Params); err != nil {
		return err
	}
	_, err := p.t.commit(ctx, p.session, join(stmts), r.Params, "", r.Agent)
	return stopAt(err)
}

// stopAt is errStop for a refusal of the server, which the loop prints
// and stops at, and err itself for a failure of the transport.
func stopAt(err error) error {
	var f *failure
	var re *client.Refusal
	if !errors.As(err, &f) && errors.As(err, &re) {
		return errStop
	}
	return err
}

// faithful refuses to replay with parameters JSON does not carry as
// they are: the server would read another value than the shell passes.
func (p *replayer) faithful(ps map[string]any) error {
	var ok func(v any) bool
	ok = func(v any) bool {
		switch v := v.(type) {
		case nil, bool, string, int64, float64:
			return true
		case []any:
			for _, x := range v {
				if !ok(x) {
					return false
				}
			}
			return true
		}
		return false
	}
	for name, v := range ps {
		if !ok(v) {
			return &Skip{Reason: "the script's $" + name + " has a value JSON does not carry as it is, so its statements were not sent to the server"}
		}
	}
	return nil
}

// meta replays a meta-command line.
func (p *replayer) meta(ctx context.Context, m repl.Meta) error {
	fields := strings.Fields(strings.TrimPrefix(strings.TrimSpace(m.Text), ":"))
	name := ""
	if len(fields) > 0 {
		name = strings.ToLower(fields[0])
	}
	switch name {
	case "quit", "exit", "q":
		return errStop
	case "source", "output", "export", "absorb", "purge", "flush", "backup":
		return &Skip{Reason: "the script's :" + name + " works on files or on the database, which a run over a server does not replay"}
	case "set":
		args := fields[1:]
		if len(args) == 1 && strings.Contains(args[0], "=") {
			k, v, _ := strings.Cut(args[0], "=")
			args = []string{k, v}
		}
		if len(args) == 2 && slices.Contains(goldfish.AttentionSettingNames, strings.ToLower(args[0])) {
			cur, err := p.t.AttentionSettings(ctx, p.session)
			if err != nil {
				return stopAt(err)
			}
			next, err := goldfish.SetAttentionSetting(cur, strings.ToLower(args[0]), args[1])
			if err != nil {
				return errStop
			}
			return stopAt(p.t.SetAttentionSettings(ctx, p.session, next))
		}
	}
	if p.sh.Script(ctx, m.Text+"\n", true) > 0 {
		return errStop
	}
	return nil
}
