package snap

import (
	"fmt"
	"sort"
	"strings"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/ingest/golang"
)

// A re-snap first ingests what each session should hold, which adds what
// is new and updates what changed (the ingest id rule finds every element
// by its locator), then sweeps out what the tree no longer has: the
// elements a snap owns (nodes of its kinds that carry a loc, and edges of
// its types between such nodes) that the new content lacks. What agents
// committed into a session (a NOTE, an edge to it) is never swept; an
// edge of theirs to a swept node goes with that node.
//
// After the ingest every element of the content is live, so when the
// session's live counts (the goldfish catalogue keeps them) equal the
// content's, nothing is stale and the session is not read at all. Only
// otherwise is it listed (Session.Dump) to find what to delete.

// kinds and types a snap owns, per kind of session.
var (
	interiorKinds = map[string]bool{"PKG": true, "FILE": true, "FN": true, "TYPE": true, "VAR": true, "CONST": true, "STUB": true, "CALLERS": true}
	interiorTypes = map[string]bool{"contains": true, "imports": true, "has_method": true, "calls": true, "refs": true, "implements": true}
	catalogKinds  = map[string]bool{"PART": true}
	catalogTypes  = map[string]bool{"imports": true}
)

type edgeKey struct {
	from golang.Ref
	typ  string
	to   golang.Ref
}

// stale lists the owned elements of s that c lacks; nil, nil when the
// live counts show there are none.
func stale(db *goldfish.DB, s *goldfish.Session, c content, kinds, types map[string]bool) ([]golang.Ref, []edgeKey) {
	for _, info := range db.SessionInfos() {
		if info.Name != s.Name() {
			continue
		}
		owned := 0
		for _, k := range info.Kinds {
			if kinds[k.Kind] {
				owned += k.Count
			}
		}
		if owned == len(c.nodes) && info.Edges == len(c.edges) {
			return nil, nil
		}
	}
	wantN := make(map[golang.Ref]bool, len(c.nodes))
	for _, n := range c.nodes {
		wantN[n.Ref()] = true
	}
	wantE := make(map[edgeKey]bool, len(c.edges))
	for _, e := range c.edges {
		wantE[edgeKey{e.From, e.Type, e.To}] = true
	}
	var nodes []golang.Ref
	var edges []edgeKey
	for _, line := range strings.Split(s.Dump(), "\n") {
		from, i, ok := scanNode(line, 0)
		if !ok || !kinds[from.Kind] || from.Loc == "" {
			continue
		}
		if i == len(line) {
			if !wantN[from] {
				nodes = append(nodes, from)
			}
			continue
		}
		typ, j, ok := scanEdgeBody(line, i)
		if !ok || !types[typ] {
			continue
		}
		to, k, ok := scanNode(line, j)
		if !ok || k != len(line) || !kinds[to.Kind] || to.Loc == "" {
			continue
		}
		if e := (edgeKey{from, typ, to}); !wantE[e] {
			edges = append(edges, e)
		}
	}
	return nodes, edges
}

// sweep deletes the stale elements of w's session: edges first, then
// nodes (DETACH DELETE takes any edge of an agent's with them).
func (w *writer) sweep(nodes []golang.Ref, edges []edgeKey) error {
	sort.Slice(edges, func(i, j int) bool { return edgeLess(edges[i], edges[j]) })
	sort.Slice(nodes, func(i, j int) bool { return refLess(nodes[i], nodes[j]) })
	err := w.deletes(len(edges), func(i, k int, b *strings.Builder, params map[string]any) {
		e := edges[i]
		fmt.Fprintf(b, "MATCH (a:%s {loc: $f%d})-[e:%s]->(b:%s {loc: $t%d}) DELETE e", e.from.Kind, k, e.typ, e.to.Kind, k)
		params[pname('f', k)] = e.from.Loc
		params[pname('t', k)] = e.to.Loc
	})
	if err != nil {
		return err
	}
	return w.deletes(len(nodes), func(i, k int, b *strings.Builder, params map[string]any) {
		fmt.Fprintf(b, "MATCH (n:%s {loc: $l%d}) DETACH DELETE n", nodes[i].Kind, k)
		params[pname('l', k)] = nodes[i].Loc
	})
}

// deletes commits n delete statements, up to 32 per Δ.
func (w *writer) deletes(n int, stmt func(i, k int, b *strings.Builder, params map[string]any)) error {
	const per = 32
	for lo := 0; lo < n; lo += per {
		hi := min(lo+per, n)
		var b strings.Builder
		params := map[string]any{}
		for i := lo; i < hi; i++ {
			if i > lo {
				b.WriteString(";\n")
			}
			stmt(i, i-lo, &b, params)
		}
		res, err := w.s.Commit(w.ctx, b.String(), params)
		if err != nil {
			return fmt.Errorf("session %s: deleting what the tree no longer holds: %w", w.s.Name(), err)
		}
		w.deltas++
		if res.Applied {
			w.applied++
		}
		w.deleted += res.Total.NodesRecycled + res.Total.EdgesRecycled
	}
	return nil
}

