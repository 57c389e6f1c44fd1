package exec

import (
	"fmt"
	"slices"
	"strconv"
	"unsafe"

	"github.com/goldfish-gql/goldfish/shapewalk"
	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/tokens"
	"github.com/goldfish-gql/goldfish/values"
)

// How much of each node a body shows: whole, in brief (the first ring of
// an economical Shape), or by identity (farther rings, view=shell, or the
// token target T trimming from the far end); and what a clamp note says
// to read what was left out.

// appendClampAdvice ends a clamp note: which budget left the neighbours
// out, and the Recall that shows them. A seed's are left out by M (F does
// not clamp seeds): a narrower token, or fewer hops, leaves them more
// rows. Another node's are left out by F: recalled by its identity, it is
// a seed, whose neighbours F does not clamp.
func (e *emitter) appendClampAdvice(b []byte, w *shapewalk.Shape, c shapewalk.Clamp) []byte {
	if w.Hops[c.Index] == 0 {
		// The next page: this Recall with after past what it showed.
		b = strconv.AppendInt(append(b, "; M="...), int64(e.opt.M), 10)
		b = append(b, ": the next ones with after="...)
		b = strconv.AppendInt(b, int64(e.opt.After+c.Shown), 10)
		if e.opt.K > 1 {
			b = append(b, " (k=1 shows more of them at once)"...)
		}
		return b
	}
	b = strconv.AppendInt(append(b, "; F="...), int64(e.opt.F), 10)
	for _, kv := range c.Node.Props {
		if isIdentityProp(kv) && kv.Val.Kind() == values.KindString {
			b = append(b, ": recall MATCH (n {"...)
			b = values.AppendKeyLiteral(b, kv.Key)
			b = append(kv.Val.AppendLiteral(append(b, ": "...)), "}) for them"...)
			break
		}
	}
	return b
}

// lean reports whether the Shape is economical (values.RecallOptions.Whole
// unset, view interior): the first ring brief, farther rings identity.
func (e *emitter) lean() bool { return !e.opt.Whole && e.opt.View != values.ViewShell }

// leanDetail is how an economical Shape shows a node at hop (pinned
// nodes and seeds whole): brief one hop away, identity farther. What a
// miss shows instead of a match is brief too (instead).
func leanDetail(hop int, instead bool) (brief, identity bool) {
	return hop == 1 || instead && hop == 0, hop >= 2
}

// identityOnly reports whether the body shows node i with its identity
// alone: trimmed by T, or two or more hops away in an economical Shape.
func (e *emitter) identityOnly(w *shapewalk.Shape, i, trim int) bool {
	if trimmed(w, i, trim) {
		return true
	}
	_, id := leanDetail(w.Hops[i], false)
	return id && i >= w.Pinned && e.lean()
}

// leanTexts replaces the renderings of the nodes an economical Shape
// shows in part with what it shows of them, so the body and the token
// target's estimates both read them as written. The texts are written in
// the scratch arena, which outlives them (they are read by this emit
// alone).
func (e *emitter) leanTexts(w *shapewalk.Shape, texts []rendering, sc *scratch) {
	sc.lean = sc.lean[:0]
	for i, n := range w.Nodes {
		if i < w.Pinned {
			continue
		}
		var keep func(values.Prop) bool
		switch brief, id := leanDetail(w.Hops[i], e.shape.Miss != nil); {
		case brief && hasList(n.Props):
			keep = values.BriefProp
		case id && !shellKeepsAll(n.Props):
			keep = isIdentityProp
		default:
			continue
		}
		mark := len(sc.lean)
		sc.lean = store.AppendLabels(sc.lean, n.Labels)
		if slices.ContainsFunc(n.Props, keep) {
			sc.lean = n.Props.AppendLiteralOf(append(sc.lean, ' '), keep)
		}
		text := sc.lean[mark:]
		texts[i] = rendering{unsafe.String(unsafe.SliceData(text), len(text)), tokens.Milli(text)}
	}
}

// hasList reports whether p holds a list value.
func hasList(p values.Props) bool {
	for _, kv := range p {
		if kv.Val.Kind() == values.KindList {
			return true
		}
	}
	return false
}

// trimFrom chooses the hop from which a body of cost (tokens.Milli) over
// the token target shows nodes with their identity properties only: the
// farthest ring first, then the next, until the estimate fits the target
// or every node beyond the seeds is trimmed. Seeds (hop 0) and pinned
// nodes the walk did not reach (hop -1) are always written in full: they
// are what the Recall asked for, and so are pinned nodes, which are in a
// Shape because the session says they always matter. It returns 0 when no
// ring saves a token.
func trimFrom(w *shapewalk.Shape, texts []rendering, target, cost int64, sc *scratch) (from int, saved int64) {
	for hop := w.MaxHop; hop >= 1 && cost-saved > target; hop-- {
		for i, n := range w.Nodes {
			if w.Hops[i] != hop || i < w.Pinned || shellKeepsAll(n.Props) {
				continue
			}
			mark := len(sc.note)
			sc.note = appendNodeText(sc.note, n, true)
			saved += texts[i].cost - tokens.Milli(sc.note[mark:])
			sc.note = sc.note[:mark]
		}
		from = hop
	}
	return from, saved
}

// trimmedCount is the number of nodes a body trimmed from hop from shows
// with fewer properties than they have.
func trimmedCount(w *shapewalk.Shape, from int, lean bool) int {
	n := 0
	for i, nd := range w.Nodes {
		if _, id := leanDetail(w.Hops[i], false); lean && id {
			continue // shown by its identity whatever T is
		}
		if trimmed(w, i, from) && !shellKeepsAll(nd.Props) {
			n++
		}
	}
	return n
}

// trimmed reports whether a body trimmed from hop from (0: untrimmed)
// shows node i with its identity properties only.
func trimmed(w *shapewalk.Shape, i, from int) bool {
	return from > 0 && i >= w.Pinned && w.Hops[i] >= from
}

// trimNote is the notice of a trimmed Shape. Its text says it with
// " trimmed=N" in the header alone, which costs a reader three tokens
// where a note line would cost twenty.
func trimNote(t, n, dropped, from int) string {
	where := "beyond the seeds"
	if from > 1 {
		where = fmt.Sprintf("%d or more hops from the seeds", from)
	}
	msg := fmt.Sprintf("T=%d: %d %s %s %s identity properties only (nick, loc, name, title)",
		t, n, plural(n, "node", "nodes"), where, plural(n, "shows", "show"))
	if dropped > 0 {
		msg += fmt.Sprintf(", and %d %s between them %s left out", dropped, plural(dropped, "edge", "edges"), plural(dropped, "is", "are"))
	}
	return msg + "; recall one by nick for the rest"
}
