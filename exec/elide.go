package exec

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/shapewalk"
	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/tokens"
	"github.com/goldfish-gql/goldfish/values"
)

// Elision: when the nodes a Shape always writes whole (the seeds, and the
// pinned kinds' nodes) are over the token target T by themselves, the
// longest of their string values are written as parameters that stand
// for them ($elided1, $elided2, …), longest first, until the body fits.
// The text still parses, says which values it left out (the header's
// elided=N, a note line and a 01000 notice), and cannot be committed back
// as if a marker were the value: a Δ that names $elided1 without passing
// it is refused (42002) with a message that says what it was.

// ElidedParam is the prefix of the parameters an elided value is written
// as.
const ElidedParam = "elided"

// minElided is the shortest string literal worth eliding: below it, the
// parameter's name saves too little to be worth the reader's round trip.
const minElided = 64

// maxElidedNamed is the most elided values the note names one by one.
const maxElidedNamed = 6

// elision is one value a Shape writes as $elidedN.
type elision struct {
	node int    // index in the walk's nodes
	key  string // the property
	size int    // the value's literal, in bytes
	name string // the parameter's name, once chosen
	// whole is the node's tokens written whole (tokens.Milli).
	whole int64
}

// chooseElisions chooses the longest string values of the always-whole
// nodes of a body of cost (tokens.Milli) over target to elide until it
// fits, and returns them in emit order, named, with the tokens.Milli
// eliding them saves (none when no value is long enough).
func chooseElisions(w *shapewalk.Shape, texts []rendering, target, cost int64) ([]elision, int64) {
	var cands []elision
	for i, n := range w.Nodes {
		if w.Hops[i] > 0 && i >= w.Pinned {
			continue // trimmed to its identity already, or never whole
		}
		for _, p := range n.Props {
			if isIdentityProp(p) || p.Val.Kind() != values.KindString {
				continue
			}
			if sz := p.Val.Size(); sz >= minElided {
				cands = append(cands, elision{node: i, key: p.Key, size: sz, whole: texts[i].cost})
			}
		}
	}
	// Longest first; ties in emit order, so the choice is a function of
	// the Shape alone.
	slices.SortFunc(cands, func(a, b elision) int {
		return cmp.Or(cmp.Compare(b.size, a.size), cmp.Compare(a.node, b.node), strings.Compare(a.key, b.key))
	})
	var chosen []elision
	var lit []byte
	var saved int64
	marker := tokens.Milli([]byte("$elided10"))
	for _, c := range cands {
		if cost-saved <= target {
			break
		}
		v, _ := w.Nodes[c.node].Props.Get(c.key)
		lit = v.AppendLiteral(lit[:0])
		saved += tokens.Milli(lit) - marker
		chosen = append(chosen, c)
	}
	if len(chosen) == 0 {
		return nil, 0
	}
	// Numbered in emit order: $elided1 is the first the reader meets.
	slices.SortFunc(chosen, func(a, b elision) int {
		return cmp.Or(cmp.Compare(a.node, b.node), strings.Compare(a.key, b.key))
	})
	for i := range chosen {
		chosen[i].name = ElidedParam + strconv.Itoa(i+1)
	}
	return chosen, saved
}

// applyElisions writes the renderings of the nodes whose values chosen
// elides, with $elidedN in place of each value, into texts.
func applyElisions(w *shapewalk.Shape, texts []rendering, chosen []elision) {
	for lo := 0; lo < len(chosen); {
		hi := lo + 1
		for hi < len(chosen) && chosen[hi].node == chosen[lo].node {
			hi++
		}
		n := w.Nodes[chosen[lo].node]
		these := chosen[lo:hi]
		b := store.AppendLabels(nil, n.Labels)
		b = n.Props.AppendLiteralReplacing(append(b, ' '), func(key string) (string, bool) {
			for _, c := range these {
				if c.key == key {
					return "$" + c.name, true
				}
			}
			return "", false
		})
		texts[chosen[lo].node] = rendering{text: string(b), cost: tokens.Milli(b)}
		lo = hi
	}
}

// elidedNote says which values a Shape elided and how to read them whole:
// a Recall of that node alone (k=0, by its nick or locator) with a T
// above its own tokens.
func elidedNote(w *shapewalk.Shape, vars []varName, chosen []elision, t int) string {
	var b strings.Builder
	b.WriteString("elided:")
	for i, c := range chosen {
		if i == maxElidedNamed {
			fmt.Fprintf(&b, " and %d more", len(chosen)-i)
			break
		}
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, " %s.%s (%d bytes) as $%s", vars[c.node].text, c.key, c.size, c.name)
	}
	fmt.Fprintf(&b, " (over T=%d); read one whole:", t)
	n := w.Nodes[chosen[0].node]
	for _, key := range []string{"nick", "loc", "name"} {
		if v, ok := n.Props.Get(key); ok {
			var lit []byte
			lit = v.AppendLiteral(lit)
			// Its tokens, the header's and a margin, in hundreds.
			need := (tokens.FromMilli(chosen[0].whole)+100)/100*100 + 100
			fmt.Fprintf(&b, " MATCH (n {%s: %s}) with k=0, T=%d", key, lit, need)
			break
		}
	}
	if !strings.HasSuffix(b.String(), ":") {
		b.WriteString(";")
	} else {
		b.WriteString(" recall its node alone with a larger T;")
	}
	b.WriteString(" a Δ naming $elidedN is refused")
	return b.String()
}

// isElidedParam reports whether name is one an elided value is written as.
func isElidedParam(name string) bool {
	rest, ok := strings.CutPrefix(name, ElidedParam)
	if !ok || rest == "" {
		return false
	}
	_, err := strconv.Atoi(rest)
	return err == nil
}

// elidedParam is the error of a Δ that names an elided value's parameter
// without passing it: a Shape pasted back whole.
func elidedParam(name string) *gqlstatus.Error {
	return gqlstatus.Errorf(gqlstatus.InvalidReference,
		"parameter $%s is not given: it stands for a value a Shape left out over its token target T, not for the value", name).
		WithHint("leave that property out of the Δ (an INSERT that restates a node binds to it), or recall the node alone with a larger T to read the value whole")
}
