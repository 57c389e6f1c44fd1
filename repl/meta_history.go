package repl

import (
	"context"
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/goldfish-gql/goldfish"
)

// The meta-commands that read a session's past as GQL (docs/design.md#persistence-and-history,
// History): :diff and :history.

const (
	diffUsage    = ":diff FROM TO [nick=N …] [kind=K …]"
	historyUsage = ":history NICK [limit=N]"
)

// metaDiff runs ":diff FROM TO [nick=N …] [kind=K …]" and prints the Δ,
// which committed on a copy of version FROM gives version TO.
func (sh *Shell) metaDiff(ctx context.Context, args []string) error {
	if len(args) < 2 {
		return metaErrorf(codeUsage, "e.g. :diff 0 5 (version 0 is the empty graph)", "usage: %s", diffUsage)
	}
	from, err := versionArg("FROM", args[0])
	if err != nil {
		return err
	}
	to, err := versionArg("TO", args[1])
	if err != nil {
		return err
	}
	var o goldfish.DiffOptions
	for _, a := range args[2:] {
		key, val, ok := strings.Cut(a, "=")
		switch {
		case ok && val != "" && strings.EqualFold(key, "nick"):
			o.Nicks = append(o.Nicks, val)
		case ok && val != "" && strings.EqualFold(key, "kind"):
			o.Kinds = append(o.Kinds, val)
		default:
			return metaErrorf(codeUsage, "narrow a diff with nick=NICK or kind=KIND, each as often as wanted", "usage: %s (not %q)", diffUsage, a)
		}
	}
	if sh.r.Session == nil {
		return metaErrorf(codeUsage, "", "no session to diff")
	}
	d, err := sh.r.Session.Diff(ctx, from, to, o)
	if err != nil {
		return userError(err, sh.r.Session.Name())
	}
	if sh.r.Format == FormatJSON {
		return sh.printJSON(d)
	}
	sh.printf("%s", d.Text)
	return nil
}

// metaHistory runs ":history NICK [limit=N]": the versions that changed
// the node, newest first, each with its agent, time and change.
func (sh *Shell) metaHistory(ctx context.Context, args []string) error {
	if err := wantArgs(args, 1, 2, historyUsage); err != nil {
		return err
	}
	limit := 0
	if len(args) == 2 {
		key, val, ok := strings.Cut(args[1], "=")
		n, err := strconv.Atoi(val)
		if !ok || !strings.EqualFold(key, "limit") || err != nil || n < 1 || n > 1000 {
			return metaErrorf(codeValue, "limit=N lists at most N versions, 1 to 1000 (20 by default)", "usage: %s (not %q)", historyUsage, args[1])
		}
		limit = n
	}
	if sh.r.Session == nil {
		return metaErrorf(codeUsage, "", "no session to read")
	}
	h, err := sh.r.Session.History(ctx, args[0], limit)
	if err != nil {
		return userError(err, sh.r.Session.Name())
	}
	if sh.r.Format == FormatJSON {
		return sh.printJSON(historyJSON(h))
	}
	if len(h.Entries) == 0 {
		sh.printf("no readable version changed %s (versions from %d are readable)\n", args[0], h.Oldest)
	}
	for _, e := range h.Entries {
		sh.printf("-- version %d, %s by %s%s\n", e.Version, e.How, agentName(e.Agent), timeText(e.Time))
		sh.printf("%s", e.Change.Text)
	}
	if h.More {
		sh.printf("-- more versions changed %s before these: :history %s limit=N shows more\n", args[0], args[0])
	}
	return nil
}

func versionArg(name, s string) (uint64, error) {
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, metaErrorf(codeValue, "a version is a whole number: 0 (the empty graph) or one the session made", "%s %q is not a version", name, s)
	}
	return v, nil
}

func agentName(a string) string {
	if a == "" {
		return "no agent"
	}
	return a
}

func timeText(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return " at " + t.UTC().Format(time.RFC3339)
}

// printJSON writes v as one line of JSON on standard output, as results
// are in format json.
func (sh *Shell) printJSON(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = io.WriteString(sh.r.Out, Visible(string(b))+"\n")
	return err
}

type historyOut struct {
	Nick    string         `json:"nick"`
	Entries []historyEntry `json:"entries"`
	More    bool           `json:"more"`
	Oldest  uint64         `json:"oldest"`
}

type historyEntry struct {
	Version uint64         `json:"version"`
	How     string         `json:"how"`
	Agent   string         `json:"agent"`
	Time    string         `json:"time,omitempty"`
	Change  *goldfish.Diff `json:"change"`
}

func historyJSON(h *goldfish.History) historyOut {
	out := historyOut{Nick: h.Nick, More: h.More, Oldest: h.Oldest, Entries: []historyEntry{}}
	for _, e := range h.Entries {
		he := historyEntry{Version: e.Version, How: e.How, Agent: e.Agent, Change: e.Change}
		if !e.Time.IsZero() {
			he.Time = e.Time.UTC().Format(time.RFC3339Nano)
		}
		out.Entries = append(out.Entries, he)
	}
	return out
}
