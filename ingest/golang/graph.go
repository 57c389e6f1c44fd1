package golang

import (
	"slices"
	"sort"
	"time"
)

// Graph is a loaded tree as its elements rather than as Δs: the same nodes
// and edges Load's Δs carry, each node under the package and file it comes
// from, for a caller that places them in several sessions (package snap).
type Graph struct {
	// Packages are sorted by import path.
	Packages []Package
	// Edges are every edge of the tree, in a deterministic order: per
	// package its imports and contains edges and its types' has_method
	// edges, then per package its calls, refs and implements edges.
	Edges []Edge
	// External are the functions outside the tree that its functions
	// call (kind FN; loc built as the tree's are; name and pkg), sorted by
	// loc: the calls edges to them are in Edges.
	External []Node
	// Stats count what the graph holds (Deltas, Applied and Ingest stay
	// zero; Nodes leaves External out).
	Stats   Stats
	untyped []string
}

// Package is one package of a Graph.
type Package struct {
	Path string // import path, the PKG node's loc
	Name string // package name
	Dir  string // directory relative to the tree, slash-separated; "." for the root
	Node Node   // the PKG node
	// Files are in file-name order.
	Files []File
}

// File is one file of a Package.
type File struct {
	Node Node // the FILE node
	// Decls are the file's FN, TYPE, VAR and CONST nodes, by kind in the
	// order TYPE, FN, VAR, CONST and in source order inside each kind.
	Decls []Node
}

// Node is one node of a Graph: its kind, its locator and its other
// properties.
type Node struct {
	Kind string
	Loc  string
	// Props are the properties besides loc, sorted by key; each value is
	// a string or an int.
	Props []Prop
}

// Ref returns the node's identity.
func (n Node) Ref() Ref { return Ref{Kind: n.Kind, Loc: n.Loc} }

// Prop is one property of a Node.
type Prop struct {
	Key string
	Val any
}

// Ref names a node of a Graph by what the ingest id rule keys it on:
// (kind, loc).
type Ref struct{ Kind, Loc string }

// Edge is one edge of a Graph; it has no properties.
type Edge struct {
	Type     string // contains, imports, has_method or calls
	From, To Ref
}

// LoadGraph reads the tree under dir as Load does and returns its
// elements instead of Δs.
func LoadGraph(dir string, opts Options) (*Graph, error) {
	t0 := time.Now()
	b, kept, err := loadPackages(dir, opts)
	if err != nil {
		return nil, err
	}
	// The links are resolved (the go command lists the packages, the
	// checker reads them) while the nodes are built: both only read the
	// parsed packages.
	var ls *links
	resolved := make(chan struct{})
	if !opts.NoCalls {
		go func() {
			defer close(resolved)
			ls = resolveLinks(b.root, b, kept, opts)
		}()
	} else {
		close(resolved)
	}
	g := &Graph{Packages: make([]Package, 0, len(kept))}
	st := &g.Stats
	n := 0 // at most the edges between the nodes of the tree
	for _, p := range kept {
		n += len(p.imports)
		for _, f := range p.files {
			n += 1 + 2*len(f.decls)
		}
	}
	g.Edges = make([]Edge, 0, n)
	for _, p := range kept {
		gp := Package{Path: p.path, Name: p.name, Dir: p.dir,
			Node: Node{Kind: "PKG", Loc: p.path, Props: []Prop{{Key: "dir", Val: p.dir}, {Key: "files", Val: len(p.files)}, {Key: "name", Val: p.name}}}}
		pref := gp.Node.Ref()
		for _, ip := range b.importsOf(p) {
			g.Edges = append(g.Edges, Edge{Type: "imports", From: pref, To: Ref{"PKG", ip}})
			st.Imports++
		}
		for _, f := range p.files {
			gf := File{Node: Node{Kind: "FILE", Loc: f.rel, Props: []Prop{{Key: "lines", Val: f.lines}, {Key: "name", Val: f.name}}}}
			fref := gf.Node.Ref()
			g.Edges = append(g.Edges, Edge{Type: "contains", From: pref, To: fref})
			st.SourceBytes += f.size
			// The order of Load's Δs: types, functions, methods, vars,
			// consts, each in source order.
			var fns, methods, vars, consts []decl
			for _, d := range f.decls {
				switch {
				case d.kind == "TYPE":
					gf.Decls = append(gf.Decls, declNode(d))
				case d.kind == "FN" && d.recv != "" && p.types[d.recv]:
					methods = append(methods, d)
				case d.kind == "FN":
					fns = append(fns, d)
				case d.kind == "VAR":
					vars = append(vars, d)
				default:
					consts = append(consts, d)
				}
			}
			for _, ds := range [][]decl{fns, methods, vars, consts} {
				for _, d := range ds {
					gf.Decls = append(gf.Decls, declNode(d))
				}
			}
			for _, n := range gf.Decls {
				g.Edges = append(g.Edges, Edge{Type: "contains", From: fref, To: n.Ref()})
			}
			for _, d := range methods {
				g.Edges = append(g.Edges, Edge{Type: "has_method", From: Ref{"TYPE", p.path + "." + d.recv}, To: Ref{"FN", d.loc}})
			}
			st.Files++
			st.Decls += len(gf.Decls)
			st.Nodes += 1 + len(gf.Decls)
			gp.Files = append(gp.Files, gf)
		}
		st.Packages++
		st.Nodes++
		g.Packages = append(g.Packages, gp)
	}
	trace("nodes built at %v", time.Since(t0))
	<-resolved
	if ls != nil {
		trace("links resolved at %v", time.Since(t0))
		n := 0
		for _, p := range kept {
			n += len(ls.byPkg[p])
		}
		g.Edges = slices.Grow(g.Edges, n)
		// What ls.stats counts, counted here as the edges are added.
		st.Resolve, st.Typed, st.Untyped, st.TypeErrors, st.TypeNote = ls.mode(), ls.typed, len(ls.untyped), ls.withErrors, ls.note
		for _, p := range kept {
			for _, l := range ls.byPkg[p] {
				g.Edges = append(g.Edges, Edge{Type: l.typ, From: l.from, To: l.to})
				ls.count(st, l)
			}
		}
		locs := make([]string, 0, len(ls.external))
		for l := range ls.external {
			locs = append(locs, l)
		}
		sort.Strings(locs)
		for _, l := range locs {
			g.External = append(g.External, ls.external[l])
		}
	}
	st.Edges = len(g.Edges)
	st.Load = time.Since(t0)
	return g, nil
}

func declNode(d decl) Node {
	props := []Prop{{Key: "at", Val: d.at}}
	if d.doc != "" {
		props = append(props, Prop{Key: "doc", Val: d.doc})
	}
	props = append(props, Prop{Key: "name", Val: d.name})
	if d.recv != "" {
		props = append(props, Prop{Key: "recv", Val: d.recv})
	}
	return Node{Kind: d.kind, Loc: d.loc, Props: append(props, Prop{Key: "sig", Val: d.sig})}
}
