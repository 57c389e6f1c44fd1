package vocab

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/goldfish-gql/goldfish/tokens"
	"github.com/goldfish-gql/goldfish/values"
)

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

// addLine appends "// attention field: text parts…" if it fits,
// building it in place.
func (l *lineBudget) addLine(field string, parts ...string) bool {
	start := len(l.text)
	l.text = append(l.text, "// attention "...)
	l.text = append(l.text, field...)
	l.text = append(l.text, ": "...)
	for _, p := range parts {
		l.text = appendOneLine(l.text, p)
	}
	l.text = append(l.text, '\n')
	m := tokens.Milli(l.text[start:])
	if !l.fits(m) {
		l.text = l.text[:start]
		return false
	}
	l.milli += m
	return true
}

// appendOneLine appends s with each line break (\r\n, \n or \r) as one
// space.
func appendOneLine(b []byte, s string) []byte {
	for {
		i := strings.IndexAny(s, "\r\n")
		if i < 0 {
			return append(b, s...)
		}
		b = append(append(b, s[:i]...), ' ')
		if s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n' {
			i++
		}
		s = s[i+1:]
	}
}

// addCounted appends a line whose estimate is known.
func (l *lineBudget) addCounted(b []byte, m int64) {
	l.text = append(l.text, b...)
	l.milli += m
}

// overlapText writes one overlapping pair.
func overlapText(o values.IntentOverlap) string {
	return o.A + " ~ " + o.B + " (" + strconv.FormatFloat(o.Jaccard, 'f', 2, 64) + ")"
}

// addBroken writes broken_views at lean: each view with its error (one
// short line, ErrorLine), as many as the budget holds and at most
// leanBroken, then how many more there are. It returns those shown.
func addBroken(l *lineBudget, list []values.BrokenView) []values.BrokenView {
	n := min(len(list), leanBroken)
	parts := make([]string, n)
	for i, b := range list[:n] {
		parts[i] = cut(b.Name, leanName) + " (" + b.Error + ")"
	}
	for ; ; n-- {
		text := strings.Join(parts[:n], ", ")
		if more := len(list) - n; more > 0 {
			if n == 0 {
				text = strconv.Itoa(more) + " (depth=full lists them)"
			} else {
				text += ", +" + strconv.Itoa(more) + " more (depth=full lists them)"
			}
		}
		if l.addLine("broken_views", text) || n == 0 {
			return list[:n]
		}
	}
}

// lineMilli is the estimate of the line addLine would write.
func lineMilli(field string, parts ...string) int64 {
	b := make([]byte, 0, 128)
	b = append(b, "// attention "+field+": "...)
	for _, p := range parts {
		b = appendOneLine(b, p)
	}
	return tokens.Milli(append(b, '\n'))
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
func (l *lineBudget) addSince(s *values.SinceLastRead) {
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
		if l.addLine("since_your_last_read", text) || n <= 0 {
			break
		}
	}
}

// addSinceDiff appends the change since the agent's last read, as the
// Δ's lines under a line that names it, after every other line (it is
// the largest and the least needed: the counts said what changed) and
// only whole (a part of a Δ would mislead); left out, it goes from the
// JSON too, and :diff shows it.
func (l *lineBudget) addSinceDiff(s *values.SinceLastRead) {
	b := []byte("// attention since_your_last_read diff: the change as a Δ (what a Commit on your last version would apply)\n")
	for _, line := range strings.Split(strings.TrimRight(s.Diff, "\n"), "\n") {
		b = append(append(append(b, "//   "...), line...), '\n')
	}
	if !l.add(b) {
		s.Diff = ""
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
	return addListOf(l, field, list, len(list), name, tail)
}

// addListOf is addList for a list of total entries of which list holds
// the first (all a lean line may show).
func addListOf[T any](l *lineBudget, field string, list []T, total int, name func(T) string, tail string) []T {
	return addListCap(l, field, list, total, leanList, name, tail)
}

// listText joins the first n parts of a list of total entries, then says
// how many more there are.
func listText(parts []string, n, total int) string {
	text := strings.Join(parts[:n], ", ")
	if more := total - n; more > 0 {
		if n == 0 {
			text = strconv.Itoa(more)
		} else {
			text += ", +" + strconv.Itoa(more) + " more"
		}
	}
	return text
}

// preLine is a list line written ahead (once per version), with the
// entries it shows and its estimate.
type preLine struct {
	text  []byte
	milli int64
	n     int
}

// preLines writes a list's lean lines ahead: with the most entries a lean
// line shows, then one fewer, down to none, and last the count without
// the tail; addPre takes the first that fits.
func preLines[T any](field string, list []T, total int, name func(T) string, tail string) []preLine {
	n := min(len(list), leanList)
	parts := make([]string, n)
	for i, x := range list[:n] {
		parts[i] = cut(name(x), 2*leanName)
	}
	var out []preLine
	for ; n >= 0; n-- {
		l := &lineBudget{limit: 1 << 62, bounded: true}
		l.addLine(field, listText(parts, n, total), tail)
		out = append(out, preLine{text: l.text, milli: l.milli, n: n})
	}
	l := &lineBudget{limit: 1 << 62, bounded: true}
	l.addLine(field, listText(parts, 0, total))
	return append(out, preLine{text: l.text, milli: l.milli})
}

// line writes one line of fields as addLine would, on its own.
func (l *lineBudget) line(field string, parts ...string) preLine {
	l.addLine(field, parts...)
	return preLine{text: l.text, milli: l.milli}
}

// addPre appends the first of lines that fits and returns how many
// entries it shows.
func (l *lineBudget) addPre(lines []preLine) int {
	for _, pl := range lines {
		if l.fits(pl.milli) {
			l.addCounted(pl.text, pl.milli)
			return pl.n
		}
	}
	return 0
}

// addListCap is addListOf showing at most limit entries at lean.
func addListCap[T any](l *lineBudget, field string, list []T, total, limit int, name func(T) string, tail string) []T {
	n := len(list)
	if l.bounded {
		n = min(n, limit)
	}
	parts := make([]string, n)
	for i, x := range list[:n] {
		parts[i] = name(x)
		if l.bounded {
			parts[i] = cut(parts[i], 2*leanName)
		}
	}
	if l.bounded && n > 1 {
		// Start from the most entries the room can hold by the estimates
		// of the parts (a line's estimate is about the sum of its parts'),
		// one more for safety: each try below costs a line's estimate.
		room := l.limit - l.milli - lineMilli(field, ", +1000000 more", tail)
		fit := 0
		for _, part := range parts {
			room -= tokens.MilliString(part) + sepMilli
			if room < 0 {
				break
			}
			fit++
		}
		n = min(n, fit+1)
	}
	for ; ; n-- {
		text := listText(parts, n, total)
		if l.addLine(field, text, tail) {
			return list[:n]
		}
		if n == 0 {
			// The count alone, without the advice, rather than nothing.
			l.addLine(field, text)
			return list[:0]
		}
	}
}
