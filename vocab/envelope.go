package vocab

import (
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"

	"github.com/goldfish-gql/goldfish/tokens"
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
}

// Read is one Recall's request of an envelope.
type Read struct {
	Prepared *Prepared
	Version  uint64
	// Changed is the session's count of changed elements at Version.
	Changed uint64
	// Tick is the session's Recall count, this Recall included.
	Tick     uint64
	Settings Settings
	Marks    *Marks
	// ViewChangedAt is, per view, the version its value was last seen
	// to change at.
	ViewChangedAt map[string]uint64
	// Agent names the reader; Seen is its record before this read.
	Agent string
	Seen  Seen
	Depth Depth
	Only  Sections
}

// Since is what changed since an agent's previous Recall.
type Since struct {
	Versions          uint64   `json:"versions"`
	ElementsChanged   uint64   `json:"elements_changed"`
	ActionsRegistered []string `json:"actions_registered,omitempty"`
	ActionsInvoked    []string `json:"actions_invoked,omitempty"`
	ViewsChanged      []string `json:"views_changed,omitempty"`
}

// Attention is the envelope's fields (SPEC §9), each left out when empty.
type Attention struct {
	FirstRead    bool         `json:"first_read,omitempty"`
	Note         string       `json:"note,omitempty"`
	BrokenViews  []BrokenView `json:"broken_views,omitempty"`
	StaleActions []string     `json:"stale_actions,omitempty"`
	Since        *Since       `json:"since_your_last_read,omitempty"`
	YouElided    []string     `json:"you_elided,omitempty"`
	Health       string       `json:"vocabulary_health,omitempty"`
	Gaps         []Gap        `json:"vocabulary_gaps,omitempty"`
	Overlap      []Overlap    `json:"intent_overlap,omitempty"`
	LowSalience  int          `json:"low_salience,omitempty"`
}

// Empty reports whether the envelope has nothing to say.
func (a *Attention) Empty() bool {
	return a == nil || !a.FirstRead && a.Note == "" && len(a.BrokenViews) == 0 && len(a.StaleActions) == 0 &&
		a.Since == nil && len(a.YouElided) == 0 && a.Health == "" && len(a.Gaps) == 0 &&
		len(a.Overlap) == 0 && a.LowSalience == 0
}

