package server

import (
	"fmt"
	"strings"
	"time"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/gqlstatus"
)

// The answers below are the objects `gqlsh --format json` prints (package
// repl), field for field, so a script reads the shell and the server
// alike; a test holds the two to the same bytes.

// Notice is a warning or no-data notice on a result.
type Notice struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
}

// ShapeJSON is a Recall's answer.
type ShapeJSON struct {
	Status  string `json:"status"`
	Cue     string `json:"cue"`
	Seeds   int    `json:"seeds"`
	Matched int    `json:"matched,omitempty"`
	// MatchedAtLeast: the count stopped at the seed-work budget.
	MatchedAtLeast bool   `json:"matched_at_least,omitempty"`
	Rows           int    `json:"rows"`
	Tokens         int    `json:"tokens"`
	Version        uint64 `json:"version"`
	// AtVersion is Version when the Recall read a past version.
	AtVersion uint64   `json:"at_version,omitempty"`
	Truncated bool     `json:"truncated,omitempty"`
	Trimmed   int      `json:"trimmed,omitempty"`
	Elided    int      `json:"elided,omitempty"`
	Notices   []Notice `json:"notices"`
	// Attention is the envelope (SPEC §9); omitted when it is empty.
	Attention *goldfish.Attention `json:"attention,omitempty"`
	GQL       string              `json:"gql"`
}

// CommitJSON is a Commit's answer.
type CommitJSON struct {
	Status     string `json:"status"`
	Version    uint64 `json:"version"`
	Applied    bool   `json:"applied"`
	Statements int    `json:"statements,omitempty"`
	goldfish.Counts
	Notices []Notice `json:"notices"`
	// Actions are the actions the Δ's CALLs ran, Defined what its
	// registrations did.
	Actions []string `json:"actions,omitempty"`
	Defined []string `json:"defined,omitempty"`
	// Results say what each statement did, when the Δ holds several.
	Results []StmtJSON `json:"results,omitempty"`
}

// StmtJSON is what one statement of a Δ did: its status, its counts,
// the action it ran or the registration it made, its notices.
type StmtJSON struct {
	Statement int    `json:"statement"`
	Status    string `json:"status"`
	Action    string `json:"action,omitempty"`
	Defined   string `json:"defined,omitempty"`
	goldfish.Counts
	Notices []Notice `json:"notices"`
}

// ErrorJSON is the answer to a request that failed.
type ErrorJSON struct {
	GQLStatus string `json:"gqlstatus"`
	Message   string `json:"message"`
	Hint      string `json:"hint,omitempty"`
	// Statement is the 1-based statement of the text the error is in,
	// when the text holds several.
	Statement int `json:"statement,omitempty"`
	// Line and Column point into the request's text (0: no position).
	Line   int `json:"line"`
	Column int `json:"column"`
	// Caret is the source line and a caret under the column, as the
	// shell prints them.
	Caret string `json:"caret,omitempty"`
}

// SessionJSON is one session in GET /v1/sessions and the sessions tool.
type SessionJSON struct {
	Name       string         `json:"name"`
	Version    uint64         `json:"version"`
	Nodes      int            `json:"nodes"`
	Edges      int            `json:"edges"`
	Recycled   int            `json:"recycled,omitempty"`
	Kinds      map[string]int `json:"kinds,omitempty"`
	LastCommit *time.Time     `json:"last_commit,omitempty"`
}

// SessionsJSON is the answer of GET /v1/sessions.
type SessionsJSON struct {
	Sessions []SessionJSON `json:"sessions"`
}

func shapeJSON(sh *goldfish.Shape) ShapeJSON {
	out := ShapeJSON{Status: string(sh.Status), Cue: string(sh.Cue), Seeds: sh.Seeds, Matched: sh.Matched, MatchedAtLeast: sh.MatchedAtLeast, Rows: sh.Rows,
		Tokens: sh.Tokens, Version: sh.Version, Truncated: sh.Truncated, Trimmed: sh.Trimmed, Elided: sh.Elided, Notices: []Notice{}, Attention: sh.Attention, GQL: sh.Text}
	if sh.AsOf {
		out.AtVersion = sh.Version
	}
	for _, n := range sh.Notices {
		out.Notices = append(out.Notices, Notice{Code: string(n.Code), Message: n.Msg})
	}
	return out
}

func commitJSON(res *goldfish.CommitResult) CommitJSON {
	out := CommitJSON{Status: string(res.Status), Version: res.Version, Applied: res.Applied,
		Counts: res.Total, Notices: []Notice{}}
	if len(res.Stmts) > 1 {
		out.Statements = len(res.Stmts)
	}
	for _, st := range res.Stmts {
		out.Notices = append(out.Notices, notices(st.Notices)...)
		if st.Action != "" {
			out.Actions = append(out.Actions, st.Action)
		}
		if st.Defined != "" {
			out.Defined = append(out.Defined, st.Defined)
		}
		if len(res.Stmts) > 1 {
			out.Results = append(out.Results, StmtJSON{Statement: st.Index, Status: st.Status, Action: st.Action,
				Defined: st.Defined, Counts: st.Counts, Notices: append([]Notice{}, notices(st.Notices)...)})
		}
	}
	return out
}

func notices(ns []goldfish.Notice) []Notice {
	var out []Notice
	for _, n := range ns {
		out = append(out, Notice{Code: string(n.Code), Message: n.Msg, Line: n.Pos.Line, Column: n.Pos.Col})
	}
	return out
}

func errorJSON(ge *gqlstatus.Error) ErrorJSON {
	return ErrorJSON{GQLStatus: string(ge.Code), Message: ge.Msg, Hint: ge.Hint, Statement: ge.Stmt,
		Line: ge.Pos.Line, Column: ge.Pos.Col, Caret: ge.Caret()}
}

func sessionJSON(in goldfish.SessionInfo) SessionJSON {
	out := SessionJSON{Name: in.Name, Version: in.Version, Nodes: in.Nodes, Edges: in.Edges, Recycled: in.Recycled}
	if len(in.Kinds) > 0 {
		out.Kinds = make(map[string]int, len(in.Kinds))
		for _, k := range in.Kinds {
			out.Kinds[k.Kind] = k.Count
		}
	}
	if !in.LastCommit.IsZero() {
		t := in.LastCommit.UTC()
		out.LastCommit = &t
	}
	return out
}

// summary renders a Commit as the shell's one line ("ok v=3 +2 nodes
// +1 edge 3 properties set"), followed by its notices as comment lines:
// what a model reads of a Commit over MCP.
func summary(res *goldfish.CommitResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "ok v=%d", res.Version)
	for _, st := range res.Stmts {
		if st.Defined != "" {
			b.WriteString(" " + st.Defined)
		}
	}
	if c := res.Total.Summary(); c != "" {
		b.WriteString(" " + c)
	}
	var ran []string
	for _, st := range res.Stmts {
		if st.Action != "" {
			ran = append(ran, st.Action)
		}
	}
	if len(ran) > 0 {
		b.WriteString(" (ran " + strings.Join(ran, ", ") + ")")
	}
	if !res.Applied {
		b.WriteString(" (not applied)")
	}
	for _, st := range res.Stmts {
		for _, n := range st.Notices {
			b.WriteString("\n-- " + n.String())
		}
	}
	return b.String()
}
