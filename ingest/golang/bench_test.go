package golang_test

import (
	"context"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/ingest/golang"
)

// BenchmarkIngest applies the Δs of a slice of the standard library (the
// parse is outside the timer) and reports elements/s:
//
//	go test -run '^$' -bench Ingest -cpuprofile cpu.out ./ingest/golang
func BenchmarkIngest(b *testing.B) {
	tree, err := golang.Load(filepath.Join(runtime.GOROOT(), "src"), golang.Options{Only: []string{"net", "go", "crypto"}})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	elems := 0
	for b.Loop() {
		db, _ := goldfish.Open()
		s, _ := db.Session(context.Background(), "code")
		st, err := tree.Ingest(context.Background(), s)
		if err != nil {
			b.Fatal(err)
		}
		elems += st.Elements()
		db.Close()
	}
	b.ReportMetric(float64(elems)/b.Elapsed().Seconds(), "elements/s")
}
