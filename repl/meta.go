package repl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/gqlstatus"
)

// A meta-command is a line starting with ':' (as in cypher-shell and
// kuzu): it talks to gqlsh, not to the engine, and needs no ';'.
type metaCmd struct {
	name  string
	args  string // the usage after the name
	short string // one line for the :help list
	long  string // more for ":help name"
	run   func(sh *Shell, ctx context.Context, args []string) error
}

// metaCmds is the table of meta-commands, in the order :help lists them.
var metaCmds []metaCmd

func init() {
	metaCmds = []metaCmd{
		{name: "help", args: "[TOPIC]", short: "list the meta-commands, or explain one (or a topic: the list ends this help)", run: (*Shell).metaHelp},
		{name: "use", args: "SESSION", short: "switch to SESSION, creating it empty on first use",
			long: "Sessions are made on first use: :use a new name gives an empty session (version 0).\nA transaction must be committed or rolled back first. ':use catalog' reads the catalogue of sessions\n(Recall only): MATCH (s:SESSION) LIMIT 4;", run: (*Shell).metaUse},
		{name: "sessions", short: "list the sessions with their versions and sizes (* marks the current one)",
			long: "Read from the catalogue: no session is loaded to list it. ':use catalog' Recalls the catalogue itself\n(one SESSION node per session: MATCH (s:SESSION) LIMIT 4).", run: (*Shell).metaSessions},
		{name: "kinds", args: "[KIND]", short: "list the kinds of this session: nodes, property keys and edge types out and in, with counts",
			long: "As psql's \\d or sqlite's .schema: read from the nodes (a session has no schema). A key's count is of the\nnodes carrying it, an edge type's of its edges. :kinds TSK shows one kind.", run: (*Shell).metaKinds},
		{name: "views", short: "list the session's views: value (or why it is broken), intent, registration, revisions",
			long: "A view is a named CEL expression over the session, registered with\nCREATE [OR REPLACE] VIEW name [INTENT '…'] AS '<CEL>' and shown with every Recall.\n:help vocabulary explains how to review them.", run: (*Shell).metaViews},
		{name: "actions", short: "list the session's actions: signature, intent, registration, revisions, invocations",
			long: "An action is a named Δ with typed parameters, registered with\nCREATE [OR REPLACE] ACTION name(p TYPE [= default], …) [INTENT '…'] [IF '<CEL>'] { … }\nand run with CALL name(args) or CALL name(p: value).", run: (*Shell).metaActions},
		{name: "drop", args: "NAME", short: "delete session NAME for good, from memory and from the cabinet file",
			long: "There is no undo and no default: give the name. The current session and the catalog cannot be\ndropped (:use another session first).", run: (*Shell).metaDrop},
		{name: "purge", short: "remove the current session's recycled (deleted) elements for good",
			long: "DELETE only recycles; :purge frees them. It is a Commit of its own (a new version) when anything was removed.", run: (*Shell).metaPurge},
		{name: "flush", short: "write a compact snapshot of every session in use to the cabinet file",
			long: "Commits are durable without it; flushing makes the file compact and the next start faster.\nDo it before copying a cabinet that no gqlsh is using.", run: (*Shell).metaFlush},
		{name: "export", args: "FILE Q", short: "write the slice of this session around the anchors of Q (a Recall's token) to FILE, with engine ids",
			long: "A slice is the neighbourhood of each anchor (the seeds of Q, at most L), walked as a Recall walks\n(the :set budgets), with the engine ids: at most M × anchors rows. :absorb commits it into another\nsession. MATCH () (the outline) and the catalogue are refused: a slice never takes a whole session.\nExample: :export login.slice MATCH (t:TSK {nick: \"TSK_login\"})", run: nil}, // meta passes the whole rest of the line to metaExportLine
		{name: "absorb", args: "FILE keep|reject|remint", short: "commit the slice in FILE (written by :export) into this session as one Δ",
			long: "keep keeps the slice's ids: an element the session holds the same is left as it is, one whose id or\nnick the session holds otherwise fails the whole Absorb. reject skips the clashing elements,\nand remint gives every element a fresh id (a node whose nick is taken here is skipped); both list\nwhat they skipped. A slice is absorbed as :export wrote it: an edited or damaged one is refused.", run: (*Shell).metaAbsorb},
		{name: "diff", args: "FROM TO [nick=N …] [kind=K …]", short: "print the change from version FROM to TO as one Δ (GQL); FROM 0 is the empty graph",
			long: "Committed as one Commit on a copy of version FROM, the Δ gives version TO's graph (ids aside).\nnick= and kind= narrow it to those nodes and their edges, as a diff over its bound asks. Views and\nactions registered between the versions are counted in a comment, not in the Δ.\nExample: :diff 3 7   :diff 0 7 kind=TSK", run: (*Shell).metaDiff},
		{name: "history", args: "NICK [limit=N]", short: "list the versions that changed node NICK or its edges, newest first: agent, time, change as GQL",
			long: "At most 20 versions unless limit=N says more; a last line says when older ones exist. Each change\nis that version's :diff narrowed to the node.", run: (*Shell).metaHistory},
		{name: "backup", args: "PATH", short: "write a consistent copy of the cabinet file to PATH (a new file), while in use",
			long: "Never cp a cabinet file that a gqlsh is using; :backup copies it safely. To restore, quit and put\nthe copy where the cabinet lives.", run: (*Shell).metaBackup},
		{name: "agent", args: "[NAME]", short: "read and commit as agent NAME (shown in the prompt); no NAME shows it, '-' clears it",
			long: "Every following Recall and Commit names the agent, transactions and :source included. Per agent the\nsession keeps the version its last Recall read and its number of reads (:agents), and the log keeps\nwho committed each Δ. Names: letters, digits, '_', '-' and '.', up to 64, not starting with '-' or '.'.\ngqlsh --agent NAME starts as NAME.", run: (*Shell).metaAgent},
		{name: "agents", args: "[forget NAME]", short: "list the agents that read this session: the version each last read, and its reads",
			long: "Kept by the session beside its graph (reading changes no version) and saved with it: after a crash\nthe counts may miss the last few reads, never a Commit's. A session keeps at most 1,024 agents: a new\none evicts the agent seen least recently. :agents forget NAME removes one (its next Recall is a first read).", run: (*Shell).metaAgents},
		{name: "set", args: "[KNOB VALUE]", short: "set a Recall budget: M, k, L, F, T (token target), view (interior|shell), peaks (on|off); a session setting (stale_reads …, pinned KIND,KIND); alone, list them",
			long: "Budgets may be lowered freely; values above the database's ceilings are refused.\n0 means the default for M, L, F and T; k 0 walks no hop (the seeds alone). :set KNOB default, or\n:set KNOB alone, takes the default again. :set pinned LAW,RULE keeps those kinds' nodes in every Recall of the\nsession (saved with it; :set pinned alone clears them). Example: :set M 20   :set k 0   :set view shell", run: (*Shell).metaSet},
		{name: "param", args: "NAME VALUE", short: "set $NAME for every following statement; VALUE is a GQL literal: 1, 2.5, true, null, 'text', [1, 2], DATE '2026-01-31'",
			long: "VALUE is read by the GQL literal rules, as in a statement: integers are 64-bit, DATE and DATETIME\nliterals are typed values, strings take '…' or \"…\". ':param NAME' alone removes the parameter.", run: nil}, // meta passes the whole rest of the line to metaParamLine
		{name: "params", args: "[clear]", short: "list the parameters, or remove them all", run: (*Shell).metaParams},
		{name: "source", args: "FILE", short: "run the statements and meta-commands of FILE (Ctrl-C stops it)", run: (*Shell).metaSource},
		{name: "output", args: "[FILE]", short: "send results to FILE (created or emptied); alone, back to standard output",
			long: "Results (summaries, Shapes, notices) and the output of meta-commands go to FILE; errors stay on\nstandard error. As psql's \\o.", run: (*Shell).metaOutput},
		{name: "format", args: "[gql|json]", short: "print results as gql (summaries and Shapes) or json (one object per line)", run: (*Shell).metaFormat},
		{name: "timing", args: "[on|off]", short: "print the parse+plan, execute and emit time of each statement", run: (*Shell).metaTiming},
		{name: "quit", short: "leave gqlsh (also :exit, or Ctrl-D on an empty line)", run: (*Shell).metaQuit},
	}
}

