package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish/tokens"
)

// TestRunTiny runs the quick mode's logic on tiny sizes: a few packages, two
// small generated graphs, few iterations. It checks that every part ran and
// that the report renders; it asserts no timing.
func TestRunTiny(t *testing.T) {
	cfg := QuickConfig()
	cfg.Only = []string{"unicode/utf8", "strings"}
	cfg.Sizes = []int{200, 500}
	cfg.Iters, cfg.Hits, cfg.Commits, cfg.TokensOf = 10, 20, 20, 3
	cfg.Writers = []int{1, 2}
	cfg.TmpDir = t.TempDir()
	rep, err := Run(context.Background(), cfg, testLog{t})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Ingest.Nodes == 0 || rep.Ingest.ReingestApplied != 0 || !rep.Ingest.ReingestSameDump {
		t.Errorf("ingest %+v", rep.Ingest)
	}
	if len(rep.Workload) != 5 || len(rep.Growth) != 2 || len(rep.Commit) != 2 {
		t.Fatalf("parts missing: %d kinds, %d sizes, %d commit rows", len(rep.Workload), len(rep.Growth), len(rep.Commit))
	}
	for _, k := range rep.Workload {
		if k.Miss.N == 0 || k.SQLite.N == 0 || k.SQLRow == 0 || k.Rows == 0 || k.Tokens == 0 {
			t.Errorf("kind %s: %+v", k.Kind, k)
		}
	}
	if rep.Tokens.ReadGraphTokens == 0 || rep.GrowthRatio == 0 {
		t.Errorf("tokens %+v growth %v", rep.Tokens, rep.GrowthRatio)
	}
	md := rep.Markdown()
	for _, want := range []string{"| function |", "| codebook miss |", "| 500 |", "Growth ratio", "| 2 |", "**Targets**"} {
		if !strings.Contains(md, want) {
			t.Errorf("table lacks %q", want)
		}
	}
	if _, err := json.Marshal(rep); err != nil {
		t.Fatal(err)
	}
}

// TestCountTokensSplit checks that counting per chunk cut after a newline
// gives the count of the whole text.
func TestCountTokensSplit(t *testing.T) {
	var b strings.Builder
	b.WriteString("{\"entities\":[\n")
	for i := 0; i < 10000; i++ {
		b.WriteString(`{"name":"net/http.Server.ServeHTTP","entityType":"FN","observations":["line: 12","sig: \"func (s *Server) X() error\""]},` + "\n")
	}
	b.WriteString("],\"relations\":[\n{\"from\":\"a\",\"to\":\"b/c\",\"relationType\":\"calls\"}\n]}\n")
	text := b.String()
	whole, err := tokens.Exact(text)
	if err != nil {
		t.Fatal(err)
	}
	split, err := countTokens([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if whole != split {
		t.Errorf("whole %d, split %d", whole, split)
	}
}

type testLog struct{ t *testing.T }

func (l testLog) Write(b []byte) (int, error) {
	l.t.Log(strings.TrimSuffix(string(b), "\n"))
	return len(b), nil
}
