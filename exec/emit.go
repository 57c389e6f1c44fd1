package exec

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/shapewalk"
	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/tokens"
	"github.com/goldfish-gql/goldfish/values"
)

// maxTarget bounds the token targets that can trim: no Shape comes near
// it (a frame is 4 MiB), and its thousandths fit in an int64.
const maxTarget int64 = 1 << 40

// emitter renders a walked Shape as one GQL INSERT statement under a
// comment header. Everything a reader should know is a comment, so the
// whole text parses with our own parser.
type emitter struct {
	snap  *store.Snapshot
	opt   RecallOptions
	shape *Shape
	notes []string // comment lines after the header
	body  []byte
	// bodyCost is body's token estimate in tokens.Milli units.
	bodyCost int64
	// start and walked time the Recall: seed and walk, then emit.
	start, walked time.Time
	sc            *scratch
}

// walk walks seeds into the emitter's pooled Shape (the emit is done with
// it before the next Recall takes the scratch).
func (e *emitter) walk(ctx context.Context, snap *store.Snapshot, seeds []*store.Node, opt shapewalk.Options) (*shapewalk.Shape, error) {
	w, err := shapewalk.WalkIntoContext(ctx, &e.scratch().walk, snap, seeds, opt)
	if err != nil {
		e.release()
	}
	return w, err
}

// timed marks the end of the walk.
func (e *emitter) timed(w *shapewalk.Shape) *shapewalk.Shape {
	e.walked = time.Now()
	return w
}

func (e *emitter) outline(kinds []shapewalk.KindOutline, types []shapewalk.TypeCount) {
	o := &values.Outline{Kinds: make([]values.NameCount, len(kinds)), Types: make([]values.NameCount, len(types))}
	for i, k := range kinds {
		o.Kinds[i] = values.NameCount{Name: k.Kind, Count: k.Count}
	}
	for i, t := range types {
		o.Types[i] = values.NameCount{Name: t.Type, Count: t.Count}
	}
	e.shape.Outline = o
	var b strings.Builder
	b.WriteString("outline: nodes")
	for _, k := range kinds {
		fmt.Fprintf(&b, " %s=%d", kindName(k.Kind), k.Count)
	}
	if len(kinds) == 0 {
		b.WriteString(" none")
	}
	b.WriteString("; edges")
	for _, t := range types {
		fmt.Fprintf(&b, " %s=%d", t.Type, t.Count)
	}
	if len(types) == 0 {
		b.WriteString(" none")
	}
	e.notes = append(e.notes, b.String())
}

func kindName(k string) string {
	if k == "" {
		return "(none)"
	}
	return k
}

