package snap

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/ingest/golang"
)

// DefaultPartNodes is the node budget of one part when Options give none.
const DefaultPartNodes = 5000

// MinPartNodes is the smallest node budget accepted: below it a part
// could not hold a declaration with a few stubs.
const MinPartNodes = 10

// Options configure a snap.
type Options struct {
	// Prefix names the catalogue session; the interiors are named
	// Prefix.<part>. Required, by the session-name rules, and short
	// enough to leave room for the part (at most 40 characters).
	Prefix string
	// PartNodes is the most nodes (stubs included) one interior may hold
	// (default DefaultPartNodes).
	PartNodes int
	// Tests includes _test.go files; NoCalls leaves calls edges out.
	Tests, NoCalls bool
	// ImportPath is the import path of the tree's root directory (empty:
	// read from go.mod, as the Go ingester does).
	ImportPath string
	// Workers ingest sessions in parallel (default GOMAXPROCS).
	Workers int
	// NoTypes resolves calls by syntax only (no go command, no type
	// checking): faster, and far fewer calls.
	NoTypes bool
	// Progress, when set, is called as the snap goes: each package
	// type-checked, then each part written; one call at a time.
	Progress func(Progress)
}

// Progress is a step of a snap: Done of Total in Stage.
type Progress struct {
	Stage       string // StageChecking or StageWriting
	Done, Total int
}

// The stages Progress reports.
const (
	StageChecking = "type-checking packages"
	StageWriting  = "writing parts"
)

// MaxPrefix is the longest Prefix accepted.
const MaxPrefix = 40

// Part reports one part and its interior session.
type Part struct {
	Session  string
	Packages []string // import paths, sorted
	Prefix   string   // the locator prefix its packages share
	// Files lists the files of a piece of a split package; empty for a
	// part that holds whole packages.
	Files []string
	// Nodes counts the interior's nodes, Stubs and Callers (its CALLERS
	// nodes) among them; Edges its edges.
	Nodes, Stubs, Callers, Edges int
	// Deltas were committed to the interior, Applied of them changed it;
	// Deleted elements were swept out (no longer in the tree).
	Deltas, Applied, Deleted int
}

// Report says what a snap did.
type Report struct {
	Catalog string // the catalogue session (Options.Prefix)
	Parts   []Part // in catalogue order
	// Packages, Files: what the tree holds.
	Packages, Files int
	// Elements counts the nodes and edges the snap wrote into every
	// session, stubs and the catalogue included (each once, whether or
	// not it was new).
	Elements int
	// Deltas committed in all sessions, Applied of them changed one;
	// Deleted elements were swept out.
	Deltas, Applied, Deleted int
	// Changed lists the sessions a Δ changed, sorted; Dropped the
	// interiors of parts the tree no longer has.
	Changed, Dropped []string
	// Load is the time to read the tree and partition it, Ingest the
	// time to commit it.
	Load, Ingest time.Duration
	// Code counts what the code graph holds and says how its calls were
	// resolved (Code.Resolve: type-checked, partly, or syntax only, with
	// Code.TypeNote saying why).
	Code golang.Stats
}

// Sessions counts the sessions of the snap: the interiors and the
// catalogue.
func (r Report) Sessions() int { return len(r.Parts) + 1 }

// Largest returns the part with the most nodes (the first of them).
func (r Report) Largest() Part {
	var best Part
	for _, p := range r.Parts {
		if p.Nodes > best.Nodes {
			best = p
		}
	}
	return best
}

// Seconds is the snap's wall time.
func (r Report) Seconds() float64 { return (r.Load + r.Ingest).Seconds() }

// ElementsPerSecond is Elements over Seconds.
func (r Report) ElementsPerSecond() float64 {
	if s := r.Seconds(); s > 0 {
		return float64(r.Elements) / s
	}
	return 0
}

func optionError(msg, hint string) error {
	return &goldfish.Error{Code: goldfish.CodeInvalidOption, Msg: msg, Hint: hint}
}

