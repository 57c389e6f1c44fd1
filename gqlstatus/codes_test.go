package gqlstatus

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// constant is one Code constant of this package: its name, value and
// meaning (its doc comment, as one line).
type constant struct {
	name, value, meaning string
}

// codeConstants reads the Code constants from this package's source, so
// the list is the code itself, not a copy of it.
func codeConstants(t *testing.T) []constant {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "gqlstatus.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var out []constant
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, s := range gd.Specs {
			vs := s.(*ast.ValueSpec)
			if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "Code" {
				continue
			}
			if len(vs.Names) != 1 || len(vs.Values) != 1 {
				t.Fatalf("a Code constant per line, please: %v", vs.Names)
			}
			lit, ok := vs.Values[0].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				t.Fatalf("%s: the value is not a string literal", vs.Names[0].Name)
			}
			v, _ := strconv.Unquote(lit.Value)
			out = append(out, constant{name: vs.Names[0].Name, value: v, meaning: oneLine(vs.Doc.Text())})
		}
	}
	return out
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// readmeTable reads the table of docs/codes.md ("GQLSTATUS codes"): code,
// constant and meaning per row.
func readmeTable(t *testing.T) []constant {
	t.Helper()
	b, err := os.ReadFile("../docs/codes.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "# GQLSTATUS codes\n")
	if !ok {
		t.Fatal(`docs/codes.md has no title "# GQLSTATUS codes"`)
	}
	if i := strings.Index(section, "\n## "); i >= 0 {
		section = section[:i]
	}
	row := regexp.MustCompile("^\\| `([^`]*)` \\| `([^`]*)` \\| (.*) \\|$")
	var out []constant
	for _, l := range strings.Split(section, "\n") {
		if m := row.FindStringSubmatch(l); m != nil {
			out = append(out, constant{value: m[1], name: m[2], meaning: oneLine(m[3])})
		}
	}
	return out
}

// TestREADMEListsEveryCode: the table of docs/codes.md lists exactly the codes of
// this package, in its order, each with its constant and its meaning.
func TestREADMEListsEveryCode(t *testing.T) {
	consts, rows := codeConstants(t), readmeTable(t)
	if len(consts) < 10 {
		t.Fatalf("only %d Code constants found", len(consts))
	}
	for i := 0; i < max(len(consts), len(rows)); i++ {
		switch {
		case i >= len(rows):
			t.Errorf("docs/codes.md lacks %s (%s): %s", consts[i].value, consts[i].name, consts[i].meaning)
		case i >= len(consts):
			t.Errorf("docs/codes.md lists %s (%s), which is no constant of gqlstatus", rows[i].value, rows[i].name)
		case rows[i] != consts[i]:
			t.Errorf("docs/codes.md row %d:\n  %s %s %s\nwant (gqlstatus.go):\n  %s %s %s", i+1,
				rows[i].value, rows[i].name, rows[i].meaning, consts[i].value, consts[i].name, consts[i].meaning)
		}
	}
}

// TestCodesFollowTheStandard: every code is five characters of digits and
// upper-case letters, used once, with a meaning; an implementation-defined
// code (one whose subclass begins with 5–9 or I–Z, the subclasses ISO/IEC
// 39075 leaves to implementations) begins its subclass with Q, goldfish's
// one range, and says it is implementation-defined; no other code does.
func TestCodesFollowTheStandard(t *testing.T) {
	shape := regexp.MustCompile(`^[0-9A-Z]{5}$`)
	seen := map[string]string{}
	for _, c := range codeConstants(t) {
		if !shape.MatchString(c.value) {
			t.Errorf("%s = %q is not a GQLSTATUS", c.name, c.value)
			continue
		}
		if other, dup := seen[c.value]; dup {
			t.Errorf("%s and %s share %s: one code per condition", other, c.name, c.value)
		}
		seen[c.value] = c.name
		if c.meaning == "" {
			t.Errorf("%s has no doc comment saying what it means", c.name)
		}
		sub := c.value[2]
		implDefined := sub >= '5' && sub <= '9' || sub >= 'I' && sub <= 'Z'
		says := strings.Contains(c.meaning, "(implementation-defined)")
		switch {
		case implDefined && sub != 'Q':
			t.Errorf("%s = %s: implementation-defined subclasses begin with Q", c.name, c.value)
		case implDefined != says:
			t.Errorf("%s = %s: implementation-defined is %v, but its meaning says %v", c.name, c.value, implDefined, says)
		}
	}
}

// goFiles walks the module's non-test Go files outside this package and
// the generated parser.
func goFiles(t *testing.T, fn func(path string, f *ast.File)) {
	t.Helper()
	fset := token.NewFileSet()
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != ".." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "gqlstatus" || path == filepath.Join("..", "parser", "gen")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		fn(path, f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestNoCodeWrittenAsAString: outside this package no GQLSTATUS is built
// from a string literal (gqlstatus.Code("22G03"), Code: "22G03", a literal
// passed where a Code is taken, "02000: " in a note): every code a caller
// can see is one of the constants, so the README's table lists them all.
func TestNoCodeWrittenAsAString(t *testing.T) {
	values := map[string]bool{}
	for _, c := range codeConstants(t) {
		values[c.value] = true
	}
	codeLike := regexp.MustCompile(`^[0-9A-Z]{5}$`)
	token5 := regexp.MustCompile(`[0-9A-Z]{5}`)
	files := 0
	goFiles(t, func(path string, f *ast.File) {
		files++
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				return true
			}
			if codeLike.MatchString(s) && strings.ContainsAny(s, "0123456789") {
				t.Errorf("%s: the string %q is written like a GQLSTATUS: use a gqlstatus constant", path, s)
				return true
			}
			for _, m := range token5.FindAllStringIndex(s, -1) {
				word := s[m[0]:m[1]]
				before := m[0] == 0 || !isWordByte(s[m[0]-1])
				after := m[1] == len(s) || !isWordByte(s[m[1]])
				if values[word] && before && after {
					t.Errorf("%s: the string %q holds the code %s: use gqlstatus's constant", path, s, word)
				}
			}
			return true
		})
	})
	if files < 50 {
		t.Fatalf("only %d Go files read: is the walk at the module's root?", files)
	}
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// TestEveryCodeIsRaised: each constant is used outside its declaration
// (by this package's own functions or another package's code, not only
// re-exported), so the table lists no code nothing emits.
func TestEveryCodeIsRaised(t *testing.T) {
	used := map[string]bool{}
	note := func(n ast.Node, sel func(ast.Node) (string, bool)) {
		ast.Inspect(n, func(n ast.Node) bool {
			if vs, ok := n.(*ast.ValueSpec); ok && len(vs.Names) == 1 && vs.Names[0].IsExported() {
				// an exported name for a code re-exports it
				// (goldfish.CodeX = gqlstatus.X); an unexported one (a
				// package's name for one of its conditions) raises it
				return false
			}
			if name, ok := sel(n); ok {
				used[name] = true
			}
			return true
		})
	}
	goFiles(t, func(_ string, f *ast.File) {
		note(f, func(n ast.Node) (string, bool) {
			s, ok := n.(*ast.SelectorExpr)
			if !ok {
				return "", false
			}
			x, ok := s.X.(*ast.Ident)
			return s.Sel.Name, ok && x.Name == "gqlstatus"
		})
	})
	own, err := parser.ParseFile(token.NewFileSet(), "gqlstatus.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	note(own, func(n ast.Node) (string, bool) {
		id, ok := n.(*ast.Ident)
		if !ok {
			return "", false
		}
		return id.Name, true
	})
	for _, c := range codeConstants(t) {
		if !used[c.name] {
			t.Errorf("%s (%s) is raised nowhere: drop it from the table, or raise it", c.name, c.value)
		}
	}
}