// emit renders the body and the notes of a walked Shape.
func (e *emitter) emit(w *shapewalk.Shape, seeds int) {
	s := e.shape
	s.Seeds = seeds
	s.Rows = len(w.Nodes) + len(w.Edges)
	s.Truncated = w.Truncated
	// Variables: a prefix from the kind and a per-prefix counter (tsk1,
	// mod2); kinds with one prefix ("A-B", "AB") share its counter. Kinds
	// are few, so slices beat maps.
	type counter struct {
		prefix prefixInfo
		n      int
	}
	type kindCounter struct {
		kind string // the kind as its nodes' renderings write it (store.KindPrefix)
		c    int    // index in counters
	}
	var counterBuf [8]counter
	var kindBuf [8]kindCounter
	counters, kinds := counterBuf[:0], kindBuf[:0]
	sc := e.scratch()
	sc.types = sc.types[:0]
	for _, t := range w.Types {
		sc.types = append(sc.types, edgeTypeOf(e.snap, t))
	}
	// The walk has loaded the nodes' slot records and renderings.
	sc.sink += prefetchEdgeRenderings(w, sc.types)
	vars := slices.Grow(sc.vars[:0], len(w.Nodes))[:len(w.Nodes)]
	sc.vars = vars
	texts := slices.Grow(sc.texts[:0], len(w.Nodes))[:len(w.Nodes)]
	sc.texts = texts
	for i := range w.Nodes {
		// The node's text comes from the slot table, and its kind from
		// the text, so the record is not loaded.
		texts[i].text, texts[i].cost = e.snap.RenderingAt(w.Slots[i])
		kind := store.KindPrefix(texts[i].text)
		c := -1
		for _, kc := range kinds {
			if kc.kind == kind {
				c = kc.c
				break
			}
		}
		if c < 0 {
			p := prefixOf(kind)
			for j := range counters {
				if counters[j].prefix.name == p.name {
					c = j
					break
				}
			}
			if c < 0 {
				c = len(counters)
				counters = append(counters, counter{prefix: p})
			}
			kinds = append(kinds, kindCounter{kind, c})
		}
		ct := &counters[c]
		ct.n++
		// A prefix never ends in a digit, so the counter's estimate adds.
		vars[i] = varName{ct.prefix.name, ct.n, ct.prefix.cost + counterCost(ct.n), nil}
	}
	if e.lean() {
		e.leanTexts(w, texts, sc)
	}
	// Each name is written once; the body copies it once per use.
	size := 0
	for i := range vars {
		size += len(vars[i].prefix) + 20
	}
	names := slices.Grow(sc.names[:0], size)
	for i := range vars {
		at := len(names)
		names = vars[i].appendNumbered(names)
		vars[i].text = names[at:len(names):len(names)]
	}
	sc.names = names
	for _, c := range w.Clamps {
		// clamp: fn3 has 12 more neighbours (9 -calls->, 3 <-refs-); F=8
		nb := vars[c.Index].append(append(sc.note[:0], "clamp: "...))
		nb = strconv.AppendInt(append(nb, " has "...), int64(c.Total), 10)
		if c.Total == 1 {
			nb = append(nb, " more neighbour ("...)
		} else {
			nb = append(nb, " more neighbours ("...)
		}
		for j, o := range c.Omitted {
			if j > 0 {
				nb = append(nb, ", "...)
			}
			nb = appendEdgeArrow(append(strconv.AppendInt(nb, int64(o.Count), 10), ' '), o.Type, o.Dir)
		}
		nb = e.appendClampAdvice(append(nb, ')'), w, c)
		sc.note = nb
		note := string(nb)
		s.Clamps = append(s.Clamps, note)
		e.notes = append(e.notes, note)
	}
	if w.Truncated {
		e.notes = append(e.notes, truncNote(e.opt.M))
	}
	if w.PinnedMore {
		// Said like matched=N: the pinned kinds hold more than the Shape.
		msg := fmt.Sprintf("pinned: %d %s of %s shown (a share of M), more are live; recall the kind for the rest",
			w.Pinned, plural(w.Pinned, "node", "nodes"), strings.Join(e.opt.Pinned, ","))
		s.Notices = append(s.Notices, gqlstatus.Notice{Code: gqlstatus.Warning, Msg: msg})
		e.notes = append(e.notes, msg)
	}
	if s.Rows == 0 {
		return
	}
	// An economical body leaves out the edges between two nodes it shows
	// by identity at the same hop, as a trimmed one does (writeBody).
	b, cost, dropped := e.writeBody(w, vars, texts, 0)
	from := 0 // the hop from which the body trims nodes (0: none)
	var elided []elision
	// Over the token target, nodes far from the seeds give way first
	// (view=shell shows identity properties only already).
	// (A T past any body's size, up to the largest int, is no trim: its
	// thousandths would not fit in an int64.)
	if t := e.opt.T; t > 0 && int64(t) < maxTarget && cost > int64(t)*1000 && e.opt.View != values.ViewShell {
		// The header's " trimmed=N" costs tokens too: a trim that saves
		// fewer is not made.
		if f, saved := trimFrom(w, texts, int64(t)*1000, cost, sc); f > 0 && saved > glue.trimmed {
			from = f
			b, cost, dropped = e.writeBody(w, vars, texts, from)
			s.Trimmed = trimmedCount(w, from, e.lean())
			s.Notices = append(s.Notices, gqlstatus.Notice{Code: gqlstatus.Warning, Msg: trimNote(t, s.Trimmed, dropped, from)})
		}
		// Still over: the seeds alone are. Their longest values give way,
		// when that saves more than the note saying so costs.
		if cost > int64(t)*1000 {
			if chosen, saved := chooseElisions(w, texts, int64(t)*1000, cost); len(chosen) > 0 {
				note := elidedNote(w, vars, chosen, t)
				if saved > tokens.MilliString("// "+note+"\n")+glue.trimmed {
					applyElisions(w, texts, chosen)
					elided = chosen
					b, cost, _ = e.writeBody(w, vars, texts, from)
					s.Elided = len(chosen)
					s.Notices = append(s.Notices, gqlstatus.Notice{Code: gqlstatus.Warning, Msg: note})
					e.notes = append(e.notes, note)
				}
			}
		}
	}
	s.Rows -= dropped
	e.body, e.bodyCost = b, cost
	sc.body = b
	e.keepRows(w, from, elided)
}