// Go snaps the Go source tree under dir into db: a catalogue session
// opts.Prefix with one PART node per part and imports edges between
// parts, and one interior session per part (package doc). Running it
// again on an unchanged tree commits no change anywhere; a change to the
// tree changes only the sessions whose content it changes.
func Go(ctx context.Context, db *goldfish.DB, dir string, opts Options) (Report, error) {
	t0 := time.Now()
	rep := Report{Catalog: opts.Prefix}
	n, err := checkOptions(dir, opts)
	if err != nil {
		return rep, err
	}
	g, err := loadGraph(dir, opts)
	if err != nil {
		return rep, err
	}
	rep.Packages, rep.Files, rep.Code = g.Stats.Packages, g.Stats.Files, g.Stats
	names, contents, cat := layout(g, n, opts.Prefix, &rep)
	rep.Load = time.Since(t0)

	t1 := time.Now()
	if err := writeInteriors(ctx, db, opts, names, contents, rep.Parts); err != nil {
		rep.Ingest = time.Since(t1)
		return rep, err
	}
	cp, err := writeCatalog(ctx, db, opts.Prefix, cat, names, &rep)
	tally(&rep, cp, names, opts.Prefix)
	rep.Ingest = time.Since(t1)
	return rep, err
}

// checkOptions refuses a snap the options or dir make impossible before
// anything is read, and returns the part budget in nodes (opts.PartNodes
// or its default).
func checkOptions(dir string, opts Options) (int, error) {
	if err := goldfish.ValidSessionName(opts.Prefix); err != nil {
		var ge *goldfish.Error
		if errors.As(err, &ge) {
			return 0, &goldfish.Error{Code: ge.Code, Msg: "the prefix names the catalogue session: " + ge.Msg, Cause: err,
				Hint: "give a prefix of letters, digits, '_', '-' or '.', such as the module's last path element"}
		}
		return 0, err
	}
	if len(opts.Prefix) > MaxPrefix {
		return 0, optionError(fmt.Sprintf("the prefix %q is %d characters; at most %d leave room for the parts' names", opts.Prefix, len(opts.Prefix), MaxPrefix),
			"give a shorter prefix")
	}
	if opts.Prefix == goldfish.CatalogName {
		return 0, optionError(fmt.Sprintf("the prefix %q is the database's own catalogue", opts.Prefix), "give another prefix")
	}
	n := opts.PartNodes
	if n == 0 {
		n = DefaultPartNodes
	}
	if n < MinPartNodes {
		return 0, optionError(fmt.Sprintf("a part budget of %d nodes is too small", n),
			fmt.Sprintf("give at least %d (the default is %d)", MinPartNodes, DefaultPartNodes))
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		what := "is not a directory"
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			what = err.Error()
		}
		return 0, &goldfish.Error{Code: goldfish.CodeFileAccess, Msg: fmt.Sprintf("cannot snap %s: %s", dir, what),
			Hint: "give the directory of a Go module or package tree"}
	}
	return n, nil
}

// loadGraph reads the tree with the Go ingester, reporting its
// type-checking as Progress; a tree with no package is refused.
func loadGraph(dir string, opts Options) (*golang.Graph, error) {
	gopts := golang.Options{Tests: opts.Tests, NoCalls: opts.NoCalls, NoTypes: opts.NoTypes, Prefix: opts.ImportPath, Workers: opts.Workers}
	if opts.Progress != nil {
		gopts.Progress = func(done, total int) { opts.Progress(Progress{Stage: StageChecking, Done: done, Total: total}) }
	}
	g, err := golang.LoadGraph(dir, gopts)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", dir, err)
	}
	if len(g.Packages) == 0 {
		return nil, &goldfish.Error{Code: goldfish.CodeNoData, Msg: fmt.Sprintf("%s holds no Go package", dir),
			Hint: "give the directory of a Go module or package tree (testdata, vendor-less _ and . directories are skipped)"}
	}
	return g, nil
}

