package snap

import (
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/goldfish-gql/goldfish/ingest/golang"
)

// model indexes a loaded Graph for partitioning: every node by number,
// and every edge under its home node, the end whose part keeps it.
type model struct {
	g     *golang.Graph
	nodes []mnode
	index map[golang.Ref]int
	edges []medge
	home  [][]int // node → the edges it is home to
	pkgs  [][]int // package → its nodes: the PKG node, then each file's FILE node and declarations
	files [][][]int
	// callers and callees are the calls between two nodes of the tree,
	// each way, each pair once, a call of itself left out: a function
	// called from another part shows a CALLERS node per calling part.
	callers, callees [][]int
	// key groups a node's callers for counting CALLERS nodes while parts
	// are filled, before it is known which part holds which caller (see
	// setKeys).
	key []int
}

type mnode struct {
	n   golang.Node
	pkg int
}

type medge struct {
	typ        string
	from, to   int
	home, away int
}

// hierarchical edges are kept with their child: a piece of a split
// package then holds one stub for its package (or file), and what it
// holds still knows where it sits, instead of the parent's part holding a
// stub for every child elsewhere.
func hierarchical(typ string) bool { return typ == "contains" }

func newModel(g *golang.Graph) *model {
	m := &model{g: g, index: map[golang.Ref]int{}}
	add := func(n golang.Node, pkg int) int {
		i := len(m.nodes)
		m.nodes = append(m.nodes, mnode{n: n, pkg: pkg})
		m.index[n.Ref()] = i
		return i
	}
	m.pkgs = make([][]int, len(g.Packages))
	m.files = make([][][]int, len(g.Packages))
	for pi, p := range g.Packages {
		m.pkgs[pi] = append(m.pkgs[pi], add(p.Node, pi))
		for _, f := range p.Files {
			set := []int{add(f.Node, pi)}
			for _, d := range f.Decls {
				set = append(set, add(d, pi))
			}
			m.files[pi] = append(m.files[pi], set)
			m.pkgs[pi] = append(m.pkgs[pi], set...)
		}
	}
	// Functions outside the tree are nodes of no package: every part whose
	// calls reach one holds a stub for it.
	for _, n := range g.External {
		add(n, -1)
	}
	m.home = make([][]int, len(m.nodes))
	type key struct {
		from, to int
		typ      string
	}
	seen := make(map[key]bool, len(g.Edges))
	m.callers = make([][]int, len(m.nodes))
	m.callees = make([][]int, len(m.nodes))
	for _, e := range g.Edges {
		from, ok1 := m.index[e.From]
		to, ok2 := m.index[e.To]
		k := key{from, to, e.Type}
		// A self-loop (a recursive call) is kept: it stays in its node's
		// part and needs no stub.
		if !ok1 || !ok2 || seen[k] {
			continue
		}
		seen[k] = true
		me := medge{typ: e.Type, from: from, to: to, home: from, away: to}
		if hierarchical(e.Type) {
			me.home, me.away = to, from
		}
		m.home[me.home] = append(m.home[me.home], len(m.edges))
		m.edges = append(m.edges, me)
		if e.Type == "calls" && from != to && m.nodes[from].pkg >= 0 && m.nodes[to].pkg >= 0 {
			m.callers[to] = append(m.callers[to], from)
			m.callees[from] = append(m.callees[from], to)
		}
	}
	return m
}

