package golang

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/types"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

// TestTypedSameAsPlainOrder: the typed pass (packages checked several at a
// time, the longest chain of importers first, each walked as soon as it is
// checked, with only the identifiers that can be refs looked up, and the
// variants not read checked without bodies) finds exactly the links, in
// the same order, the external callees and the error counts of the plain
// order below: every listed package checked one after another with all
// its bodies and every use recorded, then every variant walked, then the
// implements edges resolved.
func TestTypedSameAsPlainOrder(t *testing.T) {
	src := filepath.Join(runtime.GOROOT(), "src")
	cases := []struct {
		name string
		dir  string
		opts Options
		std  bool
	}{
		{"typed", "testdata/typed", Options{}, false},
		{"typed tests", "testdata/typed", Options{Tests: true}, false},
		{"tree tests", "testdata/tree", Options{Tests: true}, false},
		{"recursive", "testdata/recursive", Options{}, false},
		// A slice of the standard library: generics (slices, maps, iter),
		// interfaces across packages (io, fmt, encoding), vendored code
		// (net/http), and with tests the test variants and external
		// test packages.
		{"std", src, Options{Only: []string{"encoding/json", "net/http", "slices", "go/ast"}}, true},
		{"std tests", src, Options{Only: []string{"encoding/json", "text/template", "maps"}, Tests: true}, true},
		{"std one worker", src, Options{Only: []string{"go/parser"}, Workers: 1}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.std && testing.Short() {
				t.Skip("type-checks part of the standard library")
			}
			b, kept, err := loadPackages(tc.dir, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			tl := newTypedLoad(b.root, b, kept, tc.opts)
			<-b.listing.done
			got := &links{byPkg: map[*pkg][]link{}, external: map[string]Node{}}
			done := map[*pkg]bool{}
			typed := 0
			for _, g := range b.listing.groups {
				n, _ := tl.load(g, got, done)
				typed += n
			}
			want, wantTyped := plainOrder(t, tl, b.listing.groups)
			if typed != wantTyped || typed == 0 {
				t.Errorf("%d packages typed; the plain order types %d", typed, wantTyped)
			}
			if got.withErrors != want.withErrors {
				t.Errorf("%d packages with errors; the plain order has %d", got.withErrors, want.withErrors)
			}
			n := 0
			for _, p := range kept {
				g, w := got.byPkg[p], want.byPkg[p]
				n += len(w)
				if !slices.Equal(g, w) {
					t.Errorf("%s: %d links, the plain order %d; first difference: %s", p.path, len(g), len(w), firstDiff(g, w))
				}
			}
			if n == 0 {
				t.Fatal("the plain order found no links")
			}
			if len(got.external) != len(want.external) {
				t.Errorf("%d external callees; the plain order has %d", len(got.external), len(want.external))
			}
			for k, wn := range want.external {
				if gn, ok := got.external[k]; !ok || fmt.Sprint(gn) != fmt.Sprint(wn) {
					t.Errorf("external %s: %v; the plain order %v", k, gn, wn)
				}
			}
		})
	}
}

func firstDiff(a, b []link) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return fmt.Sprintf("#%d %v, the plain order %v", i, a[i], b[i])
		}
	}
	if len(a) > len(b) {
		return fmt.Sprintf("#%d %v extra", len(b), a[len(b)])
	}
	if len(b) > len(a) {
		return fmt.Sprintf("#%d %v missing", len(a), b[len(a)])
	}
	return "none"
}

// plainChecked is one listed package as the plain order checks it.
type plainChecked struct {
	lp    *packages.Package
	own   *pkg
	files []*ast.File
	info  *types.Info
	types *types.Package
	errs  int
}

