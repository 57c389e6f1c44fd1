package golang

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/tools/go/packages"
)

// The typed pass: the tree's packages are loaded again with go/packages
// and type-checked (go/types), and what the checker resolved becomes
// edges between the nodes the syntax pass made:
//
//   - calls: a call of a function or a method, through a receiver, an
//     embedded field, a package qualifier or a method expression; a call
//     through an interface goes to the interface's method (an FN node of
//     its own, under its TYPE by has_method). A callee outside the tree
//     becomes an external node (Graph.External). A recursive call is a
//     calls edge from the function's node to itself.
//   - refs: a function's uses of package-level variables and constants of
//     the tree.
//   - implements: a named non-interface type of the tree to each interface
//     of the tree (with at least one method) that it or its pointer
//     satisfies, by types.Implements.
//
// A declaration is found from the checker's objects by position (file and
// byte offset of its name), so the two passes agree on every node without
// rebuilding locators from types. A package the go command cannot load or
// the checker cannot check keeps the syntax pass's calls, and the load says
// so (Stats.Untyped, Stats.TypeNote).

// link is one resolved edge.
type link struct {
	typ      string // calls, refs, implements
	from, to Ref
}

// links is what the typed (or the syntax) pass resolved.
type links struct {
	byPkg    map[*pkg][]link // in source order of the callers
	external map[string]Node // loc → a callee outside the tree
	typed    int             // packages type-checked
	untyped  []string        // import paths resolved by syntax only
	// withErrors counts the packages checked despite errors: their links
	// are what the checker could resolve.
	withErrors int
	note       string // why, when some are
}

// LoadMode is how calls were resolved.
const (
	// ModeTyped: every package type-checked.
	ModeTyped = "type-checked"
	// ModeSyntax: no package could be type-checked; calls by syntax only.
	ModeSyntax = "syntax only"
	// ModeMixed: some packages type-checked, the others by syntax.
	ModeMixed = "partly type-checked"
)

// typedLoad is the state of one typed pass.
type typedLoad struct {
	root     string // absolute, symlinks resolved
	b        *builder
	kept     []*pkg
	fset     *token.FileSet
	asts     map[string]*ast.File // absolute file name → the syntax pass's tree
	decls    map[token.Pos]Ref    // position of a declaration's name → its node
	inTree   map[string]*pkg      // absolute directory (as given and with symlinks resolved) → package
	opts     Options
	progress func(done, total int)
	mu       sync.Mutex // serialises progress
	checked  int
}

// resolveLinks resolves the calls, refs and implements edges of the kept
// packages: type-checked where the go command and the checker can, by
// syntax elsewhere.
func resolveLinks(root string, b *builder, kept []*pkg, opts Options) *links {
	ls := &links{byPkg: map[*pkg][]link{}, external: map[string]Node{}}
	if opts.NoTypes || b.listing == nil {
		ls.note = "type-checking was turned off"
		for _, p := range kept {
			ls.syntaxOnly(b, p)
			ls.untyped = append(ls.untyped, p.path)
		}
		return ls
	}
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		real = root
	}
	tl := &typedLoad{root: real, b: b, kept: kept, fset: b.fset, asts: map[string]*ast.File{}, decls: map[token.Pos]Ref{},
		inTree: map[string]*pkg{}, opts: opts, progress: opts.Progress}
	for _, p := range kept {
		tl.inTree[filepath.Join(real, filepath.FromSlash(p.dir))] = p
		tl.inTree[filepath.Join(root, filepath.FromSlash(p.dir))] = p
		for _, f := range p.files {
			// The go command names files under the resolved root.
			tl.asts[filepath.Join(real, filepath.FromSlash(f.rel))] = f.ast
			for _, d := range f.decls {
				tl.decls[d.pos] = Ref{d.kind, d.loc}
			}
		}
	}
	done := map[*pkg]bool{}
	var notes []string
	<-b.listing.done
	for _, g := range b.listing.groups {
		n, err := tl.load(g, ls, done)
		if err != nil {
			notes = append(notes, err.Error())
		}
		ls.typed += n
	}
	for _, p := range kept {
		if !done[p] {
			ls.syntaxOnly(b, p)
			ls.untyped = append(ls.untyped, p.path)
		}
	}
	if len(ls.untyped) > 0 && len(notes) == 0 {
		notes = append(notes, "not in a module the go command can load (no go.mod at or above them)")
	}
	ls.note = strings.Join(notes, "; ")
	return ls
}

