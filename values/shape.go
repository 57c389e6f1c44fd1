package values

import "sync"

// Shape is what a Recall returns: its rows (the nodes and edges it
// shows, in the order its text writes them), the facts its header
// states, and its text, the rendering a model reads (a comment header
// and one INSERT statement). Every other surface (JSON, the memory
// tools, the browser, the Go client) renders the same value.
//
// The Shape is the caller's: it may change its fields, Text, Clamps and
// Notices freely, and the next caller of the same Recall receives the
// same bytes. Its rows (Nodes, Edges), the labels and properties they
// hold and the Attention are shared with the session and the Shape
// cache: read them, never change them.
type Shape struct {
	// Text is the emit: the header and notes as comments, then one
	// INSERT statement, so the whole text parses.
	Text string
	// Session names the session the Shape was read from.
	Session string
	Cue     Cue
	// rows are the node and edge rows (Nodes, Edges), built when first
	// read and shared by every copy of the Shape.
	rows *rowSet
	// Outline is the session's outline when the Cue is CueOutline: its
	// counts per kind and per edge type (the Nodes are exemplars).
	Outline *Outline
	// Seeds is the number of seeds, Rows the elements emitted (at most
	// M), Tokens the text's token count; K and M are the budgets the
	// Recall walked with.
	Seeds, Rows, Tokens int
	K, M                int
	// Matched is how many live nodes the token matched, when that is more
	// than Seeds (0 otherwise): the rest were left out by L. It is exact
	// up to MatchCountWork; MatchedAtLeast says there were more, so
	// Matched is a lower bound.
	Matched        int
	MatchedAtLeast bool
	// Version is the session version the Shape was read at; AsOf says
	// it was read as of that version (RecallOptions.AtVersion), not the
	// newest (the header then says at=Version too).
	Version uint64
	AsOf    bool
	// Truncated is set when M cut the walk short.
	Truncated bool
	// Trimmed is the number of nodes beyond the seeds the token target T
	// showed with their identity properties only (nick, loc, name,
	// title): Recall one by its nick for the rest.
	Trimmed int
	// Elided is the number of string values of the seeds (and pinned
	// nodes) written as $elidedN parameters because those nodes alone
	// were over T: the note says which, and how to read one whole; a Δ
	// that names $elidedN without passing it is refused (42002).
	Elided int
	// Clamps are the fan-out clamp notes.
	Clamps  []string
	Notices []Notice
	// Status is 00000, 01000 (a clamp, a cut, a token alarm, a LIMIT
	// clamped to the seed budget), 01Q01 (the token matched nothing: the
	// rows are shown instead of a match) or 02000 (nothing shown).
	Status Code
	// Attention is the envelope of what the reader should notice (nil
	// when it has nothing to say); Text holds it as comment lines.
	Attention *Attention
	// Miss says what the token did not match, when it matched no node
	// (nil otherwise): the Shape's rows are then what it shows instead
	// of a match, or none.
	Miss *Miss
}

// Miss is what a Recall whose token matched no node says about it.
type Miss struct {
	// Unmatched says, for each part of the token no live node holds,
	// what is missing, naming it as the token writes it: "no node has
	// label :PERSN", "no node has nick \"alcie\"", "no PERSON node with
	// nick \"bob\"", "no node holds the keyword \"zebra\"".
	Unmatched []string `json:"unmatched"`
	// DidYouMean are the session's names a small edit away from a name
	// of the token (labels, property keys, edge types, identity values),
	// as a token writes them: ":PERSON", "{nick: \"alice\"}".
	DidYouMean []string `json:"did_you_mean,omitempty"`
	// Instead is the cue of what the Shape shows instead of a match
	// (task: the live tasks; peak: the peaks), or skip when it shows
	// nothing.
	Instead Cue `json:"instead"`
}

// rowSet is a Shape's rows, or how to build them: a Recall hands out
// its Shape with a build function (its rows cost nothing until a caller
// reads them), a decoder or a test with the rows themselves.
type rowSet struct {
	once  sync.Once
	build func() ([]ShapeNode, []ShapeEdge)
	nodes []ShapeNode
	edges []ShapeEdge
}

func (r *rowSet) get() *rowSet {
	if r == nil {
		return &rowSet{}
	}
	r.once.Do(func() {
		if r.build != nil {
			r.nodes, r.edges = r.build()
			r.build = nil
		}
	})
	return r
}

// Nodes returns the node rows in walk order (the seeds first), as the
// text writes them; shared, read-only.
func (s *Shape) Nodes() []ShapeNode { return s.rows.get().nodes }

// Edges returns the edge rows, after the nodes in the text; shared,
// read-only.
func (s *Shape) Edges() []ShapeEdge { return s.rows.get().edges }

// SetRows gives the Shape its rows (a decoder's, a test's).
func (s *Shape) SetRows(nodes []ShapeNode, edges []ShapeEdge) {
	r := &rowSet{nodes: nodes, edges: edges}
	r.once.Do(func() {})
	s.rows = r
}

// SetRowsFunc gives the Shape rows that build makes on their first read
// (the engine's: a Recall's rows cost nothing until a caller reads them);
// every copy of the Shape made after it shares them.
func (s *Shape) SetRowsFunc(build func() ([]ShapeNode, []ShapeEdge)) {
	s.rows = &rowSet{build: build}
}