// setKeys prepares the count of CALLERS nodes for a budget of n nodes,
// on the directory tree of the packages rooted at root. A part needs one
// for each of its functions and each other part that holds callers of
// it, but the parts are not known while they are being filled; a bin
// counts one per function and key among its callers outside it instead,
// which is never fewer: every part is a bin that was counted so, and the
// callers of one key are always in one part. A caller's key is
//
//   - the highest directory above it whose tree cannot be split: it
//     fits the budget even counting one CALLERS node per outside caller,
//     the most it could need, so partition keeps it in one part;
//   - else its package, when the package cannot be split, by the same
//     reckoning;
//   - else its file, when the file cannot be split (a split package is
//     cut along its files, and only a file over the budget on its own
//     along its declarations);
//   - else the caller itself.
func (m *model) setKeys(n int, root *dirNode) {
	m.key = make([]int, len(m.nodes))
	for x := range m.key {
		m.key[x] = x
	}
	// The sizes are reckoned with one key per caller, the largest there
	// can be; the groups found get their keys once all are found.
	var groups [][]int
	fits := func(xs []int) bool { return m.sizeOf(xs) <= n }
	var walk func(dn *dirNode)
	walk = func(dn *dirNode) {
		pkgs := subtree(dn, nil)
		if len(pkgs) == 0 {
			return
		}
		var xs []int
		for _, p := range pkgs {
			xs = append(xs, m.pkgs[p]...)
		}
		if fits(xs) {
			groups = append(groups, xs)
			return
		}
		if pi := dn.pkg; pi >= 0 {
			switch own := m.pkgs[pi]; {
			case fits(own):
				groups = append(groups, own)
			default:
				for fi, f := range m.files[pi] {
					xs := f
					if fi == 0 {
						xs = append([]int{own[0]}, f...) // a first piece starts with the PKG node
					}
					if fits(xs) {
						groups = append(groups, f)
					}
				}
			}
		}
		for _, c := range dn.children {
			walk(c)
		}
	}
	walk(root)
	for i, xs := range groups {
		for _, x := range xs {
			m.key[x] = len(m.nodes) + i
		}
	}
}

// bin is a set of nodes being filled: its size is its nodes plus the
// stubs it needs, one per node outside it at the far end of an edge it
// is home to, plus its CALLERS nodes as counted by key (model.setKeys).
type bin struct {
	m    *model
	in   map[int]bool
	ext  map[int]int     // outside node → edges of the bin that reach it
	back map[callKey]int // (function of the bin, key) → its callers of that key outside the bin
}

// callKey is a function and the key of some of its callers.
type callKey struct{ fn, key int }

func newBin(m *model) *bin {
	return &bin{m: m, in: map[int]bool{}, ext: map[int]int{}, back: map[callKey]int{}}
}

func (b *bin) size() int { return len(b.in) + len(b.ext) + len(b.back) }

// grown is the size the bin would have with xs added.
func (b *bin) grown(xs []int) int {
	adding := make(map[int]bool, len(xs))
	for _, x := range xs {
		adding[x] = true
	}
	n := b.size()
	counted := map[int]bool{}
	newBack := map[callKey]bool{}
	leaving := map[callKey]int{} // callers of a key that come in
	for _, x := range xs {
		if b.in[x] {
			continue
		}
		n++
		if b.ext[x] > 0 {
			n-- // a stub it no longer needs
		}
		for _, ei := range b.m.home[x] {
			y := b.m.edges[ei].away
			if !b.in[y] && !adding[y] && b.ext[y] == 0 && !counted[y] {
				counted[y] = true
				n++
			}
		}
		for _, c := range b.m.callers[x] {
			if k := (callKey{x, b.m.key[c]}); !b.in[c] && !adding[c] && !newBack[k] {
				newBack[k] = true
				n++
			}
		}
		for _, y := range b.m.callees[x] {
			if k := (callKey{y, b.m.key[x]}); b.back[k] > 0 {
				leaving[k]++
				if leaving[k] == b.back[k] {
					n-- // a CALLERS node it no longer needs
				}
			}
		}
	}
	return n
}

func (b *bin) add(xs []int) {
	for _, x := range xs {
		if b.in[x] {
			continue
		}
		b.in[x] = true
		delete(b.ext, x)
		for _, ei := range b.m.home[x] {
			if y := b.m.edges[ei].away; !b.in[y] {
				b.ext[y]++
			}
		}
		for _, c := range b.m.callers[x] {
			if !b.in[c] {
				b.back[callKey{x, b.m.key[c]}]++
			}
		}
		for _, y := range b.m.callees[x] {
			k := callKey{y, b.m.key[x]}
			if b.back[k] > 1 {
				b.back[k]--
			} else if b.back[k] == 1 {
				delete(b.back, k)
			}
		}
	}
}

