package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/wire"
)

// A tool call's arguments are read as strictly as a /v1 body, as far as
// the SDK lets the server see them. The SDK validates them against the
// tool's (lenient) input schema, which refuses a property the tool does
// not take (but for the memory tools, whose originals drop one) and a
// null where a value is required; its decoder matches names by case.
// What it would take and change is refused before the tool runs: a key
// given twice (the SDK keeps the last; /mcp and standard input refuse it
// in the whole message already, checkMessage), and a name that differs
// from one of the schema's only by case, which the memory tools would
// otherwise drop in silence ("Name" beside "name") and the others refuse
// as unknown without saying what was meant. The SDK's own refusals of a
// call that does not fit the schema are given a GQLSTATUS (22Q06), as
// every refusal a caller can cause has.

// argumentCheck is the middleware that checks the arguments of a
// tools/call against the schema its tool validates them with.
func (s *Server) argumentCheck(shown map[string]shownTool) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			call, ok := req.(*mcp.CallToolRequest)
			if method != "tools/call" || !ok || call.Params == nil {
				return next(ctx, method, req)
			}
			name := call.Params.Name
			st, known := shown[name]
			if !known { // the SDK refuses it
				return next(ctx, method, req)
			}
			if len(call.Params.Arguments) > 0 {
				if ge := checkArguments(name, call.Params.Arguments, st.lenient); ge != nil {
					s.metrics.tool(name, true)
					return toolRefusal(ge), nil
				}
			}
			res, err := next(ctx, method, req)
			if r, ok := res.(*mcp.CallToolResult); ok && err == nil && r.IsError && len(r.Content) == 1 {
				if tc, ok := r.Content[0].(*mcp.TextContent); ok {
					if why, ok := strings.CutPrefix(tc.Text, `validating "arguments": `); ok {
						s.metrics.tool(name, true)
						return toolRefusal(gqlstatus.Errorf(gqlstatus.InvalidOption, "the arguments of %s do not fit its input schema: %s", name, why).
							WithHint("send the arguments its input schema in tools/list names, each of its type")), nil
					}
				}
			}
			return res, err
		}
	}
}

// toolRefusal is a tool's answer that refuses the call, as a tool's own
// refusal reads (toolError).
func toolRefusal(ge *gqlstatus.Error) *mcp.CallToolResult {
	var res mcp.CallToolResult
	res.SetError(toolError{ge})
	return &res
}

// checkArguments refuses a key given twice in the arguments of tool, and
// a key that is no property of its object in sc but one in another case.
func checkArguments(tool string, args json.RawMessage, sc *jsonschema.Schema) *gqlstatus.Error {
	if err := wire.DuplicateKeys("arguments", args); err != nil {
		return statusOf(err)
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil // the SDK says what is wrong with it
	}
	return caseVariant(tool, "", v, sc)
}

// caseVariant walks v with its schema sc and refuses the first key of an
// object that sc does not name but names in another case.
func caseVariant(tool, path string, v any, sc *jsonschema.Schema) *gqlstatus.Error {
	if sc == nil {
		return nil
	}
	switch x := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			at := strings.TrimPrefix(path+"."+k, ".")
			p, ok := sc.Properties[k]
			if !ok {
				for name := range sc.Properties {
					if strings.EqualFold(name, k) {
						return gqlstatus.Errorf(gqlstatus.InvalidOption, "the argument %q of %s is spelled %q: argument names are case-sensitive", at, tool, name).
							WithHint(fmt.Sprintf("write %q", name))
					}
				}
				continue
			}
			if ge := caseVariant(tool, at, x[k], p); ge != nil {
				return ge
			}
		}
	case []any:
		for i, e := range x {
			if ge := caseVariant(tool, fmt.Sprintf("%s[%d]", path, i), e, sc.Items); ge != nil {
				return ge
			}
		}
	}
	return nil
}