// layout partitions g into parts of at most n nodes and builds what each
// session will hold: the interiors' session names and contents, in part
// order, and the catalogue's content. It sets rep.Parts and counts the
// elements in rep.Elements.
func layout(g *golang.Graph, n int, prefix string, rep *Report) (names []string, contents []content, cat content) {
	m := newModel(g)
	// The root directory's import path, whether or not it holds a
	// package, names the part of a tree that fits whole.
	root := g.Packages[0].Path
	if d := g.Packages[0].Dir; d != "." {
		root = strings.TrimSuffix(strings.TrimSuffix(root, d), "/")
	}
	defs := partition(m, n, rootLabel(root))
	// Parts in path order; the pieces of a package keep theirs.
	sort.SliceStable(defs, func(i, j int) bool {
		return g.Packages[defs[i].pkgs[0]].Path < g.Packages[defs[j].pkgs[0]].Path
	})
	labels := make([]string, len(defs))
	for i, d := range defs {
		labels[i] = d.label
	}
	names = sessionNames(prefix, labels)
	owner := make([]int, len(m.nodes))
	for x := range owner {
		owner[x] = -1 // outside the tree until a part takes it
	}
	for pi, d := range defs {
		for _, x := range d.nodes {
			owner[x] = pi
		}
	}
	contents = make([]content, len(defs))
	rep.Parts = make([]Part, len(defs))
	for pi, d := range defs {
		contents[pi], rep.Parts[pi] = m.interior(d, pi, owner, names)
		rep.Elements += len(contents[pi].nodes) + len(contents[pi].edges)
	}
	cat = m.catalog(rep.Parts, owner, names)
	rep.Elements += len(cat.nodes) + len(cat.edges)
	return names, contents, cat
}

// writeInteriors snaps each part's interior session (names[pi] to hold
// contents[pi], reported in parts[pi]) on opts.Workers workers. The first
// error cancels the parts still being written; the error returned is the
// cause, not a part it stopped.
func writeInteriors(ctx context.Context, db *goldfish.DB, opts Options, names []string, contents []content, parts []Part) error {
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	errs := make([]error, len(names))
	next := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex // serialises Progress
	written := 0
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for range min(workers, len(names)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for pi := range next {
				if errs[pi] = snapSession(wctx, db, names[pi], contents[pi], interiorKinds, interiorTypes, &parts[pi], nil); errs[pi] != nil {
					cancel()
				}
				if opts.Progress != nil {
					mu.Lock()
					written++
					opts.Progress(Progress{Stage: StageWriting, Done: written, Total: len(names)})
					mu.Unlock()
				}
			}
		}()
	}
	for pi := range names {
		next <- pi
	}
	close(next)
	wg.Wait()
	for _, canceled := range []bool{false, true} { // the cause before the parts it stopped
		for _, err := range errs {
			if err != nil && errors.Is(err, context.Canceled) == canceled {
				return err
			}
		}
	}
	return nil
}

// writeCatalog snaps the catalogue session (prefix) to hold cat, after
// the interiors, and drops the interiors of the parts the tree no longer
// has (listed in rep.Dropped); it returns the catalogue's own counts.
func writeCatalog(ctx context.Context, db *goldfish.DB, prefix string, cat content, names []string, rep *Report) (Part, error) {
	var cp Part
	err := snapSession(ctx, db, prefix, cat, catalogKinds, catalogTypes, &cp, func(gone []golang.Ref) error {
		// The interiors of parts the tree no longer has go before their
		// PART nodes, so a snap cut short here still knows of them.
		have := map[string]bool{}
		for _, s := range db.Sessions() {
			have[s] = true
		}
		for _, r := range gone {
			if r.Kind == "PART" && have[r.Loc] && !slices.Contains(names, r.Loc) {
				if err := db.Drop(ctx, r.Loc); err != nil {
					return err
				}
				rep.Dropped = append(rep.Dropped, r.Loc)
			}
		}
		return nil
	})
	return cp, err
}

