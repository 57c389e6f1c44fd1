package snap_test

import (
	"context"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/snap"
)

// BenchmarkSnapStdlib snaps the whole standard library ($GOROOT/src) into
// a database in memory, parse, type-check and partition included:
//
//	go test -run '^$' -bench SnapStdlib -benchtime 1x ./snap
//
// The pattern runs BenchmarkSnapStdlibSyntax too: the machine's load
// varies, so the typed reading is judged by its ratio to the syntax-only
// one measured in the same run.
func BenchmarkSnapStdlib(b *testing.B) {
	benchSnapStdlib(b, snap.Options{Prefix: "std"})
}

// BenchmarkSnapStdlibSyntax is BenchmarkSnapStdlib with calls resolved by
// syntax only (no go command, no type-checking).
func BenchmarkSnapStdlibSyntax(b *testing.B) {
	benchSnapStdlib(b, snap.Options{Prefix: "std", NoTypes: true})
}

func benchSnapStdlib(b *testing.B, opts snap.Options) {
	dir := filepath.Join(runtime.GOROOT(), "src")
	var rep snap.Report
	for b.Loop() {
		db, err := goldfish.Open()
		if err != nil {
			b.Fatal(err)
		}
		rep, err = snap.Go(context.Background(), db, dir, opts)
		if err != nil {
			b.Fatal(err)
		}
		db.Close()
	}
	b.ReportMetric(float64(len(rep.Parts)), "parts")
	b.ReportMetric(float64(rep.Sessions()), "sessions")
	b.ReportMetric(float64(rep.Largest().Nodes), "largest-part-nodes")
	b.ReportMetric(float64(rep.Elements), "elements")
	b.ReportMetric(rep.Seconds(), "seconds")
	b.ReportMetric(rep.Load.Seconds(), "load-seconds")
	b.ReportMetric(rep.ElementsPerSecond(), "elements/s")
}
