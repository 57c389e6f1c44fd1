package wire

import "github.com/goldfish-gql/goldfish/values"

// CommitRequest is the body of POST /v1/sessions/{name}/commit.
type CommitRequest struct {
	// Text is the Δ: GQL data-modifying statements, applied atomically.
	Text   string `json:"text" jsonschema:"the Δ: GQL INSERT, MATCH … SET/REMOVE/DELETE, CALL statements, applied as one atomic Commit"`
	Params Params `json:"params,omitempty" jsonschema:"values of the $parameters the text uses"`
	Agent  string `json:"agent,omitempty" jsonschema:"the committing agent's name"`
	// Mint is "default" (fresh ids) or "ingest" (ids from kind and loc,
	// so re-sending the same artefact updates instead of duplicating).
	Mint string `json:"mint,omitempty" jsonschema:"default (fresh ids) or ingest (nodes with loc get ids from kind and loc: re-sending updates instead of duplicating)"`
}

// Commit is a Commit's answer over HTTP, the commit tool's structured
// answer over MCP, and the line `gqlsh --format json` prints for a
// Commit (ShellCommit adds what only the shell says).
type Commit struct {
	Status  string `json:"status"`
	Version uint64 `json:"version"`
	Applied bool   `json:"applied"`
	// Statements is the number of statements of a Δ of several (0 for
	// one).
	Statements int `json:"statements,omitempty"`
	values.Counts
	Notices []Notice `json:"notices"`
	// Actions are the actions the Δ's CALLs ran, Defined what its
	// registrations did.
	Actions []string `json:"actions,omitempty"`
	Defined []string `json:"defined,omitempty"`
	// Results say what each statement did, when the Δ holds several.
	Results []Stmt `json:"results,omitempty"`
}

// Stmt is what one statement of a Δ did: its status, its counts, the
// action it ran or the registration it made, its notices.
type Stmt struct {
	Statement int    `json:"statement"`
	Status    string `json:"status"`
	Action    string `json:"action,omitempty"`
	Defined   string `json:"defined,omitempty"`
	values.Counts
	Notices []Notice `json:"notices"`
}

// CommitOf is the answer for res. statements is the number of
// statements it says the Δ held when more than one: the server's is
// res's; the shell counts those the person typed, without the START
// TRANSACTION and COMMIT around them.
func CommitOf(res *values.CommitResult, statements int) Commit {
	out := Commit{Status: string(res.Status), Version: res.Version, Applied: res.Applied, Counts: res.Total, Notices: []Notice{}}
	if statements > 1 {
		out.Statements = statements
	}
	for _, st := range res.Stmts {
		out.Notices = append(out.Notices, NoticesOf(st.Notices)...)
		if st.Action != "" {
			out.Actions = append(out.Actions, st.Action)
		}
		if st.Defined != "" {
			out.Defined = append(out.Defined, st.Defined)
		}
		if len(res.Stmts) > 1 {
			out.Results = append(out.Results, Stmt{Statement: st.Index, Status: st.Status, Action: st.Action,
				Defined: st.Defined, Counts: st.Counts, Notices: noticeList(st.Notices)})
		}
	}
	return out
}

// Value is the Commit c describes. An answer of one statement has no
// results: its lists are that statement's.
func (c Commit) Value() *values.CommitResult {
	res := &values.CommitResult{Status: values.Code(c.Status), Version: c.Version, Applied: c.Applied, Total: c.Counts}
	for _, st := range c.Results {
		res.Stmts = append(res.Stmts, values.StmtResult{Index: st.Statement, Status: st.Status, Action: st.Action,
			Defined: st.Defined, Counts: st.Counts, Notices: noticeValues(st.Notices)})
	}
	if len(c.Results) == 0 {
		st := values.StmtResult{Index: 1, Status: c.Status, Counts: c.Counts, Notices: noticeValues(c.Notices)}
		if len(c.Actions) > 0 {
			st.Action = c.Actions[0]
		}
		if len(c.Defined) > 0 {
			st.Defined = c.Defined[0]
		}
		res.Stmts = []values.StmtResult{st}
	}
	return res
}

// ShellCommit is the shell's line for a statement that did not make a
// Commit of its own: one inside an open transaction ("pending": checked,
// applied at COMMIT) or a transaction statement ("started", "rolled
// back"). It is Commit's object with "transaction" after it; such a line
// has no actions, definitions or results, so "transaction" follows
// "notices". It is a type of its own, not a field of Commit, because the
// MCP commit tool answers Commit and its output schema, which the MCP
// SDK reflects from the struct, stays as it was.
type ShellCommit struct {
	Commit
	Transaction string `json:"transaction,omitempty"`
}

// AbsorbRequest is the body of POST /v1/sessions/{name}/absorb: a
// slice's text and the policy for ids the session holds already.
type AbsorbRequest struct {
	Slice  string `json:"slice"`
	Policy string `json:"policy"`
	Agent  string `json:"agent,omitempty"`
}

// Absorb is the answer of an absorb: the Commit's object, then what the
// policy kept, skipped and reminted.
type Absorb struct {
	Commit
	Policy    string            `json:"policy"`
	Unchanged int               `json:"unchanged,omitempty"`
	Skipped   []Skipped         `json:"skipped,omitempty"`
	Reminted  map[string]string `json:"reminted,omitempty"`
}

// Skipped is a slice element an absorb left out, and why.
type Skipped struct {
	Element string `json:"element"`
	Reason  string `json:"reason"`
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
}

// AbsorbOf is the answer for res.
func AbsorbOf(res *values.AbsorbResult) Absorb {
	out := Absorb{Commit: CommitOf(&res.CommitResult, len(res.Stmts)), Policy: string(res.Policy), Unchanged: res.Unchanged, Reminted: res.Reminted}
	for _, k := range res.Skipped {
		out.Skipped = append(out.Skipped, Skipped{Element: k.Element, Reason: k.Reason, Line: k.Line, Column: k.Column})
	}
	return out
}

// Value is the absorb a describes.
func (a Absorb) Value() *values.AbsorbResult {
	res := &values.AbsorbResult{CommitResult: *a.Commit.Value(), Policy: values.AbsorbPolicy(a.Policy), Unchanged: a.Unchanged, Reminted: a.Reminted}
	for _, k := range a.Skipped {
		res.Skipped = append(res.Skipped, values.SkippedElement{Element: k.Element, Reason: k.Reason, Line: k.Line, Column: k.Column})
	}
	return res
}
