package golang_test

// The calls edges of a Graph measured against a reference: the static call
// graph of golang.org/x/tools/go/callgraph/static, built on SSA from the
// type-checked packages of the same tree. The static graph holds exactly the
// calls whose callee is known at compile time (functions, methods on a
// concrete receiver, method expressions), which is what a calls edge FN→FN
// claims; so the share of its in-tree pairs that the graph also holds is
// the recall of the loader's call resolution.

import (
	"bytes"
	"encoding/json"
	"go/token"
	"go/types"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/go/callgraph"
	"golang.org/x/tools/go/callgraph/static"
	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/ssa/ssautil"

	"github.com/goldfish-gql/goldfish/ingest/golang"
)

// staticEnv is the environment of the go command that go/packages runs:
// no workspace of the caller's, no cgo (cgo would hand go/packages
// generated files whose positions are not the tree's), and the installed
// toolchain only, never a download. The graph's loader selects files with
// go/build's default context, cgo on where the test's environment has it:
// a function declared only in a file of the other cgo setting has no
// counterpart, and mapPairs logs those.
func staticEnv() []string {
	return append(os.Environ(), "GOWORK=off", "CGO_ENABLED=0", "GOTOOLCHAIN=local")
}

// declIndex maps a declaration's position to its FN node: key
// "rel/path/file.go:LINE" (the line of the declaration's name), the value
// the FN nodes declared there (more than one only when several functions
// share a line).
type declIndex map[string][]golang.Node

// fnIndex indexes the graph's FN nodes by position. A node's position is
// its prop "at" when it has one; else the loc of the FILE whose contains
// edge reaches it (the file it is listed under, failing that) and its prop
// "line".
func fnIndex(g *golang.Graph) declIndex {
	fileOf := map[golang.Ref]string{}
	for _, e := range g.Edges {
		if e.Type == "contains" && e.From.Kind == "FILE" {
			fileOf[e.To] = e.From.Loc
		}
	}
	idx := declIndex{}
	for _, p := range g.Packages {
		for _, f := range p.Files {
			for _, d := range f.Decls {
				if d.Kind != "FN" {
					continue
				}
				at := ""
				if v, ok := prop(d, "at").(string); ok {
					at = v
				} else if line, ok := prop(d, "line").(int); ok {
					file, ok := fileOf[d.Ref()]
					if !ok {
						file = f.Node.Loc
					}
					at = file + ":" + strconv.Itoa(line)
				}
				if at != "" {
					idx[at] = append(idx[at], d)
				}
			}
		}
	}
	return idx
}

func prop(n golang.Node, key string) any {
	for _, p := range n.Props {
		if p.Key == key {
			return p.Val
		}
	}
	return nil
}

// lookup returns the loc of the FN node declared at at with the given
// name; the name only decides between functions that share a line.
func (idx declIndex) lookup(at, name string) (string, bool) {
	ns := idx[at]
	if len(ns) == 1 {
		return ns[0].Loc, true
	}
	for _, n := range ns {
		if prop(n, "name") == name {
			return n.Loc, true
		}
	}
	return "", false
}

// staticLoad loads the packages of the tree under dir with go/packages
// (its module's "./...", or "std" for $GOROOT/src, whose nested cmd module
// is left out), builds their SSA and returns the static call graph.
//
// The SSA is built without ssa.InstantiateGenerics: a generic function's
// body is then built once, generically, and a call inside it to a method
// of a type parameter stays dynamic, as the source reads; instantiating
// would add, per instance, a static call to each type argument's concrete
// method, which no reading of the declaration can name. A call to a
// generic function goes to an instantiation wrapper whose Origin is the
// declared function.
func staticLoad(t *testing.T, dir string) (*ssa.Program, *callgraph.Graph) {
	t.Helper()
	pattern := "./..."
	if filepath.Clean(dir) == filepath.Join(runtime.GOROOT(), "src") {
		pattern = "std"
	}
	cfg := &packages.Config{Mode: packages.LoadAllSyntax, Dir: dir, Env: staticEnv()}
	pkgs, err := packages.Load(cfg, pattern)
	if err != nil {
		t.Fatalf("go/packages %s: %v", dir, err)
	}
	nerr := 0
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		for _, e := range p.Errors {
			if nerr++; nerr <= 5 {
				t.Logf("go/packages %s: %v", p.PkgPath, e)
			}
		}
	})
	if nerr > 0 {
		t.Fatalf("go/packages %s: %d package errors", dir, nerr)
	}
	prog, _ := ssautil.AllPackages(pkgs, 0)
	prog.Build()
	return prog, static.CallGraph(prog)
}

