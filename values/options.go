package values

import "time"

// RecallOptions are the budgets of one Recall. Zero values take the
// defaults (M=50, k=2, L=4, F=8, T=4000, view interior, peaks on), so
// RecallOptions{M: 10} changes M alone; values above the database's
// ceilings are refused (22Q01). K: NoWalk asks for k = 0, the seeds
// alone: k is the one budget whose 0 is a value of its own.
//
// A LIMIT in the token is that Recall's L: LIMIT n seeds at most n nodes,
// and on the outline (MATCH ()) shows at most n exemplars per kind. It may
// lower L freely and raise it up to the L ceiling; when L is set here, it
// bounds the LIMIT too. A LIMIT above its bound is clamped to it, with a
// 01000 notice in the Shape (and a comment in its text) naming both: a
// LIMIT says "at most n", which the clamped seed set still meets.
type RecallOptions struct {
	// M is the most rows (nodes and edges) of the Shape; 0 takes the
	// default, 50.
	M int
	// K is the most hops the walk takes from the seeds; 0 takes the
	// default, 2, and NoWalk asks for k = 0: the seeds alone, with the
	// edges between them, and no hop (the header then says k=0).
	K int
	// L is the most seeds (0: the default, 4) and F the most new
	// neighbours one node adds to the walk (0: the default, 8).
	L, F int
	// T is the token target: when a Shape's body would be over T tokens
	// (by the estimate), the nodes beyond the seeds are shown with their
	// identity properties only (nick, loc, name, title), those farthest
	// from the seeds first, ring by ring, until the body fits or every
	// node past the seeds is trimmed. Seeds and pinned nodes are always
	// shown whole and no node is dropped for T (M bounds the rows); an
	// edge between two trimmed nodes at the same hop is left out (the
	// walk reached neither through it). The header's trimmed=N and a
	// 01000 notice say what was trimmed.
	// 0 takes the default, 4,000; there is no ceiling: a large T only
	// keeps more text, and the 8,000-token alarm still speaks.
	T int
	// View is "interior" (default) or "shell": hierarchical edges and
	// identity properties only.
	View string
	// Whole shows every node of the Shape whole (T still trims). Unset,
	// the default, a Shape is economical: the seeds (and pinned nodes)
	// are whole, the nodes one hop away show their identity and every
	// value that is not a list (a list, such as a memory's
	// observations, is read by recalling that node), nodes farther away
	// their identity alone; and a point token, whose every node pattern
	// names its node by nick, loc, name or title, walks one hop unless K
	// is given: the node and what it touches.
	Whole bool
	// After pages the seeds' neighbours: each seed skips its first After
	// new neighbours in canonical order, which an earlier Recall showed,
	// and shows the next ones (0: the first page). A clamp note of a
	// seed gives the After of the next page; the header says after=N.
	After int
	// Pinned kinds are added to the Shape first: the seeds of those
	// kinds, and the first other live nodes of them in canonical order,
	// identity and properties, at most max(1, ⌊M/4⌋) of those others
	// and never more than the rows the seeds leave (M − seeds); a seed
	// of a pinned kind is shown once and takes none of that share. Nil
	// takes the session's pinned kinds (Session.SetPinnedKinds); a list
	// replaces them for this call. The outline (MATCH ()) pins nothing.
	Pinned []string
	// NoPeaks switches the fallbacks of a miss off (the live tasks, then
	// Peak_L): a token that matches nothing then gives cue skip.
	NoPeaks bool
	// ExactTokens counts the Shape's tokens with the o200k tokenizer
	// rather than the fast estimate.
	ExactTokens bool
	// Params are the values of the token's $parameters.
	Params map[string]any
	// Agent names who reads ("" for nobody): the session then counts the
	// Recall as that agent's and keeps what it read (Agents), and the
	// envelope says what changed since its previous Recall. The rules
	// are ValidAgentName's.
	Agent string
	// Depth is how much the envelope shows of the vocabulary: "lean"
	// (the default: names, values and signatures, at most 300 tokens in
	// all) or "full" (with intents, counters and salience). An agent's
	// first Recall of a session is shown at full once.
	Depth string
	// Only keeps just the sections it names, any of "shape", "views",
	// "actions" and "attention" (none: all). Broken views show whatever
	// it says, and the envelope's you_elided names the sections left out
	// that changed since the agent last saw them.
	Only []string
	// AtVersion reads the session as of that version (0: the newest):
	// the Shape's body is byte for byte the one the token gave when that
	// version was the newest, the envelope is today's, and the header
	// says version=N at=N. The session keeps up to its latest
	// PastVersions versions readable (those its Commits made in this
	// process and those a reopen replayed from the log, while they hold
	// less memory than the newest version); another is refused with
	// 22Q08, naming the versions it keeps.
	AtVersion uint64
	// Sessions, on the catalogue only, says which sessions' nodes the
	// Recall may see (nil: all): a server sets it to what a caller may
	// read. The Recall then reads a catalogue of those nodes alone, at
	// version 1, so neither its rows nor its version tell of the others.
	Sessions func(name string) bool
}

// NoWalk as RecallOptions.K (or SliceOptions.K) asks for k = 0: the
// seeds alone, with the edges between them, and no hop. K's zero value
// keeps meaning the default k = 2, as every other budget's zero value
// means its default.
const NoWalk = -1

// DefaultRecall are the default budgets of a Recall.
var DefaultRecall = RecallOptions{M: 50, K: 2, L: 4, F: 8, T: 4000}

// PastVersions is how many of its latest versions a session keeps
// readable for RecallOptions.AtVersion.
const PastVersions = 1000

// Ceilings bound what a Recall may ask for.
type Ceilings struct{ M, K, L, F int }

// DefaultCeilings are the highest budgets a Recall may ask for unless the
// database is opened with other ceilings.
var DefaultCeilings = Ceilings{M: 200, K: 4, L: 32, F: 64}

// Budget is the R cap of one Δ.
type Budget struct {
	// Rows is the most elements one Δ may write or bind (default 500).
	Rows int
	// Bytes is the most bytes of text, written values and parameters (as
	// GQL literals) one Δ may carry (default 256 KiB). A Recall's
	// parameters are held to it too.
	Bytes int
	// Work is the most units of work one Δ may spend finding what its
	// MATCHes bind, whether or not the rows it was for pass WHERE: one
	// unit per candidate node examined and per edge traversed, and for
	// each predicate or computed value evaluated one unit plus its CEL
	// cost. Zero means 2,000 units per row of Rows (1,000,000 by
	// default): enough for a join of two labels of a few hundred nodes
	// each, and a stop for a cartesian product that would hold the
	// session's writer for minutes.
	Work int
}

// DefaultBudget is R: 500 rows, 256 KiB.
var DefaultBudget = Budget{Rows: 500, Bytes: 256 << 10}

// CommitOptions are the options of one Commit (CommitWith, IngestWith).
// The zero value is what Commit and Ingest use.
type CommitOptions struct {
	// Agent names who commits ("" for nobody); the log entry keeps it, so
	// the session knows, after a restart too, which agent registered
	// what. The rules are ValidAgentName's.
	Agent string
	// Timing, when set, receives where the time of the call went (as
	// CommitTimed reports it).
	Timing *Timing
}

// Timing says where the time of one call went. Parse and Plan are zero
// when the plan cache answered; Execute and Emit are zero when the Shape
// cache did (Cached).
type Timing struct {
	Parse, Plan, Execute, Emit time.Duration
	Cached                     bool
}