// metaAliases are other names for the same commands.
var metaAliases = map[string]string{"exit": "quit", "q": "quit", "h": "help", "?": "help"}

func findMeta(name string) *metaCmd {
	if a, ok := metaAliases[name]; ok {
		name = a
	}
	for i := range metaCmds {
		if metaCmds[i].name == name {
			return &metaCmds[i]
		}
	}
	return nil
}

// MetaNames lists the meta-commands with their ':' ("help", "use", …).
func MetaNames() []string {
	out := make([]string, len(metaCmds))
	for i, m := range metaCmds {
		out[i] = ":" + m.name
	}
	return out
}

// metaErrorf builds the error of a meta-command: a GQLSTATUS error like
// every other (codes.go), placed on the meta-command's line by Meta.
func metaErrorf(code gqlstatus.Code, hint, format string, args ...any) *gqlstatus.Error {
	return &gqlstatus.Error{Code: code, Msg: fmt.Sprintf(format, args...), Hint: hint}
}

// Meta runs one meta-command line (":set M 20") typed at a prompt. Its
// output goes to standard output in format gql and to standard error in
// format json, so that standard output stays one JSON object per line.
// Errors are printed and returned.
func (sh *Shell) Meta(ctx context.Context, line string) error {
	return sh.meta(ctx, Meta{Text: strings.TrimSpace(line), Line: 1, Col: 1})
}

