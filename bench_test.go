package goldfish_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish"
)

// BenchmarkCommitSingleNode measures one Δ inserting one node, through the
// plan cache (the text is the same; the values come as parameters).
func BenchmarkCommitSingleNode(b *testing.B) {
	db, _ := goldfish.Open()
	s, _ := db.Session(context.Background(), "bench")
	ctx := context.Background()
	params := map[string]any{"i": 0}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		params["i"] = i
		if _, err := s.Commit(ctx, `INSERT (:NOTE {seq: $i, text: "a note"})`, params); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCommit100Elements measures one Δ of 100 elements: 50 nodes and
// 50 edges joining them into a chain.
func BenchmarkCommit100Elements(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("INSERT ")
	for i := 0; i < 50; i++ {
		if i > 0 {
			sb.WriteString(", ")
		}
		fmt.Fprintf(&sb, "(n%d:MOD {loc: $p + \"/f%d.go\", lines: %d})", i, i, i*10)
	}
	for i := 1; i < 50; i++ {
		fmt.Fprintf(&sb, ", (n%d)-[:imports]->(n%d)", i-1, i)
	}
	sb.WriteString(", (n49)-[:imports]->(n0)")
	text := sb.String()
	db, _ := goldfish.Open()
	s, _ := db.Session(context.Background(), "bench")
	ctx := context.Background()
	params := map[string]any{"p": ""}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		params["p"] = fmt.Sprintf("pkg%d", i)
		if _, err := s.Commit(ctx, text, params); err != nil {
			b.Fatal(err)
		}
	}
}
