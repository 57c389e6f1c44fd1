package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/wire"
)

// Each tool has two input schemas. The one tools/list shows is strict:
// one JSON type per property, every object closed (additionalProperties:
// false) with every property listed and required, which is what the
// strict function-calling modes of the common model APIs take; a strict
// client then sends every property, the optional ones empty ("", 0, [],
// false), and empty means the default (but for k, whose 0 walks no hop:
// see strictSchema). The one a call is validated
// against is the lenient one: an optional property may be left out, and
// params may be the HTTP API's object of names and values. The memory
// tools' strict schemas are the original server's with every object
// closed; their lenient ones are the original's exactly.

// access is who may call a tool, and so who sees it in tools/list.
type access int

const (
	anyReader    access = iota // recall, sessions: every token
	anyWriter                  // commit: a token that may write some session
	memoryReader               // read_graph, search_nodes, open_nodes
	memoryWriter               // the memory tools that change the memory session
)

// shownTool is what tools/list shows of a tool: who sees it, and its
// strict input schema; and the lenient one its calls are validated
// against (argumentCheck reads it).
type shownTool struct {
	access  access
	schema  *jsonschema.Schema
	lenient *jsonschema.Schema
}

// mayCall reports whether the scope may call a tool of the access given.
func (s *Server) mayCall(sc *Scope, a access) bool {
	switch a {
	case anyWriter:
		return sc.all || len(sc.Write) > 0
	case memoryReader:
		return sc.CanRead(s.opts.MemorySession)
	case memoryWriter:
		return sc.CanWrite(s.opts.MemorySession)
	}
	return true
}

// addTool adds a tool whose calls are validated against lenient and
// which tools/list shows with strict.
func addTool[In, Out any](srv *mcp.Server, shown map[string]shownTool, a access, t *mcp.Tool, lenient, strict *jsonschema.Schema, h mcp.ToolHandlerFor[In, Out]) {
	t.InputSchema = lenient
	mcp.AddTool(srv, t, h)
	shown[t.Name] = shownTool{access: a, schema: strict, lenient: lenient}
}

// listFilter is the middleware that answers tools/list with the tools the
// caller may call, each with its strict schema, and resources/list with
// the help topics and the sessions it may read. A tool it hides still
// answers a call with the refusal it always gave.
func (s *Server) listFilter(shown map[string]shownTool) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if rl, ok := res.(*mcp.ListResourcesResult); ok && err == nil && method == "resources/list" {
				// The sessions the caller may read, not a fixed list,
				// after the help topics, which every caller may read.
				out := *rl
				out.Resources, out.NextCursor = []*mcp.Resource{}, ""
				if scope, err := s.scopeOf(req.GetExtra()); err == nil {
					out.Resources = append(helpResources(), s.sessionResources(scope)...)
				}
				if s.opts.Tokens != nil {
					out.CacheScope = "private"
				}
				return &out, nil
			}
			lr, ok := res.(*mcp.ListToolsResult)
			if err != nil || method != "tools/list" || !ok {
				return res, err
			}
			scope, err := s.scopeOf(req.GetExtra())
			out := *lr
			out.Tools = []*mcp.Tool{}
			if err != nil {
				return &out, nil
			}
			for _, t := range lr.Tools {
				st, ok := shown[t.Name]
				if !ok {
					out.Tools = append(out.Tools, t)
					continue
				}
				if !s.mayCall(scope, st.access) {
					continue
				}
				c := *t
				c.InputSchema = st.schema
				out.Tools = append(out.Tools, &c)
			}
			if s.opts.Tokens != nil {
				// The list depends on the token.
				out.CacheScope = "private"
			}
			return &out, nil
		}
	}
}

// schemaFor is the schema of T, with the schemas given for some types.
func schemaFor[T any](types map[reflect.Type]*jsonschema.Schema) *jsonschema.Schema {
	sc, err := jsonschema.For[T](&jsonschema.ForOptions{TypeSchemas: types})
	if err != nil {
		panic("server: the schema of a tool: " + err.Error()) // the types are ours: a bug
	}
	return sc
}

