//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goldfish-gql/goldfish/conformance"
	"github.com/goldfish-gql/goldfish/store/cabinet/postgres/pgtest"
	"github.com/goldfish-gql/goldfish/wire"
)

// TestServePostgresFlags: serve and mcp take --postgres with none of
// --cabinet and --mem, and say so.
func TestServePostgresFlags(t *testing.T) {
	for _, cmd := range []string{"serve", "mcp"} {
		for _, other := range [][]string{{"--mem"}, {"--cabinet", filepath.Join(t.TempDir(), "c.gf")}} {
			var out, errs strings.Builder
			args := append([]string{cmd, "--postgres", "postgres://127.0.0.1:1/none"}, other...)
			if code := run(args, strings.NewReader(""), &out, &errs); code != 2 || !strings.Contains(errs.String(), "only one") {
				t.Errorf("%v: exit %d, %q", args, code, errs.String())
			}
		}
	}
	var out, errs strings.Builder
	if code := run([]string{"serve", "--mem", "--poll", "-1s"}, strings.NewReader(""), &out, &errs); code != 2 || !strings.Contains(errs.String(), "--poll") {
		t.Errorf("--poll -1s: exit %d, %q", code, errs.String())
	}
}

// conformanceURL runs gqlsh conformance --url against a server and
// checks that every case a server can run passes, that the cases run and
// skipped together are the embedded run's, and that the skipped ones are
// exactly the suite's reopens (only the server's process can reopen its
// database) and scripts (whose statements reach the server, their output
// unjudged): nothing after a script is skipped.
func conformanceURL(t *testing.T, url string) {
	t.Helper()
	var out, errs strings.Builder
	if code := run([]string{"conformance"}, strings.NewReader(""), &out, &errs); code != 0 {
		t.Fatalf("embedded: exit %d: %s%s", code, out.String(), errs.String())
	}
	var embedded int
	fmt.Sscanf(out.String(), "%d passed, 0 failed", &embedded)
	out.Reset()
	code := run([]string{"conformance", "--url", url}, strings.NewReader(""), &out, &errs)
	m := regexp.MustCompile(`(?m)^(\d+) ran: (\d+) passed, (\d+) failed; (\d+) skipped over --url$`).FindStringSubmatch(out.String())
	if code != 0 || m == nil || m[3] != "0" {
		t.Fatalf("conformance --url: exit %d:\n%s%s", code, out.String(), errs.String())
	}
	var ran, passed, skipped int
	fmt.Sscan(m[1]+" "+m[2]+" "+m[4], &ran, &passed, &skipped)
	if ran+skipped != embedded || passed != ran {
		t.Fatalf("over --url %d ran, %d passed, %d skipped; embedded %d passed:\n%s", ran, passed, skipped, embedded, out.String())
	}
	var got, want []string
	for _, line := range regexp.MustCompile(`(?m)^SKIP (\S+ \w+): skipped over --url \((.*)\)$`).FindAllStringSubmatch(out.String(), -1) {
		got = append(got, line[1])
		if strings.HasSuffix(line[1], " script") && line[2] != conformance.ScriptReason {
			t.Errorf("%s: %s", line[1], line[2])
		}
	}
	names, err := conformance.Files(conformance.Suite())
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		f, err := conformance.Suite().Open(name)
		if err != nil {
			t.Fatal(err)
		}
		cases, err := conformance.Parse(name, f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range cases {
			if conformance.SkippedOverServer(d) {
				want = append(want, d.Pos+" "+d.Cmd)
			}
		}
	}
	if len(got) != skipped || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("skipped over --url (%d):\n%s\nwant the suite's reopens and scripts:\n%s", skipped, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	t.Logf("over --url: %d ran, %d passed, %d skipped (embedded: %d passed)", ran, passed, skipped, embedded)
}

// TestConformanceURLCabinet: the suite over HTTP against gqlsh serve on
// a cabinet file gives the embedded run's verdicts, twice on one server
// (a second run's sessions are its own).
func TestConformanceURLCabinet(t *testing.T) {
	_, url, _ := startServe(t, "--cabinet", filepath.Join(t.TempDir(), "c.gf"))
	conformanceURL(t, url)
	conformanceURL(t, url)
}

// TestConformanceURLPostgres: the same against gqlsh serve --postgres.
func TestConformanceURLPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("the suite on PostgreSQL takes several seconds")
	}
	pg := pgtest.URL(t)
	_, url, _ := startServe(t, "--postgres", pg, "--postgres-schema", pgtest.Schema(t, pg))
	conformanceURL(t, url)
}