// plainOrder resolves the groups' links the plain way.
func plainOrder(t *testing.T, tl *typedLoad, groups []*group) (*links, int) {
	ls := &links{byPkg: map[*pkg][]link{}, external: map[string]Node{}}
	typed := 0
	for _, g := range groups {
		own := map[string]*pkg{}
		for _, d := range g.dirs {
			if p := tl.b.byDir[d]; p != nil {
				own[filepath.Join(tl.root, filepath.FromSlash(d))] = p
			}
		}
		if g.err != nil || len(g.roots) == 0 || len(own) == 0 {
			continue
		}
		all := map[*packages.Package]*plainChecked{}
		var order []*plainChecked
		packages.Visit(g.roots, nil, func(lp *packages.Package) {
			c := &plainChecked{lp: lp}
			all[lp] = c
			order = append(order, c)
			if len(lp.GoFiles) > 0 && !(strings.HasSuffix(lp.PkgPath, ".test") && lp.Name == "main") {
				c.own = own[filepath.Dir(lp.GoFiles[0])]
			}
		})
		// Imports first, one at a time.
		for _, c := range order {
			plainCheck(t, tl, c, all)
		}
		variants := map[*pkg][]*plainChecked{}
		for _, c := range order {
			if c.own != nil && c.types != nil && c.info != nil {
				variants[c.own] = append(variants[c.own], c)
			}
		}
		var mine []*pkg
		for p, vs := range variants {
			if tl.opts.Tests {
				var test []*plainChecked
				for _, v := range vs {
					if v.lp.ForTest != "" || strings.HasSuffix(v.lp.Name, "_test") {
						test = append(test, v)
					}
				}
				if len(test) > 0 {
					vs = test
				}
			} else {
				vs = slices.DeleteFunc(vs, func(v *plainChecked) bool { return v.lp.ForTest != "" })
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
		for _, p := range mine {
			w := &plainWalk{tl: tl, seen: map[link]bool{}, ext: map[string]Node{}}
			for _, v := range variants[p] {
				w.walk(v.files, v.info)
			}
			ls.byPkg[p] = w.out
			for k, n := range w.ext {
				ls.external[k] = n
			}
		}
		for p, l := range plainImplements(tl, mine, variants) {
			ls.byPkg[p] = append(ls.byPkg[p], l...)
		}
		typed += len(mine)
	}
	return ls, typed
}

func plainCheck(t *testing.T, tl *typedLoad, c *plainChecked, all map[*packages.Package]*plainChecked) {
	lp := c.lp
	if lp.PkgPath == "unsafe" {
		c.types = types.Unsafe
		return
	}
	if len(lp.GoFiles) == 0 {
		return
	}
	for _, name := range lp.GoFiles {
		if f := tl.files[name]; f != nil {
			c.files = append(c.files, f.ast)
			continue
		}
		f, err := parser.ParseFile(tl.fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			c.errs++
		}
		if f != nil {
			c.files = append(c.files, f)
		}
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

// plainWalk reads every identifier and every call of a package's
// variants, one set of links for all of them.
type plainWalk struct {
	tl   *typedLoad
	seen map[link]bool
	out  []link
	ext  map[string]Node
}

func (w *plainWalk) add(l link) {
	if !w.seen[l] {
		w.seen[l] = true
		w.out = append(w.out, l)
	}
}

func (w *plainWalk) walk(files []*ast.File, info *types.Info) {
	for _, f := range files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			from, ok := w.tl.decls[fd.Name.Pos()]
			if !ok {
				continue
			}
			met := map[types.Object]bool{}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				switch x := n.(type) {
				case *ast.CallExpr:
					fn := calleeOf(info, x)
					if fn == nil || met[fn] {
						break
					}
					met[fn] = true
					if to, ok := w.tl.decls[fn.Pos()]; ok {
						w.add(link{"calls", from, to})
						break
					}
					if fn.Pkg() == nil || (&walkPkg{tl: w.tl}).inTree(fn.Pos()) {
						break
					}
					if loc := externalLoc(fn); loc != "" {
						if _, ok := w.ext[loc]; !ok {
							w.ext[loc] = Node{Kind: "FN", Loc: loc, Props: []Prop{{Key: "name", Val: fn.Name()}, {Key: "pkg", Val: fn.Pkg().Path()}}}
						}
						w.add(link{"calls", from, Ref{"FN", loc}})
					}
				case *ast.Ident:
					obj := info.Uses[x]
					if obj == nil || met[obj] {
						break
					}
					switch obj.(type) {
					case *types.Var, *types.Const:
						met[obj] = true
						if obj.Pkg() != nil && obj.Parent() == obj.Pkg().Scope() {
							if to, ok := w.tl.decls[obj.Pos()]; ok {
								w.add(link{"refs", from, to})
							}
						}
					}
				}
				return true
			})
		}
	}
}

// plainImplements resolves the implements edges in one pass over the
// variants' types.
func plainImplements(tl *typedLoad, mine []*pkg, variants map[*pkg][]*plainChecked) map[*pkg][]link {
	type named struct {
		t   types.Type
		ref Ref
		p   *pkg
	}
	var concrete, ifaces []named
	byMethod := map[string][]int{}
	seen := map[Ref]bool{}
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
				ref, ok := tl.decls[tn.Pos()]
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
					byMethod[ms.At(j).Obj().Id()] = append(byMethod[ms.At(j).Obj().Id()], i)
				}
			}
		}
	}
	out := map[*pkg][]link{}
	for _, in := range ifaces {
		it := in.t.Underlying().(*types.Interface)
		best := -1
		for j := range it.NumMethods() {
			if n := len(byMethod[it.Method(j).Id()]); best < 0 || n < len(byMethod[it.Method(best).Id()]) {
				best = j
			}
		}
		for _, ci := range byMethod[it.Method(best).Id()] {
			if c := concrete[ci]; types.Implements(types.NewPointer(c.t), it) {
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