// fnMapper maps SSA functions to the loc of the graph's FN node declared
// at the same place.
type fnMapper struct {
	fset *token.FileSet
	root string // dir, absolute and with symlinks resolved
	idx  declIndex
}

func newMapper(t *testing.T, dir string, fset *token.FileSet, g *golang.Graph) *fnMapper {
	t.Helper()
	root, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	return &fnMapper{fset: fset, root: root, idx: fnIndex(g)}
}

// loc maps fn to a decl loc of the graph, or "" when it has none:
//
//   - an instance of a generic function (or its instantiation wrapper) is
//     its Origin, the declared generic function;
//   - an anonymous function is the top-level function it is nested in
//     (Parent), as a call from a closure is a call from the function that
//     holds it;
//   - a synthetic function (package initializer, the wrappers of methods)
//     is skipped as a caller: a package initializer runs the var
//     initializers, which have no FN node, and a wrapper's calls are the
//     compiler's, not the source's. As a callee (callee true) a pointer
//     wrapper, a thunk (T.M used as a value or called as a method
//     expression) or a bound method wrapper (x.M as a value) whose Object
//     is a declared method is that method: the source names it there;
//   - then the position of the declaration's name (Object().Pos(), else
//     Pos()) gives the file relative to the tree and the line, and the FN
//     node declared there is the answer. A function in a file outside the
//     tree (a dependency) has none.
func (m *fnMapper) loc(fn *ssa.Function, callee bool) string {
	for {
		if o := fn.Origin(); o != nil {
			fn = o
		}
		if fn.Parent() == nil {
			break
		}
		fn = fn.Parent()
	}
	obj, _ := fn.Object().(*types.Func)
	if fn.Synthetic != "" && (!callee || obj == nil) {
		return ""
	}
	pos := fn.Pos()
	if obj != nil {
		pos = obj.Pos()
	}
	if !pos.IsValid() {
		return ""
	}
	name := fn.Name()
	if obj != nil {
		name = obj.Name()
	}
	// The file as it is on disk (//line directives left aside), its line
	// as the directives say if the plain one finds nothing.
	for _, adjusted := range []bool{false, true} {
		p := m.fset.PositionFor(pos, adjusted)
		rel, err := filepath.Rel(m.root, p.Filename)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		if l, ok := m.idx.lookup(filepath.ToSlash(rel)+":"+strconv.Itoa(p.Line), name); ok {
			return l
		}
	}
	return ""
}

// staticPairs is the reference of the comparison: the static call graph's
// edges between functions that both map to FN nodes of g (see
// fnMapper.loc), as [caller loc, callee loc], a function's calls to itself
// left out.
func staticPairs(t *testing.T, dir string, g *golang.Graph) map[[2]string]bool {
	t.Helper()
	return staticRef(t, dir, g).pairs
}

// staticResult is the static side of a comparison: its pairs, and the FN
// locs that some function of the static graph maps to (the part of the
// tree go/packages read: $GOROOT/src's cmd module, or files of another
// build configuration, are outside it).
//
// closure holds the pairs of the calls in function literals that the
// static graph never enters: static.CallGraph follows static calls from
// the package members and methods, so a function literal that is only
// stored (a struct field, an argument: cobra's Run funcs, the callback of
// fs.WalkDir) is never visited and its calls are not in the graph. Mapped
// to the enclosing function, they are calls that a reading of its body
// sees; they are counted beside N, not in it.
type staticResult struct {
	pairs   map[[2]string]bool
	closure map[[2]string]bool
	scope   map[string]bool
}

