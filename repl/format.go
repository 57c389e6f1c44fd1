package repl

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/wire"
)

// Format selects how results are printed.
type Format string

// The output formats.
const (
	FormatGQL  Format = "gql"
	FormatJSON Format = "json"
)

// ParseFormat checks a --format value.
func ParseFormat(s string) (Format, error) {
	switch Format(strings.ToLower(s)) {
	case FormatGQL:
		return FormatGQL, nil
	case FormatJSON:
		return FormatJSON, nil
	}
	return "", fmt.Errorf("unknown format %q: use gql or json", s)
}

// StmtSummary renders what one statement of a Δ did: its registration,
// its counts, the action it ran.
func StmtSummary(st goldfish.StmtResult) string {
	var parts []string
	if st.Defined != "" {
		parts = append(parts, st.Defined)
	}
	if c := st.Counts.Summary(); c != "" {
		parts = append(parts, c)
	}
	if st.Action != "" {
		parts = append(parts, "(ran "+st.Action+")")
	}
	return strings.Join(parts, " ")
}

// NoticeLine renders a notice as a GQL comment line: "-- 01000: echo: …".
func NoticeLine(n gqlstatus.Notice) string {
	return "-- " + n.String()
}

// Notices returns every notice of a result, in statement order.
func Notices(res *goldfish.CommitResult) []gqlstatus.Notice {
	var out []gqlstatus.Notice
	for _, st := range res.Stmts {
		out = append(out, st.Notices...)
	}
	return out
}

// WriteError prints err the way gqlsh does: "GQLSTATUS <code>: <message>
// (line L, column C)", then the caret lines when the error points into text,
// made visible (a server's message may hold anything: see Visible).
//
// An error in a named file is printed as psql and compilers print one:
// "FILE:LINE:COL: GQLSTATUS <code>: <message>", then the caret lines.
func WriteError(w io.Writer, err error) {
	ge := statusOf(err)
	var fe *fileError
	if errors.As(err, &fe) {
		fmt.Fprintln(w, Visible(fe.Error()))
	} else {
		fmt.Fprintln(w, Visible(ge.Error()))
	}
	if c := ge.Caret(); c != "" {
		fmt.Fprintln(w, Visible(c))
	}
}

// The lines format json prints are package wire's objects, which the
// server answers too: a Recall's (wire.Shape, without its rows), a
// Commit's (wire.Commit, wire.ShellCommit for a statement of an open
// transaction and the transaction statements), and a failed statement's
// (wire.ShellError).

func writeJSON(w io.Writer, v any) {
	b, err := wire.Marshal(v)
	if err != nil {
		b, _ = wire.Marshal(errorJSON(gqlstatus.Errorf(gqlstatus.Internal, "cannot write the result as JSON: %v", err)))
	}
	io.WriteString(w, Visible(string(b))+"\n")
}

// resultJSON is the line for res, a Δ the person typed as statements
// statements (without the START TRANSACTION and COMMIT around them).
func resultJSON(res *goldfish.CommitResult, statements int) wire.Commit {
	return wire.CommitOf(res, statements)
}

// errorJSON is the line for err, with the file it was read from.
func errorJSON(err error) wire.ShellError {
	file := ""
	var fe *fileError
	if errors.As(err, &fe) {
		file = fe.File
	}
	return wire.ShellErrorOf(statusOf(err), file)
}

// shapeJSON is the line for sh.
func shapeJSON(sh *goldfish.Shape) wire.Shape { return wire.ShapeOf(sh, false) }
