// Package golang ingests a Go source tree into a goldfish session (SPEC §8,
// Model Snap): one PKG node per package (loc: import path), one FILE node per
// file (loc: path relative to the tree), and FN, TYPE, VAR and CONST nodes
// for the package-level declarations (loc: "importpath.Name", methods and
// interface methods "importpath.Type.Name"; properties name, sig, at
// "file:line", doc (the doc comment's first line) and, for a method, recv),
// joined by contains edges PKG→FILE→declaration, imports edges PKG→PKG,
// has_method edges TYPE→FN, calls edges FN→FN, refs edges FN→VAR/CONST and
// implements edges TYPE→TYPE.
//
// Everything goes through Session.Ingest, so every node gets its id from
// (kind, loc) and every edge from (source, type, target): ingesting the same
// tree again changes nothing (every Δ reports Applied=false).
//
// Declarations come from go/parser and go/ast. Calls, refs and implements
// come from the typed pass (typed.go): the go command lists the packages
// (golang.org/x/tools/go/packages) while the tree is parsed, and go/types
// checks the same syntax trees, so what it resolves maps to the nodes by
// position. A package that cannot be listed or checked falls back to the
// syntax-only reading of calls: f(…) to a package-level function of the
// same package, and p.F(…) where p names an import of the file and F is a
// function of the imported package in the tree; Stats say which packages
// were read so. Options.NoTypes asks for that reading everywhere.
//
// Files are selected as the go command would for the running platform
// (build constraints and file-name suffixes, go/build's default context);
// _test.go files and testdata, vendor-less "_" and "." directories are
// skipped unless Options say otherwise.
//
// Every Δ uses one of a few fixed statement texts with $parameters (one per
// kind and chunk size, sizes 1, 2, 4, … 64), so the database's plan cache
// parses each text once, whatever the size of the tree.
//
// LoadGraph reads the tree the same way and returns its elements, each
// node under its package and file, for a caller that places them in
// several sessions (package snap).
package golang

import (
	"bufio"
	"context"
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/goldfish-gql/goldfish"
)

// Options configure a load.
type Options struct {
	// Tests includes _test.go files (their packages keep the directory's
	// import path, with "_test" appended for external test packages).
	Tests bool
	// NoCalls leaves calls edges out.
	NoCalls bool
	// Prefix is the import path of the tree's root directory. Empty: read
	// from the nearest go.mod ("std" and "cmd" give the standard library's
	// own paths), else the directory's base name.
	Prefix string
	// Only, when not empty, keeps the packages whose import path equals
	// one of these or lies below one of them.
	Only []string
	// Workers parse in parallel (default GOMAXPROCS).
	Workers int
	// NoTypes resolves calls by syntax only, without loading the
	// packages with the go command and type-checking them.
	NoTypes bool
	// Progress, when set, is called during the typed pass each time a
	// package is type-checked, with the packages checked so far and the
	// packages listed (the tree's and their dependencies), one call at a
	// time.
	Progress func(done, total int)
}

// Stats report a load and an ingest.
type Stats struct {
	Packages, Files int
	Decls           int // FN + TYPE + VAR + CONST nodes
	Nodes, Edges    int // elements the Δs carry (each once)
	Imports, Calls  int // edges of those types
	Refs            int // refs edges (functions to package-level vars and consts)
	Implements      int // implements edges
	// External counts the calls edges to functions outside the tree
	// (LoadGraph's External nodes; Load leaves them out).
	External int
	// Resolve says how calls were resolved: ModeTyped, ModeSyntax or
	// ModeMixed. Typed counts the packages type-checked, Untyped those
	// resolved by syntax only, TypeErrors those checked despite errors;
	// TypeNote says why some were not type-checked.
	Resolve                    string
	Typed, Untyped, TypeErrors int
	TypeNote                   string
	Deltas                     int // Ingest calls
	Applied                    int // Δs that changed the session
	SourceBytes                int64
	Load                       time.Duration // parse and build the Δs
	Ingest                     time.Duration // apply them
}

// Elements is Nodes+Edges.
func (s Stats) Elements() int { return s.Nodes + s.Edges }

// Delta is one Ingest call: a fixed statement text and its parameters.
type Delta struct {
	Text   string
	Params map[string]any
}

// Tree is a loaded source tree: the Δs that ingest it, in a deterministic
// order, and what they carry.
type Tree struct {
	Deltas []Delta
	Stats  Stats
}

