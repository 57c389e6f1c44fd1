package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/values"
)

// RecallRequest is the body of POST /v1/sessions/{name}/recall.
type RecallRequest struct {
	// Q is the codebook token: a MATCH of node patterns (MATCH () for
	// the outline).
	Q string `json:"q" jsonschema:"the codebook token: a GQL MATCH of node patterns with optional WHERE and LIMIT, e.g. MATCH (t:TSK {status: 'open'}) LIMIT 4; MATCH () for the outline"`
	// Params are the values of the token's $parameters.
	Params Params `json:"params,omitempty" jsonschema:"values of the $parameters the text uses"`
	// Agent names who reads, for the attention envelope.
	Agent   string         `json:"agent,omitempty" jsonschema:"the reading agent's name: the envelope then says what changed since its last read"`
	Options RecallSettings `json:"options,omitempty" jsonschema:"budgets and sections of this Recall; each may be lowered freely"`
	// AtVersion reads the session as of that version
	// (values.RecallOptions.AtVersion; 0 or left out: the newest).
	AtVersion uint64 `json:"at_version,omitempty" jsonschema:"read the session as it was at this version (left out: the newest); the Shape's body is the one it gave then, the header says at=N"`
}

// RecallSettings are a Recall's budgets and sections (docs/design.md#budgets, #the-vocabulary-and-attention). A
// budget left out, or 0, takes its default, but for K: its 0 is a value
// of its own, "k": 0 walks no hop (the seeds alone), and only k left out
// (or null) takes the default 2; so K is a pointer (Hops makes one from
// the API's K).
type RecallSettings struct {
	M     int      `json:"M,omitempty" jsonschema:"most rows in the Shape (default 50)"`
	K     *int     `json:"k,omitempty" jsonschema:"most hops from the seeds: 0 walks no hop (the seeds alone); left out (or 2), the default 2"`
	L     int      `json:"L,omitempty" jsonschema:"most seeds (default 4)"`
	F     int      `json:"F,omitempty" jsonschema:"most new neighbours one node adds (default 8)"`
	T     int      `json:"T,omitempty" jsonschema:"token target (default 4000): over it, nodes beyond the seeds show identity properties only, farthest first"`
	View  string   `json:"view,omitempty" jsonschema:"interior (default) or shell: hierarchical edges and identity properties only"`
	After int      `json:"after,omitempty" jsonschema:"page a seed's neighbours: skip the first after (an earlier answer's clamp note gives it)"`
	Whole bool     `json:"whole,omitempty" jsonschema:"every node whole (default: economical: the seeds whole, the first ring brief, farther rings identity; a point token walks one hop)"`
	Depth string   `json:"depth,omitempty" jsonschema:"lean (default) or full: how much the attention envelope shows"`
	Only  Sections `json:"only,omitempty" jsonschema:"the sections to keep, any of shape, views, actions, attention (none: all)"`
	// Pinned, NoPeaks and Exact are the Recall options of the same
	// names (values.RecallOptions).
	Pinned  Sections `json:"pinned,omitempty" jsonschema:"kinds whose nodes go into the Shape first, at most max(1, M/4) besides the seeds (empty: the session's pinned kinds, from its settings)"`
	NoPeaks bool     `json:"nopeaks,omitempty" jsonschema:"no fallback (live tasks, then Peak_L): a q that matches nothing seeds nothing"`
	Exact   bool     `json:"exact,omitempty" jsonschema:"count the Shape's tokens with the o200k tokenizer instead of the estimate"`
	// Rows, JSON "rows", asks for the Shape's rows and facts beside its
	// text (Shape.Detail). It is an option of the HTTP API only: the
	// field is kept out of the struct's reflected form (json:"-") and
	// read and written by UnmarshalJSON and MarshalJSON, because the MCP
	// recall tool takes these settings too and its schema, which the MCP
	// SDK reflects from this struct, stays as it was (its answer carries
	// no rows).
	Rows bool `json:"-"`
}

// recallFields are RecallSettings' fields without its methods: what the
// JSON methods encode and decode field by field.
type recallFields RecallSettings

