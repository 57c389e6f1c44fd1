package goldfish

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"
)

// BenchmarkCallVsCommit: a CALL of a one-statement action against the
// same statement sent as a raw Commit, alternated in one run on an
// in-memory session (the cost of binding the arguments, evaluating the
// precondition and counting the invocation). It reports each one's p50
// and their ratio (target ≤ 1.2).
//
//	go test -run '^$' -bench CallVsCommit -benchtime 20000x .
func BenchmarkCallVsCommit(b *testing.B) {
	ctx := context.Background()
	db, _ := Open()
	defer db.Close()
	s, _ := db.Session(ctx, "bench")
	for i := range 200 {
		if _, err := s.Commit(ctx, `INSERT (:TSK {nick: $n, status: "open", n: 0})`, map[string]any{"n": fmt.Sprint("t", i)}); err != nil {
			b.Fatal(err)
		}
	}
	const raw = `MATCH (t:TSK {nick: $nick}) SET t.n = $n`
	if _, err := s.Commit(ctx, `CREATE ACTION bump(nick STRING, n INTEGER) INTENT 'count a task up'
		IF 'count("TSK") > 0' { MATCH (t:TSK {nick: $nick}) SET t.n = $n }`, nil); err != nil {
		b.Fatal(err)
	}
	const call = `CALL bump($nick, $n)`
	var rawLat, callLat []time.Duration
	b.ResetTimer()
	for i := range b.N {
		p := map[string]any{"nick": fmt.Sprint("t", i%200), "n": i + 1}
		text, lat := raw, &rawLat
		if i%2 == 1 {
			text, lat = call, &callLat
		}
		t0 := time.Now()
		if _, err := s.Commit(ctx, text, p); err != nil {
			b.Fatal(err)
		}
		*lat = append(*lat, time.Since(t0))
	}
	b.StopTimer()
	r, c := p50(rawLat), p50(callLat)
	b.ReportMetric(float64(r.Nanoseconds()), "raw-p50-ns")
	b.ReportMetric(float64(c.Nanoseconds()), "call-p50-ns")
	if r > 0 {
		b.ReportMetric(float64(c)/float64(r), "ratio")
	}
}

// BenchmarkRecallVocabulary: a Recall (cache off) on a session with 50
// views and 50 actions against the same Recall on the same graph without
// vocabulary, alternated in one run; the view values are evaluated once
// per version and cached, so what remains is showing them. It reports
// each p50 and their ratio (target ≤ 1.3).
//
//	go test -run '^$' -bench RecallVocabulary -benchtime 20000x .
func BenchmarkRecallVocabulary(b *testing.B) {
	ctx := context.Background()
	db, _ := Open(WithShapeCacheBytes(0))
	defer db.Close()
	plain := benchSession(b, db, 1000)
	voc := benchSession(b, db, 1001)
	for i := range 50 {
		if _, err := voc.Commit(ctx, fmt.Sprintf(`CREATE VIEW v%02d INTENT 'view %d' AS 'size(nodes("TSK").filter(t, t.weight > %d))'`, i, i, i), nil); err != nil {
			b.Fatal(err)
		}
		if _, err := voc.Commit(ctx, fmt.Sprintf(`CREATE ACTION a%02d(nick STRING, w INTEGER = %d) INTENT 'action %d'
			{ MATCH (t:TSK {nick: $nick}) SET t.weight = $w }`, i, i, i), nil); err != nil {
			b.Fatal(err)
		}
	}
	q := `MATCH (t:TSK {nick: $nick})`
	opts := func(i int) RecallOptions {
		return RecallOptions{Params: map[string]any{"nick": fmt.Sprint("TSK_", (i%200)*5)}}
	}
	if _, err := voc.Recall(ctx, q, opts(0)); err != nil { // evaluates the views once
		b.Fatal(err)
	}
	var plainLat, vocLat []time.Duration
	b.ResetTimer()
	for i := range b.N {
		s, lat := plain, &plainLat
		if i%2 == 1 {
			s, lat = voc, &vocLat
		}
		t0 := time.Now()
		if _, err := s.Recall(ctx, q, opts(i/2)); err != nil {
			b.Fatal(err)
		}
		*lat = append(*lat, time.Since(t0))
	}
	b.StopTimer()
	pl, vl := p50(plainLat), p50(vocLat)
	b.ReportMetric(float64(pl.Nanoseconds()), "plain-p50-ns")
	b.ReportMetric(float64(vl.Nanoseconds()), "vocab-p50-ns")
	if pl > 0 {
		b.ReportMetric(float64(vl)/float64(pl), "ratio")
	}
}

func p50(lat []time.Duration) time.Duration {
	if len(lat) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), lat...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}