// ShapeNode is one node row of a Shape.
type ShapeNode struct {
	// Var is the node's variable in the text ("tsk1").
	Var string `json:"var"`
	// Labels are the node's labels, the kind first; Props are all its
	// properties, whatever the text shows of them (see Trimmed, Elided).
	Labels []string `json:"labels"`
	Props  Props    `json:"props"`
	// Hop is how many hops the node is from the nearest seed: 0 for a
	// seed (and an exemplar of the outline), -1 for a node of a pinned
	// kind the walk did not reach.
	Hop int `json:"hop"`
	// Seed marks the seeds, Pinned the nodes of a pinned kind.
	Seed   bool `json:"seed,omitempty"`
	Pinned bool `json:"pinned,omitempty"`
	// Trimmed says the text shows the node's identity properties only
	// (nick, loc, name, title): view=shell, the token target T, or a node
	// two or more hops from the seeds of an economical Shape.
	Trimmed bool `json:"trimmed,omitempty"`
	// Brief says the text shows the node's identity and its values
	// that are not lists (BriefProp): a node one hop from the seeds of
	// an economical Shape (RecallOptions.Whole unset).
	Brief bool `json:"brief,omitempty"`
	// More is how many neighbours of the node the fan-out clamp F left
	// out of the Shape (0: none).
	More int `json:"more,omitempty"`
	// Elided are the properties the text writes as $elidedN parameters.
	Elided []ElidedValue `json:"elided,omitempty"`
}

// Kind returns the node's kind: its first label ("" for none).
func (n *ShapeNode) Kind() string {
	if len(n.Labels) == 0 {
		return ""
	}
	return n.Labels[0]
}

// Shown returns the properties the text writes for the node: its
// identity properties alone when it is Trimmed, else all of them (an
// elided one as its parameter).
func (n *ShapeNode) Shown() Props {
	if n.Brief && !n.Trimmed {
		return keepProps(n.Props, BriefProp)
	}
	return shown(n.Props, n.Trimmed)
}

// ElidedValue is a property a Shape's text writes as a parameter that
// stands for its value ($elided1): the value is in the node's Props.
type ElidedValue struct {
	Key   string `json:"key"`
	Param string `json:"param"`
}

// ShapeEdge is one edge row of a Shape.
type ShapeEdge struct {
	Type string `json:"type"`
	// From and To are the edge's ends, as indexes into Shape.Nodes().
	From int `json:"from"`
	To   int `json:"to"`
	// Props are the edge's properties; Trimmed says the text shows its
	// identity properties only.
	Props   Props `json:"props"`
	Trimmed bool  `json:"trimmed,omitempty"`
	// BetweenSeeds marks an edge whose two ends are seeds.
	BetweenSeeds bool `json:"between_seeds,omitempty"`
}

// Shown returns the properties the text writes for the edge.
func (e *ShapeEdge) Shown() Props { return shown(e.Props, e.Trimmed) }

// Outline is what the outline (MATCH ()) counts: live nodes per kind and
// live edges per type, each sorted by name.
type Outline struct {
	Kinds []NameCount `json:"kinds"`
	Types []NameCount `json:"types"`
}

// IdentityKey reports whether a property is one of a node's identity:
// nick, loc, name, title (what view=shell and a trimmed node show).
func IdentityKey(key string) bool {
	switch key {
	case "nick", "loc", "name", "title":
		return true
	}
	return false
}

func shown(p Props, trimmed bool) Props {
	if !trimmed {
		return p
	}
	return keepProps(p, func(kv Prop) bool { return IdentityKey(kv.Key) })
}

// BriefProp reports whether a node shown in brief (the first ring of an
// economical Shape) shows the property: its identity, and every value
// that is not a list (a list, such as a memory's observations, is read
// on the node itself).
func BriefProp(kv Prop) bool { return IdentityKey(kv.Key) || kv.Val.Kind() != KindList }

// keepProps is p without the properties keep refuses (p itself when it
// keeps them all).
func keepProps(p Props, keep func(Prop) bool) Props {
	n := 0
	for _, kv := range p {
		if keep(kv) {
			n++
		}
	}
	if n == len(p) {
		return p
	}
	out := make(Props, 0, n)
	for _, kv := range p {
		if keep(kv) {
			out = append(out, kv)
		}
	}
	return out
}

// Cue says how a Recall found its seeds.
type Cue string

// The cues.
const (
	CueMatch   Cue = "match"   // the token matched live nodes
	CueTask    Cue = "task"    // the token matched nothing; the live tasks (TSK, not Settled) seeded the walk
	CuePeak    Cue = "peak"    // the token matched nothing and no task is live; Peak_L seeded the walk
	CueOutline Cue = "outline" // the empty token: counts and exemplars
	CueSkip    Cue = "skip"    // no seed at all: an empty Shape
)

// The views of a Recall (RecallOptions.View).
const (
	ViewInterior = "interior" // the full walk, all properties
	ViewShell    = "shell"    // hierarchical edges and identity properties only
)

// MatchCountWork is the most matches a Recall counts, beyond its seeds, to
// say how many nodes its token matched (Shape.Matched): past it the count
// is a lower bound.
const MatchCountWork = 1024

// TokenAlarm is the Shape size, in tokens, above which its header raises
// an alarm.
const TokenAlarm = 8000