func (ls *links) syntaxOnly(b *builder, p *pkg) {
	for _, pr := range b.callPairs(p) {
		ls.byPkg[p] = append(ls.byPkg[p], link{"calls", Ref{"FN", pr[0]}, Ref{"FN", pr[1]}})
	}
}

// mode says how the calls of a load were resolved.
func (ls *links) mode() string {
	switch {
	case len(ls.untyped) == 0:
		return ModeTyped
	case ls.typed == 0:
		return ModeSyntax
	}
	return ModeMixed
}

// group is the directories of the tree in one module: its root (the
// directory of its go.mod), and what listing its packages gave.
type group struct {
	modRoot string
	dirs    []string // relative to the tree, slash-separated
	// byPath: the standard library's std and cmd modules are one group,
	// listed by import path from std's root, so cmd's imports of std
	// are the packages std's own load checks (one universe, checked
	// once).
	byPath bool
	roots  []*packages.Package
	err    error
}

// listing is the go command's listing of the tree's packages, started
// before the syntax pass parses and read after it.
type listing struct {
	done   chan struct{}
	groups []*group
}

// startListing lists, in the background, the packages of the tree's
// directories dirs (with their import paths) by module: the nearest
// go.mod at or above each; directories under no go.mod are not listed
// and stay syntax-only.
func startListing(root string, dirs, paths []string, opts Options) *listing {
	l := &listing{done: make(chan struct{})}
	byRoot := map[string]*group{}
	var order []string
	memo := map[string]string{}
	var modRoot func(d string) string
	modRoot = func(d string) string {
		if r, ok := memo[d]; ok {
			return r
		}
		r := ""
		if fi, err := os.Stat(filepath.Join(d, "go.mod")); err == nil && !fi.IsDir() {
			r = d
		} else if up := filepath.Dir(d); up != d {
			r = modRoot(up)
		}
		memo[d] = r
		return r
	}
	patterns := map[*group][]string{}
	for i, dir := range dirs {
		abs := filepath.Join(root, filepath.FromSlash(dir))
		r := modRoot(abs)
		if r == "" {
			continue
		}
		byPath := false
		switch mod, _ := readModule(filepath.Join(r, "go.mod")); mod {
		case "std":
			byPath = true
		case "cmd":
			r, byPath = filepath.Dir(r), true
		}
		g, ok := byRoot[r]
		if !ok {
			g = &group{modRoot: r, byPath: byPath}
			byRoot[r] = g
			order = append(order, r)
		}
		g.dirs = append(g.dirs, dir)
		switch {
		case vendored(dir):
			// loaded as a dependency of the packages that import it
		case byPath:
			if paths[i] != "builtin" { // documentation, not a package
				patterns[g] = append(patterns[g], paths[i])
			}
		default:
			if rel, err := filepath.Rel(r, abs); err == nil {
				patterns[g] = append(patterns[g], "./"+filepath.ToSlash(rel))
			}
		}
	}
	sort.Strings(order)
	for _, r := range order {
		l.groups = append(l.groups, byRoot[r])
	}
	go func() {
		defer close(l.done)
		for _, g := range l.groups {
			if len(patterns[g]) == 0 {
				continue
			}
			g.roots, g.err = list(g.modRoot, patterns[g], opts)
		}
	}()
	return l
}

