package parser

import (
	"strings"
	"testing"
)

const (
	benchSet    = `MATCH (t:TSK {nick: "TSK_login"}) SET t.status = "done", t:Settled REMOVE t.draft`
	benchInsert = `INSERT (:TSK {nick: "TSK_login", title: "Fix login redirect", status: "open", prio: 2, tags: ["auth", "web"]})`
	benchRecall = `MATCH (t:TSK {status: "open"}), (n:NOTE) WHERE n CONTAINS "cookie" AND t.prio >= $p LIMIT 4`
)

func benchParse(b *testing.B, text string, pooled bool) {
	b.Helper()
	if _, err := parse(text, DefaultLimits, pooled); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := parse(text, DefaultLimits, pooled); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseWarm: pooled lexer/parser, warm DFA cache (the common case).
func BenchmarkParseWarm(b *testing.B) { benchParse(b, benchSet, true) }

// BenchmarkParseCold: a new lexer and parser for every parse (no pool).
func BenchmarkParseCold(b *testing.B) { benchParse(b, benchSet, false) }

// BenchmarkParseInsert: a typical INSERT, pooled.
func BenchmarkParseInsert(b *testing.B) { benchParse(b, benchInsert, true) }

// BenchmarkParseRecall: a typical Recall MATCH … WHERE … LIMIT, pooled.
func BenchmarkParseRecall(b *testing.B) { benchParse(b, benchRecall, true) }

// BenchmarkParseParallel: pooled parsing from all cores.
func BenchmarkParseParallel(b *testing.B) {
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := Parse(benchSet); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkParseLabelOr: a long WHERE of label alternatives, x:A|B. The
// '|' is decided by one token, so the time grows with the length of the
// text, not with its square (which it would if any expression could be
// followed by '|').
func BenchmarkParseLabelOr(b *testing.B) {
	benchParse(b, "MATCH (n) WHERE n.x = 1"+strings.Repeat(" OR n:A|B", 2000)+" SET n.y = 1", true)
}
