package tokens

import "unicode/utf8"

// byte classes of the estimator's single pass
const (
	clsOther = iota // punctuation and symbols
	clsLetter
	clsDigit
	clsSpace
	clsHigh // a byte of a multi-byte UTF-8 sequence
)

var class = func() (t [256]uint8) {
	for c := 0; c < 256; c++ {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_':
			t[c] = clsLetter
		case c >= '0' && c <= '9':
			t[c] = clsDigit
		case c == ' ', c == '\n', c == '\t', c == '\r':
			t[c] = clsSpace
		case c >= utf8.RuneSelf:
			t[c] = clsHigh
		default:
			t[c] = clsOther
		}
	}
	return
}()

// features counts, in one pass, what the o200k pre-tokeniser splits on:
// words, letters beyond a word's first few, digit groups of three,
// punctuation bytes, whitespace runs and non-ASCII bytes.
func features[T string | []byte](text T) (words, longTail, digitGroups, punct, spaces, high int) {
	i, n := 0, len(text)
	for i < n {
		switch class[text[i]] {
		case clsLetter:
			j := i + 1
			for j < n && class[text[j]] == clsLetter {
				j++
			}
			words++
			if l := j - i; l > 6 {
				longTail += l - 6
			}
			i = j
		case clsDigit:
			j := i + 1
			for j < n && class[text[j]] == clsDigit {
				j++
			}
			digitGroups += (j - i + 2) / 3
			i = j
		case clsSpace:
			j := i + 1
			for j < n && class[text[j]] == clsSpace {
				j++
			}
			spaces++
			i = j
		case clsHigh:
			high++
			i++
		default:
			punct++
			i++
		}
	}
	return
}