// list runs the go command for patterns in dir.
func list(dir string, patterns []string, opts Options) ([]*packages.Package, error) {
	// No cgo: the checker reads the files as they are, without running
	// cgo (and a C compiler) first.
	env := append(os.Environ(), "GOWORK=off", "CGO_ENABLED=0")
	if _, ok := os.LookupEnv("GOTOOLCHAIN"); !ok {
		env = append(env, "GOTOOLCHAIN=local") // a snap never fetches a Go toolchain
	}
	cfg := &packages.Config{Mode: listMode, Dir: dir, Env: env, Tests: opts.Tests, Logf: func(string, ...any) {}}
	t0 := time.Now()
	roots, err := packages.Load(cfg, patterns...)
	trace("%s: %d patterns listed in %v", dir, len(patterns), time.Since(t0))
	if err != nil {
		return nil, fmt.Errorf("the go command could not list the packages of %s: %s", dir, firstErrLine(err.Error()))
	}
	return roots, nil
}

// listMode is what the typed pass asks of go/packages: the packages, their
// files and their imports, dependencies included, and nothing the go
// command must compile; the pass parses (reusing the syntax pass's trees)
// and type-checks itself, keeping only the facts it reads.
const listMode = packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles | packages.NeedImports | packages.NeedDeps

// checked is one listed package and what checking it gave.
type checked struct {
	lp    *packages.Package
	own   *pkg // the tree's package it is (a variant of); nil for a dependency
	files []*ast.File
	info  *types.Info // own packages only
	types *types.Package
	errs  int
	done  chan struct{}
}

// load type-checks one module's packages and adds their links; it
// returns how many of them were resolved and, when some could not be,
// why.
func (tl *typedLoad) load(g *group, ls *links, done map[*pkg]bool) (int, error) {
	own := map[string]*pkg{} // absolute directory → package of this group
	for _, d := range g.dirs {
		if p := tl.b.byDir[d]; p != nil {
			own[filepath.Join(tl.root, filepath.FromSlash(d))] = p
		}
	}
	if g.err != nil {
		return 0, g.err
	}
	roots := g.roots
	if len(roots) == 0 || len(own) == 0 {
		return 0, nil
	}
	tLoad := time.Now()
	all := map[*packages.Package]*checked{}
	var order []*checked
	var firstErr string
	packages.Visit(roots, nil, func(lp *packages.Package) {
		c := &checked{lp: lp, done: make(chan struct{})}
		all[lp] = c
		order = append(order, c)
		files := lp.CompiledGoFiles
		if len(files) == 0 {
			files = lp.GoFiles
		}
		if len(files) > 0 && !(strings.HasSuffix(lp.PkgPath, ".test") && lp.Name == "main") {
			c.own = own[filepath.Dir(files[0])]
		}
		if c.own != nil && len(lp.Errors) > 0 && firstErr == "" {
			firstErr = lp.Errors[0].Error()
		}
	})
	tl.check(order, all)
	trace("checked in %v", time.Since(tLoad))
	// The variants to read per package of the tree: with tests, a
	// package's test variant (its own files and its _test.go files) and
	// its external test package; else the package itself.
	variants := map[*pkg][]*checked{}
	for _, c := range order {
		if c.own == nil || c.types == nil || c.info == nil {
			continue
		}
		variants[c.own] = append(variants[c.own], c)
	}
	var mine []*pkg
	for p, vs := range variants {
		if tl.opts.Tests {
			var test []*checked
			for _, v := range vs {
				if v.lp.ForTest != "" || strings.HasSuffix(v.lp.Name, "_test") {
					test = append(test, v)
				}
			}
			if len(test) > 0 {
				vs = test
			}
		} else {
			vs = slices.DeleteFunc(vs, func(v *checked) bool { return v.lp.ForTest != "" })
		}
		sort.Slice(vs, func(i, j int) bool { return vs[i].lp.ID < vs[j].lp.ID })
		variants[p] = vs
		if len(vs) > 0 {
			mine = append(mine, p)
			for _, v := range vs {
				if v.errs > 0 {
					ls.withErrors++
					break
				}
			}
		}
	}
	sort.Slice(mine, func(i, j int) bool { return mine[i].path < mine[j].path })
	res := make([][]link, len(mine))
	exts := make([]map[string]Node, len(mine))
	var wg sync.WaitGroup
	sem := make(chan struct{}, max(1, tl.workers()))
	for i, p := range mine {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			w := &walkPkg{tl: tl, seen: map[link]bool{}, met: map[types.Object]bool{}, ext: map[string]Node{}}
			for _, v := range variants[p] {
				w.walk(v.files, v.info)
			}
			res[i], exts[i] = w.out, w.ext
		}()
	}
	wg.Wait()
	for i, p := range mine {
		ls.byPkg[p] = append(ls.byPkg[p], res[i]...)
		for k, n := range exts[i] {
			ls.external[k] = n
		}
		done[p] = true
	}
	for p, l := range tl.implements(mine, variants) {
		ls.byPkg[p] = append(ls.byPkg[p], l...)
	}
	trace("walked in %v", time.Since(tLoad))
	if n := len(own) - len(mine); n > 0 {
		why := "cgo only, or a vendored copy nothing imports"
		if firstErr != "" {
			why = firstErrLine(firstErr)
		}
		return len(mine), fmt.Errorf("%s: %s", g.modRoot, why)
	}
	return len(mine), nil
}

