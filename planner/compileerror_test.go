package planner

import (
	"errors"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish/gqlstatus"
)

// TestCompileError: CEL that cel-go refuses is a CompileError holding
// every issue with its place in the CEL form, worded as cel-go's messages
// joined, with the code of an internal failure.
func TestCompileError(t *testing.T) {
	const src = "gql_nope(v0) ||\n  gql_not(p0, p1)"
	_, err := celCache.get(src)
	var ce *CompileError
	if !errors.As(err, &ce) {
		t.Fatalf("%v (%T), want a *CompileError", err, err)
	}
	e, _ := env()
	_, iss := e.Compile(src)
	var msgs []string
	for _, is := range iss.Errors() {
		msgs = append(msgs, is.Message)
	}
	if want := strings.Join(msgs, "; "); ce.Error() != want {
		t.Errorf("message %q, want %q", ce.Error(), want)
	}
	if ce.Source != src || len(ce.Issues) != len(msgs) || len(msgs) < 2 {
		t.Fatalf("%+v: want the source and %d issues", ce, len(msgs))
	}
	if first, last := ce.Issues[0], ce.Issues[len(ce.Issues)-1]; first.Line != 1 || last.Line != 2 || last.Col < 3 {
		t.Errorf("issues placed at %d:%d and %d:%d, want line 1 and line 2 from column 3", first.Line, first.Col, last.Line, last.Col)
	}
	if code := gqlstatus.CodeOf(err, ""); code != gqlstatus.Internal {
		t.Errorf("code %s, want %s", code, gqlstatus.Internal)
	}
}
