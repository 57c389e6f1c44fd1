package engine

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/goldfish-gql/goldfish/values"
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
	db, _ := openTest()
	defer db.Close()
	s, _ := db.Session(ctx, "bench")
	for i := range 200 {
		if _, err := s.commitText(ctx, `INSERT (:TSK {nick: $n, status: "open", n: 0})`, map[string]any{"n": fmt.Sprint("t", i)}); err != nil {
			b.Fatal(err)
		}
	}
	const raw = `MATCH (t:TSK {nick: $nick}) SET t.n = $n`
	if _, err := s.commitText(ctx, `CREATE ACTION bump(nick STRING, n INTEGER) INTENT 'count a task up'
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
		if _, err := s.commitText(ctx, text, p); err != nil {
			b.Fatal(err)
		}
		*lat = append(*lat, time.Since(t0))
	}
	b.StopTimer()
	reportPair(b, "raw", rawLat, "call", callLat)
}

// reportPair reports the p50 of a baseline's and a candidate's latencies,
// measured alternately in one run, and their ratio.
func reportPair(b *testing.B, base string, baseLat []time.Duration, cand string, candLat []time.Duration) {
	bl, cl := p50(baseLat), p50(candLat)
	b.ReportMetric(float64(bl.Nanoseconds()), base+"-p50-ns")
	b.ReportMetric(float64(cl.Nanoseconds()), cand+"-p50-ns")
	if bl > 0 {
		b.ReportMetric(float64(cl)/float64(bl), "ratio")
	}
}

// registerVocabulary registers n views and n actions on s: view i counts
// the tasks heavier than i, action i sets a task's weight.
func registerVocabulary(b testing.TB, s *Session, n int) {
	ctx := context.Background()
	for i := range n {
		if _, err := s.commitText(ctx, fmt.Sprintf(`CREATE VIEW v%03d INTENT 'how many tasks weigh over %d' AS 'size(nodes("TSK").filter(t, t.weight > %d))'`, i, i, i), nil); err != nil {
			b.Fatal(err)
		}
		if _, err := s.commitText(ctx, fmt.Sprintf(`CREATE ACTION a%03d(nick STRING, w INTEGER = %d) INTENT '%s'
			{ MATCH (t:TSK {nick: $nick}) SET t.weight = $w }`, i, i, benchIntent(i)), nil); err != nil {
			b.Fatal(err)
		}
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
	db, _ := openTest(WithShapeCacheBytes(0))
	defer db.Close()
	plain := benchSessionAs(b, db, "plain", 1000)
	voc := benchSessionAs(b, db, "vocabulary", 1000)
	for i := range 50 {
		if _, err := voc.commitText(ctx, fmt.Sprintf(`CREATE VIEW v%02d INTENT 'view %d' AS 'size(nodes("TSK").filter(t, t.weight > %d))'`, i, i, i), nil); err != nil {
			b.Fatal(err)
		}
		if _, err := voc.commitText(ctx, fmt.Sprintf(`CREATE ACTION a%02d(nick STRING, w INTEGER = %d) INTENT 'action %d'
			{ MATCH (t:TSK {nick: $nick}) SET t.weight = $w }`, i, i, i), nil); err != nil {
			b.Fatal(err)
		}
	}
	q := `MATCH (t:TSK {nick: $nick})`
	opts := func(i int) values.RecallOptions {
		return values.RecallOptions{Params: map[string]any{"nick": fmt.Sprint("TSK_", (i%200)*5)}}
	}
	if _, err := voc.recallShape(ctx, q, opts(0)); err != nil { // evaluates the views once
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
		if _, err := s.recallShape(ctx, q, opts(i/2)); err != nil {
			b.Fatal(err)
		}
		*lat = append(*lat, time.Since(t0))
	}
	b.StopTimer()
	reportPair(b, "plain", plainLat, "vocab", vocLat)
}

func p50(lat []time.Duration) time.Duration {
	if len(lat) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), lat...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

// BenchmarkRecallEnvelope: the attention envelope's cost per Recall on a
// session with 100 views and 100 actions read by 10 agents in turn,
// against the same Recall on the same graph with no vocabulary and no
// agent, alternated in one run. The view values are evaluated once per
// version and cached; some actions are invoked between the reads, so
// since_your_last_read has work to do. Both sides run with the Shape
// cache off (cache=miss) and on (cache=hit): on a hit the envelope is
// all the work left. It reports each p50 and their ratio (target ≤ 1.5).
//
//	go test -run '^$' -bench RecallEnvelope -benchtime 20000x .
func BenchmarkRecallEnvelope(b *testing.B) {
	for _, cache := range []string{"miss", "hit"} {
		b.Run("cache="+cache, func(b *testing.B) {
			ctx := context.Background()
			opt := WithShapeCacheBytes(0)
			if cache == "hit" {
				opt = WithShapeCacheBytes(64 << 20)
			}
			db, _ := openTest(opt)
			defer db.Close()
			plain := benchSessionAs(b, db, "plain", 1000)
			voc := benchSessionAs(b, db, "vocabulary", 1000)
			registerVocabulary(b, voc, 100)
			agents := make([]string, 10)
			for i := range agents {
				agents[i] = fmt.Sprint("agent", i)
			}
			q := `MATCH (t:TSK {nick: $nick})`
			opts := func(i int) values.RecallOptions {
				return values.RecallOptions{Params: map[string]any{"nick": fmt.Sprint("TSK_", (i%20)*5)}}
			}
			for _, a := range agents { // first reads (depth=full once) out of the way
				o := opts(0)
				o.Agent = a
				if _, err := voc.recallShape(ctx, q, o); err != nil {
					b.Fatal(err)
				}
			}
			var plainLat, vocLat []time.Duration
			b.ResetTimer()
			for i := range b.N {
				if i%2000 == 1999 {
					b.StopTimer()
					if _, err := voc.commitText(ctx, fmt.Sprintf(`CALL a%03d('TSK_%d')`, (i/2000)%100, (i/2000)%20*5), nil); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
				}
				s, lat, o := plain, &plainLat, opts(i/2)
				if i%2 == 1 {
					s, lat = voc, &vocLat
					o.Agent = agents[(i/2)%len(agents)]
				}
				t0 := time.Now()
				if _, err := s.recallShape(ctx, q, o); err != nil {
					b.Fatal(err)
				}
				*lat = append(*lat, time.Since(t0))
			}
			b.StopTimer()
			reportPair(b, "plain", plainLat, "envelope", vocLat)
		})
	}
}

// benchIntent is an intent of three keywords drawn from 20 words, so
// intents overlap now and then, as a real vocabulary's do.
func benchIntent(i int) string {
	words := strings.Fields(`weigh close reopen settle defer split merge assign review block
		unblock archive restore rename tag untag estimate schedule cancel publish`)
	return fmt.Sprintf("%s the task, %s its notes and %s", words[i%20], words[(i*7+3)%20], words[(i*13+5)%20])
}
