package values

// SliceOptions are the budgets of one ExportSlice: each anchor's
// neighbourhood is walked as a Recall walks its seeds, and zero values
// take the Recall defaults (M=50, k=2, L=4, F=8), values above the
// database's ceilings being refused (22Q01). L bounds the anchors: the
// seeds of q (a LIMIT in q as in a Recall) or the nicks named.
type SliceOptions struct {
	M, K, L, F int
	// Nicks, when set, name the anchors instead of q (q is then "").
	Nicks []string
	// Params are the values of q's $parameters.
	Params map[string]any
}

// Slice is what ExportSlice returns. Each call returns a Slice of its own.
type Slice struct {
	// Text is the slice: a comment header and one INSERT that carries
	// the engine ids (see Absorb).
	Text string
	// Anchors, Nodes and Edges count what the slice holds; Rows is
	// Nodes+Edges, at most Bound, which is M × Anchors.
	Anchors, Nodes, Edges, Rows, Bound int
	// Version is the session version the slice was read at.
	Version uint64
	// Truncated is set when M cut an anchor's walk short or the bound
	// left out edges between the slice's nodes.
	Truncated bool
	Notices   []Notice
	// Status is 00000, 01000 (a clamp, a cut, a LIMIT clamped) or 02000
	// (no anchor: q matched nothing, and the slice is empty).
	Status Code
}

// AbsorbPolicy says what Absorb does with a slice's engine ids.
type AbsorbPolicy string

// The policies.
const (
	// AbsorbKeep keeps the slice's ids. An element whose id the session
	// holds with the same content (kind, labels, properties; an edge's
	// type and ends too) is left as it is: absorbing a slice twice is a
	// no-op. One whose id the session holds otherwise (another element,
	// a deleted one not purged yet), or a node whose nick another live
	// node has, fails the whole Absorb with 40002, naming it.
	AbsorbKeep AbsorbPolicy = "keep"
	// AbsorbReject keeps the slice's ids as AbsorbKeep does but skips the
	// clashing elements, and the edges of a skipped node, and lists them
	// (AbsorbResult.Skipped).
	AbsorbReject AbsorbPolicy = "reject"
	// AbsorbRemint gives every element a fresh id and rewrites the edges
	// to the new ids (AbsorbResult.Reminted). A node whose nick a live
	// node has is skipped, with its edges, and listed: a nick is never
	// held twice, and never silently taken over by the slice.
	AbsorbRemint AbsorbPolicy = "remint"
)

// AbsorbResult reports an Absorb: what its Δ did, as a Commit reports it
// (one statement, whose notices say what was skipped), and per element.
// It is the caller's own.
type AbsorbResult struct {
	CommitResult
	Policy AbsorbPolicy
	// Unchanged counts the slice's elements the session held already,
	// with the same ids and content (keep and reject).
	Unchanged int
	// Skipped lists the elements reject and remint left out, in slice
	// order.
	Skipped []SkippedElement
	// Reminted maps each slice variable remint wrote to the element's
	// variable in this session: the same prefix and its new engine id.
	Reminted map[string]string
}

// SkippedElement is a slice element Absorb left out, and why.
type SkippedElement struct {
	// Element is its variable in the slice ("tsk_17"), Reason why it was
	// left out; Line and Column are where the slice writes it.
	Element, Reason string
	Line, Column    int
}
