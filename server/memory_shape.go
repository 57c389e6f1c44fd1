package server

import (
	"fmt"
	"strings"

	"github.com/goldfish-gql/goldfish"
)

// The drop-in's reads answer with the rows of a Shape twice: as text, the
// Shape's INSERT with a comment line only when there is something to do
// about it (a model pays for every header token on every read), and as
// structured content in the original's output schema ({entities,
// relations}), read back from that same INSERT, so both hold the same
// bounded rows.

// MemoryGraph is the structured answer of read_graph, search_nodes and
// open_nodes, as the original's: the entities a read shows whole and the
// relations between the entities it names.
type MemoryGraph struct {
	Entities  []Entity   `json:"entities"`
	Relations []Relation `json:"relations"`
}

// shapeNode is a node line of a Shape's INSERT: its variable, labels
// (the kind first) and properties, by key, as literal text.
type shapeNode struct {
	v      string
	labels []string
	props  map[string]string
	keys   []string
}

// shapeRows reads the node and edge lines of a Shape's INSERT. A Shape
// writes one element a line ("  (v:kind {…})," or "  (a)-[:type]->(b),")
// and escapes every newline inside a string, so a line is an element.
func shapeRows(body string) ([]shapeNode, [][3]string) {
	var nodes []shapeNode
	var edges [][3]string
	for _, line := range strings.Split(body, "\n") {
		line = strings.TrimSuffix(strings.TrimSpace(line), ",")
		if !strings.HasPrefix(line, "(") || !strings.HasSuffix(line, ")") {
			continue
		}
		v, rest := scanIdent(line[1:])
		switch {
		case strings.HasPrefix(rest, ")-["):
			// (a)-[:type {…}]->(b)
			rest = strings.TrimPrefix(rest[3:], ":")
			typ, rest := scanIdent(rest)
			end := strings.LastIndex(rest, "]->(")
			if end < 0 {
				continue
			}
			to := strings.TrimSuffix(rest[end+4:], ")")
			edges = append(edges, [3]string{v, typ, to})
		case strings.HasPrefix(rest, ":") || strings.HasPrefix(rest, " {") || rest == ")":
			n := shapeNode{v: v, props: map[string]string{}}
			for strings.HasPrefix(rest, ":") {
				var l string
				l, rest = scanIdent(rest[1:])
				n.labels = append(n.labels, l)
			}
			rest = strings.TrimSpace(rest)
			if strings.HasPrefix(rest, "{") {
				n.keys, n.props = scanProps(rest[1:])
			}
			nodes = append(nodes, n)
		}
	}
	return nodes, edges
}

// scanIdent reads a GQL name, bare or in backquotes (a backquote
// doubled), and returns it with the rest of s.
func scanIdent(s string) (string, string) {
	if strings.HasPrefix(s, "`") {
		var b strings.Builder
		for i := 1; i < len(s); i++ {
			if s[i] == '`' {
				if i+1 < len(s) && s[i+1] == '`' {
					b.WriteByte('`')
					i++
					continue
				}
				return b.String(), s[i+1:]
			}
			b.WriteByte(s[i])
		}
		return b.String(), ""
	}
	i := 0
	for i < len(s) && (s[i] == '_' || s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z' || s[i] >= '0' && s[i] <= '9' || s[i] >= 0x80) {
		i++
	}
	return s[:i], s[i:]
}

// scanProps reads "key: literal, key: literal}" into the keys in order
// and each value's literal text, minding quotes and brackets.
func scanProps(s string) ([]string, map[string]string) {
	var keys []string
	props := map[string]string{}
	for {
		s = strings.TrimLeft(s, " ,")
		if s == "" || s[0] == '}' {
			return keys, props
		}
		var key string
		key, s = scanIdent(s)
		s = strings.TrimPrefix(strings.TrimLeft(s, " "), ":")
		s = strings.TrimLeft(s, " ")
		end := literalEnd(s)
		keys, props[key] = append(keys, key), s[:end]
		s = s[end:]
		if key == "" && end == 0 {
			return keys, props // not a map this reader knows: stop
		}
	}
}

