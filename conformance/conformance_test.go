package conformance

import (
	"context"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
)

// TestConformance runs testdata/*.txt through datadriven; run it with
// -rewrite to regenerate the expected outputs, then review the diff.
func TestConformance(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		e := NewEngine()
		defer e.Close()
		datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
			d := Directive{Cmd: td.Cmd, Args: map[string]string{}, Input: td.Input, Pos: td.Pos}
			for _, a := range td.CmdArgs {
				d.Args[a.Key] = strings.Join(a.Vals, ",")
			}
			out, err := e.Do(context.Background(), d)
			if err != nil {
				t.Fatalf("%s: %v", td.Pos, err)
			}
			return out
		})
	})
}

// TestOwnReaderAgrees checks that the reader gqlsh uses (Parse and Run)
// passes the same files datadriven passes, so the two runners never drift.
func TestOwnReaderAgrees(t *testing.T) {
	rep, err := Run(context.Background(), Suite())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Failures {
		t.Error(f)
	}
	if rep.Passed < 65 {
		t.Errorf("only %d cases passed; the suite should hold at least 65", rep.Passed)
	}
}

func TestParseFenced(t *testing.T) {
	in := "# comment\ncommit session=a\nINSERT (:A)\n----\n----\nx\n\ny\n----\n----\n\ndump\n----\nversion 0\n"
	ds, err := Parse("t", strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 2 || ds[0].Expected != "x\n\ny\n" || ds[0].Args["session"] != "a" || ds[1].Expected != "version 0\n" || ds[1].Pos != "t:12" {
		t.Fatalf("got %+v", ds)
	}
}
