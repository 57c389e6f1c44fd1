package golang

import (
	"bufio"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Loading: the packages the Options select are found under the tree's
// root (packageDirs, loadPackage: the files the go command would build),
// parsed with go/parser and read into pkg, file and decl records, one
// decl per package-level declaration, with the locator, signature,
// position and doc line its node will carry.

type decl struct {
	kind string // FN, TYPE, VAR, CONST
	loc  string
	name string
	sig  string
	line int
	at   string    // "file:line", the file relative to the tree
	doc  string    // the first line of the doc comment
	recv string    // FN methods: the receiver's base type name
	pos  token.Pos // of the name (the typed pass finds the declaration by it)
	body *ast.BlockStmt
}

type file struct {
	rel     string // path relative to the root, slash-separated
	name    string
	lines   int
	decls   []decl
	imports map[string]string // local name → import path
	size    int64
	ast     *ast.File // kept for the typed pass, which checks these trees
}

type pkg struct {
	dir     string // relative, slash-separated; "." for the root
	path    string // import path
	name    string
	files   []*file
	imports []string          // resolved import paths, sorted
	funcs   map[string]string // package-level func name → loc
	types   map[string]bool
}

// Load reads the tree under dir and builds its Δs; it does not touch a
// session.
func Load(dir string, opts Options) (*Tree, error) {
	t0 := time.Now()
	b, kept, err := loadPackages(dir, opts)
	if err != nil {
		return nil, err
	}
	t := &Tree{}
	b.t = t
	for _, p := range kept {
		b.pkg(p)
	}
	if !opts.NoCalls {
		ls := resolveLinks(b.root, b, kept, opts)
		for _, p := range kept {
			b.links(p, ls)
		}
		ls.stats(&t.Stats)
	}
	t.Stats.Deltas = len(t.Deltas)
	t.Stats.Load = time.Since(t0)
	return t, nil
}

// loadPackages parses the packages of the tree under dir that opts
// select, sorted by import path, and indexes them for import resolution.
func loadPackages(dir string, opts Options) (*builder, []*pkg, error) {
	root, err := filepath.Abs(dir)
	if err != nil {
		return nil, nil, err
	}
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real // a tree named through a symbolic link is read where it lies
	}
	prefix := opts.Prefix
	if prefix == "" {
		prefix = modulePrefix(root)
	}
	dirs, err := packageDirs(root, opts)
	if err != nil {
		return nil, nil, err
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var want []string
	for _, d := range dirs {
		if selected(importPath(prefix, d), opts.Only) || vendored(d) {
			want = append(want, d)
		}
	}
	dirs = want
	var lst *listing
	if !opts.NoCalls && !opts.NoTypes {
		// The go command lists the packages while the tree is parsed.
		paths := make([]string, len(dirs))
		for i, d := range dirs {
			paths[i] = importPath(prefix, d)
		}
		lst = startListing(root, dirs, paths, opts)
	}
	pkgs := make([]*pkg, len(dirs))
	errs := make([]error, len(dirs))
	var wg sync.WaitGroup
	next := make(chan int)
	// One file set for every file, so the typed pass can check the trees
	// parsed here and find declarations by position.
	fset := token.NewFileSet()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				pkgs[i], errs[i] = loadPackage(fset, root, dirs[i], importPath(prefix, dirs[i]), opts)
			}
		}()
	}
	for i := range dirs {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, e := range errs {
		if e != nil {
			if lst != nil {
				<-lst.done
			}
			return nil, nil, e
		}
	}
	var kept []*pkg
	for _, p := range pkgs {
		if p != nil && len(p.files) > 0 {
			kept = append(kept, p)
		}
	}
	sort.Slice(kept, func(i, j int) bool { return kept[i].path < kept[j].path })
	b := &builder{root: root, fset: fset, listing: lst, byPath: map[string]*pkg{}, byDir: map[string]*pkg{}}
	for _, p := range kept {
		b.byPath[p.path] = p
		b.byDir[p.dir] = p
	}
	if len(opts.Only) > 0 {
		kept = b.reachable(kept, opts.Only)
	}
	return b, kept, nil
}

// vendored reports whether dir is a vendored package: kept with Only, so
// imports of the selected packages resolve.
func vendored(dir string) bool {
	return strings.HasPrefix(dir, "vendor/") || strings.Contains(dir, "/vendor/")
}

func selected(p string, only []string) bool {
	if len(only) == 0 {
		return true
	}
	for _, o := range only {
		if p == o || strings.HasPrefix(p, o+"/") {
			return true
		}
	}
	return false
}

