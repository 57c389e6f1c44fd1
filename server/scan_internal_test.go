package server

import (
	"strconv"
	"testing"

	"pgregory.net/rapid"

	"github.com/goldfish-gql/goldfish/wire"
)

// jsonish draws bytes rich in what the scanners look for: quotes,
// backslashes and \u escapes of surrogates.
func jsonish(t *rapid.T) []byte {
	parts := rapid.SliceOfN(rapid.SampledFrom([]string{`"`, `\`, `\\`, `\"`, `\u`, `\ud83d`, `\ude00`, `\uD800`, `\udc00`, `\u0041`, `a`, `{`, `}`, `:`, `,`, ` `, `x1`}), 0, 40).Draw(t, "parts")
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

// TestLoneSurrogateJumps checks the jumping scan against the byte loop it
// replaced, on any bytes.
func TestLoneSurrogateJumps(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		b := jsonish(t)
		off, esc := loneSurrogate(b)
		wantOff, wantEsc := loneSurrogateByByte(b)
		if off != wantOff || esc != wantEsc {
			t.Fatalf("%q: %d %q, want %d %q", b, off, esc, wantOff, wantEsc)
		}
	})
}

// TestStringEndJumps checks wire.StringEnd against a loop over the bytes.
func TestStringEndJumps(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		b := jsonish(t)
		i := rapid.IntRange(0, len(b)).Draw(t, "i")
		end, esc := wire.StringEnd(b, i)
		wantEnd, wantEsc := -1, false
		for k := i; k < len(b); k++ {
			if b[k] == '\\' {
				wantEsc = true
				k++
				continue
			}
			if b[k] == '"' {
				wantEnd = k
				break
			}
		}
		if wantEnd < 0 {
			wantEsc = false
		}
		if end != wantEnd || esc != wantEsc {
			t.Fatalf("%q from %d: %d %v, want %d %v", b, i, end, esc, wantEnd, wantEsc)
		}
	})
}

// loneSurrogateByByte is loneSurrogate as a loop over every byte: the
// model the jumping scan must agree with.
func loneSurrogateByByte(body []byte) (int, string) {
	hex4 := func(i int) (rune, bool) {
		if i+6 > len(body) || body[i] != '\\' || body[i+1] != 'u' {
			return 0, false
		}
		v, err := strconv.ParseUint(string(body[i+2:i+6]), 16, 16)
		return rune(v), err == nil
	}
	in := false
	for i := 0; i < len(body); i++ {
		switch c := body[i]; {
		case c == '"':
			in = !in
		case in && c == '\\':
			r, ok := hex4(i)
			if !ok {
				i++ // an escape of one character
				continue
			}
			switch {
			case r >= 0xD800 && r < 0xDC00:
				if lo, ok := hex4(i + 6); ok && lo >= 0xDC00 && lo < 0xE000 {
					i += 11
					continue
				}
				return i, string(body[i : i+6])
			case r >= 0xDC00 && r < 0xE000:
				return i, string(body[i : i+6])
			}
			i += 5
		}
	}
	return -1, ""
}
