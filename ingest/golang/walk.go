package golang

import (
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"
)

// The typed pass's walk: the bodies of one checked package's functions,
// read with what the checker recorded (types.Info), become its calls and
// refs links. A package is walked as soon as it is checked, so its
// types.Info (the largest part of a check's memory) is dropped before the
// other packages are done.

// walkPkg collects the calls and refs of one checked package.
type walkPkg struct {
	tl  *typedLoad
	met map[types.Object]bool // the objects met in the function being walked
	out []link
	ext map[string]Node
	// fn is where the links of the function being walked start in out;
	// dup holds them once they are many (see add).
	fn  int
	dup map[link]bool
}

func newWalk(tl *typedLoad) *walkPkg {
	return &walkPkg{tl: tl, met: map[types.Object]bool{}, ext: map[string]Node{}}
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
//
// Every function has a node of its own (the syntax pass makes each
// locator unique in its package), so links of different functions differ
// by from and a link can only repeat inside its function: the few links of
// a function are searched, a map is kept only for one with many.
func (w *walkPkg) add(typ string, from, to Ref) {
	l := link{typ, from, to}
	if w.dup != nil {
		if w.dup[l] {
			return
		}
		w.dup[l] = true
	} else {
		mine := w.out[w.fn:]
		for _, o := range mine {
			if o == l {
				return
			}
		}
		if len(mine) >= 32 {
			w.dup = make(map[link]bool, 2*len(mine))
			for _, o := range mine {
				w.dup[o] = true
			}
			w.dup[l] = true
		}
	}
	w.out = append(w.out, l)
}

func (w *walkPkg) walk(files []*ast.File, info *types.Info) {
	refNames := w.tl.refNames
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
			w.fn, w.dup = len(w.out), nil
			// Each object once per function: most are met many times,
			// and an object is cheaper to look up than a link. A map
			// grown by a large function is not cleared for every small
			// one after it (clearing costs its capacity).
			if len(w.met) > 512 {
				w.met = map[types.Object]bool{}
			} else {
				clear(w.met)
			}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				switch x := n.(type) {
				case *ast.CallExpr:
					if fn := calleeOf(info, x); fn != nil && !w.met[fn] {
						w.met[fn] = true
						w.call(from, fn)
					}
				case *ast.Ident:
					// Only a name some package-level variable or
					// constant of the tree has can be a ref: the others
					// (locals, fields, functions, types) are not looked
					// up at all.
					if !refNames[x.Name] {
						return false
					}
					if obj := info.Uses[x]; obj != nil && !w.met[obj] {
						if _, isFunc := obj.(*types.Func); !isFunc {
							w.met[obj] = true
							w.ref(from, obj)
						}
					}
					return false
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