// writeBody writes the INSERT of a walked Shape and returns it with its
// token estimate and the number of edges it left out. Nodes at hop trim
// or beyond (trim > 0), and edges between two of them, are written with
// their identity properties only, as view=shell writes every element;
// an edge between two such nodes at the same hop is left out: it is not
// how the walk reached either (that edge joins two hops), and the walk
// (docs/design.md#the-walk) adds edges between Shape nodes only while budget remains, which
// a Shape over its token target has not.
//
// The body is written in pieces cut where the byte class changes, so its
// token estimate is the sum of the pieces' (tokens.Milli): the glue's is
// constant, a variable's is counted, and an element's comes with its
// rendering.
func (e *emitter) writeBody(w *shapewalk.Shape, vars []varName, texts []rendering, trim int) ([]byte, int64, int) {
	sc := e.scratch()
	shell := e.opt.View == values.ViewShell
	b := append(sc.body[:0], "INSERT"...)
	cost := glue.insert
	for i, n := range w.Nodes {
		if i == 0 {
			b = append(b, "\n  ("...)
			cost += glue.firstOpen
		} else {
			b = append(b, ",\n  ("...)
			cost += glue.open
		}
		b, cost = vars[i].appendCounted(b, cost)
		var c int64
		b, c = appendNode(b, n, texts[i], shell || trimmed(w, i, trim))
		b = append(b, ')')
		cost += c + glue.close
	}
	dropped := 0
	for i, ed := range w.Edges {
		ends := w.Ends[i]
		far := e.identityOnly(w, int(ends.From), trim) && e.identityOnly(w, int(ends.To), trim)
		if far && w.Hops[ends.From] == w.Hops[ends.To] {
			dropped++
			continue
		}
		b = append(b, ",\n  ("...)
		b, cost = vars[ends.From].appendCounted(b, cost+glue.open)
		b = append(b, ")-["...)
		var c int64
		b, c = appendEdge(b, ed, sc.types[ends.Type], shell || far)
		b = append(b, "]->("...)
		b, cost = vars[ends.To].appendCounted(b, cost+glue.edgeMid+c+glue.edgeHead)
		b = append(b, ')')
		cost += glue.close
	}
	b = append(b, '\n')
	sc.body = b
	return b, cost + glue.end, dropped
}