func staticRef(t *testing.T, dir string, g *golang.Graph) staticResult {
	t.Helper()
	prog, cg := staticLoad(t, dir)
	return mapPairs(t, newMapper(t, dir, prog.Fset, g), cg)
}

// mapPairs maps the static graph's edges to pairs of FN locs. It logs how
// many edges stay between FN nodes and which in-tree functions found no FN
// node (a file the graph's loader did not select, say), so that a gap in
// the mapping does not pass for a good score.
func mapPairs(t *testing.T, m *fnMapper, cg *callgraph.Graph) staticResult {
	t.Helper()
	r := staticResult{pairs: map[[2]string]bool{}, closure: map[[2]string]bool{}, scope: map[string]bool{}}
	unmapped := map[string]bool{} // in-tree declared functions without an FN node
	edges, kept, lost := 0, 0, 0
	for fn, n := range cg.Nodes {
		if fn == nil {
			continue
		}
		from := m.loc(fn, false)
		if from != "" {
			r.scope[from] = true
		} else if s := m.inTree(fn); s != "" {
			unmapped[s] = true
		}
		for _, e := range n.Out {
			edges++
			if from == "" {
				if m.inTree(fn) != "" {
					lost++
				}
				continue
			}
			to := m.loc(e.Callee.Func, true)
			if to == "" {
				if s := m.inTree(e.Callee.Func); s != "" {
					unmapped[s] = true
					lost++
				}
				continue
			}
			kept++
			if from != to {
				r.pairs[[2]string{from, to}] = true
			}
		}
	}
	seen := map[*ssa.Function]bool{}
	var walk func(fn *ssa.Function)
	walk = func(fn *ssa.Function) {
		for _, a := range fn.AnonFuncs {
			if seen[a] {
				continue
			}
			seen[a] = true
			if cg.Nodes[a] == nil {
				from := m.loc(a, false)
				for _, b := range a.Blocks {
					for _, instr := range b.Instrs {
						site, ok := instr.(ssa.CallInstruction)
						if !ok || from == "" {
							continue
						}
						if callee := site.Common().StaticCallee(); callee != nil {
							if to := m.loc(callee, true); to != "" && to != from && !r.pairs[[2]string{from, to}] {
								r.closure[[2]string{from, to}] = true
							}
						}
					}
				}
			}
			walk(a)
		}
	}
	for fn := range cg.Nodes {
		if fn != nil {
			walk(fn)
		}
	}
	t.Logf("static graph: %d functions, %d edges, %d between FN nodes; %d in-tree functions without an FN node, %d edges lost with them",
		len(cg.Nodes), edges, kept, len(unmapped), lost)
	for i, s := range slices.Sorted(maps.Keys(unmapped)) {
		if i == 5 {
			t.Logf("  … %d more", len(unmapped)-5)
			break
		}
		t.Logf("  no FN node for %s", s)
	}
	return r
}

// inTree describes fn ("name at file:line") when it is a declared,
// non-synthetic function in a file of the tree, else "".
func (m *fnMapper) inTree(fn *ssa.Function) string {
	if o := fn.Origin(); o != nil {
		fn = o
	}
	if fn.Synthetic != "" || fn.Parent() != nil || !fn.Pos().IsValid() {
		return ""
	}
	p := m.fset.PositionFor(fn.Pos(), false)
	rel, err := filepath.Rel(m.root, p.Filename)
	if err != nil || strings.HasPrefix(rel, "..") {
		return ""
	}
	return fn.String() + " at " + filepath.ToSlash(rel) + ":" + strconv.Itoa(p.Line)
}