// meta runs the meta-command m. An error with no position of its own is
// placed on m's line when m comes from a script or a file, where the line
// says which of many it was.
func (sh *Shell) meta(ctx context.Context, m Meta) error {
	if m.Habit != "" && m.Text != ":quit" {
		fmt.Fprintf(sh.r.Err, "(%s is %s in gqlsh)\n", m.Habit, m.Text)
	}
	line := m.Text
	fields := strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), ":"))
	var err error
	switch {
	case len(fields) == 0:
		err = metaErrorf(codeUsage, ":help NAME explains one", "empty meta-command; %s", metaList())
	case findMeta(strings.ToLower(fields[0])) == nil:
		err = metaErrorf(codeUsage, ":help NAME explains one", "unknown meta-command :%s; %s", fields[0], metaList())
	default:
		mc := findMeta(strings.ToLower(fields[0]))
		switch mc.name {
		case "param":
			// the value is the rest of the line, spaces and all
			rest := strings.TrimPrefix(strings.TrimSpace(line), ":")
			at := len(line) - len(rest) + len(fields[0])
			rest = rest[len(fields[0]):]
			err = sh.metaParamLine(ctx, m, rest, at)
		case "export":
			// the token is the rest of the line after FILE
			rest := strings.TrimPrefix(strings.TrimSpace(line), ":")
			err = sh.metaExportLine(ctx, rest[len(fields[0]):])
		default:
			err = mc.run(sh, ctx, fields[1:])
		}
	}
	if err != nil {
		return sh.metaFail(err, m)
	}
	return nil
}

func metaList() string {
	return "the meta-commands are " + strings.Join(MetaNames(), " ")
}

func (sh *Shell) metaFail(err error, m Meta) error {
	if err == errSourced {
		return err // its statements' errors are printed already
	}
	var fe *fileError
	if errors.As(err, &fe) {
		sh.r.fail(err) // placed in its own file (a slice :absorb read)
		return err
	}
	var ge *gqlstatus.Error
	if !errors.As(err, &ge) {
		ge = metaErrorf(gqlstatus.Rollback, "", "%v", err)
	}
	if !ge.Pos.Valid() && (!sh.in.Interactive() || m.Source != "" || sh.depth > 0) {
		c := *ge
		c.Pos = gqlstatus.Pos{Line: m.Line, Col: m.Col, Offset: m.Offset}
		c.Line = strings.Repeat(" ", max(m.Col-1, 0)) + m.Text // only blanks precede a meta-command
		ge = &c
	}
	err = inFile(m.Source, ge)
	sh.r.fail(err)
	return err
}

// out is where meta-commands print.
func (sh *Shell) out() io.Writer {
	if sh.r.Format == FormatJSON {
		return sh.r.Err
	}
	return sh.r.Out
}

// printf prints a meta-command's output, made visible: it shows names and
// texts the session holds (see Visible).
func (sh *Shell) printf(format string, args ...any) {
	io.WriteString(sh.out(), Visible(fmt.Sprintf(format, args...)))
}

func wantArgs(args []string, min, max int, usage string) error {
	if len(args) < min || len(args) > max {
		return metaErrorf(codeUsage, "", "usage: %s", usage)
	}
	return nil
}