// UnmarshalJSON reads the settings, "rows" with them, refusing a field
// it does not know, as the server's decoder does for the whole body.
func (s *RecallSettings) UnmarshalJSON(b []byte) error {
	var x struct {
		*recallFields
		Rows bool `json:"rows"`
	}
	x.recallFields = (*recallFields)(s)
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&x); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			// Name the field as the request writes it.
			te.Field = strings.TrimPrefix(te.Field, "recallFields.")
			if te.Field == "" {
				te.Type = reflect.TypeFor[RecallSettings]()
			}
		}
		return err
	}
	s.Rows = x.Rows
	return nil
}

// MarshalJSON writes the settings, "rows" last when it is set.
func (s RecallSettings) MarshalJSON() ([]byte, error) {
	return Marshal(struct {
		recallFields
		Rows bool `json:"rows,omitempty"`
	}{recallFields(s), s.Rows})
}

// Sections are the sections of a Recall's "only": a JSON list of names,
// or one string of comma-separated names as the shell's :set only takes.
type Sections []string

// UnmarshalJSON takes ["shape","views"] or "shape,views".
func (s *Sections) UnmarshalJSON(b []byte) error {
	var list []string
	if err := json.Unmarshal(b, &list); err == nil {
		*s = list
		return nil
	}
	var one string
	if err := json.Unmarshal(b, &one); err != nil {
		return fmt.Errorf("only is a list of section names or one string of them separated by commas")
	}
	*s = nil
	for _, p := range strings.Split(one, ",") {
		if p = strings.TrimSpace(p); p != "" {
			*s = append(*s, p)
		}
	}
	return nil
}

// Hops is the JSON k of a Recall's or an export's options for the API's
// K: nil for the default, &0 for no walk (values.NoWalk).
func Hops(k int) *int {
	switch k {
	case 0:
		return nil
	case values.NoWalk:
		k = 0
	}
	return &k
}

// HopsOf is the API's K for a JSON k: left out (nil), the default (0);
// 0, no walk (values.NoWalk); negative, refused (22Q01).
func HopsOf(k *int) (int, error) {
	switch {
	case k == nil:
		return 0, nil
	case *k == 0:
		return values.NoWalk, nil
	case *k < 0:
		return 0, gqlstatus.Errorf(gqlstatus.RecallBudget, "budget k=%d is negative", *k).
			WithHint("k is a number of hops: 0 walks no hop (the seeds alone); leave k out for its default")
	}
	return *k, nil
}

// NewRecallRequest is the request of a Recall of q with o (o.Sessions,
// the server's own, is not sent); rows asks for the Shape's rows.
func NewRecallRequest(q string, o values.RecallOptions, rows bool) (RecallRequest, error) {
	ps, err := EncodeParams(o.Params)
	if err != nil {
		return RecallRequest{}, err
	}
	return RecallRequest{Q: q, Params: ps, Agent: o.Agent, AtVersion: o.AtVersion, Options: RecallSettings{
		M: o.M, K: Hops(o.K), L: o.L, F: o.F, T: o.T, View: o.View, Whole: o.Whole, After: o.After, Depth: o.Depth, Only: o.Only,
		Pinned: o.Pinned, NoPeaks: o.NoPeaks, Exact: o.ExactTokens, Rows: rows}}, nil
}

// RecallOptions are the options r asks for (but Rows, which shapes the
// answer, not the Recall).
func (r RecallRequest) RecallOptions() (values.RecallOptions, error) {
	k, err := HopsOf(r.Options.K)
	if err != nil {
		return values.RecallOptions{}, err
	}
	o := values.RecallOptions{M: r.Options.M, K: k, L: r.Options.L, F: r.Options.F, T: r.Options.T,
		View: r.Options.View, Whole: r.Options.Whole, After: r.Options.After, Depth: r.Options.Depth, Only: r.Options.Only, Agent: r.Agent,
		Pinned: r.Options.Pinned, NoPeaks: r.Options.NoPeaks, ExactTokens: r.Options.Exact, AtVersion: r.AtVersion}
	if len(r.Params) > 0 {
		o.Params = r.Params
	}
	return o, nil
}

