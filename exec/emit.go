package exec

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/shapewalk"
	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/tokens"
)

// TokenAlarm is the Shape size, in tokens, above which the header raises an
// alarm (SPEC §3).
const TokenAlarm = 8000

// identityKeys are the properties view=shell keeps.
var identityKeys = map[string]bool{"nick": true, "loc": true, "name": true, "title": true}

// emitter renders a walked Shape as one GQL INSERT statement under a
// comment header. Everything a reader should know is a comment, so the
// whole text parses with our own parser.
type emitter struct {
	opt   RecallOptions
	shape *Shape
	notes []string // comment lines after the header
	body  []byte
}

func (e *emitter) outline(kinds []shapewalk.KindOutline, types []shapewalk.TypeCount) {
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
	vars := make(map[store.ID]string, len(w.Nodes))
	counters := map[string]int{}
	for _, n := range w.Nodes {
		p := varPrefix(n.Kind())
		counters[p]++
		vars[n.ID] = p + strconv.Itoa(counters[p])
	}
	for _, c := range w.Clamps {
		parts := make([]string, 0, len(c.Omitted))
		for _, o := range c.Omitted {
			parts = append(parts, fmt.Sprintf("%d %s", o.Count, edgeArrow(o.Type, o.Dir)))
		}
		note := fmt.Sprintf("clamp: %s has %d more neighbours (%s); F=%d", vars[c.Node.ID], c.Total, strings.Join(parts, ", "), e.opt.F)
		s.Clamps = append(s.Clamps, note)
		e.notes = append(e.notes, note)
	}
	if w.Truncated {
		e.notes = append(e.notes, fmt.Sprintf("M=%d cut the walk short: narrow q, use view=shell, or split the session", e.opt.M))
	}
	if s.Rows == 0 {
		return
	}
	b := append(e.body[:0], "INSERT\n"...)
	row := 0
	sep := func() {
		if row > 0 {
			b = append(b, ",\n"...)
		}
		b = append(b, "  "...)
		row++
	}
	shell := e.opt.View == ViewShell
	for _, n := range w.Nodes {
		sep()
		b = append(b, '(')
		b = append(b, vars[n.ID]...)
		for _, l := range canonicalLabels(n.Labels) {
			b = append(b, ':')
			b = append(b, store.KeyLiteral(l)...)
		}
		b = appendProps(b, n.Props, shell)
		b = append(b, ')')
	}
	for _, ed := range w.Edges {
		sep()
		b = append(b, '(')
		b = append(b, vars[ed.From]...)
		b = append(b, ")-[:"...)
		b = append(b, store.KeyLiteral(ed.Type)...)
		b = appendProps(b, ed.Props, shell)
		b = append(b, "]->("...)
		b = append(b, vars[ed.To]...)
		b = append(b, ')')
	}
	b = append(b, '\n')
	e.body = b
}

func appendProps(b []byte, p store.Props, shell bool) []byte {
	if shell {
		var kept store.Props
		for _, kv := range p {
			if identityKeys[kv.Key] {
				kept = append(kept, kv)
			}
		}
		p = kept
	}
	if len(p) == 0 {
		return b
	}
	b = append(b, ' ')
	return p.AppendLiteral(b)
}

// canonicalLabels puts the kind first and the other labels sorted, so the
// same node always reads the same whatever order its labels were set in.
func canonicalLabels(labels []string) []string {
	if len(labels) <= 2 {
		return labels
	}
	out := append([]string{labels[0]}, labels[1:]...)
	sort.Strings(out[1:])
	return out
}

func edgeArrow(typ string, d store.Dir) string {
	if d == store.In {
		return "<-" + typ + "-"
	}
	return "-" + typ + "->"
}

// varPrefix derives a variable prefix from a kind: lower-case ASCII letters,
// digits and '_' ("TSK" → "tsk"); "n" when nothing is left.
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
	return string(b)
}

// finish writes the header and counts the tokens.
func (e *emitter) finish() (*Shape, error) {
	s := e.shape
	var tail strings.Builder
	for _, n := range e.notes {
		tail.WriteString("// ")
		tail.WriteString(n)
		tail.WriteByte('\n')
	}
	tail.Write(e.body)
	head := func(tok int) string {
		return fmt.Sprintf("// goldfish session=%s version=%d cue=%s seeds=%d k=%d rows=%d/%d tokens=%d\n",
			e.opt.Session, s.Version, s.Cue, s.Seeds, e.opt.K, s.Rows, e.opt.M, tok)
	}
	rest := tail.String()
	tok := tokens.Estimate(head(0) + rest)
	if e.opt.ExactTokens {
		exact, err := tokens.Exact(head(0) + rest)
		if err != nil {
			return nil, gqlstatus.Errorf(gqlstatus.InvalidValueType, "cannot count tokens: %v", err)
		}
		tok = exact
	}
	s.Tokens = tok
	alarm := ""
	if tok > TokenAlarm {
		msg := fmt.Sprintf("Shape is %d tokens, over the %d-token alarm: narrow q, use view=shell, or split the session", tok, TokenAlarm)
		alarm = "// 01000: " + msg + "\n"
		s.Notices = append(s.Notices, gqlstatus.Notice{Code: gqlstatus.Warning, Msg: msg})
	}
	if s.Truncated {
		s.Notices = append(s.Notices, gqlstatus.Notice{Code: gqlstatus.Warning,
			Msg: fmt.Sprintf("M=%d cut the walk short", e.opt.M)})
	}
	for _, c := range s.Clamps {
		s.Notices = append(s.Notices, gqlstatus.Notice{Code: gqlstatus.Warning, Msg: c})
	}
	if s.Status == gqlstatus.Success && len(s.Notices) > 0 {
		s.Status = gqlstatus.Warning
	}
	s.Text = head(tok) + alarm + rest
	return s, nil
}