// helpTopics are :help topics that are not meta-commands: the shell's
// own, and those every interface serves (goldfish.Help: the attention
// envelope points agents to them, over the server too), so the shell
// prints the server's text byte for byte.
var helpTopics = withSharedHelp(map[string]string{
	"recall": `A Recall is one MATCH of node patterns with optional WHERE and LIMIT:
  MATCH (t:TSK {status: "open"}) LIMIT 1;
  MATCH (n:NOTE) WHERE n CONTAINS "cookie";
  MATCH ();                       -- the outline of the session
It prints the Shape: a comment header and one INSERT of at most M rows.
Budgets: :set M 20, :set k 1, :set view shell.`,
	"commit": `Every other statement is a Commit (one atomic Δ):
  INSERT (:TSK {nick: "TSK_login", status: "open"});
  MATCH (t:TSK {nick: "TSK_login"}) SET t:Settled, t.status = "done";
  MATCH (t:TSK {nick: "TSK_login"}) DETACH DELETE t;
It prints "ok v=N" and what changed.
A task is live until it has the label Settled, whatever its status says: a Recall that
matches nothing seeds the live tasks, and SET t:Settled recycles the nodes the task
reaches that carry delete_on_settle: true. A status alone settles nothing: a Commit that
sets a task's status to done, closed, finished, complete(d), resolved or cancel(l)ed and
leaves it without Settled gets a warning saying so.`,
	"transactions": `START TRANSACTION; … COMMIT; sends the statements between as one atomic Δ.
ROLLBACK; drops them. The prompt shows [tx] while a transaction is open.
At the prompt each statement is checked when it is typed: an error shows at once and the
transaction stays open, so type the statement again fixed, or ROLLBACK.`,
	"params": `:param NAME VALUE sets $NAME for every following Commit and Recall:
  :param status 'open'
  :param due DATE '2026-01-31'
  MATCH (t:TSK {status: $status});
:params lists them; :param NAME alone removes one; :params clear removes all.`,
})

// withSharedHelp adds goldfish's help topics to the shell's own.
func withSharedHelp(own map[string]string) map[string]string {
	for _, topic := range goldfish.HelpTopics() {
		own[topic], _ = goldfish.Help(topic)
	}
	return own
}

func (sh *Shell) metaHelp(_ context.Context, args []string) error {
	if len(args) == 0 {
		sh.printf("Statements end with ';' and may span lines. A MATCH of node patterns is a Recall\n" +
			"(it prints a Shape); anything else is a Commit. Meta-commands start with ':':\n")
		for _, m := range metaCmds {
			sh.printf("  %-22s %s\n", ":"+m.name+" "+m.args, m.short)
		}
		sh.printf("Topics: %s.\n"+
			"Keys: Tab completes, Up/Down and Ctrl-R search history, Ctrl-C clears the input or stops\n"+
			"what runs, Ctrl-D on an empty line quits.\n", strings.Join(topicList(":help "), ", "))
		return nil
	}
	topic := strings.ToLower(strings.TrimPrefix(args[0], ":"))
	if t, ok := helpTopics[topic]; ok {
		sh.printf("%s\n", t)
		return nil
	}
	m := findMeta(topic)
	if m == nil {
		return metaErrorf(codeUsage, "", "no help for %q; topics are %s, and the meta-commands %s",
			args[0], strings.Join(topicList(""), ", "), strings.Join(MetaNames(), " "))
	}
	sh.printf(":%s %s\n  %s\n", m.name, m.args, m.short)
	if m.long != "" {
		sh.printf("  %s\n", strings.ReplaceAll(m.long, "\n", "\n  "))
	}
	return nil
}

// topicList is the help topics, sorted, each after prefix.
func topicList(prefix string) []string {
	out := make([]string, 0, len(helpTopics))
	for _, t := range slices.Sorted(maps.Keys(helpTopics)) {
		out = append(out, prefix+t)
	}
	return out
}

func (sh *Shell) metaUse(ctx context.Context, args []string) error {
	if err := wantArgs(args, 1, 1, ":use SESSION"); err != nil {
		return err
	}
	if sh.host == nil {
		return metaErrorf(codeUsage, "", ":use needs the database; this shell runs on one session")
	}
	if sh.r.InTransaction() {
		return metaErrorf(codeTxState, "", "a transaction is open on %s; COMMIT or ROLLBACK before :use", sh.r.Session.Name())
	}
	name := args[0]
	names, err := sh.host.Sessions(ctx)
	if err != nil {
		return err
	}
	existed := slices.Contains(names, name)
	s, err := sh.host.Session(ctx, name)
	if err != nil {
		return err
	}
	sh.r.Session = s
	if name == goldfish.CatalogName {
		sh.printf("using the %s (read-only, version %d): one SESSION node per session; MATCH (s:SESSION) LIMIT 4;\n", name, s.Version())
		return nil
	}
	if existed {
		sh.printf("using session %s (version %d)\n", name, s.Version())
	} else {
		sh.printf("using session %s: a new, empty session (its first Commit makes it)\n", name)
	}
	return nil
}

