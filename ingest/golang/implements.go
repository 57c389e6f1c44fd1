package golang

import (
	"go/types"
	"sort"
	"sync"
)

// named is a named type of the tree that implements edges may join: an
// interface with methods and no type terms, or a non-interface type with
// the Ids of its pointer's method set (which holds its value's).
type named struct {
	t     *types.Named
	ref   Ref
	iface bool
	ids   []string
}

// namedTypes lists the named non-generic types of a checked variant that
// the syntax pass has nodes for, in scope order. It runs where the variant
// is checked, so the method sets are computed in parallel.
func (tl *typedLoad) namedTypes(tp *types.Package) []named {
	var out []named
	w := &walkPkg{tl: tl}
	sc := tp.Scope()
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
		if !ok {
			continue
		}
		if it, ok := nt.Underlying().(*types.Interface); ok {
			if it.NumMethods() > 0 && it.IsMethodSet() {
				out = append(out, named{t: nt, ref: ref, iface: true})
			}
			continue
		}
		ms := types.NewMethodSet(types.NewPointer(nt))
		ids := make([]string, ms.Len())
		for j := range ms.Len() {
			ids[j] = ms.At(j).Obj().Id()
		}
		out = append(out, named{t: nt, ref: ref, ids: ids})
	}
	return out
}

// implements lists, for the named non-generic non-interface types of the
// group's packages, an implements link to each interface of those
// packages (with methods, no type terms) that the type or its pointer
// satisfies (the pointer's method set holds the value's). Candidates are
// the types having the interface's rarest method, so the cost follows the
// pairs that share a method, not types × interfaces. A type met in two
// variants of a package counts once, as the first. The links are listed
// under the package of their type, sorted.
func (tl *typedLoad) implements(mine []*pkg, variants map[*pkg][]*checked) map[*pkg][]link {
	type at struct {
		named
		p *pkg
	}
	var concrete, ifaces []at
	byMethod := map[string][]int{} // method Id → concrete types having it
	seen := map[Ref]bool{}
	for _, p := range mine {
		for _, v := range variants[p] {
			for _, n := range v.named {
				if seen[n.ref] {
					continue
				}
				seen[n.ref] = true
				if n.iface {
					ifaces = append(ifaces, at{n, p})
					continue
				}
				i := len(concrete)
				concrete = append(concrete, at{n, p})
				for _, id := range n.ids {
					byMethod[id] = append(byMethod[id], i)
				}
			}
		}
	}
	// The interfaces are shared among the workers; the links are sorted
	// at the end, so the order they are found in does not matter.
	workers := max(1, min(tl.workers(), len(ifaces)))
	found := make([][]at, workers) // the type, and the interface's ref
	var wg sync.WaitGroup
	for k := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for x := k; x < len(ifaces); x += workers {
				in := ifaces[x]
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
						found[k] = append(found[k], at{named{ref: in.ref}, c.p}, at{c.named, c.p})
					}
				}
			}
		}()
	}
	wg.Wait()
	out := map[*pkg][]link{}
	for _, f := range found {
		for i := 0; i < len(f); i += 2 {
			out[f[i].p] = append(out[f[i].p], link{"implements", f[i+1].ref, f[i].ref})
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
