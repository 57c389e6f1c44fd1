package goldfish_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish"
)

// innerPackages are the packages whose types must never show in the root
// package's exported API (docs/design.md#interfaces): a caller of the embedding API never
// needs them, and they change without notice. gqlstatus and values are
// not among them: values declares the public values once (the root
// re-exports them by alias), and gqlstatus is the one error vocabulary
// every layer shares.
var innerPackages = []string{"store", "exec", "cabinet", "planner", "parser", "ast", "shapewalk", "engine", "params", "shapecache", "catalog", "vocab", "celval", "config"}

// TestAPIShowsNoInnerType reads the root package's exported declarations
// (types, aliases, functions, methods, struct fields, variables and
// constants) and fails on any that names a type of an inner package.
func TestAPIShowsNoInnerType(t *testing.T) {
	fset := token.NewFileSet()
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() || (d.Recv != nil && !exportedRecv(d.Recv)) {
					continue
				}
				checkInner(t, fset, d.Name.Name, d.Type)
			case *ast.GenDecl:
				for _, sp := range d.Specs {
					switch sp := sp.(type) {
					case *ast.TypeSpec:
						if !sp.Name.IsExported() {
							continue
						}
						if st, ok := sp.Type.(*ast.StructType); ok {
							for _, f := range st.Fields.List {
								exported := len(f.Names) == 0 // an embedded field is exported when its type is
								for _, n := range f.Names {
									exported = exported || n.IsExported()
								}
								if exported {
									checkInner(t, fset, sp.Name.Name, f.Type)
								}
							}
							continue
						}
						checkInner(t, fset, sp.Name.Name, sp.Type)
					case *ast.ValueSpec:
						for i, n := range sp.Names {
							if !n.IsExported() {
								continue
							}
							if sp.Type != nil {
								checkInner(t, fset, n.Name, sp.Type)
							}
							if i < len(sp.Values) {
								checkInner(t, fset, n.Name, sp.Values[i])
							}
						}
					}
				}
			}
		}
	}
}

func exportedRecv(fl *ast.FieldList) bool {
	typ := fl.List[0].Type
	if s, ok := typ.(*ast.StarExpr); ok {
		typ = s.X
	}
	id, ok := typ.(*ast.Ident)
	return ok && id.IsExported()
}

// checkInner reports every pkg.Name in node whose pkg is an inner package.
// For an exported variable or constant the value is checked too, since
// its type is the value's (ErrDamaged = cabinet.ErrDamaged is a leak only
// if the value's type is cabinet's; a sentinel error is an error, so
// values that are plain identifiers of inner packages are allowed when
// the declared name is an Err... sentinel).
func checkInner(t *testing.T, fset *token.FileSet, decl string, node ast.Node) {
	t.Helper()
	ast.Inspect(node, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.FuncLit:
			return false // a function body is not API
		case *ast.SelectorExpr:
			pkg, ok := x.X.(*ast.Ident)
			if !ok {
				return true
			}
			for _, inner := range innerPackages {
				// Option is a function of the database's configuration
				// (internal/config), which only the options of this
				// module build: a caller uses them, never the type, and
				// another package of the module (postgres) supplies one.
				optionOfConfig := decl == "Option" && pkg.Name == "config" && x.Sel.Name == "Config"
				if pkg.Name == inner && !optionOfConfig && !(strings.HasPrefix(decl, "Err") && strings.HasPrefix(x.Sel.Name, "Err")) {
					t.Errorf("%s: exported %s shows %s.%s", fset.Position(x.Pos()), decl, pkg.Name, x.Sel.Name)
				}
			}
		}
		return true
	})
}

// TestParseKinds: the kinds a shell or a server takes as words, spaces
// around names dropped and empty names skipped.
func TestParseKinds(t *testing.T) {
	for text, want := range map[string][]string{
		" LAW, ,RULE ": {"LAW", "RULE"},
		"":             nil,
		",,":           nil,
		"TSK":          {"TSK"},
	} {
		if got := goldfish.ParseKinds(text); !slices.Equal(got, want) {
			t.Errorf("ParseKinds(%q) = %q, want %q", text, got, want)
		}
	}
}
