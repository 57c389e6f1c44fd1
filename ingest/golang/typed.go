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
	root   string // absolute, symlinks resolved
	b      *builder
	kept   []*pkg
	fset   *token.FileSet
	files  map[string]*file  // absolute file name → the syntax pass's file (and tree)
	decls  map[token.Pos]Ref // position of a declaration's name → its node
	inTree map[string]*pkg   // absolute directory (as given and with symlinks resolved) → package
	// refNames are the names of the tree's package-level variables and
	// constants: an identifier with another name is not a ref.
	refNames map[string]bool
	opts     Options
	progress func(done, total int)
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
	tl := newTypedLoad(root, b, kept, opts)
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

// newTypedLoad indexes the kept packages for the typed pass: their files
// by name, their declarations by position, their directories.
func newTypedLoad(root string, b *builder, kept []*pkg, opts Options) *typedLoad {
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		real = root
	}
	nf, nd := 0, 0
	for _, p := range kept {
		for _, f := range p.files {
			nf++
			nd += len(f.decls)
		}
	}
	tl := &typedLoad{root: real, b: b, kept: kept, fset: b.fset, files: make(map[string]*file, nf), decls: make(map[token.Pos]Ref, nd),
		inTree: make(map[string]*pkg, 2*len(kept)), refNames: map[string]bool{}, opts: opts, progress: opts.Progress}
	for _, p := range kept {
		tl.inTree[filepath.Join(real, filepath.FromSlash(p.dir))] = p
		tl.inTree[filepath.Join(root, filepath.FromSlash(p.dir))] = p
		for _, f := range p.files {
			// The go command names files under the resolved root.
			tl.files[filepath.Join(real, filepath.FromSlash(f.rel))] = f
			for _, d := range f.decls {
				tl.decls[d.pos] = Ref{d.kind, d.loc}
				if d.kind == "VAR" || d.kind == "CONST" {
					tl.refNames[d.name] = true
				}
			}
		}
	}
	return tl
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
// and type-checks itself, keeping only the facts it reads. The files
// compiled are the Go files: with cgo off there is no cgo output, and
// asking for them (go list -compiled) doubles the listing's time.
const listMode = packages.NeedName | packages.NeedFiles | packages.NeedImports | packages.NeedDeps

// checked is one listed package and what checking it gave.
type checked struct {
	lp    *packages.Package
	own   *pkg // the tree's package it is (a variant of); nil for a dependency
	types *types.Package
	errs  int
	// walk: the variant read for its package's links (see load), out and
	// ext what its walk found.
	walk  bool
	out   []link
	ext   map[string]Node
	named []named // its types implements edges may join
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
		c := &checked{lp: lp}
		all[lp] = c
		order = append(order, c)
		files := lp.GoFiles
		if len(files) > 0 && !(strings.HasSuffix(lp.PkgPath, ".test") && lp.Name == "main") {
			c.own = own[filepath.Dir(files[0])]
		}
		if c.own != nil && len(lp.Errors) > 0 && firstErr == "" {
			firstErr = lp.Errors[0].Error()
		}
	})
	// The variants to read per package of the tree: with tests, a
	// package's test variant (its own files and its _test.go files) and
	// its external test package; else the package itself. They are
	// chosen from the listing, before checking, so each is walked as
	// soon as it is checked.
	variants := map[*pkg][]*checked{}
	for _, c := range order {
		if c.own == nil || c.lp.PkgPath == "unsafe" || len(c.lp.GoFiles) == 0 {
			continue // unsafe has no syntax to walk; a package without files no types
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
				v.walk = true
			}
		}
	}
	sort.Slice(mine, func(i, j int) bool { return mine[i].path < mine[j].path })
	tl.check(order, all)
	trace("checked and walked in %v", time.Since(tLoad))
	for _, p := range mine {
		vs := variants[p]
		for _, v := range vs {
			if v.errs > 0 {
				ls.withErrors++
				break
			}
		}
		// A link found in two variants (a package and its test
		// variant share files) is kept once, where first found; an
		// external callee keeps the first variant's node.
		out, ext := vs[0].out, vs[0].ext
		if len(vs) > 1 {
			seen := map[link]bool{}
			ext = map[string]Node{}
			out = nil
			for _, v := range vs {
				for _, l := range v.out {
					if !seen[l] {
						seen[l] = true
						out = append(out, l)
					}
				}
				for k, n := range v.ext {
					if _, ok := ext[k]; !ok {
						ext[k] = n
					}
				}
			}
		}
		ls.byPkg[p] = out
		for k, n := range ext {
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

func (tl *typedLoad) check1(c *checked, all map[*packages.Package]*checked) {
	lp := c.lp
	if lp.PkgPath == "unsafe" {
		c.types = types.Unsafe
		return
	}
	files := lp.GoFiles
	if len(files) == 0 {
		return
	}
	var asts []*ast.File
	size := 0
	for _, name := range files {
		if f := tl.files[name]; f != nil {
			asts = append(asts, f.ast)
			size += int(f.size)
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
		asts = append(asts, f)
		size += tl.fset.File(f.FileStart).Size()
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
		// Only the variants walked need their bodies checked: the
		// others (a dependency outside the tree, a package whose test
		// variant is read instead) serve their importers with types,
		// which bodies do not change.
		IgnoreFuncBodies: !c.walk,
		FakeImportC:      true,
		Error:            func(error) { c.errs++ },
		Sizes:            types.SizesFor("gc", runtime.GOARCH),
	}
	var info *types.Info
	if c.walk {
		// Sized from the source, as a map grown entry by entry
		// rehashes all it holds several times: in the standard library
		// a package records about one use per 22 bytes of source and
		// one selection per 160, and few more than one per 13 and per
		// 60.
		info = &types.Info{
			Uses:       make(map[*ast.Ident]types.Object, size/16),
			Selections: make(map[*ast.SelectorExpr]*types.Selection, size/64),
		}
	}
	c.types, _ = conf.Check(lp.PkgPath, tl.fset, asts, info)
	if c.walk {
		w := newWalk(tl)
		w.walk(asts, info)
		c.out, c.ext = w.out, w.ext
		c.named = tl.namedTypes(c.types)
	}
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