var (
	stringType = &jsonschema.Schema{Type: "string"}
	// lenientTypes take what the HTTP API takes: params as an object or
	// a list, a list of sections or one string of them.
	lenientTypes = map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[ToolParams]():    {Types: []string{"object", "array", "null"}},
		reflect.TypeFor[wire.Sections](): {Types: []string{"array", "string", "null"}, Items: stringType},
	}
	// strictTypes are the forms a strict schema can state.
	strictTypes = map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[ToolParams](): {Type: "array", Items: &jsonschema.Schema{Type: "object",
			Properties: map[string]*jsonschema.Schema{
				"name": {Type: "string", Description: "the parameter's name, without the $"},
				"value": {Type: "string", Description: `the value as JSON: "text" in double quotes, 3, 2.5, true, [1, "x"], null ` +
					`(text that is not JSON is taken as a string)`},
			},
			PropertyOrder: []string{"name", "value"}}},
		reflect.TypeFor[wire.Sections](): {Type: "array", Items: stringType},
	}
)

// strictSchema is a copy of sc in the strict form: a nullable type made
// the type itself, every object closed, its properties all required (in
// their order), and every integer (the tools' integers are the Recall's
// budgets) at least 0. A strict client sends every budget: 0 takes the
// default, except k, whose 0 walks no hop (the seeds alone): it sends 2
// for the default walk.
func strictSchema(sc *jsonschema.Schema) *jsonschema.Schema {
	sc = sc.CloneSchemas()
	var walk func(*jsonschema.Schema)
	walk = func(s *jsonschema.Schema) {
		if s == nil {
			return
		}
		if len(s.Types) == 2 && s.Types[0] == "null" {
			s.Type, s.Types = s.Types[1], nil
		}
		if s.Types != nil {
			panic(fmt.Sprintf("server: a strict schema with the types %v", s.Types)) // ours: a bug
		}
		if s.Type == "integer" && s.Minimum == nil {
			s.Minimum = ptr(0.0)
		}
		if s.Type == "object" {
			if s.Properties == nil {
				s.Properties = map[string]*jsonschema.Schema{}
			}
			s.AdditionalProperties = &jsonschema.Schema{Not: &jsonschema.Schema{}} // false
			var required []string
			for _, name := range s.PropertyOrder {
				if _, ok := s.Properties[name]; ok && !slices.Contains(required, name) {
					required = append(required, name)
				}
			}
			var rest []string
			for name := range s.Properties {
				if !slices.Contains(required, name) {
					rest = append(rest, name)
				}
			}
			slices.Sort(rest)
			s.Required = append(required, rest...)
		}
		for _, p := range s.Properties {
			walk(p)
		}
		walk(s.Items)
	}
	walk(sc)
	return sc
}

// ToolParams are the values of a text's $parameters in the recall and
// commit tools: a list of {name, value}, each value a JSON text (the form
// a strict schema can state), or as over HTTP an object of names and
// values. Integers and floats stay apart either way.
type ToolParams wire.Params

// toolParam is one parameter of the list form. Its value is a string
// holding JSON, as the strict schema says; a client that sends the JSON
// value itself is understood too.
type toolParam struct {
	Name  string          `json:"name"`
	Value json.RawMessage `json:"value"`
}

// UnmarshalJSON takes [{"name": "n", "value": "3"}] or {"n": 3}.
func (p *ToolParams) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if bytes.Equal(b, []byte("null")) {
		return nil
	}
	if len(b) == 0 || b[0] != '[' {
		var m wire.Params
		if err := m.UnmarshalJSON(b); err != nil {
			return err
		}
		*p = ToolParams(m)
		return nil
	}
	var list []toolParam
	if err := json.Unmarshal(b, &list); err != nil {
		return fmt.Errorf(`params is a list of {"name", "value"} objects`)
	}
	out := make(ToolParams, len(list))
	for _, tp := range list {
		name := strings.TrimPrefix(tp.Name, "$")
		if _, dup := out[name]; dup {
			return gqlstatus.Errorf(gqlstatus.InvalidOption, "params names $%s twice", name).
				WithHint("give each parameter once")
		}
		v, err := paramOf(tp.Value)
		if err != nil {
			return err
		}
		out[name] = v
	}
	*p = out
	return nil
}

// paramOf reads one value of the list form: a string holding a JSON text
// (or else the string itself), or a JSON value.
func paramOf(raw json.RawMessage) (any, error) {
	var text string
	if err := json.Unmarshal(raw, &text); err == nil {
		raw = json.RawMessage(text)
		if !json.Valid(raw) {
			return text, nil
		}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		return nil, fmt.Errorf("a value in params is not JSON: %v", err)
	}
	return wire.ParamValue(x)
}

func (p ToolParams) values() wire.Params { return wire.Params(p) }
