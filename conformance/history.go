package conformance

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/goldfish-gql/goldfish"
)

// The directives that read a session's past (docs/design.md#persistence-and-history, History):
//
//	diff from=A to=B [nick=N,M] [kind=K,L]   the Δ from version A to B
//	diffcheck from=A to=B                    Diff(0,A) then Diff(A,B) committed on a fresh session give version B
//	history nick=N [limit=L]                 the versions that changed the node
//
// diffcheck compares the node and edge lines of the dumps only: a copy
// made by Δs holds the same graph, but its recycled count may differ.

// historyArgs are the arguments of each of these directives.
var historyArgs = map[string]map[string]bool{
	"diff":      {"from": true, "to": true, "nick": true, "kind": true},
	"diffcheck": {"from": true, "to": true},
	"history":   {"nick": true, "limit": true},
}

func versionsArg(args map[string]string) (from, to uint64, err error) {
	if from, err = strconv.ParseUint(args["from"], 10, 64); err != nil {
		return 0, 0, fmt.Errorf("from=%q is not a version", args["from"])
	}
	if to, err = strconv.ParseUint(args["to"], 10, 64); err != nil {
		return 0, 0, fmt.Errorf("to=%q is not a version", args["to"])
	}
	return from, to, nil
}

func listArg(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

func (e *Engine) diff(ctx context.Context, session string, d Directive) (string, error) {
	from, to, err := versionsArg(d.Args)
	if err != nil {
		return "", err
	}
	df, err := e.t.Diff(ctx, session, from, to, goldfish.DiffOptions{Nicks: listArg(d.Args["nick"]), Kinds: listArg(d.Args["kind"])})
	if err != nil {
		return formatOutcome(nil, err)
	}
	return df.Text, nil
}

// graphLines is a dump's node and edge lines, without its counts line.
func graphLines(dump string) string {
	lines := strings.SplitN(dump, "\n", 3)
	if len(lines) < 3 {
		return ""
	}
	return lines[2]
}

func (e *Engine) diffcheck(ctx context.Context, session string, d Directive) (string, error) {
	from, to, err := versionsArg(d.Args)
	if err != nil {
		return "", err
	}
	e.scratch++
	copyName := fmt.Sprintf("%s_diffcheck%d", session, e.scratch)
	var out strings.Builder
	step := func(a, b uint64) (bool, error) {
		df, err := e.t.Diff(ctx, session, a, b, goldfish.DiffOptions{})
		if err != nil {
			s, err := formatOutcome(nil, err)
			out.WriteString(fmt.Sprintf("Diff(%d, %d): %s", a, b, s))
			return false, err
		}
		if !df.Empty() {
			if _, err := e.t.Commit(ctx, copyName, df.Text, "", ""); err != nil {
				s, err := formatOutcome(nil, err)
				out.WriteString(fmt.Sprintf("Diff(%d, %d) does not commit: %s", a, b, s))
				return false, err
			}
		}
		want, err := e.t.DumpAt(ctx, session, b)
		if err != nil {
			s, err := formatOutcome(nil, err)
			out.WriteString(s)
			return false, err
		}
		got, err := e.t.Dump(ctx, copyName)
		if err != nil {
			return false, err
		}
		if graphLines(got) != graphLines(want) {
			out.WriteString(fmt.Sprintf("Diff(%d, %d) committed gives\n%swant\n%s", a, b, graphLines(got), graphLines(want)))
			return false, nil
		}
		out.WriteString(fmt.Sprintf("Diff(%d, %d) committed gives version %d: %d rows\n", a, b, b, df.Rows))
		return true, nil
	}
	if from > 0 {
		if ok, err := step(0, from); !ok || err != nil {
			return out.String(), err
		}
	}
	_, err = step(from, to)
	return out.String(), err
}

func (e *Engine) history(ctx context.Context, session string, d Directive) (string, error) {
	limit := 0
	if l, ok := d.Args["limit"]; ok {
		n, err := strconv.Atoi(l)
		if err != nil {
			return "", fmt.Errorf("limit=%q is not a number", l)
		}
		limit = n
	}
	h, err := e.t.History(ctx, session, d.Args["nick"], limit)
	if err != nil {
		return formatOutcome(nil, err)
	}
	var b strings.Builder
	for _, en := range h.Entries {
		who := en.Agent
		if who == "" {
			who = "no agent"
		}
		// The time is the clock's: shown only as kept or not.
		fmt.Fprintf(&b, "-- version %d, %s by %s (time kept: %v)\n%s", en.Version, en.How, who, !en.Time.IsZero(), en.Change.Text)
	}
	if h.More {
		b.WriteString("-- more\n")
	}
	if len(h.Entries) == 0 {
		b.WriteString("-- none\n")
	}
	return b.String(), nil
}
