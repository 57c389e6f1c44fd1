package golang

import (
	"fmt"
	"go/ast"
	"go/token"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// The Δs: a builder turns the loaded packages into Ingest calls, each a
// fixed statement text per kind and chunk size with the values as
// $parameters (see the package doc): nodes and contains edges per file,
// imports between the tree's packages, and the calls, refs and implements
// edges the links carry.

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

// count adds link l to st's counts of calls (in the tree and out of it),
// refs and implements edges.
func (ls *links) count(st *Stats, l link) {
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

// stats records in st how the links were resolved and what they hold.
func (ls *links) stats(st *Stats) {
	st.Resolve, st.Typed, st.Untyped, st.TypeErrors, st.TypeNote = ls.mode(), ls.typed, len(ls.untyped), ls.withErrors, ls.note
	for _, l := range ls.all() {
		ls.count(st, l)
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
// to a package-level function of p (f itself too: a recursive call is a
// pair of the function with itself), and x.F(…) where x names an import
// of the file and F is a package-level function of that package in the
// tree; each pair once per caller, in source order.
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
				if to != "" && !seen[to] {
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
	return InsertOf(func(i int) string {
		return fmt.Sprintf("(:%s {loc: $l%d})-[:%s]->(:%s {loc: $n%d})", from, i, typ, to, i)
	})
}

// InsertOf returns the text of one INSERT of n patterns, pattern(i) each:
// how the ingester, Model Snap and the benchmark write a batch.
func InsertOf(pattern func(i int) string) func(n int) string {
	return func(n int) string {
		var sb strings.Builder
		sb.WriteString("INSERT ")
		for i := range n {
			if i > 0 {
				sb.WriteString(", ")
			}
			sb.WriteString(pattern(i))
		}
		return sb.String()
	}
}
