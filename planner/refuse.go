package planner

import (
	"fmt"
	"strings"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/parser/ast"
)

// GQL outside the subset is refused by name (42001) whatever else the
// statement holds: the parser names every form it recognises (Refusals),
// and firstRefusal adds what only names tell apart (functions) or what
// the subset reads but refuses in place (path variables, quantifiers).

// advice says, for each recognised feature outside the subset, what to
// write instead. A feature not listed takes the advice of its longest
// listed prefix of whole words ("SHOW INDEXES" that of "SHOW").
var advice = map[string]string{
	"RETURN":                           "Recall emits the Shape; drop RETURN",
	"OPTIONAL MATCH":                   "a Recall already walks the neighbourhood of its seeds; write MATCH",
	"OPTIONAL":                         "a Recall already walks the neighbourhood of its seeds; write the statement without OPTIONAL",
	"ORDER BY":                         "Shapes come in canonical order; drop ORDER BY",
	"SKIP":                             "seeds are the first L in canonical order; narrow the token instead of paging",
	"OFFSET":                           "seeds are the first L in canonical order; narrow the token instead of paging",
	"WITH":                             "write one linear statement: MATCH … then INSERT, SET, REMOVE or DELETE",
	"UNWIND":                           "write one INSERT per element, or store the list as a property",
	"CREATE":                           "write INSERT",
	"MERGE":                            "use Ingest: nodes with a loc property are updated instead of duplicated",
	"FILTER":                           "write WHERE",
	"UNION":                            "send the statements separately",
	"INTERSECT":                        "send the statements separately and compare their Shapes",
	"EXCEPT":                           "send the statements separately and compare their Shapes",
	"OTHERWISE":                        "send the statements separately",
	"NEXT":                             "write one linear statement (MATCH … then INSERT, SET, REMOVE or DELETE), or send the statements separately",
	"FINISH":                           "drop FINISH: a Commit returns no rows",
	"GROUP BY":                         "the outline (MATCH ()) gives counts per kind; drop GROUP BY",
	"HAVING":                           "the outline (MATCH ()) gives counts per kind; drop HAVING",
	"YIELD":                            "CALL runs an action; drop YIELD",
	"LET":                              "write the expression where it is used",
	"FOR":                              "write one INSERT per element",
	"FOREACH":                          "write one SET or INSERT statement per element",
	"LOAD CSV":                         "read the file outside goldfish and send its rows as INSERTs, or through Ingest",
	"LOAD":                             "read the file outside goldfish and send its rows as INSERTs, or through Ingest",
	"SELECT":                           "write MATCH; a Recall emits the Shape",
	"USE":                              "a session is one graph, chosen when it is opened: drop USE",
	"SESSION":                          "sessions are opened and closed by the program that embeds goldfish; pass values as $parameters of each call",
	"CREATE GRAPH":                     "a session is the graph: it is opened by name, and its first Commit creates it",
	"CREATE PROPERTY GRAPH":            "a session is the graph: it is opened by name, and its first Commit creates it",
	"CREATE GRAPH TYPE":                "sessions are schema-free: INSERT the nodes and edges as they come",
	"CREATE PROPERTY GRAPH TYPE":       "sessions are schema-free: INSERT the nodes and edges as they come",
	"CREATE SCHEMA":                    "sessions are schema-free: INSERT the nodes and edges as they come",
	"CREATE INDEX":                     "goldfish indexes nicks, labels, property values and text itself; drop the statement",
	"CREATE CONSTRAINT":                "nicks are unique within a session already; goldfish keeps no other constraints",
	"CREATE DATABASE":                  "a session is the graph: it is opened by name, and its first Commit creates it",
	"DROP":                             "goldfish has no catalog statements: sessions are opened and dropped by the program that embeds goldfish",
	"DROP INDEX":                       "goldfish keeps its indexes itself; drop the statement",
	"DROP CONSTRAINT":                  "goldfish keeps no constraints besides unique nicks; drop the statement",
	"SHOW":                             "MATCH () gives the session outline: its kinds, edge types and counts",
	"EXPLAIN":                          "drop EXPLAIN and run the statement; a Recall's Shape says what it holds",
	"PROFILE":                          "drop PROFILE and run the statement; a Recall's Shape says what it holds",
	"ALTER":                            "goldfish has no administration statements",
	"GRANT":                            "goldfish has no users or privileges; the embedding program decides who may call it",
	"REVOKE":                           "goldfish has no users or privileges; the embedding program decides who may call it",
	"DENY":                             "goldfish has no users or privileges; the embedding program decides who may call it",
	"TERMINATE":                        "a call is stopped through its context, not by a statement",
	"STOP":                             "goldfish has no administration statements",
	"START":                            "goldfish has no administration statements; a Δ starts with START TRANSACTION",
	"RENAME":                           "goldfish has no administration statements",
	"KEEP":                             "a Recall walks k hops from its seeds itself; drop KEEP",
	"GRAPH clause":                     "a session is one graph, chosen when it is opened: drop GRAPH and its name",
	"SAVEPOINT":                        "a Δ applies whole or not at all: send the part to keep as a Commit of its own",
	"RELEASE":                          "a Δ applies whole or not at all: send the part to keep as a Commit of its own",
	"ROLLBACK TO":                      "a Δ applies whole or not at all: ROLLBACK drops all of it",
	"ISOLATION LEVEL":                  "each Δ runs alone against one version of the session, so it is serializable already: drop the isolation level",
	"WHERE after CALL":                 "CALL runs an action, which returns no rows to filter: drop WHERE and what follows",
	"CALL option = value":              "goldfish has no settings statements",
	"node pattern without parentheses": "write the node pattern in parentheses: MATCH (n)",
	"path starting with an edge":       "write a node pattern at each end of the edge: ()-[e:TYPE]->()",
	"simplified path pattern -/ /->":   "write each edge as -[:TYPE]->",
	"edge COST":                        "a Recall walks k hops from its seeds itself; in a Commit, write each hop as its own edge pattern",
	"graph pattern YIELD":              "a Recall emits the Shape; drop YIELD",
	"dynamic property n[ ]":            "write the key itself: n.key; parameters carry values, not names",
	"RECORD { } constructor":           "a property holds no records: store each field as a property of its own",
	"USING":                            "goldfish plans its index use itself; drop USING",
	"AT":                               "sessions have no schemas: drop AT and its schema",
	"BETWEEN":                          "write x >= low AND x <= high",
	"NOT BETWEEN":                      "write x < low OR x > high",
	"LIKE":                             "use STARTS WITH, ENDS WITH or CONTAINS",
	"NOT LIKE":                         "use NOT with STARTS WITH, ENDS WITH or CONTAINS",

	"CALL { } subquery":             "write the subquery's statements as statements of their own",
	"CALL inside a statement":       "send CALL name(args) as a statement of its own",
	"match mode":                    "drop the match mode; a Commit's MATCH takes fixed-length patterns",
	"path search prefix":            "a Recall walks k hops from its seeds itself; in a Commit, write each hop as its own edge pattern",
	"path mode":                     "a Recall walks k hops from its seeds itself; in a Commit, write each hop as its own edge pattern",
	"shortestPath()":                "a Recall walks k hops from its seeds itself; in a Commit, write each hop as its own edge pattern",
	"allShortestPaths()":            "a Recall walks k hops from its seeds itself; in a Commit, write each hop as its own edge pattern",
	"quantified path":               "a Recall walks k hops itself; in a Commit, write each hop as its own edge pattern",
	"parenthesised path pattern":    "write the path as node patterns and edges without the parentheses: (a)-[:TYPE]->(b)",
	"path pattern union |":          "send one statement per alternative",
	"path multiset alternation |+|": "send one statement per alternative",
	"path variable":                 "name the nodes and edges you need instead",
	"undirected edge ~[ ]~":         "goldfish edges are directed: write -[:TYPE]- to match either direction",
	"undirected edge <~[ ]~":        "goldfish edges are directed: write <-[:TYPE]-",
	"undirected edge ~[ ]~>":        "goldfish edges are directed: write -[:TYPE]->",
	"WHERE inside an edge pattern":  "move the condition into the MATCH … WHERE clause",
	"properties from a parameter":   "write the map with a parameter per value: {key: $value}",
	"dynamic label":                 "write the label itself; parameters carry values, not names",
	"dynamic expression $( )":       "write the label or key itself; parameters carry values, not names",

	"aggregate":                   "the outline (MATCH ()) gives counts per kind; drop the aggregate",
	"CASE expression":             "write one statement per case, each with its own WHERE",
	"EXISTS predicate":            "MATCH the pattern in the statement itself; to test a property, write n.key IS NOT NULL",
	"COUNT { } subquery":          "the outline (MATCH ()) gives counts per kind; drop the subquery",
	"COLLECT { } subquery":        "a Recall's Shape holds the neighbourhood; drop the subquery",
	"VALUE { } subquery":          "write the value itself, or pass it as a $parameter",
	"list comprehension":          "lists are values: test them with IN or =, and build new lists outside the statement",
	"pattern comprehension":       "name the nodes in MATCH; a Recall walks to their neighbours itself",
	"pattern predicate":           "MATCH the pattern instead: MATCH (a)-[:TYPE]->(b) …",
	"map projection":              "a Recall's Shape holds whole nodes; drop the projection",
	"subscript [ ]":               "store the element as a property of its own; test a list's members with IN",
	"list slice [ .. ]":           "store the part as a property of its own; test a list's members with IN",
	"regular expression match =~": "use STARTS WITH, ENDS WITH or CONTAINS (n CONTAINS 'word' on a node matches any of its strings, ignoring case)",
	"operator ^":                  "write the power as a product with *",
	"type predicate":              "compare with a value of the type you expect, or test IS NULL",
	"IS NORMALIZED":               "goldfish compares strings as they are stored; drop the test",
	"IS NOT NORMALIZED":           "goldfish compares strings as they are stored; drop the test",
	"IS DIRECTED":                 "goldfish edges are always directed; drop the test",
	"IS NOT DIRECTED":             "goldfish edges are always directed; drop the test",
	"IS SOURCE OF":                "write the direction in the pattern: (a)-[e]->(b)",
	"IS NOT SOURCE OF":            "write the direction in the pattern: (a)-[e]->(b)",
	"IS DESTINATION OF":           "write the direction in the pattern: (a)<-[e]-(b)",
	"IS NOT DESTINATION OF":       "write the direction in the pattern: (a)<-[e]-(b)",
	"TIME literal":                "the store keeps dates and instants: write DATETIME '2026-01-31T14:05:00Z', or keep a time of day as a string",
	"LOCAL TIME literal":          "the store keeps dates and instants: write DATETIME '2026-01-31T14:05:00Z', or keep a time of day as a string",
	"ZONED TIME literal":          "the store keeps dates and instants: write DATETIME '2026-01-31T14:05:00+01:00', or keep a time of day as a string",
	"LOCAL DATETIME literal":      "a stored DATETIME keeps its offset: write DATETIME '2026-01-31T14:05:00Z' (or with the offset meant), or keep local time as a string",
	"DURATION literal":            "keep a duration as an integer number of seconds, or as its ISO 8601 text in a string",
}

