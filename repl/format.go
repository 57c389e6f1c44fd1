package repl

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/gqlstatus"
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

// Summary renders a Commit result as one line: "ok v=3 +2 nodes +1 edge
// 3 properties set", with " (not applied)" when the version did not move.
// The counts are the Δ's totals.
func Summary(res *goldfish.CommitResult) string {
	s := fmt.Sprintf("ok v=%d", res.Version)
	for _, st := range res.Stmts {
		if st.Defined != "" {
			s += " " + st.Defined
		}
	}
	if c := res.Total.Summary(); c != "" {
		s += " " + c
	}
	var ran []string
	for _, st := range res.Stmts {
		if st.Action != "" {
			ran = append(ran, st.Action)
		}
	}
	if len(ran) > 0 {
		s += " (ran " + strings.Join(ran, ", ") + ")"
	}
	if !res.Applied {
		// Nothing changed (a MATCH bound nothing, an idempotent ingest) or
		// the text ended with ROLLBACK: the counts are what would have been.
		s += " (not applied)"
	}
	return s
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
// (line L, column C)", then the caret lines when the error points into text.
//
// An error in a named file is printed as psql and compilers print one:
// "FILE:LINE:COL: GQLSTATUS <code>: <message>", then the caret lines.
func WriteError(w io.Writer, err error) {
	ge := statusOf(err)
	var fe *fileError
	if errors.As(err, &fe) {
		fmt.Fprintln(w, fe.Error())
	} else {
		fmt.Fprintln(w, ge.Error())
	}
	if c := ge.Caret(); c != "" {
		fmt.Fprintln(w, c)
	}
}

// jsonNotice is a notice in format json.
type jsonNotice struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
}

// jsonResult is one line of format json.
type jsonResult struct {
	Status     string `json:"status"`
	Version    uint64 `json:"version"`
	Applied    bool   `json:"applied"`
	Statements int    `json:"statements,omitempty"`
	goldfish.Counts
	Notices     []jsonNotice `json:"notices"`
	Transaction string       `json:"transaction,omitempty"`
	// Actions are the actions the Δ's CALLs ran, Defined what its
	// registrations did.
	Actions []string `json:"actions,omitempty"`
	Defined []string `json:"defined,omitempty"`
	// Results say what each statement did, when the Δ holds several.
	Results []jsonStmt `json:"results,omitempty"`
}

// jsonStmt is one statement's part of a Δ of several in format json.
type jsonStmt struct {
	Statement int    `json:"statement"`
	Status    string `json:"status"`
	Action    string `json:"action,omitempty"`
	Defined   string `json:"defined,omitempty"`
	goldfish.Counts
	Notices []jsonNotice `json:"notices"`
}

// jsonError is the line format json prints for a failed statement.
type jsonError struct {
	Status    string `json:"status"`
	Error     string `json:"error"`
	Hint      string `json:"hint,omitempty"`
	Statement int    `json:"statement,omitempty"`
	File      string `json:"file,omitempty"`
	Line      int    `json:"line,omitempty"`
	Column    int    `json:"column,omitempty"`
}

func writeJSON(w io.Writer, v any) {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // Shapes hold "->"; keep them readable
	if err := enc.Encode(v); err != nil {
		enc.Encode(errorJSON(gqlstatus.Errorf(gqlstatus.Internal, "cannot write the result as JSON: %v", err)))
	}
}

func resultJSON(res *goldfish.CommitResult, statements int) jsonResult {
	out := jsonResult{Status: string(res.Status), Version: res.Version, Applied: res.Applied,
		Counts: res.Total, Notices: []jsonNotice{}}
	if statements > 1 {
		out.Statements = statements
	}
	for _, n := range Notices(res) {
		out.Notices = append(out.Notices, jsonNotice{Code: string(n.Code), Message: n.Msg, Line: n.Pos.Line, Column: n.Pos.Col})
	}
	for _, st := range res.Stmts {
		if st.Action != "" {
			out.Actions = append(out.Actions, st.Action)
		}
		if st.Defined != "" {
			out.Defined = append(out.Defined, st.Defined)
		}
		if len(res.Stmts) > 1 {
			js := jsonStmt{Statement: st.Index, Status: st.Status, Action: st.Action, Defined: st.Defined,
				Counts: st.Counts, Notices: []jsonNotice{}}
			for _, n := range st.Notices {
				js.Notices = append(js.Notices, jsonNotice{Code: string(n.Code), Message: n.Msg, Line: n.Pos.Line, Column: n.Pos.Col})
			}
			out.Results = append(out.Results, js)
		}
	}
	return out
}

func errorJSON(err error) jsonError {
	ge := statusOf(err)
	out := jsonError{Status: string(ge.Code), Error: ge.Msg, Hint: ge.Hint, Statement: ge.Stmt,
		Line: ge.Pos.Line, Column: ge.Pos.Col}
	var fe *fileError
	if errors.As(err, &fe) {
		out.File = fe.File
	}
	return out
}

// jsonShape is the line format json prints for a Recall.
type jsonShape struct {
	Status  string `json:"status"`
	Cue     string `json:"cue"`
	Seeds   int    `json:"seeds"`
	Matched int    `json:"matched,omitempty"`
	// MatchedAtLeast: the count stopped at the seed-work budget.
	MatchedAtLeast bool         `json:"matched_at_least,omitempty"`
	Rows           int          `json:"rows"`
	Tokens         int          `json:"tokens"`
	Version        uint64       `json:"version"`
	AtVersion      uint64       `json:"at_version,omitempty"`
	Truncated      bool         `json:"truncated,omitempty"`
	Trimmed        int          `json:"trimmed,omitempty"`
	Elided         int          `json:"elided,omitempty"`
	Notices        []jsonNotice `json:"notices"`
	// Attention is the envelope (SPEC §9); omitted when it is empty.
	Attention *goldfish.Attention `json:"attention,omitempty"`
	GQL       string              `json:"gql"`
}

func shapeJSON(sh *goldfish.Shape) jsonShape {
	out := jsonShape{Status: string(sh.Status), Cue: string(sh.Cue), Seeds: sh.Seeds, Matched: sh.Matched, MatchedAtLeast: sh.MatchedAtLeast, Rows: sh.Rows,
		Tokens: sh.Tokens, Version: sh.Version, Truncated: sh.Truncated, Trimmed: sh.Trimmed, Elided: sh.Elided, Notices: []jsonNotice{}, Attention: sh.Attention, GQL: sh.Text}
	if sh.AsOf {
		out.AtVersion = sh.Version
	}
	for _, n := range sh.Notices {
		out.Notices = append(out.Notices, jsonNotice{Code: string(n.Code), Message: n.Msg})
	}
	return out
}