func (sh *Shell) metaSessions(ctx context.Context, args []string) error {
	if err := wantArgs(args, 0, 0, ":sessions"); err != nil {
		return err
	}
	cur := sh.r.Session.Name()
	if sh.host == nil {
		sh.printf("* %s v=%d\n", cur, sh.r.Session.Version())
		return nil
	}
	infos, err := sh.host.SessionInfos(ctx)
	if err != nil {
		return err
	}
	if cur != goldfish.CatalogName && !slices.ContainsFunc(infos, func(i goldfish.SessionInfo) bool { return i.Name == cur }) {
		infos = append(infos, goldfish.SessionInfo{Name: cur, Version: sh.r.Session.Version()})
		sort.Slice(infos, func(i, j int) bool { return infos[i].Name < infos[j].Name })
	}
	if len(infos) == 0 {
		sh.printf("no sessions yet; :use NAME makes one\n")
	}
	width := 0
	for _, in := range infos {
		width = max(width, len(in.Name))
	}
	if cur == goldfish.CatalogName {
		sh.printf("* %s (read-only: one SESSION node per session)\n", cur)
	}
	for _, in := range infos {
		mark := " "
		if in.Name == cur {
			mark = "*"
		}
		line := fmt.Sprintf("%s %-*s v=%d nodes=%d edges=%d", mark, width, in.Name, in.Version, in.Nodes, in.Edges)
		if in.Recycled > 0 {
			line += fmt.Sprintf(" recycled=%d", in.Recycled)
		}
		sh.printf("%s\n", line)
	}
	return nil
}

func (sh *Shell) metaDrop(ctx context.Context, args []string) error {
	if err := wantArgs(args, 1, 1, ":drop NAME (the session to delete for good)"); err != nil {
		return err
	}
	if sh.host == nil {
		return metaErrorf(codeUsage, "", ":drop needs the database; this shell runs on one session")
	}
	name := args[0]
	switch {
	case name == goldfish.CatalogName:
		return metaErrorf(codeReadOnly, "", "the %s lists the sessions and cannot be dropped", goldfish.CatalogName)
	case name == sh.r.Session.Name():
		return metaErrorf(codeValue, "", "%s is the current session and cannot be dropped; :use another session first", name)
	}
	if err := goldfish.ValidSessionName(name); err != nil {
		return err
	}
	infos, err := sh.host.SessionInfos(ctx)
	if err != nil {
		return err
	}
	names, err := sh.host.Sessions(ctx)
	if err != nil {
		return err
	}
	var info *goldfish.SessionInfo
	for _, in := range infos {
		if in.Name == name {
			info = &in
			break
		}
	}
	if info == nil && !slices.Contains(names, name) {
		return metaErrorf(codeNoSuch, ":sessions lists them", "there is no session %q to drop", name)
	}
	if err := sh.host.Drop(ctx, name); err != nil {
		return err
	}
	if info != nil {
		sh.printf("dropped session %s (v=%d nodes=%d edges=%d); it is gone for good\n", name, info.Version, info.Nodes, info.Edges)
	} else {
		sh.printf("dropped session %s; it is gone for good\n", name)
	}
	return nil
}

func (sh *Shell) metaPurge(ctx context.Context, args []string) error {
	if err := wantArgs(args, 0, 0, ":purge (removes the current session's recycled elements)"); err != nil {
		return err
	}
	s := sh.r.Session
	if sh.r.InTransaction() {
		return metaErrorf(codeTxState, "", "a transaction is open on %s; COMMIT or ROLLBACK before :purge", s.Name())
	}
	n, err := s.Purge(ctx)
	if err != nil {
		return userError(err, s.Name())
	}
	if n == 0 {
		sh.printf("nothing to purge: %s has no recycled elements (v=%d)\n", s.Name(), s.Version())
		return nil
	}
	sh.printf("purged %d recycled %s from %s: v=%d\n", n, plural(n, "element", "elements"), s.Name(), s.Version())
	return nil
}

func (sh *Shell) metaFlush(ctx context.Context, args []string) error {
	if err := wantArgs(args, 0, 0, ":flush"); err != nil {
		return err
	}
	path := ""
	if sh.host != nil {
		var err error
		if path, err = sh.host.Flush(ctx); err != nil {
			return err
		}
	}
	if path == "" {
		sh.printf("nothing to flush: the sessions are in memory (%s --mem)\n", sh.command())
		return nil
	}
	sh.printf("flushed to %s\n", path)
	return nil
}

// command is the command that holds the sessions, for messages: gqlsh,
// or gqlsh serve for the shell on a server.
func (sh *Shell) command() string {
	if sh.host != nil && sh.host.Remote() != "" {
		return "gqlsh serve"
	}
	return "gqlsh"
}

