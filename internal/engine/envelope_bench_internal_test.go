package engine

import (
	"context"
	"testing"

	"github.com/goldfish-gql/goldfish/vocab"
)

// BenchmarkCompose: composing one lean envelope for a known agent on a
// session of 100 views and 100 actions (what a Shape cache hit adds).
//
//	go test -run '^$' -bench Compose -benchmem .
func BenchmarkCompose(b *testing.B) {
	ctx := context.Background()
	db, _ := openTest()
	defer db.Close()
	s := benchSessionAs(b, db, "vocabulary", 1000)
	registerVocabulary(b, s, 100)
	voc, err := s.vocabularyAt(ctx, s.snapshot())
	if err != nil {
		b.Fatal(err)
	}
	rec := &agentRecord{name: "ana", seen: vocab.Seen{Reads: 3, Version: voc.version, Changed: voc.state.Changed()}}
	tick := s.attn.tick.Load() + 20
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		env := s.envelope(context.Background(), voc, tick, "ana", rec, vocab.DepthLean, vocab.AllSections, envelopeTarget{})
		_ = env.Attention
	}
}
