// Package tokens counts the model tokens of a Shape: a fast estimate for
// the Recall hot path, calibrated in tests against the o200k tokenizer,
// and the exact o200k count on request.
package tokens

import (
	"sync"

	"github.com/tiktoken-go/tokenizer"
)

// Estimate approximates the o200k token count of text without a
// vocabulary, in one pass over its bytes: it counts what o200k's
// pre-tokeniser splits on (words, the letters of long words past their
// sixth, digit groups of three, punctuation, whitespace runs, non-ASCII
// bytes) and weighs each count by a rate fitted by least squares against
// the exact count of the conformance suite's Shapes (TestEstimateCalibrated
// keeps every one of them within 15%).
func Estimate(text string) int { return estimate(text) }

// EstimateBytes is Estimate over bytes, so callers need not copy.
func EstimateBytes(text []byte) int { return estimate(text) }

func estimate[T string | []byte](text T) int { return FromMilli(milli(text)) }

// Milli is the estimate of text in thousandths of a token, before
// rounding. It adds up: when a text is cut only where the byte class
// changes (letter, digit, whitespace, punctuation, non-ASCII) or between
// two punctuation or two non-ASCII bytes, the parts' Milli sum to the
// whole's, so a renderer can count pieces once and reuse the counts.
func Milli(text []byte) int64 { return milli(text) }

// MilliString is Milli over a string.
func MilliString(text string) int64 { return milli(text) }

// FromMilli rounds a sum of Milli to a token count.
func FromMilli(m int64) int { return int((m + 500) / 1000) }

func milli[T string | []byte](text T) int64 {
	words, longTail, digits, punct, spaces, high := features(text)
	return int64(478*words + 130*longTail + 1632*digits + 654*punct + 846*spaces + 400*high)
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
