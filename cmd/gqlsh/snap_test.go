package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestSnapGo snaps the snap package's test tree twice into one cabinet:
// the first run makes the catalogue and the interiors, the second
// changes nothing; then the two-step read works from the shell: the
// catalogue names the part, the part holds the code and its stubs.
func TestSnapGo(t *testing.T) {
	cab := filepath.Join(t.TempDir(), "code.gf")
	tree := filepath.Join("..", "..", "snap", "testdata", "tree")
	var out, errb bytes.Buffer
	if code := run([]string{"snap-go", tree, "--prefix", "shop", "--cabinet", cab, "--part-nodes", "20"}, nil, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"cabinet " + cab + ": 6 packages, 9 files in 6 parts: 7 sessions (catalogue shop); largest part 19 nodes (shop.store-3); ",
		" elements/s\n", "calls type-checked: 23 calls, 3 to functions outside the tree, 8 refs, 0 implements\n", "; 7 changed (shop, shop.cmd, shop.geo, shop.store-1 and 3 more); "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("first snap prints %q; want %q in it", out.String(), want)
		}
	}
	out.Reset()
	if code := run([]string{"snap-go", "--part-nodes=20", "--cabinet", cab, tree, "--prefix", "shop"}, nil, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "; 0 of ") || !strings.Contains(out.String(), "; no session changed; ") {
		t.Errorf("re-snap changed a session: %s", out.String())
	}
	out.Reset()
	if code := run([]string{"--cabinet", cab, "--session", "shop", "-c", `MATCH (p:PART) WHERE "example.com/shop/util/text" IN p.packages`}, nil, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "cue=match") || !strings.Contains(out.String(), `loc: "shop.util"`) {
		t.Errorf("Recall of the catalogue: %s", out.String())
	}
	out.Reset()
	if code := run([]string{"--cabinet", cab, "--session", "shop.cmd", "-c", `MATCH (s:STUB {loc: "example.com/shop/store.Receipt"})`}, nil, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), `(stub1:STUB {kind: "FN", loc: "example.com/shop/store.Receipt", session: "shop.store-3"})`) {
		t.Errorf("Recall of a stub: %s", out.String())
	}
}

func TestSnapGoErrors(t *testing.T) {
	tree := filepath.Join("..", "..", "snap", "testdata", "tree")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"snap-go"}, 2, "Usage: gqlsh snap-go DIR --prefix NAME"},
		{[]string{"snap-go", tree, "--mem"}, 2, "give --prefix NAME"},
		{[]string{"snap-go", tree, tree, "--prefix", "x", "--mem"}, 2, "give one DIR"},
		{[]string{"snap-go", tree, "--prefix", "x", "--mem", "--cabinet", "c.gf"}, 2, "not both"},
		{[]string{"snap-go", tree, "--prefix", "x", "--mem", "--part-nodes", "3"}, 1, "GQLSTATUS 22Q06: a part budget of 3 nodes is too small; give at least 10"},
		{[]string{"snap-go", filepath.Join(tree, "nothing"), "--prefix", "x", "--mem"}, 1, "GQLSTATUS 42Q05: cannot snap"},
		{[]string{"snap-go", tree, "--prefix", "no way", "--mem"}, 1, "GQLSTATUS 42Q03: the prefix names the catalogue session"},
	} {
		var out, errb bytes.Buffer
		if code := run(tc.args, nil, &out, &errb); code != tc.code || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("gqlsh %q: exit %d, %q; want exit %d and %q", tc.args, code, errb.String(), tc.code, tc.want)
		}
	}
}
