package exec

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/planner"
	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/values"
)

// A token that matched nothing says so first (the honest miss): which of
// its names no live node holds, and which names of the session are a
// small edit away, so a typo costs one more Recall, not an unrelated
// answer taken for a match.

// maxSuggestions bounds the "did you mean" names of one miss.
const maxSuggestions = 3

// maxKeysCompared bounds the property keys a miss compares with.
const maxKeysCompared = 512

// explainMiss says what of the token no live node holds. It runs only
// when the seeds came back empty, and its cost is bounded: a few index
// descents per name of the token, and for a missing value a scan of at
// most values.MaxNameScan values of its key.
func (x *executor) explainMiss(snap *store.Snapshot, rp *planner.RecallPlan, row *planner.Row) *values.Miss {
	m := &values.Miss{}
	var near suggestions
	for i, np := range rp.Seeds {
		before := len(m.Unmatched)
		for _, l := range np.Labels {
			if snap.LabelCount(l) > 0 {
				continue
			}
			m.Unmatched = append(m.Unmatched, "no node has label "+labelText(l))
			for _, s := range snap.Labels() {
				near.add(l, s, labelText(s))
			}
			for _, t := range snap.EdgeTypes() {
				near.add(l, t, "edge type "+labelText(t)+" (recall a node it joins: its edges are shown)")
			}
		}
		for _, pp := range np.Props {
			if !snap.HasPropKey(pp.Key) {
				m.Unmatched = append(m.Unmatched, "no node has property "+values.KeyLiteral(pp.Key))
				for _, k := range snap.PropKeys(maxKeysCompared) {
					near.add(pp.Key, k, values.KeyLiteral(k))
				}
				continue
			}
			v, err := x.eval(pp.Val, row)
			if err != nil || v.IsNull() {
				continue
			}
			held := false
			snap.ScanProp(pp.Key, v, func(*store.Node) bool { held = true; return false })
			if held {
				continue
			}
			m.Unmatched = append(m.Unmatched, "no node has "+values.KeyLiteral(pp.Key)+" "+v.Literal())
			if v.Kind() == values.KindString {
				want := v.AsString()
				nearValues(snap, pp.Key, want, func(s string) {
					near.addFunc(want, s, func() string { return "{" + values.KeyLiteral(pp.Key) + ": " + values.String(s).Literal() + "}" })
				})
			}
		}
		if len(m.Unmatched) > before {
			continue
		}
		// Each name is held by some node, but no node holds them all
		// (or meets the WHERE): the pattern as a whole did not match.
		if w, ok := keywordOf(np, rp.Filters[i], row); ok {
			m.Unmatched = append(m.Unmatched, "no node holds the keyword "+values.String(w).Literal())
			continue
		}
		m.Unmatched = append(m.Unmatched, patternText(np, rp.Filters[i]))
	}
	if len(m.Unmatched) == 0 {
		m.Unmatched = append(m.Unmatched, "no node meets the condition")
	}
	m.DidYouMean = near.best()
	return m
}

// maxValuesCompared bounds the values of one key a miss compares the
// wanted one with all of: past it, only the nearWindow values nearest it
// in sorted order, half on each side (a typo past the first characters
// sorts beside the name it misspells; one earlier may not be found).
// A comparison costs a pass over the two values' bytes, and an alignment
// of what differs once their shared prefix and suffix are dropped, so a
// miss stays well under a millisecond whatever the session's size.
const (
	maxValuesCompared = 1024
	nearWindow        = 32
)

// nearValues calls fn with the values of key a miss compares want with:
// all of them when there are at most maxValuesCompared, else the
// nearWindow nearest want in sorted order.
func nearValues(snap *store.Snapshot, key, want string, fn func(string)) {
	few := 0
	snap.ScanStrings(key, "", func(string) bool {
		few++
		return few <= maxValuesCompared
	})
	if few <= maxValuesCompared {
		snap.ScanStrings(key, "", func(s string) bool { fn(s); return true })
		return
	}
	n := 0
	snap.ScanStrings(key, want, func(s string) bool {
		fn(s)
		n++
		return n < nearWindow/2
	})
	n = 0
	snap.ScanStringsBefore(key, want, func(s string) bool {
		fn(s)
		n++
		return n < nearWindow/2
	})
}

// missNote is the notice of a miss: what did not match, the names a
// small edit away, and what the Shape shows instead.
func missNote(m *values.Miss, shown int) gqlstatus.Notice {
	var b strings.Builder
	b.WriteString("no match: ")
	b.WriteString(strings.Join(m.Unmatched, "; "))
	if len(m.DidYouMean) > 0 {
		b.WriteString("; did you mean ")
		b.WriteString(strings.Join(m.DidYouMean, " or "))
		b.WriteString("?")
	}
	code := gqlstatus.NoMatch
	switch m.Instead {
	case values.CueTask:
		b.WriteString("; shown instead of a match: " + plural(shown, "the live task", fmt.Sprintf("the %d live tasks", shown)))
	case values.CuePeak:
		b.WriteString("; shown instead of a match: " + plural(shown, "the session's most connected node", fmt.Sprintf("the session's %d most connected nodes", shown)))
	default:
		code = gqlstatus.NoData
		b.WriteString("; nothing is shown")
	}
	return gqlstatus.Notice{Code: code, Msg: b.String()}
}