func (sh *Shell) metaAgent(_ context.Context, args []string) error {
	if err := wantArgs(args, 0, 1, ":agent [NAME]"); err != nil {
		return err
	}
	switch {
	case len(args) == 0 && sh.r.Agent == "":
		sh.printf("no agent set; :agent NAME reads and commits as NAME\n")
	case len(args) == 0:
		sh.printf("agent %s\n", sh.r.Agent)
	case args[0] == "-":
		sh.r.Agent = ""
		sh.printf("agent cleared: Recalls and Commits name no agent\n")
	default:
		if err := goldfish.ValidAgentName(args[0]); err != nil {
			return metaErrorf(codeName, "e.g. :agent planner", "agent name %q: use 1 to %d letters, digits, '_', '-' and '.', not starting with '-' or '.'",
				args[0], goldfish.MaxAgentName)
		}
		sh.r.Agent = args[0]
		sh.printf("agent %s: Recalls and Commits name it\n", sh.r.Agent)
	}
	return nil
}

func (sh *Shell) metaAgents(ctx context.Context, args []string) error {
	if len(args) == 2 && args[0] == "forget" {
		if err := sh.r.Session.ForgetAgent(ctx, args[1]); err != nil {
			return err
		}
		sh.printf("forgot agent %s of session %s\n", args[1], sh.r.Session.Name())
		return nil
	}
	if err := wantArgs(args, 0, 0, ":agents [forget NAME]"); err != nil {
		return err
	}
	list, err := sh.r.Session.Agents(ctx)
	if err != nil {
		return err
	}
	if len(list) == 0 {
		sh.printf("no agent has read session %s; :agent NAME names the reader\n", sh.r.Session.Name())
		return nil
	}
	width := 0
	for _, a := range list {
		width = max(width, len(a.Name))
	}
	for _, a := range list {
		mark := " "
		if a.Name == sh.r.Agent {
			mark = "*"
		}
		sh.printf("%s %-*s last read v=%d reads=%d\n", mark, width, a.Name, a.LastRead, a.Reads)
	}
	return nil
}

// knobs lists the :set names in the order :set prints them.
// The Recall's own knobs come first, then the session's attention
// settings (stored with the session, for every agent that reads it).
var knobs = append(append([]string{"M", "k", "L", "F", "T", "view", "whole", "after", "peaks", "depth", "only", "at"}, goldfish.AttentionSettingNames...), "pinned")

func (sh *Shell) metaSet(ctx context.Context, args []string) error {
	if len(args) == 1 && strings.Contains(args[0], "=") { // :set M=20
		k, v, _ := strings.Cut(args[0], "=")
		args = []string{k, v}
	}
	if len(args) == 1 && strings.EqualFold(args[0], "only") { // :set only: every section again
		sh.r.Recall.Only = nil
		sh.printf("only = (every section)\n")
		return nil
	}
	if len(args) == 1 && slices.Contains([]string{"m", "k", "l", "f", "t", "at"}, strings.ToLower(args[0])) {
		args = append(args, "default") // :set k: the default again
	}
	if len(args) == 2 && slices.Contains(goldfish.AttentionSettingNames, strings.ToLower(args[0])) {
		return sh.setAttention(ctx, strings.ToLower(args[0]), args[1])
	}
	if len(args) >= 1 && strings.EqualFold(args[0], "pinned") { // :set pinned LAW,RULE; :set pinned alone clears
		return sh.setPinned(ctx, goldfish.ParseKinds(strings.Join(args[1:], ",")))
	}
	if len(args) == 0 {
		return sh.showKnobs(ctx)
	}
	if len(args) != 2 {
		return metaErrorf(codeUsage, ":set alone lists them", "usage: :set KNOB VALUE with KNOB one of %s", strings.Join(knobs, ", "))
	}
	name, val := args[0], args[1]
	o := &sh.r.Recall
	num := func(dst *int, ceiling int) error {
		if strings.EqualFold(val, "default") {
			*dst, val = 0, "(default)"
			return nil
		}
		n, err := strconv.Atoi(val)
		if err != nil || n < 0 {
			return metaErrorf(codeValue, "", "%s takes a whole number ≥ 0 (0 for the default), not %q", name, val)
		}
		if n > ceiling {
			return metaErrorf(codeCeiling, "narrow the token, use view shell, or split the session",
				"%s=%d is above its ceiling %d", name, n, ceiling)
		}
		*dst = n
		return nil
	}
	var err error
	switch strings.ToLower(name) {
	case "m":
		err = num(&o.M, sh.ceilings.M)
	case "k":
		val, err = sh.setK(o, val)
	case "l":
		err = num(&o.L, sh.ceilings.L)
	case "f":
		err = num(&o.F, sh.ceilings.F)
	case "t":
		err = num(&o.T, math.MaxInt32) // a target, not a budget: no ceiling
	case "view":
		switch strings.ToLower(val) {
		case "interior", "shell":
			o.View = strings.ToLower(val)
		default:
			err = metaErrorf(codeValue, "", "view is interior or shell, not %q", val)
		}
	case "peaks":
		switch strings.ToLower(val) {
		case "on", "true":
			o.NoPeaks = false
		case "off", "false":
			o.NoPeaks = true
		default:
			err = metaErrorf(codeValue, "", "peaks is on or off, not %q", val)
		}
	case "after":
		n, perr := strconv.Atoi(val)
		if perr != nil || n < 0 {
			err = metaErrorf(codeValue, "", "after is a number of neighbours, 0 or more, not %q", val)
		} else {
			o.After = n
		}
	case "whole":
		switch strings.ToLower(val) {
		case "on", "true":
			o.Whole = true
		case "off", "false":
			o.Whole = false
		default:
			err = metaErrorf(codeValue, "", "whole is on or off, not %q", val)
		}
	case "depth":
		switch strings.ToLower(val) {
		case "lean", "full":
			o.Depth = strings.ToLower(val)
		default:
			err = metaErrorf(codeValue, "", "depth is lean or full, not %q", val)
		}
	case "at":
		val, err = setAt(o, val)
	case "only":
		var secs []string
		for _, p := range strings.Split(val, ",") {
			p = strings.ToLower(strings.TrimSpace(p))
			switch p {
			case "":
			case "shape", "views", "actions", "attention":
				secs = append(secs, p)
			default:
				err = metaErrorf(codeValue, ":set only alone keeps every section again",
					"only takes sections from shape, views, actions and attention, not %q", p)
			}
		}
		if err == nil {
			o.Only = secs
			if len(secs) == 0 {
				val = "(every section)"
			}
		}
	default:
		err = metaErrorf(codeValue, "", "unknown knob %q; the knobs are %s", name, strings.Join(knobs, ", "))
	}
	if err != nil {
		return err
	}
	sh.printf("%s = %s\n", name, val)
	return nil
}