// modulePrefix reads the module path of the go.mod in root (or above it).
// The standard library's "std" module has no prefix; "cmd" is its own.
func modulePrefix(root string) string {
	for d := root; ; d = filepath.Dir(d) {
		if mod, ok := readModule(filepath.Join(d, "go.mod")); ok {
			rel, _ := filepath.Rel(d, root)
			rel = filepath.ToSlash(rel)
			if mod == "std" {
				mod = ""
			}
			switch {
			case rel == ".":
				return mod
			case mod == "":
				return rel
			}
			return mod + "/" + rel
		}
		if filepath.Dir(d) == d {
			return filepath.Base(root)
		}
	}
}

func readModule(gomod string) (string, bool) {
	f, err := os.Open(gomod)
	if err != nil {
		return "", false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if rest, ok := strings.CutPrefix(line, "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`), true
		}
	}
	return "", false
}

func importPath(prefix, dir string) string {
	switch {
	case dir == ".":
		return prefix
	case prefix == "":
		return dir
	}
	return prefix + "/" + dir
}

// packageDirs lists the directories under root that hold .go files, sorted,
// relative and slash-separated; it skips testdata and directories whose
// name starts with "." or "_". A nested module keeps its own prefix only
// when its go.mod names the tree's paths (the standard library's cmd
// module does: "cmd" under src).
func packageDirs(root string, opts Options) ([]string, error) {
	var dirs []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if p != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
			return filepath.SkipDir
		}
		ents, err := os.ReadDir(p)
		if err != nil {
			return err
		}
		for _, e := range ents {
			if !e.IsDir() && strings.HasSuffix(e.Name(), ".go") {
				rel, _ := filepath.Rel(root, p)
				dirs = append(dirs, filepath.ToSlash(rel))
				break
			}
		}
		return nil
	})
	sort.Strings(dirs)
	return dirs, err
}

var buildCtx = build.Default