// post sends a JSON body and decodes the answer; it returns the status
// and, for an error, the server's error object.
func post(t *testing.T, url string, body, out any) (int, wire.Error) {
	t.Helper()
	b, _ := json.Marshal(body)
	resp, err := http.Post(url, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Error(err)
		return 0, wire.Error{}
	}
	defer resp.Body.Close()
	var ej wire.Error
	if resp.StatusCode != http.StatusOK {
		json.NewDecoder(resp.Body).Decode(&ej)
		return resp.StatusCode, ej
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		t.Error(err)
	}
	return resp.StatusCode, ej
}

// TestServeTwoServersPostgres: two gqlsh serve processes on one
// PostgreSQL database, 8 HTTP writers on each, one session. Every
// acknowledged Commit is there exactly once, the acknowledged versions
// are distinct and consecutive, the counter every Commit increments
// equals their number, and both servers list the same session. A
// Commit that loses its version past the retry budget answers 409 with
// 40001 and applied nothing: the writer sends it again. Then a Commit on
// one server is read on the other within the poll interval (the delay
// is logged, not asserted: the test polls with a generous bound).
func TestServeTwoServersPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("two servers on PostgreSQL")
	}
	pg := pgtest.URL(t)
	schema := pgtest.Schema(t, pg)
	const poll = 50 * time.Millisecond
	args := []string{"--postgres", pg, "--postgres-schema", schema, "--poll", poll.String()}
	_, urlA, _ := startServe(t, args...)
	_, urlB, _ := startServe(t, args...)
	servers := []string{urlA, urlB}
	session := func(u, verb string) string { return u + "/v1/sessions/shared/" + verb }
	var cj wire.Commit
	if code, ej := post(t, session(urlA, "commit"), wire.CommitRequest{Text: `INSERT (:C {nick: "c", n: 0})`}, &cj); code != 200 {
		t.Fatalf("the counter: %d %+v", code, ej)
	}
	const writers, per = 8, 25
	type ack struct {
		h, w, n int
		version uint64
	}
	var (
		mu        sync.Mutex
		acks      []ack
		conflicts int
		wg        sync.WaitGroup
	)
	for h, u := range servers {
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for n := 0; n < per; {
					var res wire.Commit
					code, ej := post(t, session(u, "commit"), wire.CommitRequest{
						Text:   `MATCH (c:C {nick: "c"}) SET c.n = c.n + 1 INSERT (:STEP {h: $h, w: $w, n: $n})`,
						Params: wire.Params{"h": h, "w": w, "n": n}}, &res)
					if code == http.StatusConflict && ej.GQLStatus == "40001" {
						mu.Lock()
						conflicts++
						mu.Unlock()
						continue // nothing applied: send it again
					}
					if code != http.StatusOK || !res.Applied {
						t.Errorf("server %d writer %d: %d %+v", h, w, code, ej)
						return
					}
					mu.Lock()
					acks = append(acks, ack{h, w, n, res.Version})
					mu.Unlock()
					n++
				}
			}()
		}
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	total := 2 * writers * per
	if len(acks) != total {
		t.Fatalf("%d acknowledged, want %d", len(acks), total)
	}
	sort.Slice(acks, func(i, j int) bool { return acks[i].version < acks[j].version })
	for i, k := range acks {
		if k.version != uint64(i+2) {
			t.Fatalf("acknowledged versions are not 2…%d: the %dth is %d", total+1, i+1, k.version)
		}
	}
	// Each server, once it knows the other's Commits (a Recall catches
	// up), holds every acknowledged Commit once and the counter at total.
	var dumps []string
	for i, u := range servers {
		var sh wire.Shape
		deadline := time.Now().Add(30 * time.Second)
		for sh.Version != uint64(total+1) && time.Now().Before(deadline) {
			if code, ej := post(t, session(u, "recall"), wire.RecallRequest{Q: `MATCH (c:C)`}, &sh); code != 200 {
				t.Fatalf("server %d: %d %+v", i, code, ej)
			}
			time.Sleep(poll / 5)
		}
		if sh.Version != uint64(total+1) {
			t.Fatalf("server %d: version %d, want %d", i, sh.Version, total+1)
		}
		resp, err := http.Get(session(u, "dump"))
		if err != nil {
			t.Fatal(err)
		}
		var d wire.Dump
		json.NewDecoder(resp.Body).Decode(&d)
		resp.Body.Close()
		seen := map[string]int{}
		for _, m := range regexp.MustCompile(`\(:STEP \{h: (\d+), n: (\d+), w: (\d+)\}\)`).FindAllStringSubmatch(d.Dump, -1) {
			seen[m[1]+" "+m[3]+" "+m[2]]++
		}
		for _, k := range acks {
			if c := seen[fmt.Sprint(k.h, k.w, k.n)]; c != 1 {
				t.Fatalf("server %d: Commit %v is there %d times", i, k, c)
			}
		}
		if len(seen) != total {
			t.Fatalf("server %d: %d STEP nodes, want %d", i, len(seen), total)
		}
		if want := fmt.Sprintf(`(:C {n: %d, nick: "c"})`, total); !strings.Contains(d.Dump, want) {
			t.Fatalf("server %d: no %s: an update was lost", i, want)
		}
		dumps = append(dumps, d.Dump)
	}
	if dumps[0] != dumps[1] {
		t.Fatal("the servers' dumps differ")
	}
	// Freshness: a Commit on A, Recalls on B until B shows it.
	var delays []time.Duration
	for i := range 20 {
		var res wire.Commit
		if code, ej := post(t, servers[i%2]+"/v1/sessions/fresh/commit", wire.CommitRequest{Text: `INSERT (:F {i: $i})`, Params: wire.Params{"i": i}}, &res); code != 200 {
			t.Fatalf("%d %+v", code, ej)
		}
		start := time.Now()
		for {
			var sh wire.Shape
			if code, ej := post(t, servers[1-i%2]+"/v1/sessions/fresh/recall", wire.RecallRequest{Q: `MATCH (f:F) LIMIT 1`}, &sh); code != 200 {
				t.Fatalf("%d %+v", code, ej)
			}
			if sh.Version >= res.Version {
				break
			}
			if time.Since(start) > 30*time.Second {
				t.Fatalf("version %d not seen on the other server after 30s", res.Version)
			}
			time.Sleep(time.Millisecond)
		}
		delays = append(delays, time.Since(start))
	}
	sort.Slice(delays, func(i, j int) bool { return delays[i] < delays[j] })
	t.Logf("two servers, 16 HTTP writers: %d Commits acknowledged, 0 lost, 0 duplicated, versions 2…%d consecutive, counter %d; %d answered 409 (40001) and were sent again",
		total, total+1, total, conflicts)
	t.Logf("freshness (--poll %s): a Commit on one server seen by a Recall on the other after p50 %s, max %s (%d samples)",
		poll, delays[len(delays)/2].Round(100*time.Microsecond), delays[len(delays)-1].Round(100*time.Microsecond), len(delays))
}
