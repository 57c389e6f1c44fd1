package goldfish

import (
	"context"
	"slices"

	"github.com/goldfish-gql/goldfish/internal/engine"
)

// Shape is what a Recall returns: the emitted GQL text (a comment header
// and one INSERT statement), the cue, and the counts. Each call returns a
// Shape of its own: the caller may change it freely, and the next caller
// of the same Recall receives the same bytes whatever this one did.
type Shape struct {
	// Text is the emit: the header and notes as comments, then one
	// INSERT statement, so the whole text parses.
	Text string
	Cue  Cue
	// Seeds is the number of seeds, Rows the elements emitted (at most
	// M), Tokens the text's token count.
	Seeds, Rows, Tokens int
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
	// clamped to the seed budget) or 02000 (cue skip).
	Status Code
	// Attention is the envelope of what the reader should notice (nil
	// when it has nothing to say); Text holds it as comment lines.
	Attention *Attention
}

// MatchCountWork is the most matches a Recall counts, beyond its seeds, to
// say how many nodes its token matched (Shape.Matched): past it the count
// is a lower bound.
const MatchCountWork = 1024

// Cue says how a Recall found its seeds (SPEC §5).
type Cue string

// The cues.
const (
	CueMatch   Cue = "match"   // the token matched live nodes
	CueTask    Cue = "task"    // the token matched nothing; the live tasks (TSK, not Settled) seeded the walk
	CuePeak    Cue = "peak"    // the token matched nothing and no task is live; Peak_L seeded the walk
	CueOutline Cue = "outline" // the empty token: counts and exemplars
	CueSkip    Cue = "skip"    // no seed at all: an empty Shape
)

// RecallOptions are the budgets of one Recall. Zero values take the
// defaults (M=50, k=2, L=4, F=8, T=4000, view interior, peaks on), so
// RecallOptions{M: 10} changes M alone; values above the database's
// ceilings are refused (22Q01). K: NoWalk asks for k = 0, the seeds
// alone (SPEC §5): k is the one budget whose 0 is a value of its own.
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
	// 0 takes the default, 4,000 (SPEC §3); there is no ceiling: a
	// large T only keeps more text, and the 8,000-token alarm still
	// speaks.
	T int
	// View is "interior" (default) or "shell": hierarchical edges and
	// identity properties only.
	View string
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

// DefaultRecall are the default budgets of SPEC §3.
var DefaultRecall = RecallOptions{M: 50, K: 2, L: 4, F: 8, T: 4000}

// engineRecall is o as the engine takes it; the engine fills the
// defaults and refuses budgets above the database's ceilings.
func (o RecallOptions) engineRecall() engine.RecallOptions {
	return engine.RecallOptions{M: o.M, K: o.K, L: o.L, F: o.F, T: o.T, View: o.View, Pinned: o.Pinned,
		NoPeaks: o.NoPeaks, ExactTokens: o.ExactTokens, Params: o.Params, Agent: o.Agent, Depth: o.Depth,
		Only: o.Only, Sessions: o.Sessions, AtVersion: o.AtVersion}
}

// Recall reads the session with the codebook token q (a MATCH of node
// patterns with optional WHERE and LIMIT; MATCH () for the outline) and
// returns the Shape: the same bytes for the same q on the same version.
func (s *Session) Recall(ctx context.Context, q string, opts RecallOptions) (*Shape, error) {
	return s.recall(ctx, q, opts, nil)
}

// RecallTimed is Recall that also reports where the time went.
func (s *Session) RecallTimed(ctx context.Context, q string, opts RecallOptions) (*Shape, Timing, error) {
	var t Timing
	sh, err := s.recall(ctx, q, opts, &t)
	return sh, t, err
}

func (s *Session) recall(ctx context.Context, q string, opts RecallOptions, t *Timing) (*Shape, error) {
	et, done := engineTiming(t)
	r, err := s.e.Recall(ctx, q, opts.engineRecall(), et)
	done()
	if err != nil {
		return nil, err
	}
	sh := r.Shape
	return &Shape{Text: sh.Text, Cue: Cue(sh.Cue), Seeds: sh.Seeds, Matched: sh.Matched, MatchedAtLeast: sh.MatchedMore, Rows: sh.Rows, Tokens: sh.Tokens,
		Version: sh.Version, AsOf: sh.At(), Truncated: sh.Truncated, Trimmed: sh.Trimmed, Elided: sh.Elided, Clamps: slices.Clone(sh.Clamps),
		Notices: slices.Clone(sh.Notices), Status: sh.Status, Attention: attentionOf(r.Attention)}, nil
}

// PastVersions is how many of its latest versions a session keeps
// readable for RecallOptions.AtVersion.
const PastVersions = 1000
