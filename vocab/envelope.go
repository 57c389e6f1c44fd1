package vocab

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"

	"github.com/goldfish-gql/goldfish/tokens"
	"github.com/goldfish-gql/goldfish/values"
)

// Depth is how much of the vocabulary an envelope shows.
type Depth uint8

// The depths.
const (
	DepthLean Depth = iota // names, values and signatures, within LeanTokens
	DepthFull              // with intents, counters and salience, everything
)

// ParseDepth reads "lean" or "full" ("" is lean).
func ParseDepth(s string) (Depth, error) {
	switch strings.ToLower(s) {
	case "", "lean":
		return DepthLean, nil
	case "full":
		return DepthFull, nil
	}
	return 0, fmt.Errorf("depth %q is not a depth; use lean or full", s)
}

func (d Depth) String() string {
	if d == DepthFull {
		return "full"
	}
	return "lean"
}

// Sections is a set of a Recall's sections.
type Sections uint8

// The sections of a Recall.
const (
	SectionShape Sections = 1 << iota
	SectionViews
	SectionActions
	SectionAttention

	AllSections = SectionShape | SectionViews | SectionActions | SectionAttention
)

var sectionNames = []string{"shape", "views", "actions", "attention"}

// ParseSections reads section names (any of shape, views, actions,
// attention); none is every section.
func ParseSections(names []string) (Sections, error) {
	if len(names) == 0 {
		return AllSections, nil
	}
	var s Sections
	for _, n := range names {
		i := slices.Index(sectionNames, strings.ToLower(strings.TrimSpace(n)))
		if i < 0 {
			return 0, fmt.Errorf("%q is not a section; the sections are shape, views, actions and attention", n)
		}
		s |= 1 << i
	}
	return s, nil
}