// ourPairs is what is measured: the graph's calls edges between two of
// its own decl nodes, as [caller loc, callee loc]. Edges to functions
// outside the tree (Graph.External) are left out, as the static pairs
// hold none, and so are a recursive function's calls of itself, as the
// static pairs leave them out.
func ourPairs(g *golang.Graph) map[[2]string]bool {
	decls := map[golang.Ref]bool{}
	for _, p := range g.Packages {
		for _, f := range p.Files {
			for _, d := range f.Decls {
				decls[d.Ref()] = true
			}
		}
	}
	pairs := map[[2]string]bool{}
	for _, e := range g.Edges {
		if e.Type == "calls" && decls[e.From] && decls[e.To] && e.From != e.To {
			pairs[[2]string{e.From.Loc, e.To.Loc}] = true
		}
	}
	return pairs
}

// cmpResult is one comparison: N static pairs, M of ours, C in both;
// MScope of ours between functions the static side read too.
type cmpResult struct {
	N, M, C, MScope int
	// NC pairs from function literals the static graph does not enter
	// (staticResult.closure), CC of them ours.
	NC, CC int
	Missed [][2]string // static pairs we lack, sorted
	Extra  [][2]string // pairs of ours in scope the static graph lacks, sorted
}

// Recall is C/N.
func (r cmpResult) Recall() float64 {
	if r.N == 0 {
		return 1
	}
	return float64(r.C) / float64(r.N)
}

func comparePairs(st staticResult, ours map[[2]string]bool) cmpResult {
	r := cmpResult{N: len(st.pairs), M: len(ours), NC: len(st.closure)}
	for p := range st.closure {
		if ours[p] {
			r.CC++
		}
	}
	for p := range st.pairs {
		if ours[p] {
			r.C++
		} else {
			r.Missed = append(r.Missed, p)
		}
	}
	for p := range ours {
		if st.scope[p[0]] && st.scope[p[1]] {
			r.MScope++
			if !st.pairs[p] && !st.closure[p] {
				r.Extra = append(r.Extra, p)
			}
		}
	}
	slices.SortFunc(r.Missed, comparePair)
	slices.SortFunc(r.Extra, comparePair)
	return r
}

func comparePair(a, b [2]string) int {
	if c := strings.Compare(a[0], b[0]); c != 0 {
		return c
	}
	return strings.Compare(a[1], b[1])
}