func trace(format string, args ...any) {
	if traceTyped {
		fmt.Fprintf(os.Stderr, "typed: "+format+"\n", args...)
	}
}

// traceTyped prints the typed pass's timings to standard error
// (GOLDFISH_TYPED_TRACE=1), for measuring where a large load goes.
var traceTyped = os.Getenv("GOLDFISH_TYPED_TRACE") != ""

// check type-checks the listed packages, each once its imports are,
// several at a time. The tree's packages are checked with their bodies
// and keep the uses and selections the walk reads; a dependency outside
// the tree is checked without bodies and keeps only its types.
func (tl *typedLoad) check(order []*checked, all map[*packages.Package]*checked) {
	sem := make(chan struct{}, max(1, tl.workers()))
	var wg sync.WaitGroup
	for _, c := range order {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer close(c.done)
			for _, ip := range c.lp.Imports {
				if d := all[ip]; d != nil {
					<-d.done
				}
			}
			sem <- struct{}{}
			defer func() { <-sem }()
			tl.check1(c, all)
			if tl.progress != nil {
				tl.mu.Lock()
				tl.checked++
				tl.progress(tl.checked, len(order))
				tl.mu.Unlock()
			}
		}()
	}
	wg.Wait()
}

func (tl *typedLoad) check1(c *checked, all map[*packages.Package]*checked) {
	lp := c.lp
	if lp.PkgPath == "unsafe" {
		c.types = types.Unsafe
		return
	}
	files := lp.CompiledGoFiles
	if len(files) == 0 {
		files = lp.GoFiles
	}
	if len(files) == 0 {
		return
	}
	for _, name := range files {
		if f := tl.asts[name]; f != nil {
			c.files = append(c.files, f)
			continue
		}
		f, err := parser.ParseFile(tl.fset, name, nil, parser.SkipObjectResolution)
		if f == nil {
			c.errs++
			continue
		}
		if err != nil {
			c.errs++
		}
		c.files = append(c.files, f)
	}
	conf := types.Config{
		Importer: importerFunc(func(path string) (*types.Package, error) {
			if path == "unsafe" {
				return types.Unsafe, nil
			}
			if d := all[lp.Imports[path]]; d != nil && d.types != nil {
				return d.types, nil
			}
			return nil, fmt.Errorf("%s not loaded", path)
		}),
		IgnoreFuncBodies: c.own == nil,
		FakeImportC:      true,
		Error:            func(error) { c.errs++ },
		Sizes:            types.SizesFor("gc", runtime.GOARCH),
	}
	if c.own != nil {
		c.info = &types.Info{Uses: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{}}
	}
	c.types, _ = conf.Check(lp.PkgPath, tl.fset, c.files, c.info)
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

func (tl *typedLoad) workers() int {
	if tl.opts.Workers > 0 {
		return tl.opts.Workers
	}
	return runtime.GOMAXPROCS(0)
}

func firstErrLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return clipN(s, 200)
}

