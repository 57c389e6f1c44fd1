package goldfish_test

import (
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/goldfish-gql/goldfish"

// allowed lists, for each package of ours, the packages of ours it may
// import (STYLE.md and the README's layout: cmd → repl/server → the root
// API → internal/engine → exec → planner/shapewalk/vocab → store; the
// parser on its own). Below them all, values: the public values, declared
// once, a leaf beside the GQLSTATUS codes, that every layer hands out and
// the root re-exports by alias. Beside the engine, not above it: wire (the
// HTTP API's JSON) and client (the Go client, which links values, wire
// and the parser, never the engine). Every package of the module is
// listed: a new one fails TestEveryPackageListed until its place is
// written down here, and an import not written here (an upward one)
// fails TestDependencyDirection.
var allowed = map[string][]string{
	"gqlstatus":     {},
	"tokens":        {},
	"values":        {"gqlstatus"},                                // the public values: a leaf beside the codes
	"store":         {"tokens", "values", "store/internal/btree"}, // a record keeps its rendering's token estimate
	"store/cabinet": {"store", "values"},
	// the copy-on-write B-tree the store's indexes are made of (google/btree, kept)
	"store/internal/btree": {},
	// the backend suite and the PostgreSQL backend sit beside the bbolt one
	"store/cabinet/cabinettest":     {"store", "store/cabinet", "values"},
	"store/cabinet/postgres":        {"store", "store/cabinet"},
	"store/cabinet/postgres/pgtest": {"store/cabinet/postgres"},
	"celval":                        {"store", "values"}, // the one conversion of stored values to CEL
	"parser/ast":                    {"gqlstatus"},
	"parser/gen":                    {},
	"parser":                        {"parser/ast", "parser/gen", "gqlstatus"},
	"vocab":                         {"store", "tokens", "celval", "gqlstatus", "values"}, // the envelope counts its lines
	"planner":                       {"parser/ast", "gqlstatus", "store", "vocab", "celval", "values"},
	"shapewalk":                     {"store", "gqlstatus", "values"},
	"exec":                          {"planner", "shapewalk", "store", "parser/ast", "gqlstatus", "tokens", "vocab", "values"},
	// beside the engine, one job each
	"internal/params":     {"store", "gqlstatus", "values"},
	"internal/shapecache": {"exec", "internal/params", "values"},
	"internal/catalog":    {"store", "store/cabinet", "values"},
	// a database's configuration: what the options set, the engine opens
	// with, and another package's option (the PostgreSQL one) may set
	"internal/config": {"store/cabinet", "values"},
	"internal/engine": {"exec", "planner", "parser", "store", "store/cabinet", "internal/config", "gqlstatus", "vocab", "values",
		"internal/params", "internal/shapecache", "internal/catalog"},
	// the root package is the public contract over the engine
	".": {"internal/engine", "internal/config", "gqlstatus", "values"},
	// the PostgreSQL cabinet's option: the one package an embedder names
	// to keep its sessions in PostgreSQL (the root links no driver)
	"postgres": {".", "internal/config", "store/cabinet", "store/cabinet/postgres"},
	// the shell uses the embedding API, and prints the wire's objects
	// for --format json
	"repl": {".", "gqlstatus", "wire"},
	// the HTTP API's JSON, declared once: beside the values and codes,
	// with nothing of the engine (the client links it)
	"wire": {"values", "gqlstatus"},
	// the runner is a client of the server's HTTP API too (through the
	// Go client), and picks session names by the token estimate the
	// Shape's header counts
	"conformance": {".", "repl", "client", "tokens"},
	// the Go client of the server's HTTP API answers with the values'
	// types (the root's are their aliases) and tells a Recall from a
	// Commit with the parser: no engine (TestClientLinksNoEngine)
	"client": {"values", "wire", "gqlstatus", "parser"},
	// over the embedding API, as the shell; the memory tools also write
	// and count the values they hand the engine (values, tokens: leaves)
	"server":        {".", "gqlstatus", "server/ui", "wire", "values", "tokens"},
	"server/ui":     {},                     // the memory browser's embedded page
	"ingest/golang": {"."},                  // the Go ingester writes through the embedding API
	"snap":          {".", "ingest/golang"}, // Model Snap: the embedding API and the Go ingester only
	"cmd/gqlsh":     {".", "client", "conformance", "ingest/golang", "repl", "server", "snap", "postgres", "gqlstatus"},
	// the benchmark reads a cabinet file with the cabinet's loader to
	// give its SQL peer the same graph
	"cmd/gqlbench": {".", "ingest/golang", "snap", "store", "store/cabinet", "tokens", "values"},
}

// TestEveryPackageListed fails on a package of the module that allowed
// does not place.
func TestEveryPackageListed(t *testing.T) {
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != "." && (strings.HasPrefix(n, ".") || n == "testdata" || n == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		dir := filepath.ToSlash(filepath.Dir(path))
		if _, ok := allowed[dir]; !ok {
			t.Errorf("package %s is not in allowed: write down its place in the layering", dir)
			allowed[dir] = nil // once
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestDependencyDirection keeps the layering written in allowed.
func TestDependencyDirection(t *testing.T) {
	for dir, ok := range allowed {
		imports := packageImports(t, dir)
		for imp := range imports {
			if !strings.HasPrefix(imp, module) {
				continue
			}
			rel := strings.TrimPrefix(strings.TrimPrefix(imp, module), "/")
			if rel == "" {
				rel = "."
			}
			if !contains(ok, rel) {
				t.Errorf("package %s imports %s, which is not below it", dir, rel)
			}
		}
	}
	for _, dir := range []string{"repl", "conformance", "server", "snap", "ingest/golang", "."} {
		for imp := range packageImports(t, dir) {
			if strings.HasPrefix(imp, module+"/cmd") {
				t.Errorf("package %s imports a command (%s)", dir, imp)
			}
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// packageImports reads the imports of the non-test Go files in dir.
func packageImports(t *testing.T, dir string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		if os.IsNotExist(err) {
			return out
		}
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			out[strings.Trim(imp.Path.Value, `"`)] = true
		}
	}
	return out
}

// TestEmbedderLinksNoPostgres: a program that opens a database in memory
// or on a cabinet file imports the root package alone, and links no
// PostgreSQL driver: the PostgreSQL cabinet is the option of package
// postgres, which only a program that names it links.
func TestEmbedderLinksNoPostgres(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, "github.com/jackc/") || p == module+"/store/cabinet/postgres" || p == module+"/postgres" {
			t.Errorf("the root package links %s", p)
		}
	}
}

// TestClientLinksNoEngine: a program that speaks to a server through
// package client links the wire, the values, the codes and the parser,
// and nothing of the engine (the root package, internal/..., exec,
// planner, vocab, store, celval, shapewalk), in at most 40 packages
// that are not the standard library's, ours included.
func TestClientLinksNoEngine(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", "./client").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	pkgs := strings.Fields(string(out))
	for _, p := range pkgs {
		rel, ours := strings.CutPrefix(p, module)
		rel = strings.TrimPrefix(rel, "/")
		if !ours {
			continue
		}
		first, _, _ := strings.Cut(rel, "/")
		switch first {
		case "", "internal", "exec", "planner", "vocab", "store", "celval", "shapewalk", "server":
			t.Errorf("package client links %s", p)
		}
	}
	if len(pkgs) > 40 {
		t.Errorf("package client links %d packages outside the standard library, more than 40:\n%s", len(pkgs), strings.Join(pkgs, "\n"))
	}
}