// Names lists the sections in the set, in their order.
func (s Sections) Names() []string {
	var out []string
	for i, n := range sectionNames {
		if s&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return out
}

// LeanTokens bounds everything an envelope adds to a Recall at
// depth=lean: the attention lines and the views and actions listed.
const LeanTokens = 300

// leanBroken is how many broken views a lean line may name.
const leanBroken = 20

const leanTokensText = "300" // LeanTokens, for the lines that name it

// leanList is how many names a list shows at lean before "+N more".
const leanList = 5

// Seen is what an agent's record says of its reads: the count and the
// version of the latest, and for each section a fingerprint of what the
// agent last saw of it (0: never), so a read can say what a section
// left out has changed since.
type Seen struct {
	Reads   uint64
	Version uint64
	// Changed is the session's count of changed elements at Version.
	Changed uint64
	// Shape, Views, Actions, Attention are the fingerprints.
	Shape, Views, Actions, Attention uint64
	// ViewRead is Reads at the agent's latest read of views (a Recall
	// of only=views, a Commit of its whose CALL or registration names
	// views); 0: none yet.
	ViewRead uint64
}

// Read is one Recall's request of an envelope.
type Read struct {
	Prepared *Prepared
	Version  uint64
	// Changed is the session's count of changed elements at Version.
	Changed uint64
	// Tick is the session's Recall count, this Recall included.
	Tick     uint64
	Settings values.AttentionSettings
	Marks    *Marks
	// ViewChangedAt is, per view, the version its value was last seen
	// to change at.
	ViewChangedAt map[string]uint64
	// Agent names the reader; Seen is its record before this read, and
	// Recent its latest Recalls, by which its salience decays
	// (recent.go).
	Agent  string
	Seen   Seen
	Recent Recent
	Depth  Depth
	Only   Sections
	// SinceDiff is the change since the agent's previous read as GQL
	// (the session's Diff from Seen.Version to Version), "" when the
	// caller did not write it (too large, or versions not kept).
	SinceDiff string
	// Target bounds the envelope at depth=full, in tokens.Milli units:
	// what the Recall's token target leaves beside the Shape's rows (0:
	// no bound). Past it the views and actions of lowest salience are
	// left out, with a line that counts them and says how to see them.
	Target int64
	// TargetTokens is the Recall's token target, for that line.
	TargetTokens int
}

// Envelope is what one Recall adds to its Shape.
type Envelope struct {
	// Text is comment lines for right after the Shape's header; Milli
	// their token estimate in tokens.Milli units.
	Text  []byte
	Milli int64
	// Attention is nil when it has nothing to say.
	Attention *values.Attention
	// Depth is the depth shown (full on an agent's first read).
	Depth Depth
	// Seen is the agent's record after this read.
	Seen Seen
}

// firstReadNote is the note of an agent's first read: shown at full
// once, and what of it the read shows.
func firstReadNote(p *Prepared, agent string, only Sections) string {
	switch {
	case p == nil || len(p.views)+len(p.acts) == 0:
		// Nothing for depth=full to show: the note names the agent
		// alone (a client that named none learns its name here).
		return "the first Recall of agent " + agent + " in this session"
	case only&(SectionViews|SectionActions) == 0:
		// The note says what this read shows: none of the views and
		// actions depth=full would have listed.
		return "the first Recall of agent " + agent + " in this session: its views and actions are left out by only; later Recalls are lean unless they ask for full"
	}
	return "the first Recall of agent " + agent + " in this session: shown at depth=full once; later Recalls are lean unless they ask for full"
}

// Compose builds a Recall's envelope. The same Read gives the same bytes.
// Its cost is the vocabulary's size and what changed since the agent's
// last read, never the session's.
func Compose(r *Read) *Envelope {
	p := r.Prepared
	env := &Envelope{Depth: r.Depth}
	only := r.Only
	if only == 0 {
		only = AllSections
	}
	att := &values.Attention{}
	first := r.Agent != "" && r.Seen.Reads == 0
	if first {
		env.Depth = DepthFull
		att.FirstRead = true
		att.Note = firstReadNote(p, r.Agent, only)
	}
	full := env.Depth == DepthFull
	lines := &lineBudget{text: make([]byte, 0, 2048), limit: leanBudget - tailReserve, bounded: !full}

	// The session-level signals, which the attention fingerprint covers.
	var rk *ranking
	var gaps []values.VocabularyGap
	if p != nil {
		rk = p.rankingFor(r.Marks, r.Settings.Decay)
		gaps = p.gapsAt(r.Settings)
	}
	stale := staleActions(p, rk, r, full)
	promoted := 0
	switch {
	case p != nil && stalePromoted(stale.n, len(p.acts)):
		promoted = stale.n
	case !full:
		stale = staleSet{print: stale.print} // not a signal at lean
	}
	around := workedAround(p, r)
	health, why := healthOf(p, rk, r, promoted, len(around), gaps)
	broken := p.Broken()
	var overlap []values.IntentOverlap
	if p != nil {
		overlap = p.overlap
	}
	yr := yours(p, rk, r)
	attPrint := yoursPrint(attentionPrint(p, stale, health, gaps), yr) | 1

	// What changed since the agent's previous read.
	if r.Agent != "" && !first {
		if only&SectionAttention != 0 {
			att.SinceYourLastRead = since(p, r)
		}
		for _, sec := range []struct {
			bit       Sections
			now, seen uint64
		}{
			{SectionShape, r.Changed + 1, r.Seen.Shape},
			{SectionViews, p.print(true), r.Seen.Views},
			{SectionActions, p.print(false), r.Seen.Actions},
			{SectionAttention, attPrint, r.Seen.Attention},
		} {
			if only&sec.bit == 0 && sec.now != sec.seen && (sec.now != 0 || sec.seen != 0) {
				att.YouElided = append(att.YouElided, sec.bit.Names()...)
			}
		}
	}
	env.Seen = r.Seen
	env.Seen.Reads++
	if only == SectionViews {
		env.Seen.ViewRead = env.Seen.Reads // asking for the views alone reads them
	}
	if r.Version > env.Seen.Version || r.Seen.Reads == 0 {
		env.Seen.Version, env.Seen.Changed = r.Version, r.Changed
	}
	if only&SectionShape != 0 {
		env.Seen.Shape = r.Changed + 1
	}
	if only&SectionViews != 0 {
		env.Seen.Views = p.print(true)
	}
	if only&SectionActions != 0 {
		env.Seen.Actions = p.print(false)
	}
	if only&SectionAttention != 0 {
		env.Seen.Attention = attPrint
	}

	// Broken views show always; the other signals with the attention
	// section.
	if len(broken) > 0 {
		att.BrokenViews = make([]values.BrokenView, len(broken))
		for i, b := range broken {
			att.BrokenViews[i] = values.BrokenView{Name: b.Name, Error: b.Error}
			if !full {
				att.BrokenViews[i].Error = ErrorLine(b.Error)
			}
		}
	}
	if only&SectionAttention != 0 {
		att.VocabularyHealth, att.VocabularyGaps, att.IntentOverlap, att.Yours = health, gaps, overlap, yr
		att.WorkedAround = around
		switch {
		case health == "degenerating":
			att.Help = HelpReview
		case len(broken) > 0:
			att.Help = HelpBrokenViews
		}
		if p != nil {
			att.Contested = p.State.Contested()
		}
	}

	// The lines, in the order of what most needs noticing: broken views
	// first, always, at lean with their errors as short lines.
	sg := &signals{stale: stale, why: why, only: only, full: full, r: r, p: p}
	if rk != nil && r.Agent != "" {
		rk = rk.seenBy(&r.Recent, r.Tick) // the listing's salience is the reader's
		defer rk.release()
	}
	if !full && p != nil {
		// At lean the signal lines leave the views and actions up to a
		// third of the budget (what those above the salience threshold
		// need, at most), and keep two thirds, room for each signal's
		// count: a session's stale, health, help and overlap lines no
		// longer crowd its whole vocabulary out.
		keep := min(leanItemsMilli(p, rk, r, only), (leanBudget-tailReserve)/3)
		lines.limit -= keep
		attentionLines(lines, att, sg)
		lines.limit += keep
	} else {
		attentionLines(lines, att, sg)
	}
	if share := max(r.Target/2, leanBudget) - tailReserve; full && r.Target > 0 && lines.milli > share {
		// At full the attention lines may take half the target; past
		// it they are written again in their lean forms within that
		// half (an intent_overlap of 80 like actions lists 3,160 pairs).
		lines.text, lines.milli, lines.limit, lines.bounded = lines.text[:0], 0, share, true
		attentionLines(lines, att, sg)
		lines.bounded = false
	}

	// The views and actions: at lean the most salient that fit, then a
	// line saying how many were left out and why.
	if p != nil {
		listItems(p, rk, r, only, full, lines, att)
	}
	if att.SinceYourLastRead != nil && att.SinceYourLastRead.Diff != "" {
		lines.addSinceDiff(att.SinceYourLastRead)
	}
	env.Text, env.Milli = lines.text, lines.milli
	if !att.Empty() {
		env.Attention = att
	}
	return env
}

// attentionPrint is the fingerprint of the session-level signals: what
// the version shares (broken views, overlapping intents) and what the
// read adds (stale actions, health, gaps).
func attentionPrint(p *Prepared, stale staleSet, health string, gaps []values.VocabularyGap) uint64 {
	h := fnv.New64a()
	var n [16]byte
	if p != nil {
		binary.LittleEndian.PutUint64(n[:8], p.sharedPrint)
	}
	binary.LittleEndian.PutUint64(n[8:], stale.print)
	h.Write(n[:])
	if p != nil && p.State != nil && p.State.contestedPrint != 0 {
		binary.LittleEndian.PutUint64(n[:8], p.State.contestedPrint)
		h.Write(n[:8])
	}
	h.Write([]byte(health))
	for _, g := range gaps {
		h.Write([]byte(g.Kind))
		h.Write([]byte{0})
		h.Write([]byte(g.Property))
		h.Write([]byte{0})
	}
	return h.Sum64() | 1
}

// print is the fingerprint of the views (or actions) section.
func (p *Prepared) print(views bool) uint64 {
	switch {
	case p == nil:
		return 0
	case views:
		return p.viewsPrint
	}
	return p.actionsPrint
}

// staleSet is the stale actions of a read: how many, their names (all
// at full; at lean the first leanList, all a list line shows), and a
// fingerprint of the whole set.
type staleSet struct {
	n     int
	names []string
	print uint64
}

// staleActions finds the actions not invoked in the last StaleReads
// Recalls: never since their registration (or latest revision) at least
// StaleReads Recalls ago, or not since their last invocation that long
// ago.
func staleActions(p *Prepared, rk *ranking, r *Read, full bool) staleSet {
	var st staleSet
	if p == nil {
		return st
	}
	if !full {
		st.names = make([]string, 0, leanList)
	}
	h := uint64(14695981039346656037)
	for i := range p.acts {
		it := &p.acts[i]
		if r.Tick >= lastUse(rk.am[i], it.a)+r.Settings.StaleReads {
			st.n++
			h = (h ^ uint64(i+1)) * 1099511628211
			if full || len(st.names) < leanList {
				st.names = append(st.names, it.name)
			}
		}
	}
	st.print = h
	return st
}

// workedAround lists, in name order, the actions whose failed CALLs a
// raw Commit then worked around (the engine notes it, Failure.Around).
func workedAround(p *Prepared, r *Read) []values.WorkedAround {
	if p == nil || r.Marks == nil {
		return nil
	}
	var out []values.WorkedAround
	for i := range p.acts {
		if f, ok := r.Marks.Failed[p.acts[i].name]; ok && f.Around != "" {
			out = append(out, values.WorkedAround{Action: p.acts[i].name, FailedCalls: f.Count, Target: f.Around})
		}
	}
	return out
}

// stalePromoted reports whether stale of total actions is a signal: more
// than 3, or more than 0.3 of them. Below both, a few unused actions
// beside others in steady use are normal, and neither the health nor a
// lean read counts them.
func stalePromoted(stale, total int) bool {
	return stale > 3 || total > 0 && float64(stale) > 0.3*float64(total)
}

// lastUse is the Recall count staleness counts from: the action's
// registration or latest revision, or its last invocation after that. An
// action's mark is raised only by an invocation, so its Tick is then the
// Recall count of the last one.
func lastUse(m Mark, a *Action) uint64 {
	if invokedSince(a) && m.Tick > m.RegTick {
		return m.Tick
	}
	return m.RegTick
}

// invokedSince reports whether an action was invoked since its latest
// registration or revision.
func invokedSince(a *Action) bool { return a.LastInvoked > 0 && a.LastInvoked >= a.Revised }

// healthOf is Lakatos' test of a vocabulary (the README has the rule):
// progressive signals are the items registered in the last two windows
// that are in use (an action invoked since, a view raised by a use);
// degenerating ones are stale actions (promoted), actions worked around,
// broken views, overlapping intents, vocabulary gaps and contested
// targets. More degenerating than progressive signals:
// degenerating; some progressive ones, at least as many: progressive;
// none of either: stable.
func healthOf(p *Prepared, rk *ranking, r *Read, stale, around int, gaps []values.VocabularyGap) (health, why string) {
	if p.Empty() {
		return "", ""
	}
	window := 2 * r.Settings.StaleReads
	prog := 0
	for i := range p.acts {
		it := &p.acts[i]
		if r.Tick < rk.am[i].RegTick+window && invokedSince(it.a) {
			prog++
		}
	}
	for i := range p.views {
		it := &p.views[i]
		m := rk.vm[i]
		if r.Tick < m.RegTick+window && m.Tick > m.RegTick && !it.broken {
			prog++
		}
	}
	contested := len(p.State.Contested())
	deg := stale + around + len(p.broken) + p.overlapN + len(gaps) + contested
	switch {
	case deg > prog:
		health = "degenerating"
	case prog > 0:
		health = "progressive"
	default:
		return "stable", ""
	}
	b := make([]byte, 0, 96)
	b = append(b, " ("...)
	b = strconv.AppendInt(b, int64(prog), 10)
	b = append(b, " recent item"+plural(prog)+" in use"...)
	count := func(n int, one, many string) {
		switch {
		case n == 1:
			b = append(b, ", 1 "+one...)
		case n > 1:
			b = append(b, ", "...)
			b = strconv.AppendInt(b, int64(n), 10)
			b = append(b, ' ')
			b = append(b, many...)
		}
	}
	count(stale, "stale action", "stale actions")
	count(around, "action worked around", "actions worked around")
	count(len(p.broken), "broken view", "broken views")
	count(p.overlapN, "overlapping intent", "overlapping intents")
	count(len(gaps), "gap", "gaps")
	count(contested, "contested target", "contested targets")
	return health, string(append(b, ')'))
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// since lists what changed since the agent's previous read; nil when
// nothing did.
func since(p *Prepared, r *Read) *values.SinceLastRead {
	if r.Version <= r.Seen.Version {
		return nil
	}
	s := &values.SinceLastRead{Versions: r.Version - r.Seen.Version, Diff: r.SinceDiff}
	if r.Changed >= r.Seen.Changed {
		s.ElementsChanged = r.Changed - r.Seen.Changed
	}
	last := r.Seen.Version
	if p != nil {
		for i := range p.acts {
			it := &p.acts[i]
			if it.a.Revised > last {
				s.ActionsRegistered = append(s.ActionsRegistered, it.name)
			}
			if it.a.LastInvoked > last {
				s.ActionsInvoked = append(s.ActionsInvoked, it.name)
			}
		}
		for i := range p.views {
			it := &p.views[i]
			if it.v.Revised > last || r.ViewChangedAt[it.name] > last {
				s.ViewsChanged = append(s.ViewsChanged, it.name)
			}
		}
		dropped, _ := p.State.DroppedSince(last)
		for _, name := range dropped {
			s.ViewsChanged = append(s.ViewsChanged, name+" (dropped)")
		}
	}
	return s
}

// listItems writes the views and actions sections the read asked for.
// At lean it takes the items in order of salience, leaves out those under
// the threshold and those over the budget, and lists the rest in name
// order, views first.
func listItems(p *Prepared, rk *ranking, r *Read, only Sections, full bool, lines *lineBudget, att *values.Attention) {
	nv := int32(len(p.views))
	item := func(i int32) *item {
		if i < nv {
			return &p.views[i]
		}
		return &p.acts[i-nv]
	}
	selected := func(i int32) bool {
		if i < nv {
			return only&SectionViews != 0 && (full || !p.views[i].broken)
		}
		return only&SectionActions != 0
	}
	var shown []int32
	var fullText [][]byte // at full, each item's lines, by item index
	low, over, total := 0, 0, 0
	if full {
		// Every item, in order of salience while they fit the target
		// (the attention lines, written first, count against it): the
		// first read of a busy session is bounded as a lean one is.
		fullText = make([][]byte, len(rk.order))
		for _, i := range rk.order {
			if !selected(i) {
				continue
			}
			total++
			m := rk.am
			j := i - nv
			if i < nv {
				m, j = rk.vm, i
			}
			b := fullLines(item(i), m[j].At(r.Tick, r.Settings.Decay), r)
			if c := tokens.Milli(b); r.Target <= 0 || lines.milli+c <= max(r.Target, leanBudget)-fullTailMilli {
				fullText[i] = b
				shown = append(shown, i)
				lines.milli += c
			} else {
				over++
			}
		}
		slices.Sort(shown)
	} else {
		lowKey := rk.lowKey(r.Tick, r.Settings.SalienceThreshold)
		for _, i := range rk.order {
			if !selected(i) {
				continue
			}
			total++
			switch it := item(i); {
			case rk.keys[i] < lowKey:
				low++
			case over == 0 && lines.fits(it.milli):
				// Once one does not fit, none after it is shown: a
				// shorter item of lower salience never takes the place
				// of a longer one of higher.
				shown = append(shown, i)
				lines.milli += it.milli
			default:
				over++
			}
		}
		slices.Sort(shown)
	}
	if total == 0 {
		return
	}
	for _, i := range shown {
		if full {
			lines.text = append(lines.text, fullText[i]...) // counted above
		} else {
			lines.addRaw(item(i).lean)
		}
	}
	if full && over > 0 {
		att.OverTarget = over
		lines.addRaw(fullTail(over, total, r.TargetTokens))
		return
	}
	if low+over > 0 {
		att.LowSalience = low
		msg := make([]byte, 0, 160)
		msg = append(msg, "// "...)
		msg = strconv.AppendInt(msg, int64(low+over), 10)
		msg = append(msg, " of "...)
		msg = strconv.AppendInt(msg, int64(total), 10)
		msg = append(msg, " views and actions left out at depth=lean"...)
		switch {
		case low > 0 && over > 0:
			msg = append(msg, " ("...)
			msg = strconv.AppendInt(msg, int64(low), 10)
			msg = append(msg, " for low salience, "...)
			msg = strconv.AppendInt(msg, int64(over), 10)
			msg = append(msg, " for the "+leanTokensText+"-token budget)"...)
		case low > 0:
			msg = append(msg, " for low salience"...)
		default:
			msg = append(msg, " for the "+leanTokensText+"-token budget"...)
		}
		lines.addRaw(append(msg, ": depth=full, :views or :actions list them all\n"...))
	}
}

// leanItemsMilli is what the views and actions a lean read may list
// (those the read asks for, above the salience threshold) take at lean.
func leanItemsMilli(p *Prepared, rk *ranking, r *Read, only Sections) int64 {
	lowKey := rk.lowKey(r.Tick, r.Settings.SalienceThreshold)
	nv := int32(len(p.views))
	var sum int64
	for _, i := range rk.order {
		if rk.keys[i] < lowKey {
			continue
		}
		if i < nv {
			if only&SectionViews != 0 && !p.views[i].broken {
				sum += p.views[i].milli
			}
		} else if only&SectionActions != 0 {
			sum += p.acts[i-nv].milli
		}
	}
	return sum
}

// fullTail is the line that says what depth=full left out for the
// token target.
func fullTail(over, total, target int) []byte {
	msg := make([]byte, 0, 200)
	msg = append(msg, "// "...)
	msg = strconv.AppendInt(msg, int64(over), 10)
	msg = append(msg, " of "...)
	msg = strconv.AppendInt(msg, int64(total), 10)
	msg = append(msg, " views and actions left out at depth=full, lowest salience first, for the "...)
	msg = strconv.AppendInt(msg, int64(target), 10)
	return append(msg, "-token target with the rows: only=views or only=actions show more, :views and :actions (GET …/vocabulary) list them all\n"...)
}

// fullTailMilli is the room kept at full for fullTail: its estimate
// with counts of seven digits, an upper bound.
var fullTailMilli = tokens.Milli(fullTail(1000000, 1000000, 1000000))

// tailReserve is the room kept at lean for the line that says what was
// left out; leanBudget is LeanTokens in the estimate's milli-tokens, less
// a tenth: the estimate may be under the exact count by a few percent.
const (
	tailReserve = 40_000
	leanBudget  = LeanTokens * 900
)

// fullLines writes an item at depth=full: its line, its intent, its
// precondition, its counters and salience.
func fullLines(it *item, score float64, r *Read) []byte {
	var b []byte
	if it.view {
		b = append(b, "// view "...)
		b = append(b, it.name...)
		if it.broken {
			b = append(b, ": broken (broken_views says why)"...)
		} else {
			b = append(b, " = "...)
			b = append(b, it.res.Text...)
		}
		b = append(b, '\n')
		if it.v.Intent != "" {
			b = append(b, "//   intent: "+oneLine(it.v.Intent)+"\n"...)
		}
		b = append(b, "//   registered v"+strconv.FormatUint(it.v.Registered, 10)...)
		b = appendCounters(b, it.v.Agent, it.v.Revisions, it.v.Revised)
	} else {
		a := it.a
		b = append(b, "// action "+a.Signature()+"\n"...)
		if a.Intent != "" {
			b = append(b, "//   intent: "+oneLine(a.Intent)+"\n"...)
		}
		if a.If != "" {
			b = append(b, "//   if: "+oneLine(a.If)+"\n"...)
		}
		b = append(b, "//   registered v"+strconv.FormatUint(a.Registered, 10)...)
		b = appendCounters(b, a.Agent, a.Revisions, a.Revised)
		switch a.Invocations {
		case 0:
			b = append(b, ", never invoked"...)
		case 1:
			b = append(b, ", invoked once (v"+strconv.FormatUint(a.LastInvoked, 10)+")"...)
		default:
			b = append(b, ", invoked "+strconv.Itoa(a.Invocations)+" times (last v"+strconv.FormatUint(a.LastInvoked, 10)+")"...)
		}
	}
	b = append(b, ", salience "+strconv.FormatFloat(score, 'f', 2, 64)...)
	if score < r.Settings.SalienceThreshold {
		b = append(b, " low_salience"...)
	}
	b = append(b, '\n')
	if !it.view && r.Marks != nil {
		if f, ok := r.Marks.Failed[it.a.Name]; ok {
			b = appendFailed(b, f)
		}
	}
	return b
}

// appendFailed writes an action's failed CALLs at full, as its own line.
func appendFailed(b []byte, f Failure) []byte {
	b = append(b, "//   failed CALLs: "...)
	b = strconv.AppendUint(b, f.Count, 10)
	b = append(b, " (the latest: "...)
	b = appendOneLine(b, f.Error)
	return append(b, ")\n"...)
}

func appendCounters(b []byte, agent string, revisions int, revised uint64) []byte {
	if agent != "" {
		b = append(b, " by "+agent...)
	}
	switch revisions {
	case 0:
	case 1:
		b = append(b, ", revised once (v"+strconv.FormatUint(revised, 10)+")"...)
	default:
		b = append(b, ", revised "+strconv.Itoa(revisions)+" times (last v"+strconv.FormatUint(revised, 10)+")"...)
	}
	return b
}