// walkPkg collects one package's calls and refs.
type walkPkg struct {
	tl   *typedLoad
	seen map[link]bool         // the links so far
	met  map[types.Object]bool // the objects met in the function being walked
	out  []link
	ext  map[string]Node
}

// declOf finds the node of the declaration whose name is at pos: the
// checker read the syntax pass's own trees, so an object of the tree has
// the position the syntax pass recorded.
func (w *walkPkg) declOf(pos token.Pos) (Ref, bool) {
	r, ok := w.tl.decls[pos]
	return r, ok
}

// inTree reports whether pos lies in a directory of the tree's packages.
func (w *walkPkg) inTree(pos token.Pos) bool {
	tf := w.tl.fset.File(pos)
	if tf == nil {
		return false
	}
	_, ok := w.tl.inTree[filepath.Dir(tf.Name())]
	return ok
}

// add records a link once. A function's call of itself is a calls edge
// from its node to itself (a self-loop), so "is F recursive?" is a
// question the graph answers.
func (w *walkPkg) add(typ string, from, to Ref) {
	l := link{typ, from, to}
	if w.seen[l] {
		return
	}
	w.seen[l] = true
	w.out = append(w.out, l)
}

func (w *walkPkg) walk(files []*ast.File, info *types.Info) {
	for _, f := range files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			from, ok := w.declOf(fd.Name.Pos())
			if !ok {
				continue
			}
			// Each object once per function: most are met many times,
			// and an object is cheaper to look up than a link.
			clear(w.met)
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				switch x := n.(type) {
				case *ast.CallExpr:
					if fn := calleeOf(info, x); fn != nil && !w.met[fn] {
						w.met[fn] = true
						w.call(from, fn)
					}
				case *ast.Ident:
					if obj := info.Uses[x]; obj != nil && !w.met[obj] {
						if _, isFunc := obj.(*types.Func); !isFunc {
							w.met[obj] = true
							w.ref(from, obj)
						}
					}
				}
				return true
			})
		}
	}
}

// calleeOf is the function or method a call names, nil for a call of a
// value, a conversion or a builtin.
func calleeOf(info *types.Info, c *ast.CallExpr) *types.Func {
	fun := ast.Unparen(c.Fun)
	switch x := fun.(type) {
	case *ast.IndexExpr:
		fun = ast.Unparen(x.X)
	case *ast.IndexListExpr:
		fun = ast.Unparen(x.X)
	}
	var obj types.Object
	switch x := fun.(type) {
	case *ast.Ident:
		obj = info.Uses[x]
	case *ast.SelectorExpr:
		if sel, ok := info.Selections[x]; ok {
			if sel.Kind() == types.FieldVal {
				return nil // a field of function type
			}
			obj = sel.Obj()
		} else {
			obj = info.Uses[x.Sel] // a package-qualified function
		}
	}
	fn, _ := obj.(*types.Func)
	if fn == nil {
		return nil
	}
	return fn.Origin()
}

func (w *walkPkg) call(from Ref, fn *types.Func) {
	if to, ok := w.declOf(fn.Pos()); ok {
		w.add("calls", from, to)
		return
	}
	if fn.Pkg() == nil || w.inTree(fn.Pos()) {
		return // a builtin method (error.Error), or a declaration the syntax pass left out
	}
	loc := externalLoc(fn)
	if loc == "" {
		return
	}
	if _, ok := w.ext[loc]; !ok {
		props := []Prop{{Key: "name", Val: fn.Name()}, {Key: "pkg", Val: fn.Pkg().Path()}}
		w.ext[loc] = Node{Kind: "FN", Loc: loc, Props: props}
	}
	w.add("calls", from, Ref{"FN", loc})
}

