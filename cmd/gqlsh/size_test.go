package main

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestParseByteSize(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		err  string
	}{
		{"0", 0, ""},
		{"1048576", 1 << 20, ""},
		{"512MiB", 512 << 20, ""},
		{"2GiB", 2 << 30, ""},
		{"2gib", 2 << 30, ""},
		{"1.5GiB", 3 << 29, ""},
		{"64 KiB", 64 << 10, ""},
		{"1TiB", 1 << 40, ""},
		{"3GB", 3e9, ""},
		{"10kB", 10000, ""},
		{"100B", 100, ""},
		{"", 0, "not a size"},
		{"MiB", 0, "not a size"},
		{"12 parsecs", 0, "not a size"},
		{"-1", 0, "negative"},
		{"-2GiB", 0, "negative"},
		{"NaNMiB", 0, "not a size"},
		{"1e30GiB", 0, "too large"},
	} {
		got, err := parseByteSize(c.in)
		switch {
		case c.err == "" && (err != nil || got != c.want):
			t.Errorf("%q: %d, %v; want %d", c.in, got, err, c.want)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%q: %d, %v; want an error saying %q", c.in, got, err, c.err)
		}
	}
}

// TestMemoryBudgetFlag: serve and mcp take --memory-budget; a size they
// cannot read is refused with exit status 2 before anything is opened,
// and the database gqlsh opens has the budget.
func TestMemoryBudgetFlag(t *testing.T) {
	for _, cmd := range []string{"serve", "mcp"} {
		var out, errs strings.Builder
		if code := run([]string{cmd, "--mem", "--memory-budget", "12 parsecs"}, strings.NewReader(""), &out, &errs); code != 2 {
			t.Errorf("%s --memory-budget '12 parsecs': exit %d, want 2", cmd, code)
		}
		if !strings.Contains(errs.String(), "memory-budget") || !strings.Contains(errs.String(), "512MiB") {
			t.Errorf("%s: the refusal does not say what to give: %s", cmd, errs.String())
		}
	}
	// In memory a budget unloads nothing, and the shell says so.
	var out, errs strings.Builder
	run([]string{"mcp", "--mem", "--memory-budget", "1MiB"}, strings.NewReader(""), &out, &errs)
	if !strings.Contains(errs.String(), "--memory-budget does nothing with --mem") {
		t.Errorf("mcp --mem --memory-budget: %s", errs.String())
	}
	db, _, err := openDB(dbOptions{cabinet: filepath.Join(t.TempDir(), "c.gf"), memoryBudget: 512 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if got := db.MemoryStats().Budget; got != 512<<20 {
		t.Fatalf("the database's budget is %d", got)
	}
}