// tally sums the Δ counts of the parts and of the catalogue (cp) into r,
// and lists the sessions a Δ changed.
func tally(r *Report, cp Part, names []string, prefix string) {
	for _, p := range append(r.Parts, cp) {
		r.Deltas += p.Deltas
		r.Applied += p.Applied
		r.Deleted += p.Deleted
	}
	for i, p := range r.Parts {
		if p.Applied > 0 {
			r.Changed = append(r.Changed, names[i])
		}
	}
	if cp.Applied > 0 {
		r.Changed = append(r.Changed, prefix)
	}
	sort.Strings(r.Changed)
	sort.Strings(r.Dropped)
}

// snapSession makes session name hold c: ingest, then sweep what is
// stale; before deleting stale nodes it calls gone with them.
func snapSession(ctx context.Context, db *goldfish.DB, name string, c content, kinds, types map[string]bool, p *Part, gone func([]golang.Ref) error) error {
	s, err := db.Session(ctx, name)
	if err != nil {
		return err
	}
	w := &writer{ctx: ctx, s: s}
	defer func() { p.Deltas, p.Applied, p.Deleted = w.deltas, w.applied, w.deleted }()
	if err := w.write(c); err != nil {
		return err
	}
	nodes, edges := stale(db, s, c, kinds, types)
	if gone != nil && len(nodes) > 0 {
		if err := gone(nodes); err != nil {
			return err
		}
	}
	return w.sweep(nodes, edges)
}

// interior builds part pi's content: its own nodes, a STUB for each node
// of another part at the far end of an edge it keeps, and those edges;
// then, for each of its functions called from other parts, a CALLERS node
// per calling part with a calls edge to the function (callersOf).
func (m *model) interior(d partDef, pi int, owner []int, names []string) (content, Part) {
	var c content
	p := Part{Session: names[pi], Packages: make([]string, 0, len(d.pkgs))}
	for _, pk := range d.pkgs {
		p.Packages = append(p.Packages, m.g.Packages[pk].Path)
	}
	sort.Strings(p.Packages)
	p.Prefix = commonPrefix(p.Packages)
	for _, x := range d.nodes {
		c.nodes = append(c.nodes, m.nodes[x].n)
	}
	stubs := map[string]golang.Node{}
	var stubLocs []string
	ref := func(x int) golang.Ref {
		if owner[x] == pi {
			return m.nodes[x].n.Ref()
		}
		n := m.nodes[x].n
		if _, ok := stubs[n.Loc]; !ok {
			props := []golang.Prop{{Key: "kind", Val: n.Kind}}
			if owner[x] >= 0 {
				props = append(props, golang.Prop{Key: "session", Val: names[owner[x]]})
			} else {
				// Outside the tree: no session holds it; its package says
				// where it comes from.
				for _, p := range n.Props {
					if p.Key == "pkg" {
						props = append(props, p)
					}
				}
			}
			stubs[n.Loc] = golang.Node{Kind: "STUB", Loc: n.Loc, Props: props}
			stubLocs = append(stubLocs, n.Loc)
		}
		return golang.Ref{Kind: "STUB", Loc: n.Loc}
	}
	seen := map[edgeKey]bool{}
	for _, x := range d.nodes {
		for _, ei := range m.home[x] {
			e := m.edges[ei]
			k := edgeKey{ref(e.from), e.typ, ref(e.to)}
			if !seen[k] {
				seen[k] = true
				c.edges = append(c.edges, golang.Edge{Type: k.typ, From: k.from, To: k.to})
			}
		}
	}
	sort.Strings(stubLocs)
	for _, l := range stubLocs {
		c.nodes = append(c.nodes, stubs[l])
	}
	for _, x := range d.nodes {
		for _, cn := range m.callersOf(x, pi, owner, names) {
			c.nodes = append(c.nodes, cn)
			c.edges = append(c.edges, golang.Edge{Type: "calls", From: cn.Ref(), To: m.nodes[x].n.Ref()})
			p.Callers++
		}
	}
	if d.piece {
		files := map[string]bool{}
		for _, x := range d.nodes {
			n := m.nodes[x].n
			if n.Kind == "FILE" {
				files[n.Loc] = true
			}
		}
		// A piece that starts inside a file names that file too.
		for _, e := range c.edges {
			if e.Type == "contains" && e.From.Kind == "STUB" {
				if fx, ok := m.index[golang.Ref{Kind: "FILE", Loc: e.From.Loc}]; ok {
					files[m.nodes[fx].n.Loc] = true
				}
			}
		}
		for f := range files {
			p.Files = append(p.Files, f)
		}
		sort.Strings(p.Files)
	}
	p.Nodes, p.Stubs, p.Edges = len(c.nodes), len(stubLocs), len(c.edges)
	return c, p
}