// Envelope is what one Recall adds to its Shape.
type Envelope struct {
	// Text is comment lines for right after the Shape's header; Milli
	// their token estimate in tokens.Milli units.
	Text  []byte
	Milli int64
	// Attention is nil when it has nothing to say.
	Attention *Attention
	// Depth is the depth shown (full on an agent's first read).
	Depth Depth
	// Seen is the agent's record after this read.
	Seen Seen
	// ShownViews are the views the read listed, when it asked for views
	// alone (only=views): a use that raises their salience.
	ShownViews []string
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
	att := &Attention{}
	first := r.Agent != "" && r.Seen.Reads == 0
	if first {
		env.Depth = DepthFull
		att.FirstRead = true
		att.Note = "the first Recall of agent " + r.Agent + " in this session: shown at depth=full once; later Recalls are lean unless they ask for full"
	}
	full := env.Depth == DepthFull
	lines := &lineBudget{limit: LeanTokens * 1000, bounded: !full}

	// The session-level signals, which the attention fingerprint covers.
	stale := staleActions(p, r)
	var gaps []Gap
	if p != nil {
		gaps = p.gapsAt(r.Settings)
	}
	health, why := healthOf(p, r, stale, gaps)
	broken := p.Broken()
	var overlap []Overlap
	if p != nil {
		overlap = p.overlap
	}
	ah := fnv.New64a()
	fmt.Fprint(ah, broken, stale, health, gaps, overlap)
	attPrint := ah.Sum64() | 1

	// What changed since the agent's previous read.
	if r.Agent != "" && !first {
		if only&SectionAttention != 0 {
			att.Since = since(p, r)
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
		att.BrokenViews = make([]BrokenView, len(broken))
		for i, b := range broken {
			att.BrokenViews[i] = BrokenView{Name: b.Name}
			if full {
				att.BrokenViews[i].Error = b.Error
			}
		}
	}
	if only&SectionAttention != 0 {
		att.StaleActions, att.Health, att.Gaps, att.Overlap = stale, health, gaps, overlap
	}

	// The lines, in the order of what most needs noticing.
	if att.FirstRead {
		lines.add(line("first_read", "true: "+att.Note))
	}
	if len(att.BrokenViews) > 0 {
		if full {
			for _, b := range att.BrokenViews {
				lines.add(line("broken_views", b.Name+": "+b.Error))
			}
		} else {
			att.BrokenViews = addList(lines, "broken_views", att.BrokenViews, func(b BrokenView) string { return b.Name }, "")
		}
	}
	if s := att.Since; s != nil {
		lines.addSince(s)
	}
	if len(att.YouElided) > 0 {
		lines.add(line("you_elided", strings.Join(att.YouElided, ", ")+" (changed since your last read; left out by only)"))
	}
	if len(att.StaleActions) > 0 {
		att.StaleActions = addList(lines, "stale_actions", att.StaleActions, func(s string) string { return s },
			fmt.Sprintf(" (not invoked in the %d Recalls since registered: DROP ACTION or use them)", r.Settings.StaleReads))
	}
	if att.Health != "" {
		lines.add(line("vocabulary_health", att.Health+why))
	}
	if len(att.Gaps) > 0 {
		att.Gaps = addList(lines, "vocabulary_gaps", att.Gaps, func(g Gap) string {
			return fmt.Sprintf("%s.%s (raw %d, in actions %d)", g.Kind, g.Property, g.Raw, g.InActions)
		}, " (CREATE ACTION for them)")
	}
	if len(att.Overlap) > 0 {
		att.Overlap = addList(lines, "intent_overlap", att.Overlap, func(o Overlap) string {
			return fmt.Sprintf("%s ~ %s (%.2f)", o.A, o.B, o.Jaccard)
		}, " (merge them)")
	}

	// The views and actions: at lean the most salient that fit, then a
	// line saying how many were left out and why.
	if p != nil {
		env.ShownViews = listItems(p, r, only, full, lines, att)
	}
	env.Text, env.Milli = lines.text, lines.milli
	if !att.Empty() {
		env.Attention = att
	}
	return env
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

// staleActions lists the actions registered (or revised) at least
// StaleReads Recalls ago and not invoked since.
func staleActions(p *Prepared, r *Read) []string {
	if p == nil {
		return nil
	}
	var out []string
	for _, it := range p.acts {
		m := r.Marks.action(it.name, r.Tick)
		if r.Tick >= m.RegTick+r.Settings.StaleReads && !invokedSince(it.a) {
			out = append(out, it.name)
		}
	}
	return out
}

// invokedSince reports whether an action was invoked since its latest
// registration or revision.
func invokedSince(a *Action) bool { return a.LastInvoked > 0 && a.LastInvoked >= a.Revised }

// healthOf is Lakatos' test of a vocabulary (the README has the rule):
// progressive signals are the items registered in the last two windows
// that are in use (an action invoked since, a view raised by a use);
// degenerating ones are stale actions, broken views, overlapping intents
// and vocabulary gaps. More degenerating than progressive signals:
// degenerating; some progressive ones, at least as many: progressive;
// none of either: stable.
func healthOf(p *Prepared, r *Read, stale []string, gaps []Gap) (health, why string) {
	if p.Empty() {
		return "", ""
	}
	window := 2 * r.Settings.StaleReads
	prog := 0
	for _, it := range p.acts {
		m := r.Marks.action(it.name, r.Tick)
		if r.Tick < m.RegTick+window && invokedSince(it.a) {
			prog++
		}
	}
	for _, it := range p.views {
		m := r.Marks.view(it.name, r.Tick)
		if r.Tick < m.RegTick+window && m.Tick > m.RegTick && !it.broken {
			prog++
		}
	}
	var bad []string
	count := func(n int, one, many string) {
		switch {
		case n == 1:
			bad = append(bad, "1 "+one)
		case n > 1:
			bad = append(bad, strconv.Itoa(n)+" "+many)
		}
	}
	count(len(stale), "stale action", "stale actions")
	count(len(p.broken), "broken view", "broken views")
	count(len(p.overlap), "overlapping intent", "overlapping intents")
	count(len(gaps), "gap", "gaps")
	deg := len(stale) + len(p.broken) + len(p.overlap) + len(gaps)
	switch {
	case deg > prog:
		health = "degenerating"
	case prog > 0:
		health = "progressive"
	default:
		return "stable", ""
	}
	parts := []string{fmt.Sprintf("%d recent item%s in use", prog, plural(prog))}
	parts = append(parts, bad...)
	return health, " (" + strings.Join(parts, ", ") + ")"
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// since lists what changed since the agent's previous read; nil when
// nothing did.
func since(p *Prepared, r *Read) *Since {
	if r.Version <= r.Seen.Version {
		return nil
	}
	s := &Since{Versions: r.Version - r.Seen.Version}
	if r.Changed >= r.Seen.Changed {
		s.ElementsChanged = r.Changed - r.Seen.Changed
	}
	last := r.Seen.Version
	if p != nil {
		for _, it := range p.acts {
			if it.a.Revised > last {
				s.ActionsRegistered = append(s.ActionsRegistered, it.name)
			}
			if it.a.LastInvoked > last {
				s.ActionsInvoked = append(s.ActionsInvoked, it.name)
			}
		}
		for _, it := range p.views {
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

// listItems writes the views and actions sections the read asked for
// and returns the views it listed when the read asked for views alone.
func listItems(p *Prepared, r *Read, only Sections, full bool, lines *lineBudget, att *Attention) []string {
	type ranked struct {
		it    *item
		score float64
	}
	var items []ranked
	if only&SectionViews != 0 {
		for i := range p.views {
			it := &p.views[i]
			if it.broken && !full {
				continue // broken_views names it
			}
			items = append(items, ranked{it, r.Marks.view(it.name, r.Tick).At(r.Tick, r.Settings.Decay)})
		}
	}
	if only&SectionActions != 0 {
		for i := range p.acts {
			it := &p.acts[i]
			items = append(items, ranked{it, r.Marks.action(it.name, r.Tick).At(r.Tick, r.Settings.Decay)})
		}
	}
	if len(items) == 0 {
		return nil
	}
	shown := make([]bool, len(items))
	low, over := 0, 0
	if full {
		for i := range shown {
			shown[i] = true
		}
	} else {
		// The most salient first (ties: views before actions, by name);
		// the tail line's room is kept back.
		order := make([]int, len(items))
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int {
			switch x, y := items[a].score, items[b].score; {
			case x > y:
				return -1
			case x < y:
				return 1
			}
			return 0
		})
		lines.limit -= tailReserve
		for _, i := range order {
			switch {
			case items[i].score < r.Settings.SalienceThreshold:
				low++
			case lines.fits(items[i].it.milli):
				shown[i] = true
				lines.milli += items[i].it.milli
			default:
				over++
			}
		}
		lines.limit += tailReserve
	}
	var views []string
	for i, x := range items {
		if !shown[i] {
			continue
		}
		if full {
			lines.addRaw(fullLines(x.it, x.score, r))
		} else {
			lines.addRaw(x.it.lean)
		}
		if x.it.view && only&(SectionActions|SectionShape) == 0 {
			views = append(views, x.it.name)
		}
	}
	if low+over > 0 {
		att.LowSalience = low
		msg := fmt.Sprintf("// %d of %d views and actions left out at depth=lean", low+over, len(items))
		switch {
		case low > 0 && over > 0:
			msg += fmt.Sprintf(" (%d for low salience, %d for the %d-token budget)", low, over, LeanTokens)
		case low > 0:
			msg += " for low salience"
		default:
			msg += fmt.Sprintf(" for the %d-token budget", LeanTokens)
		}
		lines.addRaw([]byte(msg + ": depth=full, :views or :actions list them all\n"))
	}
	return views
}

// tailReserve is the room kept at lean for the line that says what was
// left out.
const tailReserve = 40_000

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
	return append(b, '\n')
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

// line writes one attention line.
func line(field, text string) []byte {
	return []byte("// attention " + field + ": " + oneLine(text) + "\n")
}

// lineBudget collects an envelope's lines; at lean (bounded) it keeps
// them within limit, shortening lists to fit.
type lineBudget struct {
	text    []byte
	milli   int64
	limit   int64
	bounded bool
}

func (l *lineBudget) fits(m int64) bool { return !l.bounded || l.milli+m <= l.limit }

// add appends a line if it fits, reporting whether it did.
func (l *lineBudget) add(b []byte) bool {
	m := tokens.Milli(b)
	if !l.fits(m) {
		return false
	}
	l.text = append(l.text, b...)
	l.milli += m
	return true
}

// addRaw appends lines whose room was already counted.
func (l *lineBudget) addRaw(b []byte) {
	l.text = append(l.text, b...)
	if !l.bounded {
		l.milli += tokens.Milli(b)
	}
}

// addSince appends since_your_last_read: the counts, then each list as
// addList shortens it.
func (l *lineBudget) addSince(s *Since) {
	head := fmt.Sprintf("versions=%d elements_changed=%d", s.Versions, s.ElementsChanged)
	lists := []struct {
		name string
		list *[]string
	}{{"actions_registered", &s.ActionsRegistered}, {"actions_invoked", &s.ActionsInvoked}, {"views_changed", &s.ViewsChanged}}
	for n := leanList; ; n-- {
		if !l.bounded {
			n = 1 << 30
		}
		text := head
		for _, x := range lists {
			if len(*x.list) > 0 {
				text += " " + x.name + "=" + nameList(*x.list, n)
			}
		}
		if l.add(line("since_your_last_read", text)) || n <= 0 {
			break
		}
	}
}

// nameList joins at most n names, then says how many more there are.
func nameList(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ",")
	}
	parts := make([]string, 0, n+1)
	for _, x := range names[:max(n, 0)] {
		parts = append(parts, cut(x, leanName))
	}
	if n <= 0 {
		return strconv.Itoa(len(names))
	}
	return strings.Join(parts, ",") + ",+" + strconv.Itoa(len(names)-n)
}

// addList appends a list line: every entry at full, at lean as many as
// leanList allows and the budget holds, then how many more there are.
// It returns the entries shown.
func addList[T any](l *lineBudget, field string, list []T, name func(T) string, tail string) []T {
	for n := min(len(list), leanList); ; n-- {
		if !l.bounded {
			n = len(list)
		}
		parts := make([]string, 0, n+1)
		for _, x := range list[:n] {
			parts = append(parts, cut(name(x), 2*leanName))
		}
		text := strings.Join(parts, ", ")
		if more := len(list) - n; more > 0 {
			if n == 0 {
				text = strconv.Itoa(more)
			} else {
				text += ", +" + strconv.Itoa(more) + " more"
			}
		}
		if l.add(line(field, text+tail)) || n == 0 {
			return list[:n]
		}
		if n <= 0 {
			return nil
		}
	}
}
