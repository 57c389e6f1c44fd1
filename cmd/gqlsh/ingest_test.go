package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestIngestGo ingests the ingester's own test tree twice into one cabinet:
// the second run applies nothing, and a Recall sees the code graph.
func TestIngestGo(t *testing.T) {
	cab := filepath.Join(t.TempDir(), "code.gf")
	tree := filepath.Join("..", "..", "ingest", "golang", "testdata", "tree")
	var out, errb bytes.Buffer
	if code := run([]string{"ingest-go", tree, "--cabinet", cab, "--session", "code"}, nil, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	first := out.String()
	if !strings.Contains(first, "packages") || strings.Contains(first, " 0 of ") {
		t.Fatalf("first ingest applied nothing: %s", first)
	}
	out.Reset()
	if code := run([]string{"ingest-go", "--cabinet", cab, tree, "--session", "code"}, nil, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "; 0 of ") {
		t.Fatalf("re-ingest changed the session: %s", out.String())
	}
	out.Reset()
	if code := run([]string{"--cabinet", cab, "--session", "code", "-c", "MATCH (p:PKG) LIMIT 1"}, nil, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "cue=match") || !strings.Contains(out.String(), ":PKG") {
		t.Fatalf("Recall after ingest: %s", out.String())
	}
	if code := run([]string{"ingest-go"}, nil, &out, &errb); code != 2 {
		t.Fatalf("no DIR: exit %d", code)
	}
}