// sizeOf is the size of a part made of the nodes xs.
func (m *model) sizeOf(xs []int) int { return newBin(m).grown(xs) }

// partDef is one part before it has a session name.
type partDef struct {
	pkgs  []int // packages, in path order
	nodes []int // its own nodes (no stubs)
	// label names the part as a slash path: a package's directory, a
	// directory whose tree the part holds, "dir/first..last" for a group
	// of small sibling packages, "dir-2" for the second piece of a split
	// package.
	label string
	piece bool
}

// dirNode is one directory of the tree's package directories.
type dirNode struct {
	dir      string // relative, slash-separated; "." for the root
	pkg      int    // the package in it, -1 for none
	children []*dirNode
}

// partition places every node of m in a part of at most n nodes (stubs
// included), deterministically:
//
//   - a directory whose whole tree fits is one part;
//   - otherwise its own package and each child directory are placed on
//     their own, then the small ones among them (under n/4 nodes each)
//     are grouped, in path order, while the group fits;
//   - a package over n is split along its files, in file-name order,
//     greedily: a piece takes the next file while it fits; a file over n
//     on its own is split along its declarations the same way.
//
// A part's CALLERS nodes count as its nodes too. A part goes over n only
// when it holds a single node whose edges need more stubs (or whose
// callers more CALLERS nodes) than that.
func partition(m *model, n int, rootLabel string) []partDef {
	root := &dirNode{dir: ".", pkg: -1}
	dirs := map[string]*dirNode{".": root}
	var ensure func(d string) *dirNode
	ensure = func(d string) *dirNode {
		if dn, ok := dirs[d]; ok {
			return dn
		}
		dn := &dirNode{dir: d, pkg: -1}
		dirs[d] = dn
		parent := path.Dir(d)
		if parent == "" || parent == "/" {
			parent = "."
		}
		pd := ensure(parent)
		pd.children = append(pd.children, dn)
		return dn
	}
	for pi, p := range m.g.Packages {
		ensure(p.Dir).pkg = pi
	}
	for _, dn := range dirs {
		sort.Slice(dn.children, func(i, j int) bool { return dn.children[i].dir < dn.children[j].dir })
	}
	m.setKeys(n, root)
	pl := placer{m: m, n: n, rootLabel: rootLabel}
	final, loose := pl.place(root)
	for _, u := range loose {
		final = append(final, pl.unitPart(u))
	}
	return final
}

type placer struct {
	m         *model
	n         int
	rootLabel string
}

// unit is a package, or the packages of a directory tree, that fits in a
// part.
type unit struct {
	dir   string // its directory (the tree's root)
	pkgs  []int
	nodes []int
	size  int
}

func (pl *placer) label(dir string) string {
	if dir == "." {
		return pl.rootLabel
	}
	return dir
}

func (pl *placer) unitPart(u unit) partDef {
	return partDef{pkgs: u.pkgs, nodes: u.nodes, label: pl.label(u.dir)}
}

// subtree lists the packages at or below dn, in path order.
func subtree(dn *dirNode, out []int) []int {
	if dn.pkg >= 0 {
		out = append(out, dn.pkg)
	}
	for _, c := range dn.children {
		out = subtree(c, out)
	}
	return out
}

func (pl *placer) nodesOf(pkgs []int) []int {
	var xs []int
	for _, p := range pkgs {
		xs = append(xs, pl.m.pkgs[p]...)
	}
	return xs
}

