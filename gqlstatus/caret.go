package gqlstatus

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mattn/go-runewidth"
)

// CaretWidth is the most terminal columns Caret gives a source line. A
// longer line is shown as a window around the position, cut with "…", so
// one error on a line of a megabyte prints a line, not a megabyte.
const CaretWidth = 78

// widths measures runes in terminal columns: East Asian wide runes take
// two, combining marks none. Runes of ambiguous width count as one
// whatever the locale, so the same error prints the same bytes everywhere.
var widths = &runewidth.Condition{StrictEmojiNeutral: true}

// Caret renders the source line and a caret under the column, or "" when
// the error has no position in text. The caret is placed by display
// width, so it stands under its rune after wide characters; tabs and
// control characters print as one column each (a space, U+FFFD), and so
// do bytes that are not UTF-8.
func (e *Error) Caret() string {
	if !e.Pos.Valid() || e.Line == "" {
		return ""
	}
	first := max(e.LineCol, 1)
	runes := make([]rune, 0, min(len(e.Line), 4096))
	for i := 0; i < len(e.Line); {
		r, n := utf8.DecodeRuneInString(e.Line[i:])
		i += n
		switch {
		case r == '\t':
			r = ' '
		case r == utf8.RuneError && n == 1, unicode.IsControl(r):
			r = utf8.RuneError
		}
		runes = append(runes, r)
	}
	k := min(max(e.Pos.Col-first, 0), len(runes)) // the caret's rune
	w := func(i int) int { return widths.RuneWidth(runes[i]) }
	total := 0
	for i := range runes {
		total += w(i)
	}
	lo, hi := 0, len(runes)
	if total > CaretWidth {
		// A window of CaretWidth-2 columns (room for the two "…"): up to
		// two thirds of it before the caret (what led to the error), the
		// rest after, and whatever the line's end leaves unused given back
		// to the part before.
		budget := CaretWidth - 2
		lo, hi = k, k
		used := 0
		if hi < len(runes) {
			used += w(hi)
			hi++
		}
		for lo > 0 && used+w(lo-1) <= budget*2/3 {
			lo--
			used += w(lo)
		}
		for hi < len(runes) && used+w(hi) <= budget {
			used += w(hi)
			hi++
		}
		for lo > 0 && used+w(lo-1) <= budget {
			lo--
			used += w(lo)
		}
	}
	var b strings.Builder
	b.WriteString("  ")
	pad := 0
	if lo > 0 || first > 1 {
		b.WriteString("…")
		pad++
	}
	b.WriteString(string(runes[lo:hi]))
	if hi < len(runes) {
		b.WriteString("…")
	}
	for i := lo; i < k; i++ {
		pad += w(i)
	}
	b.WriteString("\n  ")
	b.WriteString(strings.Repeat(" ", pad))
	b.WriteString("^")
	return b.String()
}
