package store

import (
	"math"

	"github.com/goldfish-gql/goldfish/tokens"
	"github.com/goldfish-gql/goldfish/values"
)

// appendRendering writes the text a Shape writes for a node with these
// labels and properties: AppendLabels, then a space and the property
// literal when there are properties.
func appendRendering(b []byte, labels []string, props values.Props) []byte {
	b = AppendLabels(b, labels)
	if len(props) == 0 {
		return b
	}
	return props.AppendLiteral(append(b, ' '))
}

// AppendLabels writes ":Label" for each label, the kind first and the
// others sorted (values.AppendLabels).
func AppendLabels(b []byte, labels []string) []byte { return values.AppendLabels(b, labels) }

// AppendKey writes a label, type or key as KeyLiteral does.
func AppendKey(b []byte, s string) []byte { return values.AppendKeyLiteral(b, s) }

// KindPrefix returns the part of a node's rendering (see Node.Rendering)
// that writes its kind: ":Kind", or "" for a node without labels. Two
// renderings have equal prefixes exactly when their nodes have the same
// kind, so a reader of renderings can group nodes by kind without loading
// their records.
func KindPrefix(text string) string {
	if len(text) < 2 || text[0] != ':' {
		return ""
	}
	if text[1] != '`' {
		// An identifier: it ends where the next label or the property
		// literal starts.
		for i := 2; i < len(text); i++ {
			if text[i] == ':' || text[i] == ' ' {
				return text[:i]
			}
		}
		return text
	}
	// A quoted key: it ends at the first backquote that is not doubled.
	for i := 2; i < len(text); i++ {
		if text[i] == '`' {
			if i+1 < len(text) && text[i+1] == '`' {
				i++
				continue
			}
			return text[:i+1]
		}
	}
	return text
}

// Rendering is an edge's text as a Shape writes it (type, then the
// property literal) with a cost its renderer derives from the text (the
// token estimate). It is computed on first use and kept with the immutable
// record; a write makes a new record without one. (A node's rendering is
// made with its record: see Node.Rendering.)
type Rendering struct {
	Text []byte
	Cost int64
}

// Rendering returns the text a Shape writes for n (its labels, kind first
// and the others sorted, then its property literal) and that text's token
// estimate (tokens.Milli).
func (n *Node) Rendering() (text string, cost int64) {
	if n.blob == "" && (len(n.Labels) > 0 || len(n.Props) > 0) {
		// A record the store did not make (a caller's literal).
		b := appendRendering(nil, n.Labels, n.Props)
		return string(b), tokens.Milli(b)
	}
	text = n.blob[:n.textLen]
	return text, costOf(text, n.cost)
}

// costOf is the cost of a kept rendering, text, whose record keeps kept
// (keptCost): counted afresh when too large to keep.
func costOf(text string, kept int32) int64 {
	if kept < 0 {
		return tokens.MilliString(text)
	}
	return int64(kept)
}

// keptCost is a rendering's cost as a record keeps it.
func keptCost(c int64) int32 {
	if c > math.MaxInt32 {
		return -1
	}
	return int32(c)
}

// Rendering returns e's kept rendering, or nil.
func (e *Edge) Rendering() *Rendering { return e.memo.Load() }

// KeepRendering keeps r as e's rendering unless one is kept already, and
// returns the kept one. Renderers must produce the same r for the same e.
func (e *Edge) KeepRendering(r *Rendering) *Rendering {
	if e.memo.CompareAndSwap(nil, r) {
		return r
	}
	return e.memo.Load()
}