// prefetchEdgeRenderings loads the renderings of the Shape's edges that
// carry properties in a tight loop of independent loads, so their cache
// misses overlap instead of each waiting its turn in the emit loop. It
// returns a value made of the loads so they are kept.
//
//go:noinline
func prefetchEdgeRenderings(w *shapewalk.Shape, types []edgeType) uint64 {
	var sink uint64
	for i, e := range w.Edges {
		if types[w.Ends[i].Type].bare {
			continue // written from its type: its record is not read
		}
		if r := e.Rendering(); r != nil && len(r.Text) > 0 {
			sink += uint64(r.Text[0])
		}
	}
	return sink
}

// glue holds the token estimate (tokens.Milli) of the constant pieces of
// a Shape's body.
var glue = struct {
	insert, firstOpen, open, close, edgeMid, edgeHead, end int64
	trimmed                                                int64 // the header's " trimmed=N"
}{
	trimmed:   tokens.Milli([]byte(" trimmed=12")),
	insert:    tokens.Milli([]byte("INSERT")),
	firstOpen: tokens.Milli([]byte("\n  (")),
	open:      tokens.Milli([]byte(",\n  (")),
	close:     tokens.Milli([]byte(")")),
	edgeMid:   tokens.Milli([]byte(")-[")),
	edgeHead:  tokens.Milli([]byte("]->(")),
	end:       tokens.Milli([]byte("\n")),
}

// rendering is a node's text and its token estimate (tokens.Milli).
type rendering struct {
	text string
	cost int64
}

// appendNode writes n's labels and property literal and returns their
// token estimate. It copies r, the rendering the store made with the
// record, except in view=shell for a node with properties view=shell
// leaves out: that text is made afresh.
func appendNode(b []byte, n *store.Node, r rendering, shell bool) ([]byte, int64) {
	if shell && !shellKeepsAll(n.Props) {
		mark := len(b)
		b = appendNodeText(b, n, true)
		return b, tokens.Milli(b[mark:])
	}
	return append(b, r.text...), r.cost
}

func appendNodeText(b []byte, n *store.Node, shell bool) []byte {
	return appendProps(store.AppendLabels(b, n.Labels), n.Props, shell)
}

// appendEdge is appendNode for an edge of type t: ":type" and its
// property literal.
func appendEdge(b []byte, e *store.Edge, t edgeType, shell bool) ([]byte, int64) {
	// Most edges carry no properties: their text is their type's, kept
	// once per type rather than once per edge. When no edge of the type
	// has properties, the record is not even read.
	if t.bare || len(e.Props) == 0 {
		return append(b, t.r.Text...), t.r.Cost
	}
	if shell && !shellKeepsAll(e.Props) {
		mark := len(b)
		b = appendEdgeText(b, e, true)
		return b, tokens.Milli(b[mark:])
	}
	r := e.Rendering()
	if r == nil {
		r = e.KeepRendering(newRendering(appendEdgeText(nil, e, false)))
	}
	return append(b, r.Text...), r.Cost
}

// typeRenderings keeps the rendering of a property-less edge by type.
var typeRenderings boundedCache[string, *store.Rendering]

func typeRendering(typ string) *store.Rendering {
	return typeRenderings.get(typ, func(typ string) *store.Rendering {
		return newRendering(store.AppendKey([]byte{':'}, typ))
	})
}

// edgeType is what an emit knows of one edge type of its Shape.
type edgeType struct {
	r    *store.Rendering // the text of a property-less edge of the type
	bare bool             // no live edge of the type has properties in the snapshot
}

func edgeTypeOf(snap *store.Snapshot, typ string) edgeType {
	return edgeType{r: typeRendering(typ), bare: snap != nil && !snap.TypeCarriesProps(typ)}
}

// newRendering keeps text with its token estimate.
func newRendering(text []byte) *store.Rendering {
	return &store.Rendering{Text: text, Cost: tokens.Milli(text)}
}

// boundedCache keeps up to maxCached values by key, for vocabularies that
// are small in practice (kinds, edge types, M values); past the bound a
// value is made on every call.
type boundedCache[K comparable, V any] struct {
	m sync.Map // K → V
	n atomic.Int64
}