// compare loads the tree under dir as a Graph and as the static call
// graph and logs how the graph's in-tree calls edges cover the static
// pairs, with the first 20 it misses (and the first 10 of ours the static
// graph lacks). It returns the numbers and the graph.
func compare(t *testing.T, name, dir string, opts golang.Options) (cmpResult, *golang.Graph, staticResult) {
	t.Helper()
	t0 := time.Now()
	g, err := golang.LoadGraph(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	tg := time.Since(t0)
	t1 := time.Now()
	st := staticRef(t, dir, g)
	ts := time.Since(t1)
	r := comparePairs(st, ourPairs(g))
	t.Logf("%s: static pairs N=%d, ours M=%d (%d in the static side's scope), common C=%d, C/N=%.1f%% (graph %v, static %v)",
		name, r.N, r.M, r.MScope, r.C, 100*r.Recall(), tg.Round(time.Millisecond), ts.Round(time.Millisecond))
	t.Logf("%s: with the calls of the function literals the static graph does not enter: N+%d, C+%d, (C+CC)/(N+NC)=%.1f%%",
		name, r.NC, r.CC, 100*float64(r.C+r.CC)/float64(max(1, r.N+r.NC)))
	logPairs(t, "missed", r.Missed, 20)
	logPairs(t, "not static", r.Extra, 10)
	return r, g, st
}

func logPairs(t *testing.T, what string, ps [][2]string, n int) {
	t.Helper()
	for i, p := range ps {
		if i == n {
			t.Logf("  … %d more %s", len(ps)-n, what)
			break
		}
		t.Logf("  %s %s → %s", what, p[0], p[1])
	}
}

// TestCallsAgainstStatic compares on the small tree of testdata, whose few
// static pairs the graph must all hold; the 95% bound on real trees is
// asserted by the opt-in TestCallsAgainstStaticModules.
func TestCallsAgainstStatic(t *testing.T) {
	for _, dir := range []string{"testdata/tree", "testdata/typed"} {
		r, _, _ := compare(t, dir, dir, golang.Options{})
		if r.N == 0 {
			t.Errorf("no static pairs on %s: the mapping of functions to FN nodes is broken", dir)
		}
		if r.C != r.N {
			t.Errorf("the graph holds %d of the %d static pairs of %s", r.C, r.N, dir)
		}
	}
}

// optIn skips a test that reads whole modules unless GOLDFISH_CALLGRAPH=1.
func optIn(t *testing.T) {
	t.Helper()
	if os.Getenv("GOLDFISH_CALLGRAPH") != "1" {
		t.Skip("compares with the static call graph of whole modules; run with GOLDFISH_CALLGRAPH=1 go test -run 'Static|ExecuteC' -v ./ingest/golang/")
	}
}

// moduleDir returns the directory of mod@version in the module cache,
// downloading it if needed, or skips the test when it cannot be had. The
// go command runs outside any module, so the project's go.mod is not
// touched. The directory is read-only; go/packages in it needs nothing
// written: the go command downloads the modules its go.mod and go.sum name
// as it lists.
func moduleDir(t *testing.T, mod, version string) string {
	t.Helper()
	cmd := exec.Command("go", "mod", "download", "-json", mod+"@"+version)
	cmd.Dir = t.TempDir()
	cmd.Env = staticEnv()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var info struct{ Dir, Error string }
	_ = json.Unmarshal(out.Bytes(), &info)
	if err != nil || info.Dir == "" {
		t.Skipf("%s@%s cannot be had: %v %s %s", mod, version, err, info.Error, errb.String())
	}
	return info.Dir
}

// TestCallsAgainstStaticModules asserts a recall of at least 95% of the
// static pairs on real trees: cobra, x/tools and the standard library.
func TestCallsAgainstStaticModules(t *testing.T) {
	optIn(t)
	for _, tc := range []struct {
		name         string
		mod, version string // empty: the standard library
	}{
		{"cobra", "github.com/spf13/cobra", "v1.10.2"},
		{"x/tools", "golang.org/x/tools", "v0.52.0"},
		{"std", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(runtime.GOROOT(), "src")
			if tc.mod != "" {
				dir = moduleDir(t, tc.mod, tc.version)
			}
			t0 := time.Now()
			r, g, st := compare(t, tc.name, dir, golang.Options{})
			t.Logf("%s: %v", tc.name, time.Since(t0).Round(time.Millisecond))
			if tc.mod == "github.com/spf13/cobra" {
				// The root package alone, without cobra/doc.
				in := pkgFilter(g, tc.mod)
				sub := staticResult{pairs: map[[2]string]bool{}, closure: map[[2]string]bool{}, scope: map[string]bool{}}
				for p := range st.pairs {
					if in[p[0]] && in[p[1]] {
						sub.pairs[p] = true
					}
				}
				for p := range st.closure {
					if in[p[0]] && in[p[1]] {
						sub.closure[p] = true
					}
				}
				for l := range st.scope {
					if in[l] {
						sub.scope[l] = true
					}
				}
				rp := comparePairs(sub, ourPairs(g))
				t.Logf("%s, package %s only: N=%d, ours M=%d, C=%d, C/N=%.1f%%; function literals N+%d C+%d",
					tc.name, tc.mod, rp.N, rp.MScope, rp.C, 100*rp.Recall(), rp.NC, rp.CC)
			}
			if r.Recall() < 0.95 {
				t.Errorf("%s: C/N = %d/%d = %.1f%%, want ≥ 95%% (ours M=%d)", tc.name, r.C, r.N, 100*r.Recall(), r.M)
			}
		})
	}
}

