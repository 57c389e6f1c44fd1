package exec

import (
	"fmt"
	"testing"

	"github.com/goldfish-gql/goldfish/store"
)

// BenchmarkRenderNodeCold renders the nodes of a 200k-node graph in a
// scattered order, so each render meets the node's record, properties and
// strings cold (what a Recall's first touch of an element pays):
//
//	go test -run '^$' -bench RenderNodeCold -benchtime 200000x ./exec
func BenchmarkRenderNodeCold(b *testing.B) {
	g := store.New()
	tx := g.Begin()
	var nodes []*store.Node
	for i := range 200_000 {
		n, err := tx.InsertNode(tx.NewID(), []string{"TSK"}, store.MakeProps(map[string]store.Value{
			"nick":   store.String(fmt.Sprintf("TSK_%d", i)),
			"title":  store.String(fmt.Sprintf("element %d of the bench session", i)),
			"weight": store.Int(int64(i % 97)),
		}))
		if err != nil {
			b.Fatal(err)
		}
		nodes = append(nodes, n)
	}
	tx.Commit()
	var buf []byte
	for i := 0; b.Loop(); i++ {
		// 7919 is prime: consecutive renders land far apart.
		buf = appendNodeText(buf[:0], nodes[(i*7919)%len(nodes)], false)
		_ = newRendering(buf)
	}
}