// functionAdvice says what to write instead of a built-in function of GQL
// or Cypher that the subset does not have, by lower-case name. Aggregates
// are in aggregateNames.
var functionAdvice = map[string]string{}

func init() {
	for names, hint := range map[string]string{
		"id elementid element_id":         "nodes are named by their nick: MATCH (n {nick: …}); engine ids are not part of the language",
		"labels":                          "test a label with n:Label; a Recall's Shape shows each node's labels",
		"type":                            "test the type in the pattern: -[:TYPE]->",
		"properties keys property_exists": "test one property with n.key IS NOT NULL; a Recall's Shape shows every property",
		"size length char_length character_length path_length octet_length byte_length cardinality": "compare the value itself; goldfish has no length functions",
		"nodes relationships edges startnode endnode source destination":                            "name the nodes and edges in the pattern",
		"coalesce nullif": "test for null with IS NULL and IS NOT NULL",
		"tostring tointeger tofloat toboolean tostringornull tointegerornull tofloatornull tobooleanornull cast tostringlist tointegerlist tofloatlist tobooleanlist":       "write the literal in the type you mean: values keep their type",
		"upper lower toupper tolower trim ltrim rtrim btrim replace substring left right split reverse normalize":                                                           "compare with STARTS WITH, ENDS WITH or CONTAINS; n CONTAINS 'word' on a node ignores case",
		"abs ceil ceiling floor round sqrt exp log ln log10 sign rand pi e sin cos tan asin acos atan atan2 cot degrees radians haversin power mod":                         "write the arithmetic with + - * / %",
		"date datetime time localtime localdatetime duration timestamp current_date current_time current_timestamp local_time local_datetime zoned_time zoned_datetime now": "write a DATE '2026-01-31' or DATETIME '2026-01-31T14:05:00Z' literal, or pass the time as a $parameter",
		"range head last tail isempty all any none single reduce exists":                                                                                                    "lists are values: test their members with IN",
		"same all_different":            "compare the elements' nicks: a.nick = b.nick",
		"shortestpath allshortestpaths": "a Recall walks k hops from its seeds itself; in a Commit, write each hop as its own edge pattern",
		"point distance":                "goldfish has no spatial values; keep coordinates as numbers",
		"randomuuid":                    "make identifiers outside the statement and pass them as $parameters",
	} {
		for _, n := range strings.Fields(names) {
			functionAdvice[n] = hint
		}
	}
}

