package vocab

import (
	"cmp"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/goldfish-gql/goldfish/values"
)

// The window is the ledger's record of the last values.MaxGapWindow Commits that
// wrote a property or called an action, one entry each: who committed,
// the (kind, key) pairs it wrote on each side, and the actions whose CALL
// applied. Vocabulary gaps, the message patterns of docs/design.md#the-vocabulary-and-attention, are read
// from the last gap_window of them (a rolling window, where the write
// table counts the session's whole life), and so is pre-action
// clustering: raw Commits that keep coming just before a CALL of the same
// action by the same agent. Like the rest of the ledger it is a function
// of the Commits alone, versioned with the State, and encoded with it.

// preActionLookback is how many of an agent's Commits before its CALL
// count as preceding it (the seed: "within the next 2 reads").
const preActionLookback = 2

// windowCommit is one Commit of the window.
type windowCommit struct {
	agent  string
	writes []Write  // distinct pairs, in the order first written
	calls  []string // the actions whose CALL applied, each once
}

func (c *windowCommit) hasRaw() bool {
	for _, w := range c.writes {
		if !w.InAction {
			return true
		}
	}
	return false
}

// The window is stored in chunks: a full chunk is never changed again, and
// the last one is appended to in place by the next Record of the ledger
// that sees all its entries (a State only ever reads the first tail
// entries of its last chunk, so an older State never sees the append).
// A Record on a State whose last chunk another Record already appended to
// (a Δ rolled back after it recorded) copies that chunk instead; the
// claim of a slot is atomic, so two Records can never write one slot.
const windowChunk = 32

// maxWindowLen is the most entries a window holds: values.MaxGapWindow and the
// rest of the chunk it starts in, and a last chunk being filled.
const maxWindowLen = (values.MaxGapWindow+windowChunk-1)/windowChunk*windowChunk + windowChunk

type winChunk struct {
	recs   [windowChunk]windowCommit
	filled atomic.Int32 // slots claimed, by any ledger of the lineage
}

type window struct {
	chunks []*winChunk // oldest first
	tail   int         // entries of the last chunk this ledger sees
}

// len is the number of entries the window holds.
func (w *window) len() int {
	if len(w.chunks) == 0 {
		return 0
	}
	return (len(w.chunks)-1)*windowChunk + w.tail
}

// at returns entry i, 0 the oldest.
func (w *window) at(i int) *windowCommit { return &w.chunks[i/windowChunk].recs[i%windowChunk] }

// push returns the window with rec appended, the oldest chunk dropped
// once the rest hold values.MaxGapWindow entries; w itself is not changed.
func (w window) push(rec windowCommit) window {
	if n := len(w.chunks); n > 0 && w.tail < windowChunk {
		last := w.chunks[n-1]
		if last.filled.CompareAndSwap(int32(w.tail), int32(w.tail+1)) {
			last.recs[w.tail] = rec
			w.tail++
			return w
		}
		c := &winChunk{}
		copy(c.recs[:w.tail], last.recs[:w.tail])
		c.recs[w.tail] = rec
		c.filled.Store(int32(w.tail + 1))
		w.chunks = append(slices.Clip(w.chunks[:n-1]), c)
		w.tail++
		return w
	}
	c := &winChunk{}
	c.recs[0] = rec
	c.filled.Store(1)
	// Every chunk but the last is full, and so is the last here: drop
	// the oldest while the others still hold values.MaxGapWindow with rec.
	chunks := w.chunks
	for len(chunks) > 1 && (len(chunks)-1)*windowChunk+1 >= values.MaxGapWindow {
		chunks = chunks[1:]
	}
	w.chunks = append(slices.Clip(chunks), c)
	w.tail = 1
	return w
}

// recent returns the last n entries' indexes range [from, to).
func (w *window) recent(n uint64) (from, to int) {
	to = w.len()
	from = to - int(min(n, uint64(to)))
	return from, to
}

// WindowCounts is what the last n Commits of the window did: how many
// wrote a property raw, how many called an action, and the write counts
// per (kind, key) pair over them, sorted by (Kind, Key).
type WindowCounts struct {
	Commits, RawCommits, ActionCommits uint64
	Writes                             []WriteCount
}

