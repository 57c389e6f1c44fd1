package server_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/server"
)

// BenchmarkHTTP drives Recall and Commit over loopback HTTP with 1, 8 and
// 64 clients on a cabinet file (every Commit durable before its answer),
// and reports requests per second and the 50th and 99th percentile
// latencies. Run a fixed count, e.g.
//
//	go test -run '^$' -bench BenchmarkHTTP -benchtime 2000x ./server/
func BenchmarkHTTP(b *testing.B) {
	for _, verb := range []string{"recall", "commit"} {
		for _, clients := range []int{1, 8, 64} {
			b.Run(fmt.Sprintf("%s/clients=%d", verb, clients), func(b *testing.B) {
				db, err := goldfish.Open(goldfish.WithCabinet(filepath.Join(b.TempDir(), "c.gf")))
				if err != nil {
					b.Fatal(err)
				}
				defer db.Close()
				ctx := context.Background()
				s, _ := db.Session(ctx, "s")
				for i := 0; i < 1000; i += 100 {
					var stmts []string
					for j := i; j < i+100; j++ {
						stmts = append(stmts, fmt.Sprintf(`INSERT (:TSK {nick: "t%d", status: "open", title: "task %d"})-[:touches]->(:MOD {loc: "m%d.go"})`, j, j, j%50))
					}
					if _, err := s.Commit(ctx, strings.Join(stmts, ";\n"), nil); err != nil {
						b.Fatal(err)
					}
				}
				srv, _ := server.New(db, server.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
				ts := httptest.NewServer(srv)
				defer ts.Close()
				client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
				lat := make([]time.Duration, b.N)
				var next atomic.Int64
				var wg sync.WaitGroup
				b.ResetTimer()
				t0 := time.Now()
				for c := 0; c < clients; c++ {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for i := int(next.Add(1) - 1); i < b.N; i = int(next.Add(1) - 1) {
							body := fmt.Sprintf(`{"q": "MATCH (t:TSK {nick: $n})", "params": {"n": "t%d"}}`, i%1000)
							if verb == "commit" {
								body = fmt.Sprintf(`{"text": "INSERT (:NOTE {nick: $n})", "params": {"n": "n%d"}}`, i)
							}
							s := time.Now()
							resp, err := client.Post(ts.URL+"/v1/sessions/s/"+verb, "application/json", strings.NewReader(body))
							if err != nil {
								b.Error(err)
								return
							}
							io.Copy(io.Discard, resp.Body)
							resp.Body.Close()
							if resp.StatusCode != 200 {
								b.Errorf("status %d", resp.StatusCode)
								return
							}
							lat[i] = time.Since(s)
						}
					}()
				}
				wg.Wait()
				elapsed := time.Since(t0)
				b.StopTimer()
				slices.Sort(lat)
				b.ReportMetric(float64(b.N)/elapsed.Seconds(), "req/s")
				b.ReportMetric(float64(lat[b.N/2].Microseconds())/1000, "p50-ms")
				b.ReportMetric(float64(lat[min(b.N-1, b.N*99/100)].Microseconds())/1000, "p99-ms")
			})
		}
	}
}