// place returns the final parts of dn's tree, or, when the whole tree
// fits, the one loose unit its parent may group with siblings.
func (pl *placer) place(dn *dirNode) (final []partDef, loose []unit) {
	pkgs := subtree(dn, nil)
	if len(pkgs) == 0 {
		return nil, nil
	}
	nodes := pl.nodesOf(pkgs)
	if size := pl.m.sizeOf(nodes); size <= pl.n {
		return nil, []unit{{dir: dn.dir, pkgs: pkgs, nodes: nodes, size: size}}
	}
	var units []unit
	if dn.pkg >= 0 {
		own := pl.m.pkgs[dn.pkg]
		if size := pl.m.sizeOf(own); size <= pl.n {
			units = append(units, unit{dir: dn.dir, pkgs: []int{dn.pkg}, nodes: own, size: size})
		} else {
			final = append(final, pl.split(dn.pkg, pl.label(dn.dir))...)
		}
	}
	for _, c := range dn.children {
		f, l := pl.place(c)
		final = append(final, f...)
		units = append(units, l...)
	}
	return append(final, pl.group(dn, units)...), nil
}

// group makes parts of the units of one directory level: a unit of at
// least n/4 nodes stands alone; the smaller ones are grouped in path
// order while the group fits (a group's label names its first and last).
func (pl *placer) group(parent *dirNode, units []unit) []partDef {
	var out []partDef
	var cur []unit
	var b *bin
	flush := func() {
		switch len(cur) {
		case 0:
			return
		case 1:
			out = append(out, pl.unitPart(cur[0]))
		default:
			p := partDef{label: pl.groupLabel(parent.dir, cur[0].dir, cur[len(cur)-1].dir)}
			for _, u := range cur {
				p.pkgs = append(p.pkgs, u.pkgs...)
				p.nodes = append(p.nodes, u.nodes...)
			}
			out = append(out, p)
		}
		cur, b = nil, nil
	}
	small := pl.n / 4
	for _, u := range units {
		if u.size >= small {
			out = append(out, pl.unitPart(u))
			continue
		}
		if b != nil && b.grown(u.nodes) > pl.n {
			flush()
		}
		if b == nil {
			b = newBin(pl.m)
		}
		b.add(u.nodes)
		cur = append(cur, u)
	}
	flush()
	return out
}

// groupLabel names a group of sibling units by its first and last: the
// directory itself counts as its own base name.
func (pl *placer) groupLabel(parent, first, last string) string {
	leaf := func(d string) string {
		if d == parent {
			return path.Base(pl.label(d))
		}
		return strings.TrimPrefix(d, parent+"/")
	}
	l := leaf(first) + ".." + leaf(last)
	if parent == "." {
		return l
	}
	return parent + "/" + l
}

// split cuts package pi into pieces of at most n nodes along its files.
func (pl *placer) split(pi int, label string) []partDef {
	m := pl.m
	var pieces [][]int
	var cur []int
	b := newBin(m)
	flush := func() {
		if len(cur) > 0 {
			pieces = append(pieces, cur)
			cur, b = nil, newBin(m)
		}
	}
	put := func(xs []int) {
		b.add(xs)
		cur = append(cur, xs...)
	}
	files := m.files[pi]
	for fi, f := range files {
		xs := f
		if fi == 0 {
			xs = append([]int{m.pkgs[pi][0]}, f...)
		}
		if b.grown(xs) <= pl.n {
			put(xs)
			continue
		}
		flush()
		if b.grown(xs) <= pl.n {
			put(xs)
			continue
		}
		for _, x := range xs { // a file over n: along its declarations
			one := []int{x}
			if len(cur) > 0 && b.grown(one) > pl.n {
				flush()
			}
			put(one)
		}
	}
	if len(files) == 0 {
		put(m.pkgs[pi][:1])
	}
	flush()
	out := make([]partDef, len(pieces))
	for i, p := range pieces {
		out[i] = partDef{pkgs: []int{pi}, nodes: p, label: label + "-" + strconv.Itoa(i+1), piece: true}
	}
	return out
}