func refLess(a, b golang.Ref) bool {
	if a.Kind != b.Kind {
		return a.Kind < b.Kind
	}
	return a.Loc < b.Loc
}

func edgeLess(a, b edgeKey) bool {
	switch {
	case a.from != b.from:
		return refLess(a.from, b.from)
	case a.typ != b.typ:
		return a.typ < b.typ
	}
	return refLess(a.to, b.to)
}

// ---------------------------------------------------------------- reading a Dump

// scanNode reads the node literal at s[i:] as Session.Dump writes it,
// (:Kind:Extra {props}), and returns its kind and its loc when that is a
// string ("" otherwise), and where it ends.
func scanNode(s string, i int) (golang.Ref, int, bool) {
	var r golang.Ref
	if i >= len(s) || s[i] != '(' {
		return r, 0, false
	}
	i++
	first := true
	for i < len(s) && s[i] == ':' {
		label, j, ok := scanKey(s, i+1)
		if !ok {
			return r, 0, false
		}
		if first {
			r.Kind, first = label, false
		}
		i = j
	}
	if i < len(s) && s[i] == ' ' {
		i++
	}
	if i < len(s) && s[i] == '{' {
		i++
		for i < len(s) && s[i] != '}' {
			key, j, ok := scanKey(s, i)
			if !ok || !strings.HasPrefix(s[j:], ": ") {
				return r, 0, false
			}
			j += 2
			end, ok := scanValue(s, j)
			if !ok {
				return r, 0, false
			}
			if key == "loc" && s[j] == '"' {
				if v, err := goldfish.ParseLiteral(s[j:end]); err == nil {
					r.Loc, _ = v.(string)
				}
			}
			i = end
			if strings.HasPrefix(s[i:], ", ") {
				i += 2
			}
		}
		if i >= len(s) {
			return r, 0, false
		}
		i++
	}
	if i >= len(s) || s[i] != ')' {
		return r, 0, false
	}
	return r, i + 1, true
}

// scanEdgeBody reads -[:type {props}]-> at s[i:] and returns the type and
// where the far node starts.
func scanEdgeBody(s string, i int) (string, int, bool) {
	if !strings.HasPrefix(s[i:], "-[:") {
		return "", 0, false
	}
	typ, j, ok := scanKey(s, i+3)
	if !ok {
		return "", 0, false
	}
	if strings.HasPrefix(s[j:], " {") {
		end, ok := scanValue(s, j+1)
		if !ok {
			return "", 0, false
		}
		j = end
	}
	if !strings.HasPrefix(s[j:], "]->") {
		return "", 0, false
	}
	return typ, j + 3, true
}

// scanKey reads a label or property key: an identifier, or one in
// backquotes, a backquote inside written twice.
func scanKey(s string, i int) (string, int, bool) {
	if i < len(s) && s[i] == '`' {
		var b strings.Builder
		for j := i + 1; j < len(s); j++ {
			if s[j] == '`' {
				if j+1 < len(s) && s[j+1] == '`' {
					b.WriteByte('`')
					j++
					continue
				}
				return b.String(), j + 1, true
			}
			b.WriteByte(s[j])
		}
		return "", 0, false
	}
	j := i
	for j < len(s) && (s[j] == '_' || s[j] >= 0x80 || (s[j]|0x20 >= 'a' && s[j]|0x20 <= 'z') || (j > i && s[j] >= '0' && s[j] <= '9')) {
		j++
	}
	return s[i:j], j, j > i
}

// scanValue returns where the literal at s[i:] ends: a quoted string, a
// list or map (brackets balanced, strings skipped), or a word such as a
// number, true or DATE '…'.
func scanValue(s string, i int) (int, bool) {
	depth := 0
	for j := i; j < len(s); j++ {
		switch c := s[j]; c {
		case '"', '\'':
			k := j + 1
			for k < len(s) && s[k] != c {
				if s[k] == '\\' {
					k++
				}
				k++
			}
			if k >= len(s) {
				return 0, false
			}
			j = k
			if depth == 0 && c == '"' {
				return j + 1, true
			}
		case '[', '{':
			depth++
		case ']', '}':
			if depth == 0 {
				return j, true
			}
			depth--
			if depth == 0 {
				return j + 1, true
			}
		case ',':
			if depth == 0 {
				return j, true
			}
		case ')':
			if depth == 0 {
				return j, true
			}
		}
	}
	return 0, false
}