// IngestDir loads the Go tree under dir and ingests it into s.
func IngestDir(ctx context.Context, s *goldfish.Session, dir string, opts Options) (Stats, error) {
	t, err := Load(dir, opts)
	if err != nil {
		return Stats{}, err
	}
	return t.Ingest(ctx, s)
}

// Ingest applies the tree's Δs to s, in order, each as one Ingest call.
func (t *Tree) Ingest(ctx context.Context, s *goldfish.Session) (Stats, error) {
	st := t.Stats
	st.Deltas, st.Applied = 0, 0
	t0 := time.Now()
	for _, d := range t.Deltas {
		res, err := s.Ingest(ctx, d.Text, d.Params)
		if err != nil {
			return st, fmt.Errorf("ingest Δ %d: %w", st.Deltas, err)
		}
		st.Deltas++
		if res.Applied {
			st.Applied++
		}
	}
	st.Ingest = time.Since(t0)
	return st, nil
}

// ---------------------------------------------------------------- loading

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

// ---------------------------------------------------------------- Δs

// sizes is the chunk ladder: a group of n items becomes Δs of these sizes,
// largest first, so each kind has at most len(sizes) distinct texts.
var sizes = []int{64, 32, 16, 8, 4, 2, 1}

type builder struct {
	t    *Tree
	root string // the tree's directory, absolute
	fset *token.FileSet
	// listing is the go command's listing of the packages (nil: calls by
	// syntax only).
	listing *listing
	byPath  map[string]*pkg
	byDir   map[string]*pkg
	texts   sync.Map // template key → text
}

// chunks calls fn with consecutive chunks of n items along the ladder.
func chunks(n, max int, fn func(lo, hi int)) {
	lo := 0
	for _, s := range sizes {
		if s > max {
			continue
		}
		for n-lo >= s {
			fn(lo, lo+s)
			lo += s
		}
	}
}

// text returns the statement text for key and size n, built once.
func (b *builder) text(key string, n int, build func(n int) string) string {
	k := key + "/" + strconv.Itoa(n)
	if t, ok := b.texts.Load(k); ok {
		return t.(string)
	}
	t := build(n)
	b.texts.Store(k, t)
	return t
}

func (b *builder) emit(text string, params map[string]any) {
	b.t.Deltas = append(b.t.Deltas, Delta{Text: text, Params: params})
}

// pname holds the parameter names per field and index: l3, n3, s3, a3,
// d3, r3, t3.
var pname [7][]string

func init() {
	for i := range 256 {
		is := strconv.Itoa(i)
		for f, p := range []string{"l", "n", "s", "a", "d", "r", "t"} {
			pname[f] = append(pname[f], p+is)
		}
	}
}

// reachable keeps the selected packages and the vendored packages their
// imports reach.
func (b *builder) reachable(all []*pkg, only []string) []*pkg {
	keep := map[*pkg]bool{}
	var visit func(p *pkg)
	visit = func(p *pkg) {
		if keep[p] {
			return
		}
		keep[p] = true
		for _, ip := range p.imports {
			if q, ok := b.resolveImport(p, ip); ok && (vendored(q.dir) || selected(q.path, only)) {
				visit(q)
			}
		}
	}
	for _, p := range all {
		if selected(p.path, only) {
			visit(p)
		}
	}
	var out []*pkg
	b.byPath, b.byDir = map[string]*pkg{}, map[string]*pkg{}
	for _, p := range all {
		if keep[p] {
			out = append(out, p)
			b.byPath[p.path] = p
			b.byDir[p.dir] = p
		}
	}
	return out
}

// resolveImport maps an import path seen in package p to a package of the
// tree: itself, or a vendored copy in a vendor directory above p.
func (b *builder) resolveImport(p *pkg, ip string) (*pkg, bool) {
	if q, ok := b.byPath[ip]; ok {
		return q, true
	}
	for d := p.dir; ; d = path.Dir(d) {
		v := "vendor/" + ip
		if d != "." {
			v = d + "/" + v
		}
		if q, ok := b.byDir[v]; ok {
			return q, true
		}
		if d == "." || d == "/" || d == "" {
			return nil, false
		}
	}
}

