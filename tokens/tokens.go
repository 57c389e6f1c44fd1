// Package tokens counts the model tokens of a Shape: a fast estimate for
// the Recall hot path, calibrated in tests against the o200k tokenizer,
// and the exact o200k count on request.
package tokens

import (
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/tiktoken-go/tokenizer"
)

// Estimate approximates the o200k token count of text without a
// vocabulary: it walks the text once and charges each run the way o200k's
// pre-tokeniser splits it (words with their leading space, digits in groups
// of three, punctuation runs), with per-class rates fitted on Shapes.
func Estimate(text string) int {
	n := 0.0
	i := 0
	for i < len(text) {
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case r == ' ' && i+1 < len(text) && isWordByte(text[i+1]):
			i++ // a single space joins the word after it
		case r == '\n' || r == ' ' || r == '\t' || r == '\r':
			j := i
			for j < len(text) && (text[j] == ' ' || text[j] == '\n' || text[j] == '\t' || text[j] == '\r') {
				j++
			}
			n++
			i = j
		case r < utf8.RuneSelf && isLetter(byte(r)):
			j := i
			for j < len(text) && isLetter(text[j]) {
				j++
			}
			// Common words are one token; long identifiers split about
			// every six letters.
			n += 1 + float64(j-i-1)/6
			i = j
		case r >= '0' && r <= '9':
			j := i
			for j < len(text) && text[j] >= '0' && text[j] <= '9' {
				j++
			}
			n += float64((j - i + 2) / 3)
			i = j
		case r >= utf8.RuneSelf:
			if unicode.IsLetter(r) {
				n += 0.7 // most non-ASCII letters merge in pairs or triples
			} else {
				n++
			}
			i += size
		default:
			// Punctuation: runs of two often merge ("})", "\",", ":\"").
			j := i
			for j < len(text) && isPunct(text[j]) {
				j++
			}
			n += float64(j-i+1) / 2
			i = j
		}
	}
	return int(n + 0.5)
}

func isLetter(c byte) bool { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' }

func isWordByte(c byte) bool { return isLetter(c) || c >= utf8.RuneSelf }

func isPunct(c byte) bool {
	return c < utf8.RuneSelf && !isLetter(c) && !(c >= '0' && c <= '9') && c != ' ' && c != '\n' && c != '\t' && c != '\r'
}

var (
	encOnce sync.Once
	enc     tokenizer.Codec
	encErr  error
)

// Exact returns the o200k token count of text. The vocabulary ships inside
// the tokenizer module, so this works offline; the first call loads it.
func Exact(text string) (int, error) {
	encOnce.Do(func() { enc, encErr = tokenizer.Get(tokenizer.O200kBase) })
	if encErr != nil {
		return 0, encErr
	}
	ids, _, err := enc.Encode(text)
	if err != nil {
		return 0, err
	}
	return len(ids), nil
}