// callersOf lists the CALLERS nodes of node x of part pi: one per other
// part holding functions that call x, in the order of the parts, with
// callers (how many functions there call x) and session (that part's
// interior, where x stands as a STUB with those callers around it). Its
// loc is x's, then " <- " and that session.
func (m *model) callersOf(x, pi int, owner []int, names []string) []golang.Node {
	var count map[int]int
	for _, c := range m.callers[x] {
		if q := owner[c]; q >= 0 && q != pi {
			if count == nil {
				count = map[int]int{}
			}
			count[q]++
		}
	}
	if count == nil {
		return nil
	}
	parts := make([]int, 0, len(count))
	for q := range count {
		parts = append(parts, q)
	}
	sort.Ints(parts)
	out := make([]golang.Node, len(parts))
	for i, q := range parts {
		out[i] = golang.Node{Kind: "CALLERS", Loc: m.nodes[x].n.Loc + " <- " + names[q],
			Props: []golang.Prop{{Key: "callers", Val: count[q]}, {Key: "session", Val: names[q]}}}
	}
	return out
}

// catalog builds the catalogue's content: a PART node per part (loc: its
// interior's session name) and an imports edge from a part to each part
// whose packages its packages import.
func (m *model) catalog(parts []Part, owner []int, names []string) content {
	var c content
	for _, p := range parts {
		props := []golang.Prop{{Key: "edges", Val: p.Edges}}
		if len(p.Files) > 0 {
			props = append(props, golang.Prop{Key: "files", Val: p.Files})
		}
		props = append(props,
			golang.Prop{Key: "nodes", Val: p.Nodes},
			golang.Prop{Key: "packages", Val: p.Packages},
			golang.Prop{Key: "prefix", Val: p.Prefix},
			golang.Prop{Key: "stubs", Val: p.Stubs})
		c.nodes = append(c.nodes, golang.Node{Kind: "PART", Loc: p.Session, Props: props})
	}
	seen := map[[2]int]bool{}
	var pairs [][2]int
	for _, e := range m.edges {
		if e.typ != "imports" {
			continue
		}
		k := [2]int{owner[e.from], owner[e.to]}
		if k[0] != k[1] && k[0] >= 0 && k[1] >= 0 && !seen[k] {
			seen[k] = true
			pairs = append(pairs, k)
		}
	}
	sort.Slice(pairs, func(i, j int) bool {
		if pairs[i][0] != pairs[j][0] {
			return pairs[i][0] < pairs[j][0]
		}
		return pairs[i][1] < pairs[j][1]
	})
	for _, k := range pairs {
		c.edges = append(c.edges, golang.Edge{Type: "imports", From: golang.Ref{Kind: "PART", Loc: names[k[0]]}, To: golang.Ref{Kind: "PART", Loc: names[k[1]]}})
	}
	return c
}