func (b *builder) pkg(p *pkg) {
	st := &b.t.Stats
	st.Packages++
	b.emit(`INSERT (:PKG {loc: $loc, name: $name, dir: $dir, files: $files})`,
		map[string]any{"loc": p.path, "name": p.name, "dir": p.dir, "files": len(p.files)})
	st.Nodes++
	imps := b.importsOf(p)
	st.Edges += len(imps)
	st.Imports += len(imps)
	chunks(len(imps), 64, func(lo, hi int) {
		params := map[string]any{"p": p.path}
		for i, ip := range imps[lo:hi] {
			params[pname[0][i]] = ip
		}
		b.emit(b.text("imports", hi-lo, importsText), params)
	})
	for _, f := range p.files {
		st.Files++
		st.SourceBytes += f.size
		b.emit(`INSERT (:PKG {loc: $pkg})-[:contains]->(:FILE {loc: $loc, name: $name, lines: $lines})`,
			map[string]any{"pkg": p.path, "loc": f.rel, "name": f.name, "lines": f.lines})
		st.Nodes++
		st.Edges++
		// Group the file's declarations by template, keeping source order
		// inside each group.
		groups := map[declKey][]decl{}
		for _, d := range f.decls {
			k := declKey{kind: d.kind, method: d.recv != "" && p.types[d.recv], recv: d.recv != "", doc: d.doc != ""}
			groups[k] = append(groups[k], d)
		}
		for _, k := range declKeys {
			ds := groups[k]
			st.Decls += len(ds)
			st.Nodes += len(ds)
			st.Edges += len(ds)
			if k.method {
				st.Edges += len(ds)
			}
			chunks(len(ds), 64, func(lo, hi int) {
				params := make(map[string]any, 1+6*(hi-lo))
				params["file"] = f.rel
				for i, d := range ds[lo:hi] {
					params[pname[0][i]] = d.loc
					params[pname[1][i]] = d.name
					params[pname[2][i]] = d.sig
					params[pname[3][i]] = d.at
					if k.doc {
						params[pname[4][i]] = d.doc
					}
					if k.recv {
						params[pname[5][i]] = d.recv
					}
					if k.method {
						params[pname[6][i]] = p.path + "." + d.recv
					}
				}
				b.emit(b.text(k.String(), hi-lo, declText(k)), params)
			})
		}
	}
}

// declKey selects a declaration's statement template: its kind, whether
// it is a method of a type of its package (a has_method edge), whether it
// has a receiver and a doc line (the properties it carries).
type declKey struct {
	kind              string
	method, recv, doc bool
}

func (k declKey) String() string { return fmt.Sprintf("%s/%t/%t/%t", k.kind, k.method, k.recv, k.doc) }

// declKeys orders the templates: types, functions, methods, vars,
// consts; without a doc line before with one.
var declKeys = func() []declKey {
	var ks []declKey
	for _, kind := range []string{"TYPE", "FN", "METHOD", "VAR", "CONST"} {
		for _, doc := range []bool{false, true} {
			switch kind {
			case "FN":
				ks = append(ks, declKey{kind: "FN", doc: doc}, declKey{kind: "FN", recv: true, doc: doc})
			case "METHOD":
				ks = append(ks, declKey{kind: "FN", method: true, recv: true, doc: doc})
			default:
				ks = append(ks, declKey{kind: kind, doc: doc})
			}
		}
	}
	return ks
}()

// importsOf lists the import paths of the packages of the tree that p
// imports, sorted, each once, p itself left out.
func (b *builder) importsOf(p *pkg) []string {
	var imps []string
	for _, ip := range p.imports {
		if q, ok := b.resolveImport(p, ip); ok && q != p {
			imps = append(imps, q.path)
		}
	}
	slices.Sort(imps)
	return slices.Compact(imps)
}

func importsText(n int) string {
	var sb strings.Builder
	sb.WriteString("INSERT ")
	for i := range n {
		if i == 0 {
			sb.WriteString("(p:PKG {loc: $p})")
		} else {
			sb.WriteString(", (p)")
		}
		fmt.Fprintf(&sb, "-[:imports]->(:PKG {loc: $l%d})", i)
	}
	return sb.String()
}

