package server_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/server"
)

// BenchmarkMemoryRead calls the memory tools' reads through the Go SDK's
// client on in-memory transports, on a memory of 50 entities (three
// observations each) and 49 relations: read_graph (the outline, every
// entity of the memory), open_nodes of one name and search_nodes of a
// word. The Shape cache answers the Recall after the first call, so what
// is measured is the tool's own work: rendering the Shape for the model
// and as {entities, relations}, and the MCP round trip. The MCP round
// trip alone (the sessions tool) is reported beside it.
//
//	go test -run '^$' -bench BenchmarkMemoryRead -count 6 ./server/
func BenchmarkMemoryRead(b *testing.B) {
	ctx := context.Background()
	db, err := goldfish.Open()
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	srv, err := server.New(db, server.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	var entities, relations []any
	for i := range 50 {
		entities = append(entities, map[string]any{"name": fmt.Sprintf("person_%d", i), "entityType": []string{"person", "project", "place"}[i%3],
			"observations": []any{fmt.Sprintf("joined in %d", 2000+i), fmt.Sprintf("likes item %d", i*7), "writes Go"}})
		if i > 0 {
			relations = append(relations, map[string]any{"from": fmt.Sprintf("person_%d", i), "to": fmt.Sprintf("person_%d", i-1), "relationType": "knows"})
		}
	}
	call := func(name string, args map[string]any) {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil || res.IsError {
			b.Fatalf("%s: %v %v", name, err, res)
		}
	}
	call("create_entities", map[string]any{"entities": entities})
	call("create_relations", map[string]any{"relations": relations})
	for _, c := range []struct {
		name, tool string
		args       map[string]any
	}{
		{"read_graph", "read_graph", map[string]any{}},
		{"open_nodes", "open_nodes", map[string]any{"names": []any{"person_7"}}},
		{"search_nodes", "search_nodes", map[string]any{"query": "item 21"}},
		{"round_trip", "sessions", map[string]any{}},
	} {
		b.Run(c.name, func(b *testing.B) {
			call(c.tool, c.args)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				call(c.tool, c.args)
			}
		})
	}
}