// externalLoc is the locator of a function outside the tree, built as the
// syntax pass builds the tree's: "importpath.Name", "importpath.Type.Name".
func externalLoc(fn *types.Func) string {
	sig, _ := fn.Type().(*types.Signature)
	if sig == nil || sig.Recv() == nil {
		return fn.Pkg().Path() + "." + fn.Name()
	}
	t := types.Unalias(sig.Recv().Type())
	if p, ok := t.(*types.Pointer); ok {
		t = types.Unalias(p.Elem())
	}
	if n, ok := t.(*types.Named); ok {
		return fn.Pkg().Path() + "." + n.Origin().Obj().Name() + "." + fn.Name()
	}
	return "" // a method of an unnamed interface
}

// ref adds a refs link for a use of a package-level variable or constant
// of the tree.
func (w *walkPkg) ref(from Ref, obj types.Object) {
	switch obj.(type) {
	case *types.Var, *types.Const:
	default:
		return
	}
	if obj.Pkg() == nil || obj.Parent() != obj.Pkg().Scope() {
		return // a local, a field, a parameter
	}
	if to, ok := w.declOf(obj.Pos()); ok {
		w.add("refs", from, to)
	}
}

// implements lists, for the named non-generic non-interface types of the
// group's packages, an implements link to each interface of those
// packages (with methods, no type terms) that the type or its pointer
// satisfies (the pointer's method set holds the value's). Candidates are
// the types having the interface's rarest method, so the cost follows the
// pairs that share a method, not types × interfaces. The links are listed
// under the package of their type, sorted.
func (tl *typedLoad) implements(mine []*pkg, variants map[*pkg][]*checked) map[*pkg][]link {
	type named struct {
		t   types.Type
		ref Ref
		p   *pkg
	}
	var concrete, ifaces []named
	byMethod := map[string][]int{} // method Id → concrete types having it
	seen := map[Ref]bool{}
	w := &walkPkg{tl: tl}
	for _, p := range mine {
		for _, v := range variants[p] {
			sc := v.types.Scope()
			for _, name := range sc.Names() {
				tn, ok := sc.Lookup(name).(*types.TypeName)
				if !ok || tn.IsAlias() {
					continue
				}
				nt, ok := tn.Type().(*types.Named)
				if !ok || nt.TypeParams().Len() > 0 {
					continue
				}
				ref, ok := w.declOf(tn.Pos())
				if !ok || seen[ref] {
					continue
				}
				seen[ref] = true
				if it, ok := nt.Underlying().(*types.Interface); ok {
					if it.NumMethods() > 0 && it.IsMethodSet() {
						ifaces = append(ifaces, named{nt, ref, p})
					}
					continue
				}
				i := len(concrete)
				concrete = append(concrete, named{nt, ref, p})
				ms := types.NewMethodSet(types.NewPointer(nt))
				for j := range ms.Len() {
					id := ms.At(j).Obj().Id()
					byMethod[id] = append(byMethod[id], i)
				}
			}
		}
	}
	out := map[*pkg][]link{}
	for _, in := range ifaces {
		it := in.t.Underlying().(*types.Interface)
		// The method fewest types have.
		best := -1
		for j := range it.NumMethods() {
			n := len(byMethod[it.Method(j).Id()])
			if best < 0 || n < len(byMethod[it.Method(best).Id()]) {
				best = j
			}
		}
		for _, ci := range byMethod[it.Method(best).Id()] {
			c := concrete[ci]
			if types.Implements(types.NewPointer(c.t), it) {
				out[c.p] = append(out[c.p], link{"implements", c.ref, in.ref})
			}
		}
	}
	for _, ls := range out {
		sort.Slice(ls, func(i, j int) bool {
			if ls[i].from != ls[j].from {
				return ls[i].from.Loc < ls[j].from.Loc
			}
			return ls[i].to.Loc < ls[j].to.Loc
		})
	}
	return out
}