// setAt sets the version Recalls read as of: a version number, or
// "newest" (also 0 and "default") for the newest.
func setAt(o *goldfish.RecallOptions, val string) (string, error) {
	switch strings.ToLower(val) {
	case "newest", "default", "0":
		o.AtVersion = 0
		return "(the newest version)", nil
	}
	n, err := strconv.ParseUint(val, 10, 64)
	if err != nil || n == 0 {
		return val, metaErrorf(codeValue, ":set at newest reads the newest version again", "at takes a version number ≥ 1, not %q", val)
	}
	o.AtVersion = n
	return val, nil
}

// showKnobs prints every :set knob with its value, then the session's
// own settings.
func (sh *Shell) showKnobs(ctx context.Context) error {
	o := sh.r.Recall
	d := goldfish.DefaultRecall
	show := func(v, def, ceiling int) string {
		if v == 0 {
			return strconv.Itoa(min(def, ceiling)) + " (default)"
		}
		return strconv.Itoa(v)
	}
	view := o.View
	if view == "" {
		view = "interior (default)"
	}
	peaks := "on"
	if o.NoPeaks {
		peaks = "off"
	}
	c := sh.ceilings
	sh.printf("M      %s  (ceiling %d)\n", show(o.M, d.M, c.M), c.M)
	k := show(o.K, d.K, c.K)
	if o.K == goldfish.NoWalk {
		k = "0 (no walk: the seeds alone)"
	}
	sh.printf("k      %s  (ceiling %d)\n", k, c.K)
	sh.printf("L      %s  (ceiling %d)\n", show(o.L, d.L, c.L), c.L)
	sh.printf("F      %s  (ceiling %d)\n", show(o.F, d.F, c.F), c.F)
	sh.printf("T      %s  (token target)\n", show(o.T, d.T, d.T))
	sh.printf("view   %s\n", view)
	whole := "off (default: the first ring brief, farther rings by identity)"
	if o.Whole {
		whole = "on"
	}
	sh.printf("whole  %s\n", whole)
	sh.printf("after  %d\n", o.After)
	sh.printf("peaks  %s\n", peaks)
	if o.AtVersion != 0 {
		sh.printf("at     %d (Recalls read as of this version; :set at newest for the newest)\n", o.AtVersion)
	} else {
		sh.printf("at     the newest version\n")
	}
	depth := o.Depth
	if depth == "" {
		depth = "lean (default)"
	}
	sh.printf("depth  %s\n", depth)
	only := strings.Join(o.Only, ",")
	if only == "" {
		only = "(every section)"
	}
	sh.printf("only   %s\n", only)
	set, err := sh.r.Session.AttentionSettings(ctx)
	if err != nil {
		return err
	}
	sh.printf("session %s: %s\n", sh.r.Session.Name(), set)
	pinned, err := sh.r.Session.PinnedKinds(ctx)
	if err != nil {
		return err
	}
	sh.printf("session %s: pinned %s\n", sh.r.Session.Name(), pinnedWords(pinned))
	return nil
}