// patternText describes a node pattern that matched nothing as a whole.
func patternText(np *planner.NodePlan, filters []*planner.Program) string {
	var b strings.Builder
	b.WriteString("no")
	if len(np.Labels) > 0 {
		b.WriteString(" ")
		for i, l := range np.Labels {
			if i > 0 {
				b.WriteString("&")
			}
			b.WriteString(values.KeyLiteral(l))
		}
	} else if np.LabelExpr != nil {
		b.WriteString(" labelled")
	}
	b.WriteString(" node")
	for i, pp := range np.Props {
		if i == 0 {
			b.WriteString(" with ")
		} else {
			b.WriteString(" and ")
		}
		b.WriteString(values.KeyLiteral(pp.Key))
		if pp.Val.Const != nil {
			b.WriteString(" ")
			b.WriteString(pp.Val.Const.Literal())
		} else {
			b.WriteString(" as given")
		}
	}
	if np.Where != nil || len(filters) > 0 {
		b.WriteString(" meeting the WHERE condition")
	}
	return b.String()
}

func labelText(l string) string { return ":" + values.KeyLiteral(l) }

// suggestions keeps the nearest names offered for a miss, by distance
// then text.
type suggestions struct {
	list []suggestion
}

type suggestion struct {
	dist int
	text string
}

// add offers have (written text) for the token's want when it is a small
// edit away: a case-only difference, or an edit distance within
// nearDistance.
func (s *suggestions) add(want, have, text string) {
	s.addFunc(want, have, func() string { return text })
}

// addFunc is add with the text made only for a name that is near.
func (s *suggestions) addFunc(want, have string, textOf func() string) {
	if have == want {
		return
	}
	d, ok := near(want, have)
	if !ok {
		return
	}
	text := textOf()
	for _, x := range s.list {
		if x.text == text {
			return
		}
	}
	s.list = append(s.list, suggestion{d, text})
	slices.SortFunc(s.list, func(a, b suggestion) int {
		if a.dist != b.dist {
			return a.dist - b.dist
		}
		return strings.Compare(a.text, b.text)
	})
	if len(s.list) > maxSuggestions {
		s.list = s.list[:maxSuggestions]
	}
}

func (s *suggestions) best() []string {
	var out []string
	for _, x := range s.list {
		out = append(out, x.text)
	}
	return out
}

// nearDistance is the edit distance a name may be from the token's to be
// offered: one edit for short names, two up to ten characters, three
// beyond.
func nearDistance(n int) int {
	switch {
	case n <= 4:
		return 1
	case n <= 10:
		return 2
	}
	return 3
}

// near reports the case-insensitive edit distance (insertions, deletions,
// substitutions and transpositions of neighbours) between a and b, and
// whether it is within nearDistance of a; names of very different length
// are rejected before any work.
func near(a, b string) (int, bool) {
	na, nb := utf8.RuneCountInString(a), utf8.RuneCountInString(b)
	limit := nearDistance(na)
	if d := na - nb; d > limit || -d > limit || na > 64 || nb > 64 {
		return 0, false
	}
	if letterGap(a, b) > 2*limit {
		return 0, false // an edit changes at most two letters' counts by one
	}
	var bufA, bufB [64]rune
	ra, rb := trimCommon(lowerRunes(bufA[:0], a), lowerRunes(bufB[:0], b))
	d := osaDistance(ra, rb, limit)
	return d, d <= limit
}

// lowerRunes appends the runes of s, lower-cased, to b (no allocation
// while they fit).
func lowerRunes(b []rune, s string) []rune {
	for _, r := range s {
		b = append(b, unicode.ToLower(r))
	}
	return b
}

// trimCommon drops the prefix and the suffix a and b share: they take
// no edit, and names of one session share long ones ("example.com/…"),
// so what is left to align is short.
func trimCommon(a, b []rune) ([]rune, []rune) {
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	a, b = a[p:], b[p:]
	q := 0
	for q < len(a) && q < len(b) && a[len(a)-1-q] == b[len(b)-1-q] {
		q++
	}
	return a[:len(a)-q], b[:len(b)-q]
}

// letterGap is the L1 distance of a's and b's letter counts, folded into
// 32 buckets of their lower-cased bytes: a lower bound of twice their
// edit distance, computed with no allocation.
func letterGap(a, b string) int {
	var h [32]int
	for i := 0; i < len(a); i++ {
		h[lowerByte(a[i])&31]++
	}
	for i := 0; i < len(b); i++ {
		h[lowerByte(b[i])&31]--
	}
	gap := 0
	for _, c := range h {
		gap += max(c, -c)
	}
	return gap
}

func lowerByte(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// osaDistance is the optimal string alignment distance of a and b, or
// more than limit as soon as every alignment is past it.
func osaDistance(a, b []rune, limit int) int {
	var rows [3][65]int
	prev2, prev, cur := rows[0][:len(b)+1], rows[1][:len(b)+1], rows[2][:len(b)+1]
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		low := i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
			low = min(low, cur[j])
		}
		if low > limit+1 {
			return limit + 1 // a transposition reads two rows back: keep one in hand
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// DidYouMean returns the names among have a small edit away from want
// (the rule a miss's suggestions follow), nearest first, at most a few:
// for a name that refers to nothing, such as an unknown session.
func DidYouMean(want string, have []string) []string {
	var s suggestions
	for _, h := range have {
		s.add(want, h, h)
	}
	return s.best()
}
