package repl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/gqlstatus"
)

// The meta-commands that move slices between sessions: :export and
// :absorb (docs/design.md#sessions-slices-and-model-snap).

const exportUsage = ":export FILE Q (Q a Recall's token, e.g. MATCH (t:TSK {nick: \"TSK_login\"}))"

// metaExportLine runs ":export FILE Q": rest is the line after the
// command's name, the token being the rest of it, spaces and all.
func (sh *Shell) metaExportLine(ctx context.Context, rest string) error {
	rest = strings.TrimSpace(rest)
	path, q, _ := strings.Cut(rest, " ")
	q = strings.TrimSuffix(strings.TrimSpace(q), ";")
	if path == "" || strings.TrimSpace(q) == "" {
		return metaErrorf(codeUsage, "", "usage: %s", exportUsage)
	}
	if sh.r.Session == nil {
		return metaErrorf(codeUsage, "", "no session to export from")
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return metaErrorf(codeFile, "give a file name", "cannot write %s: it is a directory, not a file", path)
	}
	o := sh.r.Recall
	sl, err := sh.r.Session.ExportSlice(ctx, q, goldfish.SliceOptions{M: o.M, K: o.K, L: o.L, F: o.F, Params: sh.r.Params})
	if err != nil {
		return userError(err, sh.r.Session.Name())
	}
	if err := os.WriteFile(path, []byte(sl.Text), 0o644); err != nil {
		return fileErr("cannot write", path, err)
	}
	sh.printf("exported %d %s (%d %s, %d %s; bound %d) of session %s version %d to %s\n",
		sl.Rows, plural(sl.Rows, "row", "rows"), sl.Nodes, plural(sl.Nodes, "node", "nodes"), sl.Edges, plural(sl.Edges, "edge", "edges"),
		sl.Bound, sh.r.Session.Name(), sl.Version, path)
	for _, n := range sl.Notices {
		sh.printf("%s\n", NoticeLine(n))
	}
	return nil
}

func (sh *Shell) metaAbsorb(ctx context.Context, args []string) error {
	if err := wantArgs(args, 2, 2, ":absorb FILE keep|reject|remint"); err != nil {
		return err
	}
	path := args[0]
	policy, err := goldfish.ParseAbsorbPolicy(strings.ToLower(args[1]))
	if err != nil {
		return metaErrorf(codeValue, "keep keeps the slice's ids (a clash fails it), reject skips clashing elements, remint gives fresh ids",
			"%q is not an Absorb policy", args[1])
	}
	if sh.r.InTransaction() {
		return metaErrorf(codeTxState, "COMMIT or ROLLBACK first", "an Absorb is a Δ of its own; a transaction is open")
	}
	f, err := openText("cannot read", path)
	if err != nil {
		return err
	}
	defer f.Close()
	// A slice is at most MaxSliceBytes: reading one byte more tells a
	// larger file, which is not read whole.
	b, err := io.ReadAll(io.LimitReader(f, goldfish.MaxSliceBytes+1))
	if err != nil {
		return fileErr("cannot read", path, err)
	}
	if len(b) > goldfish.MaxSliceBytes {
		return metaErrorf(codeSliceBound, "a slice is what :export writes: export fewer anchors or a smaller M",
			"%s is over the slice bound of %d bytes; nothing applied", path, goldfish.MaxSliceBytes)
	}
	var t goldfish.Timing
	res, err := sh.r.Session.AbsorbWith(ctx, string(b), policy, goldfish.CommitOptions{Agent: sh.r.Agent, Timing: &t})
	if err != nil {
		err = userError(err, sh.r.Session.Name())
		var ge *gqlstatus.Error
		if errors.As(err, &ge) && ge.Pos.Valid() {
			return inFile(path, ge) // the position is in the slice's file
		}
		return err
	}
	if sh.r.Format == FormatJSON {
		writeJSON(sh.r.Out, resultJSON(&res.CommitResult, 1))
		return nil
	}
	line := res.CommitResult.Summary()
	var what []string
	if res.Unchanged > 0 {
		what = append(what, fmt.Sprintf("%d unchanged", res.Unchanged))
	}
	if len(res.Skipped) > 0 {
		what = append(what, fmt.Sprintf("%d skipped", len(res.Skipped)))
	}
	if len(res.Reminted) > 0 {
		what = append(what, fmt.Sprintf("%d reminted", len(res.Reminted)))
	}
	line += " (absorbed " + string(policy)
	if len(what) > 0 {
		line += ": " + strings.Join(what, ", ")
	}
	fmt.Fprintln(sh.r.Out, sh.r.paint(green, line+")"))
	for _, n := range Notices(&res.CommitResult) {
		fmt.Fprintln(sh.r.Out, sh.r.paint(yellow, NoticeLine(n)))
	}
	if sh.r.Timing {
		sh.r.printTiming(timing{parse: t.Parse, exec: t.Execute})
	}
	return nil
}