func loadPackage(fset *token.FileSet, root, dir, ipath string, opts Options) (*pkg, error) {
	abs := filepath.Join(root, filepath.FromSlash(dir))
	ents, err := os.ReadDir(abs)
	if err != nil {
		return nil, err
	}
	p := &pkg{dir: dir, path: ipath, funcs: map[string]string{}, types: map[string]bool{}}
	imports := map[string]bool{}
	seen := map[string]bool{}
	for _, e := range ents {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || (!opts.Tests && strings.HasSuffix(n, "_test.go")) {
			continue
		}
		if ok, err := buildCtx.MatchFile(abs, n); err != nil || !ok {
			continue
		}
		src, err := os.ReadFile(filepath.Join(abs, n))
		if err != nil {
			return nil, err
		}
		af, err := parser.ParseFile(fset, filepath.Join(abs, n), src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			continue // a file that does not parse is left out, as go/build would refuse it
		}
		pname := af.Name.Name
		if pname == "documentation" {
			continue
		}
		if p.name == "" {
			p.name = pname
		} else if pname != p.name && !(opts.Tests && pname == p.name+"_test") {
			continue
		}
		rel := n
		if dir != "." {
			rel = dir + "/" + n
		}
		f := &file{rel: rel, name: n, lines: fset.File(af.Pos()).LineCount(), imports: map[string]string{}, size: int64(len(src)), ast: af}
		for _, is := range af.Imports {
			ip, _ := strconv.Unquote(is.Path.Value)
			imports[ip] = true
			local := path.Base(ip)
			if is.Name != nil {
				local = is.Name.Name
			}
			f.imports[local] = ip
		}
		line := func(pos token.Pos) int { return fset.Position(pos).Line }
		add := func(d decl, name *ast.Ident, doc *ast.CommentGroup) {
			d.pos = name.Pos()
			d.at = rel + ":" + strconv.Itoa(d.line)
			d.doc = firstLine(doc)
			if d.name == "_" || d.name == "init" || seen[d.loc] {
				d.loc += "@" + n + ":" + strconv.Itoa(d.line)
				for i, base := 2, d.loc; seen[d.loc]; i++ { // var _, _ = … on one line
					d.loc = base + "#" + strconv.Itoa(i)
				}
			}
			seen[d.loc] = true
			f.decls = append(f.decls, d)
		}
		for _, dl := range af.Decls {
			switch d := dl.(type) {
			case *ast.FuncDecl:
				fd := decl{kind: "FN", name: d.Name.Name, line: line(d.Name.Pos()), body: d.Body}
				sig := types.ExprString(d.Type)
				if d.Recv != nil && len(d.Recv.List) > 0 {
					rt := d.Recv.List[0].Type
					fd.recv = recvBase(rt)
					fd.loc = ipath + "." + fd.recv + "." + fd.name
					rs := types.ExprString(rt)
					if names := d.Recv.List[0].Names; len(names) > 0 {
						rs = names[0].Name + " " + rs
					}
					sig = "func (" + rs + ") " + fd.name + strings.TrimPrefix(sig, "func")
				} else {
					fd.loc = ipath + "." + fd.name
					sig = "func " + fd.name + strings.TrimPrefix(sig, "func")
					if fd.name != "init" && fd.name != "_" && !seen[fd.loc] {
						p.funcs[fd.name] = fd.loc
					}
				}
				fd.sig = clip(sig)
				add(fd, d.Name, d.Doc)
			case *ast.GenDecl:
				for _, sp := range d.Specs {
					switch s := sp.(type) {
					case *ast.TypeSpec:
						td := decl{kind: "TYPE", name: s.Name.Name, loc: ipath + "." + s.Name.Name, line: line(s.Name.Pos())}
						td.sig = clip("type " + s.Name.Name + typeKind(s))
						if !seen[td.loc] && td.name != "_" {
							p.types[td.name] = true
						}
						doc := s.Doc
						if doc == nil && len(d.Specs) == 1 {
							doc = d.Doc
						}
						add(td, s.Name, doc)
						if it, ok := s.Type.(*ast.InterfaceType); ok && td.name != "_" {
							// An interface's methods are FN nodes of their
							// own, so a call through the interface has
							// somewhere to go.
							for _, m := range it.Methods.List {
								ft, ok := m.Type.(*ast.FuncType)
								if !ok {
									continue // an embedded interface or a type term
								}
								for _, mn := range m.Names {
									md := decl{kind: "FN", name: mn.Name, recv: td.name, loc: ipath + "." + td.name + "." + mn.Name, line: line(mn.Pos())}
									md.sig = clip("func (" + td.name + ") " + mn.Name + strings.TrimPrefix(types.ExprString(ft), "func"))
									add(md, mn, m.Doc)
								}
							}
						}
					case *ast.ValueSpec:
						kind, word := "VAR", "var "
						if d.Tok == token.CONST {
							kind, word = "CONST", "const "
						}
						for i, id := range s.Names {
							vd := decl{kind: kind, name: id.Name, loc: ipath + "." + id.Name, line: line(id.Pos())}
							sig := word + id.Name
							if s.Type != nil {
								sig += " " + types.ExprString(s.Type)
							}
							if i < len(s.Values) {
								if v := types.ExprString(s.Values[i]); len(v) <= 40 {
									sig += " = " + v
								}
							}
							vd.sig = clip(sig)
							doc := s.Doc
							if doc == nil && len(d.Specs) == 1 {
								doc = d.Doc
							}
							add(vd, id, doc)
						}
					}
				}
			}
		}
		p.files = append(p.files, f)
	}
	for ip := range imports {
		p.imports = append(p.imports, ip)
	}
	sort.Strings(p.imports)
	return p, nil
}

// typeKind renders what a type declaration is: " struct", " interface",
// " = T" for an alias, or the underlying type expression when short.
func typeKind(s *ast.TypeSpec) string {
	tp := ""
	if s.TypeParams != nil && len(s.TypeParams.List) > 0 {
		tp = "[…]"
	}
	switch t := s.Type.(type) {
	case *ast.StructType:
		return tp + " struct"
	case *ast.InterfaceType:
		return tp + " interface"
	default:
		e := types.ExprString(t)
		if s.Assign.IsValid() {
			return tp + " = " + e
		}
		return tp + " " + e
	}
}

// firstLine is the first line of a doc comment, clipped.
func firstLine(cg *ast.CommentGroup) string {
	if cg == nil {
		return ""
	}
	t := strings.TrimSpace(cg.Text())
	if i := strings.IndexByte(t, '\n'); i >= 0 {
		t = strings.TrimSpace(t[:i])
	}
	return clipN(t, 120)
}

func clip(s string) string { return clipN(s, 160) }

func clipN(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - 3
	for cut > 0 && (s[cut]&0xC0) == 0x80 {
		cut--
	}
	return s[:cut] + "..."
}

// recvBase is the name of a receiver's base type: T for T, *T, T[P], *T[P].
func recvBase(e ast.Expr) string {
	for {
		switch t := e.(type) {
		case *ast.StarExpr:
			e = t.X
		case *ast.ParenExpr:
			e = t.X
		case *ast.IndexExpr:
			e = t.X
		case *ast.IndexListExpr:
			e = t.X
		case *ast.Ident:
			return t.Name
		default:
			return types.ExprString(e)
		}
	}
}
