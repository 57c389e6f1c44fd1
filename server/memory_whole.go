package server

import (
	"context"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/goldfish-gql/goldfish/tokens"
	"github.com/goldfish-gql/goldfish/values"
)

// read_graph answers a small memory whole, as the original answers any:
// every entity with its observations and every relation, when their text
// fits the token target. Past it the answer is the outline, which says
// how to read the rest.

const (
	// wholeTokens is the token target of read_graph's whole answer (the
	// Recall default T).
	wholeTokens = 4000
	// wholeElements is the most entities and relations a memory may have
	// for read_graph to try it whole: past it the text could not fit
	// wholeTokens, and the memory is not read to find out.
	wholeElements = 600
)

// wholeMemory is the memory session whole (its text and its graph), or
// ok false when it is empty, too large to try, or over wholeTokens.
func (s *Server) wholeMemory(ctx context.Context, sc *Scope) (res *mcp.CallToolResult, g MemoryGraph, ok bool, err error) {
	nodes, edges := s.memorySize()
	if nodes == 0 || nodes+edges > wholeElements {
		return nil, g, false, nil
	}
	sess, _, err := s.sessionAs(ctx, sc, s.opts.MemorySession, "read", "")
	if err != nil {
		return nil, g, false, err
	}
	graph, err := sess.Graph(ctx)
	if err != nil {
		return nil, g, false, s.callError(ctx, err)
	}
	g = MemoryGraph{Entities: []Entity{}, Relations: []Relation{}}
	rows := make([]values.ShapeNode, len(graph.Nodes))
	nicks := make([]string, len(graph.Nodes))
	hasNick := make([]bool, len(graph.Nodes)) // a nick may be "", as a name may
	for i, n := range graph.Nodes {
		props := make(map[string]values.Value, len(n.Props))
		for k, v := range n.Props {
			props[k] = goValue(v)
		}
		rows[i] = values.ShapeNode{Var: fmt.Sprintf("e%d", i+1), Labels: n.Labels, Props: values.MakeProps(props), Seed: true}
		nick, isString := n.Props["nick"].(string)
		if !isString {
			continue
		}
		nicks[i], hasNick[i] = nick, true
		e := Entity{Name: nick, EntityType: kindOf(n.Labels), Observations: []string{}}
		if list, isList := n.Props["observations"].([]any); isList {
			for _, o := range list {
				if str, isStr := o.(string); isStr {
					e.Observations = append(e.Observations, str)
				}
			}
		}
		g.Entities = append(g.Entities, e)
	}
	edgeRows := make([]values.ShapeEdge, len(graph.Edges))
	for i, e := range graph.Edges {
		props := make(map[string]values.Value, len(e.Props))
		for k, v := range e.Props {
			props[k] = goValue(v)
		}
		edgeRows[i] = values.ShapeEdge{Type: e.Type, From: e.From, To: e.To, Props: values.MakeProps(props)}
		if hasNick[e.From] && hasNick[e.To] {
			g.Relations = append(g.Relations, Relation{From: nicks[e.From], To: nicks[e.To], RelationType: e.Type})
		}
	}
	var sh values.Shape
	sh.SetRows(rows, edgeRows)
	text := sh.AppendInsert(nil)
	if tokens.EstimateBytes(text) > wholeTokens {
		return nil, MemoryGraph{}, false, nil
	}
	return textResult(string(text[:len(text)-1])), g, true, nil
}

// kindOf is a node's kind: its first label, "" for none.
func kindOf(labels []string) string {
	if len(labels) == 0 {
		return ""
	}
	return labels[0]
}

// goValue is the value a Graph's Go value (values.Value.Go) stands for.
func goValue(v any) values.Value {
	switch x := v.(type) {
	case bool:
		return values.Bool(x)
	case int64:
		return values.Int(x)
	case float64:
		return values.Float(x)
	case string:
		return values.String(x)
	case values.Date:
		return values.DateValue(x.String())
	case time.Time:
		return values.DateTimeValue(x.Format(time.RFC3339Nano))
	case []any:
		l := make([]values.Value, len(x))
		for i, e := range x {
			l[i] = goValue(e)
		}
		return values.List(l...)
	}
	return values.Value{}
}
