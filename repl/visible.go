package repl

import (
	"strings"
	"unicode/utf8"
)

// What the shell prints comes in part from elsewhere: a server's error
// messages, hints and notices, names and texts a session holds. A
// character that acts on a terminal instead of showing (ESC starting a
// sequence that clears the screen or sets the window's title, a carriage
// return writing over a line, a bidi override turning the text around)
// is printed escaped, so what shows is what was sent: C0 controls but
// newline and tab, DEL and a byte that is not UTF-8 as \xHH; C1
// controls, U+2028, U+2029 and the bidi controls as \uXXXX, which a GQL
// string or quoted name, and a JSON string, read as the same character.
// The shell's own colours are added after, around text made visible.

// Visible is s with the characters that would act on a terminal escaped.
func Visible(s string) string {
	i := 0
	for i < len(s) {
		if c := s[i]; c < utf8.RuneSelf {
			if !plainOut[c] {
				break
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || actsOnTerminal(r) {
			break
		}
		i += size
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if plainOut[c] {
				b.WriteByte(c)
			} else {
				writeHex(&b, `\x`, uint32(c), 2)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			writeHex(&b, `\x`, uint32(c), 2)
		case actsOnTerminal(r):
			writeHex(&b, `\u`, uint32(r), 4)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// plainOut marks the ASCII bytes printed as they are: the printable
// ones, newline and tab.
var plainOut = func() (t [256]bool) {
	for c := 0x20; c < 0x7f; c++ {
		t[c] = true
	}
	t['\n'], t['\t'] = true, true
	return
}()

// actsOnTerminal reports whether r, not ASCII, is printed escaped: a C1
// control (0x9B is a CSI to some terminals), a line or paragraph
// separator, or a bidi control.
func actsOnTerminal(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f, r == 0x2028, r == 0x2029:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

func writeHex(b *strings.Builder, prefix string, v uint32, digits int) {
	const hex = "0123456789abcdef"
	b.WriteString(prefix)
	for shift := (digits - 1) * 4; shift >= 0; shift -= 4 {
		b.WriteByte(hex[v>>uint(shift)&0xf])
	}
}

// visibleNames are the names of list that print as they are: a name
// Tab would offer escaped is left out, since it cannot be typed as shown.
func visibleNames(list []string) []string {
	out := list[:0:0]
	for _, n := range list {
		if Visible(n) == n {
			out = append(out, n)
		}
	}
	return out
}
