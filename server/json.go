package server

import (
	"strings"

	"github.com/goldfish-gql/goldfish"
)

// summary renders a Commit as the shell's one line ("ok v=3 +2 nodes
// +1 edge 3 properties set"), followed by its notices as comment lines:
// what a model reads of a Commit over MCP.
func summary(res *goldfish.CommitResult) string {
	var b strings.Builder
	b.WriteString(res.Summary())
	for _, st := range res.Stmts {
		for _, n := range st.Notices {
			b.WriteString("\n-- " + n.String())
		}
	}
	return b.String()
}