// literalEnd is where the literal at the start of s ends: at the first
// ',' or '}' outside quotes and brackets.
func literalEnd(s string) int {
	depth := 0
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '[' || c == '{':
			depth++
		case c == ']':
			depth--
		case c == '}' && depth > 0:
			depth--
		case (c == ',' || c == '}') && depth == 0:
			return i
		}
	}
	return len(s)
}

// identityKeys are the properties a trimmed node keeps (nick, loc, name,
// title): a node showing no other is a name to a reader, not an entity
// shown whole.
var identityKeys = map[string]bool{"nick": true, "loc": true, "name": true, "title": true}

// shapeBody is a Shape's INSERT without its comment lines, "" when it
// holds no row.
func shapeBody(text string) string {
	i := strings.Index(text, "INSERT")
	for i > 0 && text[i-1] != '\n' {
		j := strings.Index(text[i+1:], "INSERT")
		if j < 0 {
			return ""
		}
		i += 1 + j
	}
	if i < 0 {
		return ""
	}
	return text[i:]
}

// memoryGraph reads the entities and relations of a Shape's body: every
// node with a nick and a kind that shows more than its identity, or that
// whole says is asked for (a name opened), is an entity (one shown by its
// name alone is a match past the seeds or the far end of a relation, and
// the original would not show it with no observations); every edge between two nodes with nicks is a relation. An
// observation written as an $elidedN parameter is left out of the list;
// elided reports the entities a long value of which is left out so.
func memoryGraph(body string, whole func(nick string) bool) (g MemoryGraph, elided []string) {
	g = MemoryGraph{Entities: []Entity{}, Relations: []Relation{}}
	nodes, edges := shapeRows(body)
	nick := map[string]string{}
	for _, n := range nodes {
		lit, ok := n.props["nick"]
		if !ok {
			continue
		}
		name, err := goldfish.ParseLiteral(lit)
		s, isString := name.(string)
		if err != nil || !isString {
			continue
		}
		nick[n.v] = s
		shown := false
		for _, k := range n.keys {
			shown = shown || !identityKeys[k]
		}
		if len(n.labels) == 0 || !shown && !whole(s) {
			continue
		}
		e := Entity{Name: s, EntityType: n.labels[0], Observations: []string{}}
		for _, lit := range n.props {
			if strings.Contains(lit, "$elided") {
				elided = append(elided, s)
				break
			}
		}
		if lit, ok := n.props["observations"]; ok {
			if v, err := goldfish.ParseLiteral(lit); err == nil {
				if list, ok := v.([]any); ok {
					for _, o := range list {
						if str, ok := o.(string); ok {
							e.Observations = append(e.Observations, str)
						}
					}
				}
			} else {
				e.Observations = knownStrings(lit)
			}
		}
		g.Entities = append(g.Entities, e)
	}
	for _, e := range edges {
		from, ok1 := nick[e[0]]
		to, ok2 := nick[e[2]]
		if ok1 && ok2 {
			g.Relations = append(g.Relations, Relation{From: from, To: to, RelationType: e[1]})
		}
	}
	return g, elided
}

// knownStrings reads the string literals of a list that holds some
// $elidedN parameters too (which ParseLiteral refuses).
func knownStrings(list string) []string {
	out := []string{}
	list = strings.TrimSpace(list)
	if !strings.HasPrefix(list, "[") {
		return out
	}
	rest := list[1:]
	for {
		rest = strings.TrimLeft(rest, " ,")
		if rest == "" || rest[0] == ']' {
			return out
		}
		end := literalEnd(strings.ReplaceAll(rest, "]", ","))
		if v, err := goldfish.ParseLiteral(rest[:end]); err == nil {
			if s, ok := v.(string); ok {
				out = append(out, s)
			}
		}
		if end == 0 {
			return out
		}
		rest = rest[end:]
	}
}

// memoryAnswer is the text of a drop-in read: the Shape's body, after a
// comment line a model can act on (what was left out and how to read
// it), or the one line of an empty answer.
func memoryAnswer(body string, notes []string, empty string) string {
	if body == "" {
		return empty
	}
	var b strings.Builder
	for _, n := range notes {
		fmt.Fprintf(&b, "// %s\n", n)
	}
	b.WriteString(strings.TrimSuffix(body, "\n"))
	return b.String()
}

// quoteNames writes names as a JSON list, the form open_nodes takes.
func quoteNames(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return "[" + strings.Join(q, ", ") + "]"
}
