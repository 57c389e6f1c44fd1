package goldfish_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/goldfish-gql/goldfish"

// allowed lists, for each package of ours, the packages of ours it may
// import (STYLE.md: nothing imports upward).
var allowed = map[string][]string{
	"gqlstatus":     {},
	"store":         {"tokens"}, // a record keeps its rendering's token estimate
	"store/cabinet": {"store"},
	// the backend suite and the PostgreSQL backend sit beside the bbolt one
	"store/cabinet/cabinettest":     {"store", "store/cabinet"},
	"store/cabinet/postgres":        {"store", "store/cabinet"},
	"store/cabinet/postgres/pgtest": {"store/cabinet/postgres"},
	"parser/ast":                    {"gqlstatus"},
	"parser/gen":                    {},
	"parser":                        {"parser/ast", "parser/gen", "gqlstatus"},
	"planner":                       {"parser/ast", "gqlstatus", "store", "vocab"},
	"vocab":                         {"store", "tokens"}, // the envelope counts its lines
	"shapewalk":                     {"store", "gqlstatus"},
	"exec":                          {"planner", "shapewalk", "store", "parser/ast", "gqlstatus", "tokens", "vocab"},
	"tokens":                        {},
	"internal/peek":                 {"store"},
	"repl":                          {".", "gqlstatus"}, // the shell uses the embedding API only
	// the runner is a client of the server's HTTP API too, and picks
	// session names by the token estimate the Shape's header counts
	"conformance": {".", "repl", "gqlstatus", "server", "tokens"},
	"server":      {".", "gqlstatus"},     // over the embedding API only, as the shell
	"snap":        {".", "ingest/golang"}, // Model Snap: the embedding API and the Go ingester only
	".":           {"exec", "planner", "parser", "parser/ast", "shapewalk", "store", "store/cabinet", "store/cabinet/postgres", "gqlstatus", "internal/peek", "vocab"},
}

// TestDependencyDirection keeps the layering of STYLE.md: cmd → repl → root
// → exec → planner/shapewalk → store, and the parser on its own.
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
	for _, dir := range []string{"repl", "conformance", "server"} {
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