// libraryAdvice is the advice for a function with a dotted name.
const libraryAdvice = "goldfish has no procedure or function libraries; compute the value outside the statement and pass it as a $parameter"

// Refusal returns the message and hint for a feature outside the subset.
func Refusal(feature string) (msg, hint string) {
	return fmt.Sprintf("%s is outside the goldfish subset of GQL", feature), adviceFor(feature)
}

func adviceFor(feature string) string {
	if strings.HasPrefix(feature, "aggregate") {
		return advice["aggregate"]
	}
	if name, ok := strings.CutPrefix(feature, "function "); ok {
		name = strings.TrimSuffix(name, "()")
		if strings.Contains(name, ".") {
			return libraryAdvice
		}
		if h, ok := functionAdvice[strings.ToLower(name)]; ok {
			return h
		}
	}
	words := strings.Fields(feature)
	for n := len(words); n > 0; n-- {
		if h, ok := advice[strings.Join(words[:n], " ")]; ok {
			return h
		}
	}
	return "goldfish runs MATCH, INSERT, SET, REMOVE, DELETE, CALL and transactions"
}

func refuse(text string, pos ast.Pos, feature string) *gqlstatus.Error {
	msg, hint := Refusal(feature)
	return gqlstatus.At(gqlstatus.Syntax, pos, text, "%s", msg).WithHint(hint)
}