// pkgFilter is the set of the decl locs of package path in g.
func pkgFilter(g *golang.Graph, path string) map[string]bool {
	in := map[string]bool{}
	for _, p := range g.Packages {
		if p.Path != path {
			continue
		}
		for _, f := range p.Files {
			for _, d := range f.Decls {
				in[d.Loc] = true
			}
		}
	}
	return in
}

// executeCStatic are the in-module callees of cobra's Command.ExecuteC as
// the static call graph has them (cobra v1.10.2), sorted: the list the
// graph's in-module calls edges from it must be. Its call to itself
// (c.Root().ExecuteC()) is left out, as from every static pair.
var executeCStatic = []string{
	"github.com/spf13/cobra.Command.CommandPath",
	"github.com/spf13/cobra.Command.ErrPrefix",
	"github.com/spf13/cobra.Command.Find",
	"github.com/spf13/cobra.Command.HasParent",
	"github.com/spf13/cobra.Command.HelpFunc",
	"github.com/spf13/cobra.Command.InitDefaultCompletionCmd",
	"github.com/spf13/cobra.Command.InitDefaultHelpCmd",
	"github.com/spf13/cobra.Command.Name",
	"github.com/spf13/cobra.Command.PrintErrf",
	"github.com/spf13/cobra.Command.PrintErrln",
	"github.com/spf13/cobra.Command.Println",
	"github.com/spf13/cobra.Command.Root",
	"github.com/spf13/cobra.Command.Traverse",
	"github.com/spf13/cobra.Command.UsageString",
	"github.com/spf13/cobra.Command.checkCommandGroups",
	"github.com/spf13/cobra.Command.execute",
	"github.com/spf13/cobra.Command.initCompleteCmd",
}

// TestExecuteCCallees compares the callees of one well-known function,
// cobra's Command.ExecuteC, in the graph (every calls edge from it,
// in-tree or not) and in the static call graph.
func TestExecuteCCallees(t *testing.T) {
	optIn(t)
	dir := moduleDir(t, "github.com/spf13/cobra", "v1.10.2")
	const fn = "github.com/spf13/cobra.Command.ExecuteC"
	g, err := golang.LoadGraph(dir, golang.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var ours, oursIn []string
	decls := map[string]bool{}
	for _, p := range g.Packages {
		for _, f := range p.Files {
			for _, d := range f.Decls {
				decls[d.Loc] = true
			}
		}
	}
	for _, e := range g.Edges {
		if e.Type == "calls" && e.From.Loc == fn {
			ours = append(ours, e.To.Loc)
			if decls[e.To.Loc] && e.To.Loc != fn {
				oursIn = append(oursIn, e.To.Loc)
			}
		}
	}
	slices.Sort(ours)
	ours = slices.Compact(ours)
	slices.Sort(oursIn)
	oursIn = slices.Compact(oursIn)
	var static []string
	for p := range staticPairs(t, dir, g) {
		if p[0] == fn {
			static = append(static, p[1])
		}
	}
	slices.Sort(static)
	t.Logf("ours (%d, %d in the module): %s", len(ours), len(oursIn), strings.Join(ours, " "))
	t.Logf("static (%d): %s", len(static), strings.Join(static, " "))
	for _, s := range static {
		if !slices.Contains(ours, s) {
			t.Errorf("the graph lacks ExecuteC → %s", s)
		}
	}
	if !slices.Equal(static, executeCStatic) {
		t.Errorf("the static callees moved from the pinned list:\n got %q\nwant %q", static, executeCStatic)
	}
	if !slices.Equal(oursIn, executeCStatic) {
		t.Errorf("our in-module callees of ExecuteC:\n got %q\nwant %q", oursIn, executeCStatic)
	}
}
