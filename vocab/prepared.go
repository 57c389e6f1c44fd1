package vocab

import (
	"cmp"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"

	"github.com/goldfish-gql/goldfish/tokens"
	"github.com/goldfish-gql/goldfish/values"
)

// Prepared is what every envelope of one session version shares: the
// vocabulary's lines at lean, the broken views, the fingerprints of the
// views and actions sections, the overlapping intents. A session prepares
// it once per version (with the views' values), so an envelope costs the
// vocabulary's size, not the session's.
type Prepared struct {
	State  *State
	Values *Values
	views  []item
	acts   []item
	broken []values.BrokenView
	// viewsPrint and actionsPrint change when anything a reader sees of
	// the section changes (a value, a registration, an invocation).
	viewsPrint, actionsPrint uint64
	overlap                  []values.IntentOverlap
	overlapN                 int // pairs in all (overlap holds the first)
	// sharedPrint covers the broken views and the overlapping intents.
	sharedPrint uint64
	// overlapLines and contestedLines are intent_overlap's and
	// contested's lines at lean (preLines).
	overlapLines, contestedLines []preLine

	rank atomic.Pointer[ranking]

	mu      sync.Mutex
	gapsFor [3]float64 // the settings gaps was computed for
	gaps    []values.VocabularyGap
	// yours caches what the yours section says of each agent.
	yours map[string]*yoursOf
}

// item is one view or action as an envelope lists it.
type item struct {
	name   string
	view   bool
	broken bool
	lean   []byte // its line at lean, cut to fit
	milli  int64  // lean's token estimate
	v      *View
	a      *Action
	res    Result
}

// Lean cuts: what one line may hold at depth=lean.
const (
	leanValue     = 80
	leanSignature = 160
	leanName      = 48
)

// Prepare builds the shared part of the envelopes of state's version.
func Prepare(state *State, vals *Values) *Prepared {
	p := &Prepared{State: state, Values: vals, gapsFor: [3]float64{-1, -1, -1}}
	vh, ah := fnv.New64a(), fnv.New64a()
	for _, v := range state.Views() {
		it := item{name: v.Name, view: true, v: v}
		if vals != nil {
			it.res = vals.Results[v.Name]
		}
		it.broken = it.res.Err != nil
		line := append([]byte(nil), "// view "...)
		line = append(line, v.Name...)
		if it.broken {
			line = append(line, ": broken"...)
			p.broken = append(p.broken, values.BrokenView{Name: v.Name, Error: oneLine(it.res.Err.Error())})
		} else {
			line = append(line, " = "...)
			line = append(line, cut(it.res.Text, leanValue)...)
		}
		it.lean = append(line, '\n')
		it.milli = tokens.Milli(it.lean)
		p.views = append(p.views, it)
		vh.Write(it.lean)
		vh.Write([]byte(strconv.FormatUint(v.Revised, 10)))
	}
	for _, a := range state.Actions() {
		it := item{name: a.Name, a: a}
		line := append([]byte(nil), "// action "...)
		line = append(line, cut(a.Signature(), leanSignature)...)
		it.lean = append(line, '\n')
		it.milli = tokens.Milli(it.lean)
		p.acts = append(p.acts, it)
		ah.Write(it.lean)
		ah.Write([]byte(strconv.FormatUint(a.Revised, 10) + "/" + strconv.Itoa(a.Invocations)))
	}
	if len(p.views) > 0 {
		p.viewsPrint = vh.Sum64() | 1
	}
	if len(p.acts) > 0 {
		p.actionsPrint = ah.Sum64() | 1
	}
	p.overlap, p.overlapN = overlaps(state.Actions())
	sh := fnv.New64a()
	for _, b := range p.broken {
		sh.Write([]byte(b.Name + "\x00" + b.Error + "\x00"))
	}
	for _, o := range p.overlap {
		sh.Write([]byte(o.A + "\x00" + o.B + "\x00"))
	}
	p.sharedPrint = sh.Sum64()
	if len(p.overlap) > 0 {
		p.overlapLines = preLines("intent_overlap", p.overlap, p.overlapN, overlapText, " (merge them)")
	}
	if cs := state.Contested(); len(cs) > 0 {
		p.contestedLines = preLines("contested", cs, len(cs), contestedLean, contestedTail)
	}
	return p
}

// Empty reports whether the version has no vocabulary.
func (p *Prepared) Empty() bool { return p == nil || len(p.views)+len(p.acts) == 0 }

// Quiet reports whether an envelope of the version has nothing to say
// to a reader that names no agent: no vocabulary and no gap.
func (p *Prepared) Quiet(s values.AttentionSettings) bool { return p.Empty() && len(p.gapsAt(s)) == 0 }

// ViewNames lists the views that are not broken, in name order.
func (p *Prepared) ViewNames() []string {
	if p == nil {
		return nil
	}
	var out []string
	for i := range p.views {
		it := &p.views[i]
		if !it.broken {
			out = append(out, it.name)
		}
	}
	return out
}

// Broken returns the broken views, with their errors.
func (p *Prepared) Broken() []values.BrokenView {
	if p == nil {
		return nil
	}
	return p.broken
}