// setK sets k from its :set value: k = 0 is a value, the seeds alone
// (NoWalk); the default is asked with :set k default, or :set k alone.
// It returns the value as :set echoes it.
func (sh *Shell) setK(o *goldfish.RecallOptions, val string) (string, error) {
	if strings.EqualFold(val, "default") {
		o.K = 0
		return "(default)", nil
	}
	n, err := strconv.Atoi(val)
	switch {
	case err != nil || n < 0:
		return val, metaErrorf(codeValue, ":set k default (or :set k alone) takes the default again",
			"k takes a whole number ≥ 0 (0: no walk, the seeds alone) or default, not %q", val)
	case n > sh.ceilings.K:
		return val, metaErrorf(codeCeiling, "narrow the token, use view shell, or split the session",
			"k=%d is above its ceiling %d", n, sh.ceilings.K)
	case n == 0:
		o.K = goldfish.NoWalk
		return "0 (no walk: the seeds alone)", nil
	}
	o.K = n
	return val, nil
}

// setAttention sets one of the session's attention settings, durably.
func (sh *Shell) setAttention(ctx context.Context, name, val string) error {
	cur, err := sh.r.Session.AttentionSettings(ctx)
	if err != nil {
		return err
	}
	next, err := goldfish.SetAttentionSetting(cur, name, val)
	if err != nil {
		return err
	}
	if err := sh.r.Session.SetAttentionSettings(ctx, next); err != nil {
		return err
	}
	sh.printf("session %s: %s\n", sh.r.Session.Name(), next)
	return nil
}

// setPinned sets the session's pinned kinds, durably (none: clears).
func (sh *Shell) setPinned(ctx context.Context, kinds []string) error {
	if err := sh.r.Session.SetPinnedKinds(ctx, kinds); err != nil {
		return err
	}
	cur, err := sh.r.Session.PinnedKinds(ctx)
	if err != nil {
		return err
	}
	sh.printf("session %s: pinned %s\n", sh.r.Session.Name(), pinnedWords(cur))
	return nil
}

// pinnedWords shows pinned kinds as :set pinned takes them.
func pinnedWords(kinds []string) string {
	if len(kinds) == 0 {
		return "(none)"
	}
	return strings.Join(kinds, ",")
}

func (sh *Shell) metaFormat(_ context.Context, args []string) error {
	if err := wantArgs(args, 0, 1, ":format [gql|json]"); err != nil {
		return err
	}
	if len(args) == 0 {
		sh.printf("format %s\n", sh.r.Format)
		return nil
	}
	f, err := ParseFormat(args[0])
	if err != nil {
		return metaErrorf(codeValue, "", "%v", err)
	}
	sh.r.Format = f
	sh.printf("format %s\n", f)
	return nil
}

func (sh *Shell) metaTiming(_ context.Context, args []string) error {
	if err := wantArgs(args, 0, 1, ":timing [on|off]"); err != nil {
		return err
	}
	if len(args) == 1 {
		switch strings.ToLower(args[0]) {
		case "on", "true":
			sh.r.Timing = true
		case "off", "false":
			sh.r.Timing = false
		default:
			return metaErrorf(codeUsage, "", "usage: :timing on|off")
		}
	}
	state := "off"
	if sh.r.Timing {
		state = "on"
	}
	sh.printf("timing %s\n", state)
	return nil
}

func (sh *Shell) metaQuit(_ context.Context, args []string) error {
	if err := wantArgs(args, 0, 0, ":quit"); err != nil {
		return err
	}
	sh.quit = true
	return nil
}

// userError rewords the engine's errors that name its Go API, for a
// person at the shell.
func userError(err error, session string) error {
	switch {
	case errors.Is(err, goldfish.ErrDropped):
		return metaErrorf(codeNoSuch, ":use "+session+" makes a new, empty one", "session %s was dropped", session)
	case errors.Is(err, goldfish.ErrClosed):
		return metaErrorf(gqlstatus.Rollback, "start gqlsh again", "the database is closed")
	}
	var ge *gqlstatus.Error
	if errors.As(err, &ge) && ge.Code == gqlstatus.InvalidReference && strings.HasPrefix(ge.Msg, "parameter $") &&
		strings.HasSuffix(ge.Msg, " is not given") && strings.HasPrefix(ge.Hint, "pass a value for ") {
		// The engine's hint names its API; in the shell a value is
		// given with :param.
		name := strings.TrimSuffix(strings.TrimPrefix(ge.Msg, "parameter $"), " is not given")
		c := *ge
		c.Hint = ":param " + name + " VALUE gives it a value for every following statement (:params lists them)"
		return &c
	}
	return err
}