// firstRefusal returns the refusal of a statement that holds forms
// outside the subset, or nil: the first form the parser named, else the
// first path variable, quantifier or refused function in text order.
func firstRefusal(q *ast.Query, text string) *gqlstatus.Error {
	if len(q.Refusals) > 0 {
		r := q.Refusals[0]
		return refuse(text, r.Pos, r.Feature)
	}
	var first *ast.Refused
	note := func(pos ast.Pos, feature string) {
		if first == nil || pos.Offset < first.Pos.Offset {
			first = &ast.Refused{Pos: pos, Feature: feature}
		}
	}
	// expr walks an expression with a stack of its own: a chain of
	// operators is as deep as it is long, and no text may exhaust the
	// goroutine's stack.
	var stack []ast.Expr
	expr := func(e ast.Expr) {
		stack = append(stack[:0], e)
		for len(stack) > 0 {
			e := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			switch x := e.(type) {
			case *ast.FuncCall:
				if f := refusedFunction(x); f != "" {
					note(x.Pos, f)
				}
				stack = append(stack, x.Args...)
			case *ast.PropAccess:
				stack = append(stack, x.Subject)
			case *ast.Unary:
				stack = append(stack, x.X)
			case *ast.Binary:
				stack = append(stack, x.L, x.R)
			case *ast.IsNull:
				stack = append(stack, x.X)
			case *ast.TruthTest:
				stack = append(stack, x.X)
			case *ast.LabelTest:
				stack = append(stack, x.X)
			case *ast.ListLit:
				stack = append(stack, x.Elems...)
			case *ast.MapLit:
				for _, pe := range x.Entries {
					stack = append(stack, pe.Value)
				}
			}
		}
	}
	props := func(ps []*ast.PropEntry) {
		for _, pe := range ps {
			expr(pe.Value)
		}
	}
	paths := func(pps []*ast.PathPattern) {
		for _, pp := range pps {
			if pp.Var != "" {
				note(pp.Pos, "path variable")
			}
			for _, n := range pp.Nodes {
				props(n.Props)
				if n.Where != nil {
					expr(n.Where)
				}
			}
			for _, e := range pp.Edges {
				if e.Quant != nil {
					note(e.Quant.Pos, "quantified path")
				}
				props(e.Props)
			}
		}
	}
	for _, c := range q.Clauses {
		switch x := c.(type) {
		case *ast.Match:
			if x.Optional {
				note(x.Pos, "OPTIONAL MATCH")
			}
			paths(x.Patterns)
			if x.Where != nil {
				expr(x.Where)
			}
		case *ast.Insert:
			paths(x.Patterns)
		case *ast.Limit:
			expr(x.Count)
		case *ast.Set:
			for _, it := range x.Items {
				switch s := it.(type) {
				case *ast.SetProp:
					expr(s.Value)
				case *ast.SetAllProps:
					if s.Map != nil {
						props(s.Map.Entries)
					}
				}
			}
		case *ast.Delete:
			for _, e := range x.Exprs {
				expr(e)
			}
		}
	}
	if first == nil {
		return nil
	}
	return refuse(text, first.Pos, first.Feature)
}

// refusedFunction names a call of a function outside the subset: an
// aggregate, a built-in of GQL or Cypher, or a library function (a dotted
// name). It returns "" for a name it does not know, which the planner
// reports as an unknown function.
func refusedFunction(f *ast.FuncCall) string {
	lower := strings.ToLower(f.Name)
	switch {
	case aggregateNames[lower]:
		return "aggregate " + strings.ToUpper(f.Name) + "()"
	case strings.Contains(f.Name, "."):
		return "function " + f.Name + "()"
	}
	if _, ok := functionAdvice[lower]; ok {
		return "function " + f.Name + "()"
	}
	return ""
}