// Notice is a warning or no-data notice on a result.
type Notice struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
	// Offset is the position's byte offset in the text, written on a
	// Shape's notices when the answer carries its rows (ShapeOf).
	Offset int `json:"offset,omitempty"`
}

// NoticesOf are ns as JSON, positions included; nil for none.
func NoticesOf(ns []gqlstatus.Notice) []Notice {
	var out []Notice
	for _, n := range ns {
		out = append(out, Notice{Code: string(n.Code), Message: n.Msg, Line: n.Pos.Line, Column: n.Pos.Col})
	}
	return out
}

// noticeList is NoticesOf as a list JSON writes [] for none.
func noticeList(ns []gqlstatus.Notice) []Notice { return append([]Notice{}, NoticesOf(ns)...) }

// noticeValues are the notices ns describe; nil for none.
func noticeValues(ns []Notice) []gqlstatus.Notice {
	var out []gqlstatus.Notice
	for _, n := range ns {
		out = append(out, gqlstatus.Notice{Code: gqlstatus.Code(n.Code), Msg: n.Message, Pos: gqlstatus.Pos{Line: n.Line, Col: n.Column, Offset: n.Offset}})
	}
	return out
}

// Shape is a Recall's answer over HTTP, the recall tool's structured
// answer over MCP, and the line `gqlsh --format json` prints for a
// Recall: the facts of a values.Shape and its text (gql), and, when the
// request asked for them (RecallSettings.Rows), its rows (Detail).
type Shape struct {
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
	AtVersion uint64 `json:"at_version,omitempty"`
	Truncated bool   `json:"truncated,omitempty"`
	Trimmed   int    `json:"trimmed,omitempty"`
	Elided    int    `json:"elided,omitempty"`
	// Notices are the Shape's notices, by code and message, and with the
	// rows (Detail) by their position in q too.
	Notices []Notice `json:"notices"`
	// Miss says what the token did not match when it matched no node
	// (omitted otherwise): the rows are then shown instead of a match.
	Miss *values.Miss `json:"miss,omitempty"`
	// Attention is the envelope; omitted when it is empty.
	Attention *values.Attention `json:"attention,omitempty"`
	GQL       string            `json:"gql"`
	// Detail is the Shape's rows and the facts of its header the fields
	// above leave out, when the request asked for them; nil otherwise,
	// and then none of its keys is written. It is kept out of the
	// struct's reflected form (json:"-") and written after "gql" by
	// MarshalJSON, because the MCP recall tool answers this type too and
	// its output schema, which the MCP SDK reflects from this struct,
	// stays as it was.
	Detail *ShapeRows `json:"-"`
}

// ShapeRows are a Shape's rows and facts as package values declares
// them (values.ShapeNode, values.ShapeEdge, values.Outline carry their
// own JSON; a property value is written by values.Value's JSON, which
// keeps INTEGER, FLOAT, DATE and DATETIME apart).
type ShapeRows struct {
	Session string             `json:"session"`
	K       int                `json:"k"`
	M       int                `json:"M"`
	Clamps  []string           `json:"clamps"`
	Outline *values.Outline    `json:"outline,omitempty"`
	Nodes   []values.ShapeNode `json:"nodes"`
	Edges   []values.ShapeEdge `json:"edges"`
}

// shapeFields are Shape's fields without its methods.
type shapeFields Shape

// MarshalJSON writes the Shape, its Detail's keys after "gql" when it
// has one.
func (s Shape) MarshalJSON() ([]byte, error) {
	return Marshal(struct {
		shapeFields
		*ShapeRows
	}{shapeFields(s), s.Detail})
}

// UnmarshalJSON reads the Shape, and its Detail when the answer carries
// rows.
func (s *Shape) UnmarshalJSON(b []byte) error {
	var x struct {
		*shapeFields
		*ShapeRows
	}
	x.shapeFields = (*shapeFields)(s)
	if err := json.Unmarshal(b, &x); err != nil {
		return err
	}
	if err := x.ShapeRows.check(); err != nil {
		return err
	}
	s.Detail = x.ShapeRows
	return nil
}