// gapsAt returns the vocabulary gaps under the settings (computed once
// per version and settings): the pairs of State.Gaps over the gap window,
// and the pairs of State.PreAction, which say the action they precede.
func (p *Prepared) gapsAt(s values.AttentionSettings) []values.VocabularyGap {
	p.mu.Lock()
	defer p.mu.Unlock()
	key := [3]float64{float64(s.GapMin), s.GapRatio, float64(s.GapWindow)}
	if p.gapsFor == key {
		return p.gaps
	}
	p.gaps, p.gapsFor = gapsOf(p.State, s), key
	return p.gaps
}

// gapsOf computes the vocabulary gaps of a version under the settings.
func gapsOf(st *State, s values.AttentionSettings) []values.VocabularyGap {
	var gaps []values.VocabularyGap
	win := st.Window(s.GapWindow)
	if len(st.views)+len(st.actions) == 0 && win.ActionCommits == 0 {
		// Gaps are what the vocabulary misses: a session with none (no
		// view, no action, no CALL in the window) has nothing to assess
		// yet, raw Commits being all it has.
		return nil
	}
	at := map[[2]string]int{}
	for _, w := range win.Writes {
		if w.Raw >= s.GapMin && float64(w.Raw) >= s.GapRatio*float64(w.InAction) {
			at[[2]string{w.Kind, w.Key}] = len(gaps)
			gaps = append(gaps, values.VocabularyGap{Kind: w.Kind, Property: w.Key, Raw: w.Raw, InActions: w.InAction})
		}
	}
	for _, pre := range st.PreAction(s.GapWindow, s.GapMin) {
		i, ok := at[[2]string{pre.Kind, pre.Key}]
		if !ok {
			i = len(gaps)
			g := values.VocabularyGap{Kind: pre.Kind, Property: pre.Key}
			if j, found := slices.BinarySearchFunc(win.Writes, g, func(w WriteCount, g values.VocabularyGap) int {
				return comparePair(w.Kind, w.Key, g.Kind, g.Property)
			}); found {
				g.Raw, g.InActions = win.Writes[j].Raw, win.Writes[j].InAction
			}
			gaps = append(gaps, g)
		}
		gaps[i].BeforeCall, gaps[i].BeforeTimes, gaps[i].BeforeCalls = pre.Action, pre.Times, pre.Calls
	}
	slices.SortStableFunc(gaps, func(a, b values.VocabularyGap) int {
		if c := cmp.Compare(b.Raw, a.Raw); c != 0 {
			return c
		}
		return comparePair(a.Kind, a.Property, b.Kind, b.Property)
	})
	return gaps
}

// stopWords are left out of an intent's keywords: words of three letters
// or more that say nothing of what an action is for.
var stopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`the and for with that this from into its are was were not but all any
		can has have had when what which who whom why how our your their them they then than there here
		each every only also just one two some such out off own per via yet too very more most much
		will would should could may might must shall let lets use uses used using get gets set sets
		make makes made does did done being been onto upon about after before over under again
		it's i'm so`) {
		stopWords[w] = true
	}
}

// Keywords returns an intent's keyword set: its lower-cased words of
// three letters or more, less the stop words, sorted and unique.
func Keywords(intent string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(intent), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_'
	}) {
		if len([]rune(w)) >= 3 && !stopWords[w] {
			out = append(out, w)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// OverlapJaccard is the Jaccard index at which two intents overlap.
const OverlapJaccard = 0.5

// MaxOverlapPairs is the most overlapping pairs a version keeps by
// name; the rest are counted.
const MaxOverlapPairs = 64

// overlapWork bounds the pairs of actions sharing a keyword that one
// version compares: a vocabulary of thousands of actions with one intent
// costs this much, then its count is a lower bound.
const overlapWork = 4 << 20

// overlaps finds the pairs of actions whose intents' keyword sets have a
// Jaccard index of at least OverlapJaccard: the first MaxOverlapPairs in
// name order, and how many there are in all. Only pairs sharing a
// keyword are compared (an index by keyword), so unrelated intents cost
// nothing.
func overlaps(acts []*Action) (out []values.IntentOverlap, total int) {
	sets := make([][]string, len(acts))
	byWord := map[string][]int{}
	for i, a := range acts {
		sets[i] = Keywords(a.Intent)
		for _, w := range sets[i] {
			byWord[w] = append(byWord[w], i)
		}
	}
	shared := make([]int, len(acts))
	var touched []int
	work := 0
	for i := range acts {
		touched = touched[:0]
		for _, w := range sets[i] {
			post := byWord[w]
			// Postings are in index order: start past i.
			k, _ := slices.BinarySearch(post, i+1)
			for _, j := range post[k:] {
				if shared[j] == 0 {
					touched = append(touched, j)
				}
				shared[j]++
			}
			work += len(post) - k
		}
		slices.Sort(touched)
		for _, j := range touched {
			n := shared[j]
			shared[j] = 0
			union := len(sets[i]) + len(sets[j]) - n
			if jac := float64(n) / float64(union); jac >= OverlapJaccard {
				total++
				if len(out) < MaxOverlapPairs {
					out = append(out, values.IntentOverlap{A: acts[i].Name, B: acts[j].Name, Jaccard: float64(int(jac*100+0.5)) / 100})
				}
			}
		}
		if work > overlapWork {
			break
		}
	}
	return out, total
}

// cut returns s cut to at most n bytes at a rune boundary, with "…".
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && s[i]&0xC0 == 0x80 {
		i--
	}
	return s[:i] + "…"
}

// oneLine keeps text on one comment line.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
}
