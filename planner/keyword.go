package planner

import (
	"strings"
	"unicode/utf8"

	"github.com/goldfish-gql/goldfish/values"
)

// Keyword reports whether any string property (or string element of a list
// property) contains w, case-insensitively: the keyword token of a Recall.
func Keyword(props values.Props, w string) bool {
	w = strings.ToLower(w)
	for _, p := range props {
		if keywordIn(p.Val, w) {
			return true
		}
	}
	return false
}

// containsFold reports whether s contains the lower-case word w, ignoring
// case, without allocating when both are ASCII (the common case of a
// keyword scan over many nodes).
func containsFold(s, w string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return strings.Contains(strings.ToLower(s), w)
		}
	}
	for i := 0; i < len(w); i++ {
		if w[i] >= utf8.RuneSelf {
			return false // an ASCII s cannot hold a non-ASCII word
		}
	}
	if len(w) == 0 {
		return true
	}
	first := w[0]
	for i := 0; i+len(w) <= len(s); i++ {
		if lowerASCII(s[i]) != first {
			continue
		}
		j := 1
		for j < len(w) && lowerASCII(s[i+j]) == w[j] {
			j++
		}
		if j == len(w) {
			return true
		}
	}
	return false
}

func lowerASCII(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func keywordIn(v values.Value, w string) bool {
	switch v.Kind() {
	case values.KindString:
		return containsFold(v.AsString(), w)
	case values.KindList:
		for _, e := range v.AsList() {
			if keywordIn(e, w) {
				return true
			}
		}
	}
	return false
}