// Window counts the last n Commits of the window (all it holds when n is
// larger).
func (s *State) Window(n uint64) WindowCounts {
	var out WindowCounts
	if s == nil || s.led == nil {
		return out
	}
	w := &s.led.win
	from, to := w.recent(n)
	idx := map[[2]string]int{}
	for i := from; i < to; i++ {
		c := w.at(i)
		out.Commits++
		if c.hasRaw() {
			out.RawCommits++
		}
		if len(c.calls) > 0 {
			out.ActionCommits++
		}
		for _, wr := range c.writes {
			k := [2]string{wr.Kind, wr.Key}
			j, ok := idx[k]
			if !ok {
				j = len(out.Writes)
				idx[k] = j
				out.Writes = append(out.Writes, WriteCount{Kind: wr.Kind, Key: wr.Key})
			}
			if wr.InAction {
				out.Writes[j].InAction++
			} else {
				out.Writes[j].Raw++
			}
		}
	}
	slices.SortFunc(out.Writes, func(a, b WriteCount) int { return comparePair(a.Kind, a.Key, b.Kind, b.Key) })
	return out
}

// Preceding is a (kind, key) pair that raw Commits of an agent wrote
// just before its CALLs of an action, Times of the action's Calls in the
// window.
type Preceding struct {
	Kind, Key    string
	Action       string
	Times, Calls uint64
}

// PreAction finds pre-action clusters in the last n Commits: for each
// CALL of action A by an agent, the pairs written raw by that agent's
// preActionLookback Commits before it, and raw by the CALL's own Commit,
// each pair counted once per CALL. A pair that came before at least
// minTimes CALLs of A, and before at least half of them, and that A's
// body does not write itself, is one; a pair is given with the action it
// precedes most often (ties by name). They are sorted by Times, most
// first, then by (Kind, Key).
func (s *State) PreAction(n, minTimes uint64) []Preceding {
	if s == nil || s.led == nil {
		return nil
	}
	w := &s.led.win
	from, to := w.recent(n)
	type key struct{ kind, prop, action string }
	counts := map[key]uint64{}
	calls := map[string]uint64{}
	seen := map[key]bool{}
	for i := from; i < to; i++ {
		c := w.at(i)
		for _, a := range c.calls {
			calls[a]++
			clear(seen)
			count := func(p *windowCommit) {
				for _, wr := range p.writes {
					k := key{wr.Kind, wr.Key, a}
					if !wr.InAction && !seen[k] {
						seen[k] = true
						counts[k]++
					}
				}
			}
			count(c)
			for j, back := i-1, 0; j >= from && back < preActionLookback; j-- {
				if p := w.at(j); p.agent == c.agent {
					back++
					count(p)
				}
			}
		}
	}
	best := map[[2]string]Preceding{}
	for k, t := range counts {
		total := calls[k.action]
		if t < minTimes || 2*t < total || s.actionWrites(k.action, k.kind, k.prop) {
			continue
		}
		p := Preceding{Kind: k.kind, Key: k.prop, Action: k.action, Times: t, Calls: total}
		pk := [2]string{k.kind, k.prop}
		if b, ok := best[pk]; !ok || t > b.Times || t == b.Times && k.action < b.Action {
			best[pk] = p
		}
	}
	out := make([]Preceding, 0, len(best))
	for _, p := range best {
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b Preceding) int {
		if c := cmp.Compare(b.Times, a.Times); c != 0 {
			return c
		}
		return comparePair(a.Kind, a.Key, b.Kind, b.Key)
	})
	return out
}

// actionWrites reports whether the registered action's body writes key
// on kind (a target of that key for the kind or for any kind).
func (s *State) actionWrites(name, kind, key string) bool {
	a, ok := s.Action(name)
	if !ok {
		return false
	}
	for _, t := range a.Writes {
		if t.Key == key && (t.Kind == kind || t.Kind == "") {
			return true
		}
	}
	return false
}

// CalledBy returns the actions the agent's Commits in the last n of the
// window called, sorted, each once.
func (s *State) CalledBy(agent string, n uint64) []string {
	if s == nil || s.led == nil || agent == "" {
		return nil
	}
	w := &s.led.win
	from, to := w.recent(n)
	var out []string
	for i := from; i < to; i++ {
		if c := w.at(i); c.agent == agent {
			for _, a := range c.calls {
				if !slices.Contains(out, a) {
					out = append(out, a)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// windowEntry turns a Delta into its window entry; Record names its
// pairs with the write table's strings (kinds and keys are kept once).
func windowEntry(d *Delta) windowCommit {
	c := windowCommit{agent: strings.Clone(d.agent)}
	if len(d.writes) > 0 {
		c.writes = slices.Clone(d.writes)
	}
	for _, a := range d.calls {
		c.calls = append(c.calls, strings.Clone(a))
	}
	return c
}