func declText(k declKey) func(n int) string {
	return func(n int) string {
		var sb strings.Builder
		sb.WriteString("INSERT ")
		for i := range n {
			if i == 0 {
				sb.WriteString("(f:FILE {loc: $file})")
			} else {
				sb.WriteString(", (f)")
			}
			fmt.Fprintf(&sb, "-[:contains]->(:%s {loc: $l%d, name: $n%d, sig: $s%d, at: $a%d", k.kind, i, i, i, i)
			if k.doc {
				fmt.Fprintf(&sb, ", doc: $d%d", i)
			}
			if k.recv {
				fmt.Fprintf(&sb, ", recv: $r%d", i)
			}
			sb.WriteString("})")
			if k.method {
				fmt.Fprintf(&sb, "<-[:has_method]-(:TYPE {loc: $t%d})", i)
			}
		}
		return sb.String()
	}
}

// links emits p's calls, refs and implements edges between nodes of
// the tree, grouped by (type, kinds) in chunks; calls to functions outside
// the tree are left out (a session of one tree has no node for them).
func (b *builder) links(p *pkg, ls *links) {
	type gk struct{ typ, from, to string }
	groups := map[gk][]link{}
	var order []gk
	for _, l := range ls.byPkg[p] {
		if _, out := ls.external[l.to.Loc]; out && l.to.Kind == "FN" && l.typ == "calls" {
			continue
		}
		k := gk{l.typ, l.from.Kind, l.to.Kind}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], l)
	}
	st := &b.t.Stats
	for _, k := range order {
		ls := groups[k]
		st.Edges += len(ls)
		chunks(len(ls), 64, func(lo, hi int) {
			params := make(map[string]any, 2*(hi-lo))
			for i, l := range ls[lo:hi] {
				params[pname[0][i]] = l.from.Loc
				params[pname[1][i]] = l.to.Loc
			}
			b.emit(b.text(k.typ+"/"+k.from+"/"+k.to, hi-lo, edgesText(k.typ, k.from, k.to)), params)
		})
	}
}

// stats records in st how the links were resolved and what they hold.
func (ls *links) stats(st *Stats) {
	st.Resolve, st.Typed, st.Untyped, st.TypeErrors, st.TypeNote = ls.mode(), ls.typed, len(ls.untyped), ls.withErrors, ls.note
	for _, l := range ls.all() {
		switch l.typ {
		case "calls":
			if _, out := ls.external[l.to.Loc]; out {
				st.External++
			} else {
				st.Calls++
			}
		case "refs":
			st.Refs++
		case "implements":
			st.Implements++
		}
	}
}

func (ls *links) all() []link {
	var out []link
	for _, l := range ls.byPkg {
		out = append(out, l...)
	}
	return out
}

// callPairs lists the (caller, callee) locators of p's calls edges: f(…)
// to a package-level function of p, and x.F(…) where x names an import of
// the file and F is a package-level function of that package in the tree;
// each pair once per caller, in source order.
func (b *builder) callPairs(p *pkg) [][2]string {
	var pairs [][2]string
	for _, f := range p.files {
		for _, d := range f.decls {
			if d.kind != "FN" || d.body == nil {
				continue
			}
			seen := map[string]bool{}
			ast.Inspect(d.body, func(n ast.Node) bool {
				c, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				fun := c.Fun
				switch x := fun.(type) {
				case *ast.IndexExpr:
					fun = x.X
				case *ast.IndexListExpr:
					fun = x.X
				}
				var to string
				switch x := fun.(type) {
				case *ast.Ident:
					to = p.funcs[x.Name]
				case *ast.SelectorExpr:
					id, ok := x.X.(*ast.Ident)
					if !ok {
						break
					}
					ip, ok := f.imports[id.Name]
					if !ok || p.funcs[id.Name] != "" || p.types[id.Name] {
						break
					}
					if q, ok := b.resolveImport(p, ip); ok {
						to = q.funcs[x.Sel.Name]
					}
				}
				if to != "" && to != d.loc && !seen[to] {
					seen[to] = true
					pairs = append(pairs, [2]string{d.loc, to})
				}
				return true
			})
		}
	}
	return pairs
}

func edgesText(typ, from, to string) func(n int) string {
	return func(n int) string {
		var sb strings.Builder
		sb.WriteString("INSERT ")
		for i := range n {
			if i > 0 {
				sb.WriteString(", ")
			}
			fmt.Fprintf(&sb, "(:%s {loc: $l%d})-[:%s]->(:%s {loc: $n%d})", from, i, typ, to, i)
		}
		return sb.String()
	}
}