const maxCached = 4096

func (c *boundedCache[K, V]) get(k K, build func(K) V) V {
	if v, ok := c.m.Load(k); ok {
		return v.(V)
	}
	v := build(k)
	if c.n.Load() < maxCached {
		if _, loaded := c.m.LoadOrStore(k, v); !loaded {
			c.n.Add(1)
		}
	}
	return v
}

func appendEdgeText(b []byte, e *store.Edge, shell bool) []byte {
	return appendProps(store.AppendKey(append(b, ':'), e.Type), e.Props, shell)
}

// scratch holds an emit's reusable buffers; Recall is hot, and what it
// allocates is what the garbage collector charges it for.
type scratch struct {
	body, notes, head []byte
	names             []byte     // the Shape's variable names, written out
	note              []byte     // a clamp note being written
	types             []edgeType // what this emit knows of its Shape's edge types (by Ends.Type)
	vars              []varName
	texts             []rendering // the Shape's node renderings, by position
	lean              []byte      // the renderings an economical Shape writes in part
	walk              shapewalk.Shape
	sink              uint64 // see prefetchEdgeRenderings
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

func (e *emitter) scratch() *scratch {
	if e.sc == nil {
		e.sc = scratchPool.Get().(*scratch)
	}
	return e.sc
}

// release returns the scratch buffers; the emitter must not use them after.
func (e *emitter) release() {
	if e.sc == nil {
		return
	}
	if cap(e.sc.body) > 1<<20 {
		e.sc.body = nil // an outsized Shape should not pin its buffers
		e.sc.walk = shapewalk.Shape{}
	}
	if cap(e.sc.lean) > 1<<20 {
		e.sc.lean = nil
	}
	clear(e.sc.types) // nor a pooled buffer a graph's renderings
	e.sc.types = e.sc.types[:0]
	clear(e.sc.texts)
	e.sc.texts = e.sc.texts[:0]
	w := &e.sc.walk // a pooled Shape must not keep a graph's records alive
	clear(w.Nodes)
	clear(w.Edges)
	clear(w.Types)
	w.Clamps = nil
	scratchPool.Put(e.sc)
	e.sc, e.body = nil, nil
}

// varName is a Shape variable: prefix and number.
type varName struct {
	prefix string
	n      int
	cost   int64  // tokens.Milli of the name
	text   []byte // the name written out, once emit has written it
}

func (v varName) appendNumbered(b []byte) []byte {
	return strconv.AppendInt(append(b, v.prefix...), int64(v.n), 10)
}

func (v varName) append(b []byte) []byte {
	if v.text != nil {
		return append(b, v.text...)
	}
	return v.appendNumbered(b)
}

// appendCounted appends v and adds its token estimate to cost.
func (v varName) appendCounted(b []byte, cost int64) ([]byte, int64) {
	return v.append(b), cost + v.cost
}

// digitsCost[d] is the token estimate of a d-digit number.
var digitsCost = func() (t [21]int64) {
	for d := 1; d < len(t); d++ {
		t[d] = tokens.Milli([]byte(strings.Repeat("1", d)))
	}
	return
}()

func counterCost(n int) int64 {
	d := 1
	for x := n; x >= 10; x /= 10 {
		d++
	}
	return digitsCost[d]
}

func (v varName) String() string { return string(v.append(nil)) }

func appendProps(b []byte, p values.Props, shell bool) []byte {
	if shell && !shellKeepsAll(p) {
		if !slices.ContainsFunc(p, isIdentityProp) {
			return b
		}
		return p.AppendLiteralOf(append(b, ' '), isIdentityProp)
	}
	if len(p) == 0 {
		return b
	}
	return p.AppendLiteral(append(b, ' '))
}

// isIdentityProp reports whether view=shell keeps the property.
func isIdentityProp(kv values.Prop) bool { return values.IdentityKey(kv.Key) }

// shellKeepsAll reports whether view=shell keeps every property of p (its
// text in view=shell is then its full rendering).
func shellKeepsAll(p values.Props) bool {
	for _, kv := range p {
		if !isIdentityProp(kv) {
			return false
		}
	}
	return true
}

func appendEdgeArrow(b []byte, typ string, d store.Dir) []byte {
	if d == store.In {
		return append(append(append(b, "<-"...), typ...), '-')
	}
	return append(append(append(b, '-'), typ...), "->"...)
}

// truncNotes keeps the note of a walk M cut short, by M.
var truncNotes boundedCache[int, string]

func truncNote(m int) string {
	return truncNotes.get(m, func(m int) string {
		return fmt.Sprintf("M=%d cut the walk short: narrow q, use view=shell, or split the session", m)
	})
}

// prefixInfo is a kind's variable prefix and its token estimate.
type prefixInfo struct {
	name string
	cost int64 // tokens.Milli of name
}

// prefixes keeps prefixOf by kind.
var prefixes boundedCache[string, prefixInfo]

// prefixOf returns the variable prefix of a kind, given as the kind or as
// its rendering (store.KindPrefix): varPrefix drops the ':' and quotes a
// rendering adds, so both give the same prefix.
func prefixOf(kind string) prefixInfo {
	return prefixes.get(kind, func(kind string) prefixInfo {
		name := varPrefix(kind)
		return prefixInfo{name, tokens.Milli([]byte(name))}
	})
}

// varPrefix derives a variable prefix from a kind: lower-case ASCII letters,
// digits and '_' ("TSK" → "tsk"), with '_' added after a final digit
// ("A1" → "a1_"); "n" when nothing is left.
func varPrefix(kind string) string {
	var b []byte
	for i := 0; i < len(kind) && len(b) < 12; i++ {
		c := kind[i]
		switch {
		case c >= 'A' && c <= 'Z':
			b = append(b, c+'a'-'A')
		case (c >= 'a' && c <= 'z') || c == '_' || (c >= '0' && c <= '9' && len(b) > 0):
			b = append(b, c)
		}
	}
	if len(b) == 0 {
		return "n"
	}
	if c := b[len(b)-1]; c >= '0' && c <= '9' {
		// The counter follows: "a1" + "1" would read as "a" + "11".
		b = append(b, '_')
	}
	return string(b)
}

// appendCommentText appends s as the text of one line comment. A note
// quotes labels and edge types, which may hold line breaks; written raw,
// one would end the comment and the rest of the name would be read as
// GQL, so \r and \n are written as those two-character escapes.
func appendCommentText(b []byte, s string) []byte {
	for {
		i := strings.IndexAny(s, "\r\n")
		if i < 0 {
			return append(b, s...)
		}
		b = append(b, s[:i]...)
		if s[i] == '\r' {
			b = append(b, `\r`...)
		} else {
			b = append(b, `\n`...)
		}
		s = s[i+1:]
	}
}

// finish counts the tokens of a Shape with no preamble and keeps the
// pieces Compose writes its text from: the Shape cache holds the graph
// part, and the text a reader gets, with the vocabulary and attention
// lines of that call, is written once, by Compose.
func (e *emitter) finish() (*Shape, error) {
	defer e.release()
	s := e.shape
	sc := e.scratch()
	notes := sc.notes[:0]
	for _, n := range e.notes {
		notes = append(notes, "// "...)
		notes = appendCommentText(notes, n)
		notes = append(notes, '\n')
	}
	sc.notes = notes
	rest := make([]byte, 0, len(notes)+len(e.body))
	rest = append(append(rest, notes...), e.body...)
	s.Session, s.K, s.M, s.exact, s.after = e.opt.Session, e.opt.K, e.opt.M, e.opt.ExactTokens, e.opt.After
	s.notesLen, s.notesMilli = len(notes), tokens.Milli(notes)
	s.rest, s.restMilli = string(rest), s.notesMilli+e.bodyCost
	if e.walked.IsZero() {
		e.walked = time.Now()
	}
	s.ExecTime = e.walked.Sub(e.start)
	tok, _, alarm, err := s.count(sc.head[:0], nil, 0)
	if err != nil {
		return nil, err
	}
	s.Tokens, s.plain = tok, new(plainText)
	if alarm != nil {
		s.Notices = append(s.Notices, *alarm)
	}
	if s.Truncated {
		s.Notices = append(s.Notices, gqlstatus.Notice{Code: gqlstatus.Warning,
			Msg: truncNote(e.opt.M)})
	}
	for _, c := range s.Clamps {
		s.Notices = append(s.Notices, gqlstatus.Notice{Code: gqlstatus.Warning, Msg: c})
	}
	if s.Status == gqlstatus.Success && len(s.Notices) > 0 {
		s.Status = gqlstatus.Warning
	}
	s.EmitTime = time.Since(e.walked)
	return s, nil
}

// Compose writes the Shape's text with preamble (comment lines: the
// session's vocabulary and the attention envelope) right after its
// header, and counts its tokens; preambleMilli is the preamble's token
// estimate in tokens.Milli units (whole lines, so estimates add up).
// alarm is the token alarm's notice when the text is over TokenAlarm and
// the Shape without the preamble was not. Without withBody the text ends
// after the notes, with a line saying the graph part was left out. It is
// the one place a Shape's header is written; the text with no preamble
// is written once per Shape and shared by every caller of it.
func (s *Shape) Compose(preamble []byte, preambleMilli int64, withBody bool) (text string, tok int, alarm *gqlstatus.Notice, err error) {
	if len(preamble) == 0 && withBody {
		return s.plainText(), s.Tokens, nil, nil
	}
	if !withBody {
		c := *s
		c.rest = s.rest[:s.notesLen] + elidedShape
		c.restMilli = s.notesMilli + tokens.MilliString(elidedShape)
		s = &c
	}
	text, tok, alarm, err = s.compose(nil, preamble, preambleMilli)
	if alarm != nil && s.Tokens > values.TokenAlarm {
		alarm = nil // the Shape's own notices hold it already
	}
	return text, tok, alarm, err
}

// plainText is a Shape's text with no preamble, written on first use:
// copies of a Shape share it, as the Shape cache's callers do.
type plainText struct {
	done atomic.Bool // text is written
	mu   sync.Mutex  // one writer
	text string
}

func (s *Shape) plainText() string {
	p := s.plain
	if p == nil { // a Shape finish did not make
		text, _, _, _ := s.compose(nil, nil, 0)
		return text
	}
	if p.done.Load() {
		return p.text
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.done.Load() {
		p.text, _, _, _ = s.compose(nil, nil, 0)
		p.done.Store(true)
	}
	return p.text
}

// Size is the bytes the Shape holds: what the Shape cache charges for it.
func (s *Shape) Size() int { return len(s.rest) + 128 + s.rowsSize() }

// elidedShape ends a Shape whose graph part a read left out.
const elidedShape = "// shape left out (only)\n"

// count counts the tokens of the Shape's text with preamble and writes
// its header into h; alarm is the token alarm's notice when it is over.
func (s *Shape) count(h, preamble []byte, preambleMilli int64) (int, []byte, *gqlstatus.Notice, error) {
	if h == nil {
		h = make([]byte, 0, 128+len(s.Session)) // the header is written three times: once allocated
	}
	head := func(tok int) []byte {
		h = append(h[:0], "// goldfish session="...)
		h = append(h, s.Session...)
		h = append(h, " version="...)
		h = strconv.AppendUint(h, s.Version, 10)
		if s.AsOf {
			h = append(h, " at="...)
			h = strconv.AppendUint(h, s.Version, 10)
		}
		h = append(h, " cue="...)
		h = append(h, s.Cue...)
		h = append(h, " seeds="...)
		h = strconv.AppendInt(h, int64(s.Seeds), 10)
		if s.Matched > s.Seeds {
			h = append(h, " matched="...)
			if s.MatchedAtLeast {
				h = append(h, "≥"...)
			}
			h = strconv.AppendInt(h, int64(s.Matched), 10)
		}
		h = append(h, " k="...)
		h = strconv.AppendInt(h, int64(s.K), 10)
		if s.after > 0 {
			h = append(h, " after="...)
			h = strconv.AppendInt(h, int64(s.after), 10)
		}
		h = append(h, " rows="...)
		h = strconv.AppendInt(h, int64(s.Rows), 10)
		h = append(h, '/')
		h = strconv.AppendInt(h, int64(s.M), 10)
		if s.Trimmed > 0 {
			h = append(h, " trimmed="...)
			h = strconv.AppendInt(h, int64(s.Trimmed), 10)
		}
		if s.Elided > 0 {
			h = append(h, " elided="...)
			h = strconv.AppendInt(h, int64(s.Elided), 10)
		}
		h = append(h, " tokens="...)
		h = strconv.AppendInt(h, int64(tok), 10)
		h = append(h, '\n')
		return h
	}
	var tok int
	if s.exact {
		restTok, err := tokens.Exact(string(preamble) + s.rest)
		if err != nil {
			e := gqlstatus.Errorf(gqlstatus.Internal, "the exact token count failed").
				WithHint("recall without the exact token count (the estimate), and report it: this is a fault in goldfish")
			e.Cause = err
			return 0, nil, nil, e
		}
		headTok, _ := tokens.Exact(string(head(restTok)))
		tok = restTok + headTok
		headTok, _ = tokens.Exact(string(head(tok)))
		tok = restTok + headTok
	} else {
		// The preamble and the notes end with a newline and the body
		// starts with INSERT: a class change, so the estimates add up.
		restTok := tokens.FromMilli(preambleMilli + s.restMilli)
		tok = restTok + tokens.EstimateBytes(head(restTok))
		tok = restTok + tokens.EstimateBytes(head(tok))
	}
	h = head(tok)
	var alarm *gqlstatus.Notice
	if tok > values.TokenAlarm {
		msg := fmt.Sprintf("Shape is %d tokens, over the %d-token alarm: narrow q, use view=shell, or split the session", tok, values.TokenAlarm)
		if s.Tokens > 0 && s.Tokens <= values.TokenAlarm && preambleMilli > 0 {
			// The rows were under it: the envelope is the cause.
			msg = fmt.Sprintf("Shape is %d tokens, over the %d-token alarm, %d of them the vocabulary and attention envelope: ask depth=lean, only=shape, or a smaller t",
				tok, values.TokenAlarm, tokens.FromMilli(preambleMilli))
		}
		alarm = &gqlstatus.Notice{Code: gqlstatus.Warning, Msg: msg}
	}
	return tok, h, alarm, nil
}

// compose writes the Shape's text with preamble: its header, the alarm's
// line when it is over, the preamble, the notes and the body.
func (s *Shape) compose(h, preamble []byte, preambleMilli int64) (string, int, *gqlstatus.Notice, error) {
	tok, h, alarm, err := s.count(h, preamble, preambleMilli)
	if err != nil {
		return "", 0, nil, err
	}
	alarmLine := ""
	if alarm != nil {
		alarmLine = "// " + string(gqlstatus.Warning) + ": " + alarm.Msg + "\n"
	}
	var text strings.Builder
	text.Grow(len(h) + len(alarmLine) + len(preamble) + len(s.rest))
	text.Write(h)
	text.WriteString(alarmLine)
	text.Write(preamble)
	text.WriteString(s.rest)
	return text.String(), tok, alarm, nil
}