// check refuses rows a reader of the Shape could not follow: an edge
// whose end is no node of the answer, a hop under -1, a negative count.
// The server never writes them; an answer from elsewhere is refused
// whole rather than read in part.
func (d *ShapeRows) check() error {
	if d == nil {
		return nil
	}
	for i, n := range d.Nodes {
		if n.Hop < -1 || n.More < 0 {
			return fmt.Errorf("node row %d: hop %d, more %d", i, n.Hop, n.More)
		}
	}
	for i, e := range d.Edges {
		if e.From < 0 || e.From >= len(d.Nodes) || e.To < 0 || e.To >= len(d.Nodes) {
			return fmt.Errorf("edge row %d joins node rows %d and %d of %d", i, e.From, e.To, len(d.Nodes))
		}
	}
	return nil
}

// ShapeOf is the answer for sh; rows adds its rows (Detail).
func ShapeOf(sh *values.Shape, rows bool) Shape {
	out := Shape{Status: string(sh.Status), Cue: string(sh.Cue), Seeds: sh.Seeds, Matched: sh.Matched, MatchedAtLeast: sh.MatchedAtLeast,
		Rows: sh.Rows, Tokens: sh.Tokens, Version: sh.Version, Truncated: sh.Truncated, Trimmed: sh.Trimmed, Elided: sh.Elided,
		Notices: []Notice{}, Miss: sh.Miss, Attention: sh.Attention, GQL: sh.Text}
	if sh.AsOf {
		out.AtVersion = sh.Version
	}
	for _, n := range sh.Notices {
		wn := Notice{Code: string(n.Code), Message: n.Msg}
		if rows {
			// With the rows, the notices carry their positions in q too
			// (a LIMIT clamped points at its LIMIT), so the Shape reads
			// back whole; without, they are code and message, as they
			// always were.
			wn.Line, wn.Column, wn.Offset = n.Pos.Line, n.Pos.Col, n.Pos.Offset
		}
		out.Notices = append(out.Notices, wn)
	}
	if rows {
		out.Detail = &ShapeRows{Session: sh.Session, K: sh.K, M: sh.M, Clamps: orEmpty(sh.Clamps), Outline: sh.Outline,
			Nodes: sh.Nodes(), Edges: sh.Edges()}
		if out.Detail.Nodes == nil {
			out.Detail.Nodes = []values.ShapeNode{}
		}
		if out.Detail.Edges == nil {
			out.Detail.Edges = []values.ShapeEdge{}
		}
	}
	return out
}

// Value is the Shape s describes: with its rows when s carries them
// (Detail), else its text and facts alone. Lists the answer writes as
// [] for none (clamps, nodes, edges) are nil, as the engine hands out a
// Shape without them.
func (s Shape) Value() *values.Shape {
	sh := &values.Shape{Text: s.GQL, Attention: s.Attention, Version: s.Version, AsOf: s.AtVersion != 0, Tokens: s.Tokens,
		Rows: s.Rows, Seeds: s.Seeds, Truncated: s.Truncated, Trimmed: s.Trimmed, Elided: s.Elided,
		Status: values.Code(s.Status), Cue: values.Cue(s.Cue), Matched: s.Matched, MatchedAtLeast: s.MatchedAtLeast,
		Notices: noticeValues(s.Notices), Miss: s.Miss}
	if d := s.Detail; d != nil {
		sh.Session, sh.K, sh.M, sh.Outline = d.Session, d.K, d.M, d.Outline
		if len(d.Clamps) > 0 {
			sh.Clamps = d.Clamps
		}
		var nodes []values.ShapeNode
		var edges []values.ShapeEdge
		if len(d.Nodes) > 0 {
			nodes = d.Nodes
		}
		if len(d.Edges) > 0 {
			edges = d.Edges
		}
		sh.SetRows(nodes, edges)
	}
	return sh
}

// orEmpty is list, or an empty list for nil (JSON [] rather than null).
func orEmpty(list []string) []string {
	if list == nil {
		return []string{}
	}
	return list
}

// Marshal is v as the server, the shell and the client write it: JSON
// with <, > and & as they are (Shapes hold "->"; keep them readable),
// without a final newline. An encoder that escapes them escapes them in
// what this returns as well.
func Marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
