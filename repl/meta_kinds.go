package repl

import (
	"context"
	"strconv"
	"strings"

	goldfish "github.com/goldfish-gql/goldfish"
)

// metaKinds lists the session's kinds as a schema would: the nodes, the
// property keys and the edge types of each.
func (sh *Shell) metaKinds(ctx context.Context, args []string) error {
	if err := wantArgs(args, 0, 1, ":kinds [KIND]"); err != nil {
		return err
	}
	kind := ""
	if len(args) == 1 {
		kind = args[0]
	}
	ks, err := sh.r.Session.Kinds(ctx, kind)
	if err != nil {
		return err
	}
	if len(ks) == 0 || kind != "" && ks[0].Nodes == 0 {
		if kind != "" {
			sh.printf("no node of kind %s in session %s (kinds are case-sensitive; :kinds lists them)\n", kind, sh.r.Session.Name())
		} else {
			sh.printf("session %s holds no node yet\n", sh.r.Session.Name())
		}
		return nil
	}
	for _, k := range ks {
		sh.printf("%s  %d %s\n", k.Kind, k.Nodes, plural(k.Nodes, "node", "nodes"))
		sh.printf("  keys  %s\n", countList(k.Keys))
		if len(k.Out) > 0 {
			sh.printf("  out   %s\n", countList(k.Out))
		}
		if len(k.In) > 0 {
			sh.printf("  in    %s\n", countList(k.In))
		}
	}
	return nil
}

// countList writes "name (count), …", or "(none)".
func countList(l []goldfish.NameCount) string {
	if len(l) == 0 {
		return "(none)"
	}
	parts := make([]string, len(l))
	for i, x := range l {
		parts[i] = x.Name + " (" + strconv.Itoa(x.Count) + ")"
	}
	return strings.Join(parts, ", ")
}

// habits are what a psql or sqlite3 user types by habit, at the start
// of a line, and the meta-command that does the job here.
var habits = map[string]string{
	"exit": ":quit", "quit": ":quit", `\q`: ":quit", ".quit": ":quit", ".exit": ":quit",
	".tables": ":kinds", `\dt`: ":kinds", ".schema": ":kinds", `\d`: ":kinds",
	`\l`: ":sessions", ".databases": ":sessions", `\?`: ":help", ".help": ":help", "help": ":help",
}

// habit returns the meta-command a line typed by habit stands for ("" if
// it is not one): the word alone, perhaps with a ';', and for \d and
// .schema a kind.
func habit(line string) string {
	f := strings.Fields(strings.TrimSuffix(strings.TrimSpace(line), ";"))
	if len(f) == 0 || len(f) > 2 {
		return ""
	}
	m, ok := habits[strings.ToLower(f[0])] // EXIT and HELP too; a kind keeps its case
	switch {
	case !ok:
		return ""
	case len(f) == 2 && m == ":kinds" && (f[0] == `\d` || strings.EqualFold(f[0], ".schema")):
		return m + " " + f[1]
	case len(f) == 2:
		return ""
	}
	return m
}
