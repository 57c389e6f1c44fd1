package snap_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/snap"
)

const tree = "testdata/tree"

func open(t testing.TB) *goldfish.DB {
	t.Helper()
	db, err := goldfish.Open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func snapInto(t testing.TB, db *goldfish.DB, dir string, n int) snap.Report {
	t.Helper()
	rep, err := snap.Go(context.Background(), db, dir, snap.Options{Prefix: "shop", PartNodes: n})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func session(t testing.TB, db *goldfish.DB, name string) *goldfish.Session {
	t.Helper()
	s, err := db.Session(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// dumps lists every session of the snap (its catalogue and interiors) by
// name.
func dumps(t testing.TB, db *goldfish.DB, rep snap.Report) map[string]string {
	t.Helper()
	out := map[string]string{rep.Catalog: session(t, db, rep.Catalog).Dump()}
	for _, p := range rep.Parts {
		out[p.Session] = session(t, db, p.Session).Dump()
	}
	return out
}

// body is a Dump without its version and recycled count: what a session
// holds, however it came to hold it.
func body(dump string) string {
	lines := strings.SplitN(dump, "\n", 3)
	head := lines[1]
	if i := strings.Index(head, ", recycled"); i >= 0 {
		head = head[:i]
	}
	return head + "\n" + lines[2]
}

func versions(t testing.TB, db *goldfish.DB, rep snap.Report) map[string]uint64 {
	out := map[string]uint64{rep.Catalog: session(t, db, rep.Catalog).Version()}
	for _, p := range rep.Parts {
		out[p.Session] = session(t, db, p.Session).Version()
	}
	return out
}

func partNamed(rep snap.Report, name string) (snap.Part, bool) {
	for _, p := range rep.Parts {
		if p.Session == name {
			return p, true
		}
	}
	return snap.Part{}, false
}

// TestSnapParts checks the parts of the fixture at a budget that splits
// its large package: no interior over the budget (CALLERS nodes
// included), pieces of the split package, small packages of one
// directory tree together, and a catalogue with a PART node per part.
func TestSnapParts(t *testing.T) {
	const n = 20
	db := open(t)
	rep := snapInto(t, db, tree, n)
	if rep.Packages != 6 || rep.Files != 9 {
		t.Errorf("packages %d, files %d; want 6 and 9", rep.Packages, rep.Files)
	}
	var names []string
	pkgParts := map[string]int{}
	infos := map[string]goldfish.SessionInfo{}
	for _, in := range db.SessionInfos() {
		infos[in.Name] = in
	}
	for _, p := range rep.Parts {
		names = append(names, p.Session)
		if err := goldfish.ValidSessionName(p.Session); err != nil {
			t.Errorf("part session name: %v", err)
		}
		if p.Nodes > n {
			t.Errorf("%s holds %d nodes; the budget is %d", p.Session, p.Nodes, n)
		}
		if in := infos[p.Session]; in.Nodes != p.Nodes || in.Edges != p.Edges {
			t.Errorf("%s holds %d nodes and %d edges; the report says %d and %d", p.Session, in.Nodes, in.Edges, p.Nodes, p.Edges)
		}
		for _, pk := range p.Packages {
			pkgParts[pk]++
		}
	}
	want := []string{"shop.cmd", "shop.geo", "shop.store-1", "shop.store-2", "shop.store-3", "shop.util"}
	if !slices.Equal(names, want) {
		t.Errorf("parts %q; want %q", names, want)
	}
	if pkgParts["example.com/shop/store"] != 3 {
		t.Errorf("store is in %d parts; want 3 pieces", pkgParts["example.com/shop/store"])
	}
	for pk, k := range pkgParts {
		if k != 1 && pk != "example.com/shop/store" {
			t.Errorf("%s is in %d parts", pk, k)
		}
	}
	if geo, _ := partNamed(rep, "shop.geo"); !slices.Equal(geo.Packages, []string{"example.com/shop/geo", "example.com/shop/geo/vec"}) || geo.Prefix != "example.com/shop/geo" {
		t.Errorf("geo's tree is not one part: %+v", geo)
	}
	if p, _ := partNamed(rep, "shop.store-3"); !slices.Equal(p.Files, []string{"store/price.go", "store/tax.go"}) {
		t.Errorf("store-3 files %q", p.Files)
	}
	if rep.Sessions() != 7 || rep.Largest().Nodes > n || rep.Elements == 0 || rep.Applied != rep.Deltas {
		t.Errorf("report %+v", rep)
	}

	cat := session(t, db, "shop").Dump()
	if got := strings.Count(cat, "(:PART {"); got != len(rep.Parts)+2*3 { // nodes, and the ends of 3 imports edges
		t.Errorf("catalogue:\n%s", cat)
	}
	for _, line := range []string{
		`(:PART {edges: 29, files: ["store/price.go", "store/tax.go"], loc: "shop.store-3", nodes: 19, packages: ["example.com/shop/store"], prefix: "example.com/shop/store", stubs: 2})`,
		`(:PART {edges: 12, loc: "shop.cmd", nodes: 13, packages: ["example.com/shop/cmd/shopd"], prefix: "example.com/shop/cmd/shopd", stubs: 10})-[:imports]->(:PART {edges: 20, files: ["store/cart.go"], loc: "shop.store-1"`,
		`-[:imports]->(:PART {edges: 9, loc: "shop.util"`,
	} {
		if !strings.Contains(cat, line) {
			t.Errorf("catalogue lacks %s:\n%s", line, cat)
		}
	}
	// The catalogue answers "which part holds this package" as a Recall.
	sh, err := session(t, db, "shop").Recall(context.Background(), `MATCH (p:PART) WHERE "example.com/shop/util/text" IN p.packages`, goldfish.RecallOptions{})
	if err != nil || sh.Cue != goldfish.CueMatch || !strings.Contains(sh.Text, `loc: "shop.util"`) {
		t.Errorf("Recall of the catalogue: %v\n%v", err, sh)
	}
}

// TestSnapGroups: at a budget the whole tree does not fit but its small
// packages do, the small ones are one part and the large one stands
// alone.
func TestSnapGroups(t *testing.T) {
	db := open(t)
	rep := snapInto(t, db, tree, 52)
	var names []string
	for _, p := range rep.Parts {
		names = append(names, p.Session)
	}
	// cmd/shopd, with its stubs for fmt and os outside the tree, is over
	// a quarter of the budget and stands alone.
	if want := []string{"shop.cmd", "shop.geo..util", "shop.store"}; !slices.Equal(names, want) {
		t.Fatalf("parts %q; want %q", names, want)
	}
	if p := rep.Parts[1]; len(p.Packages) != 4 || p.Prefix != "example.com/shop" {
		t.Errorf("group %+v", p)
	}
}

// TestSnapIdempotent: a second snap of the unchanged tree applies no Δ in
// any session, also when an agent has committed into an interior.
func TestSnapIdempotent(t *testing.T) {
	ctx := context.Background()
	db := open(t)
	rep := snapInto(t, db, tree, 20)
	before, vers := dumps(t, db, rep), versions(t, db, rep)
	again := snapInto(t, db, tree, 20)
	if again.Applied != 0 || len(again.Changed) != 0 || again.Deleted != 0 || again.Deltas == 0 {
		t.Errorf("re-snap applied %d of %d Δs, deleted %d, changed %q", again.Applied, again.Deltas, again.Deleted, again.Changed)
	}
	if got := versions(t, db, again); !mapsEqual(got, vers) {
		t.Errorf("versions moved: %v, were %v", got, vers)
	}
	if got := dumps(t, db, again); !mapsEqual(got, before) {
		t.Errorf("re-snap changed a session")
	}

	// An agent's note on a function: the snap keeps it, and still
	// applies nothing.
	s := session(t, db, "shop.store-3")
	if _, err := s.Commit(ctx, `MATCH (f:FN {loc: "example.com/shop/store.Tax"}) INSERT (f)-[:has_note]->(:NOTE {text: "rounds down"})`, nil); err != nil {
		t.Fatal(err)
	}
	v := s.Version()
	third := snapInto(t, db, tree, 20)
	if third.Applied != 0 || s.Version() != v {
		t.Errorf("re-snap beside an agent's note applied %d Δs (changed %q)", third.Applied, third.Changed)
	}
	if !strings.Contains(s.Dump(), `-[:has_note]->(:NOTE {text: "rounds down"})`) {
		t.Errorf("the note is gone")
	}
}

func mapsEqual[K comparable, V comparable](a, b map[K]V) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// copyTree copies the fixture into a temp directory, so a test may edit
// it.
func copyTree(t *testing.T) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(tree, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(tree, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func edit(t *testing.T, file, old, new string) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), old) {
		t.Fatalf("%s lacks %q", file, old)
	}
	if err := os.WriteFile(file, []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestSnapChangedFile: a changed file re-ingests its part only (and the
// catalogue, whose counts for the part change); what the file no longer
// declares or calls is deleted, so the interior holds what a fresh snap
// of the changed tree holds.
func TestSnapChangedFile(t *testing.T) {
	dir := copyTree(t)
	db := open(t)
	rep := snapInto(t, db, dir, 20)
	vers := versions(t, db, rep)
	tax := filepath.Join(dir, "store", "tax.go")
	edit(t, tax, "// Net is t without its tax.\nfunc Net(t int) int { return t * 100 / (100 + VAT) }\n",
		"// Half is half of t.\nfunc Half(t int) int { return t / 2 }\n")
	edit(t, tax, `itoa(Gross(Sum(c.Items)))`, `itoa(Sum(c.Items))`)
	again := snapInto(t, db, dir, 20)
	if want := []string{"shop", "shop.store-3"}; !slices.Equal(again.Changed, want) {
		t.Errorf("changed %q; want %q", again.Changed, want)
	}
	if again.Deleted == 0 {
		t.Errorf("nothing deleted")
	}
	for name, v := range versions(t, db, again) {
		if moved := v != vers[name]; moved != slices.Contains(again.Changed, name) {
			t.Errorf("%s at version %d, was %d", name, v, vers[name])
		}
	}
	fresh := open(t)
	want := dumps(t, fresh, snapInto(t, fresh, dir, 20))
	got := dumps(t, db, again)
	for name := range want {
		if body(got[name]) != body(want[name]) {
			t.Errorf("%s after the re-snap:\n%s\na fresh snap:\n%s", name, got[name], want[name])
		}
	}
	receiptCallsGross := false
	for _, line := range strings.Split(got["shop.store-3"], "\n") {
		if from, to, ok := strings.Cut(line, "-[:calls]->"); ok && strings.Contains(from, `name: "Receipt"`) && strings.Contains(to, `loc: "example.com/shop/store.Gross"`) {
			receiptCallsGross = true
		}
	}
	if d := got["shop.store-3"]; strings.Contains(d, "store.Net") || !strings.Contains(d, "store.Half") || receiptCallsGross {
		t.Errorf("store-3 still holds what the file no longer has:\n%s", d)
	}
}

// TestSnapRepartition: snapping with another budget moves elements
// between interiors, drops the interiors of parts that are gone, and ends
// where a fresh snap with that budget does.
func TestSnapRepartition(t *testing.T) {
	db := open(t)
	snapInto(t, db, tree, 16)
	for _, n := range []int{1000, 48, 16} {
		rep := snapInto(t, db, tree, n)
		fresh := open(t)
		want := dumps(t, fresh, snapInto(t, fresh, tree, n))
		got := dumps(t, db, rep)
		if len(got) != len(want) {
			t.Errorf("n=%d: sessions %d, want %d", n, len(got), len(want))
		}
		for name := range want {
			if body(got[name]) != body(want[name]) {
				t.Errorf("n=%d: %s:\n%s\na fresh snap:\n%s", n, name, got[name], want[name])
			}
		}
		var live []string
		for _, s := range db.Sessions() {
			if strings.HasPrefix(s, "shop") {
				live = append(live, s)
			}
		}
		if len(live) != rep.Sessions() {
			t.Errorf("n=%d: sessions %q left after dropping %q", n, live, rep.Dropped)
		}
	}
}

// TestSnapDeterministic: two snaps into fresh databases, with one worker
// and with several, give the same sessions byte for byte.
func TestSnapDeterministic(t *testing.T) {
	var first map[string]string
	for _, workers := range []int{1, 4} {
		db := open(t)
		rep, err := snap.Go(context.Background(), db, tree, snap.Options{Prefix: "shop", PartNodes: 16, Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		d := dumps(t, db, rep)
		if first == nil {
			first = d
			continue
		}
		if !mapsEqual(d, first) {
			for name := range first {
				if d[name] != first[name] {
					t.Errorf("%s differs:\n%s\nand\n%s", name, d[name], first[name])
				}
			}
		}
	}
}

func TestSnapErrors(t *testing.T) {
	empty := t.TempDir()
	for _, tc := range []struct {
		name string
		dir  string
		opts snap.Options
		code goldfish.Code
	}{
		{"no prefix", tree, snap.Options{}, goldfish.CodeInvalidName},
		{"bad prefix", tree, snap.Options{Prefix: "a b"}, goldfish.CodeInvalidName},
		{"catalogue", tree, snap.Options{Prefix: "catalog"}, goldfish.CodeInvalidOption},
		{"long prefix", tree, snap.Options{Prefix: strings.Repeat("p", snap.MaxPrefix+1)}, goldfish.CodeInvalidOption},
		{"tiny budget", tree, snap.Options{Prefix: "shop", PartNodes: snap.MinPartNodes - 1}, goldfish.CodeInvalidOption},
		{"no dir", filepath.Join(empty, "missing"), snap.Options{Prefix: "shop"}, goldfish.CodeFileAccess},
		{"a file", filepath.Join(tree, "go.mod"), snap.Options{Prefix: "shop"}, goldfish.CodeFileAccess},
		{"no package", empty, snap.Options{Prefix: "shop"}, goldfish.CodeNoData},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := open(t)
			_, err := snap.Go(context.Background(), db, tc.dir, tc.opts)
			var ge *goldfish.Error
			if !errors.As(err, &ge) || ge.Code != tc.code || ge.Hint == "" {
				t.Fatalf("error %v; want GQLSTATUS %s with a hint", err, tc.code)
			}
			if len(db.Sessions()) != 0 {
				t.Errorf("a refused snap made sessions %q", db.Sessions())
			}
		})
	}
}

// TestSnapNetHTTP snaps a real directory of the standard library with a
// budget that splits its main package.
func TestSnapNetHTTP(t *testing.T) {
	if testing.Short() {
		t.Skip("reads the standard library")
	}
	const n = 1000
	dir := filepath.Join(runtime.GOROOT(), "src", "net", "http")
	db := open(t)
	rep, err := snap.Go(context.Background(), db, dir, snap.Options{Prefix: "http", PartNodes: n})
	if err != nil {
		t.Fatal(err)
	}
	pieces := 0
	for _, p := range rep.Parts {
		if p.Nodes > n {
			t.Errorf("%s holds %d nodes", p.Session, p.Nodes)
		}
		if len(p.Files) > 0 {
			pieces++
		}
	}
	if rep.Packages < 5 || pieces < 2 || rep.Largest().Nodes > n {
		t.Errorf("report %+v", rep)
	}
	again, err := snap.Go(context.Background(), db, dir, snap.Options{Prefix: "http", PartNodes: n})
	if err != nil || again.Applied != 0 {
		t.Errorf("re-snap applied %d Δs: %v", again.Applied, err)
	}
}

// TestSnapNoCalls: without calls edges the interiors hold none, and
// fewer stubs.
func TestSnapNoCalls(t *testing.T) {
	db := open(t)
	rep, err := snap.Go(context.Background(), db, tree, snap.Options{Prefix: "shop", PartNodes: 16, NoCalls: true})
	if err != nil {
		t.Fatal(err)
	}
	stubs := func(r snap.Report) (n int) {
		for _, p := range r.Parts {
			n += p.Stubs
		}
		return n
	}
	for name, d := range dumps(t, db, rep) {
		if strings.Contains(d, "[:calls]") {
			t.Errorf("%s holds calls edges", name)
		}
	}
	if with := snapInto(t, open(t), tree, 16); stubs(rep) >= stubs(with) {
		t.Errorf("%d stubs without calls, %d with", stubs(rep), stubs(with))
	}
}

// TestSnapTypedCalls: a method call on a value of another package (c.Add
// in cmd/shopd, a *store.Cart) is a calls edge to a stub that names the
// part holding the method; a call to a function outside the tree
// (fmt.Println) is a stub naming its package and no session.
func TestSnapTypedCalls(t *testing.T) {
	db := open(t)
	rep := snapInto(t, db, tree, 16)
	if rep.Code.Resolve != "type-checked" || rep.Code.Untyped != 0 {
		t.Fatalf("calls %s (%s)", rep.Code.Resolve, rep.Code.TypeNote)
	}
	d := session(t, db, "shop.cmd").Dump()
	for _, want := range []string{
		`loc: "example.com/shop/cmd/shopd.main", name: "main", sig: "func main()"})-[:calls]->(:STUB {kind: "FN", loc: "example.com/shop/store.Cart.Add", session: "shop.store-1"})`,
		`loc: "example.com/shop/cmd/shopd.main", name: "main", sig: "func main()"})-[:calls]->(:STUB {kind: "FN", loc: "fmt.Println", pkg: "fmt"})`,
	} {
		if !strings.Contains(d, want) {
			t.Errorf("shop.cmd lacks %s:\n%s", want, d)
		}
	}
	if s, ok := partNamed(rep, "shop.store-1"); !ok || !strings.Contains(session(t, db, s.Session).Dump(), `loc: "example.com/shop/store.Cart.Add"`) {
		t.Errorf("the stub's session does not hold Cart.Add")
	}
}

// TestSnapWalkCallsFirst: in a part, the Shape of a function holds its
// callees (a method called on a value among them) before any constant of
// its file it does not use (two hops away, through the FILE: a point
// token walks one hop unless K says more).
func TestSnapWalkCallsFirst(t *testing.T) {
	db := open(t)
	rep := snapInto(t, db, tree, 0)
	s := session(t, db, rep.Parts[0].Session)
	sh, err := s.Recall(context.Background(), `MATCH (f:FN {loc: "example.com/shop/store.Receipt"})`, goldfish.RecallOptions{M: 200, F: 64, K: 2})
	if err != nil {
		t.Fatal(err)
	}
	at := func(loc string) int {
		for i, line := range strings.Split(sh.Text, "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "(") && strings.Contains(line, `loc: "`+loc+`"`) && !strings.Contains(line, ")-[") {
				return i
			}
		}
		return -1
	}
	vat := at("example.com/shop/store.VAT")
	if vat < 0 {
		t.Fatalf("the Shape lacks the file's constant VAT:\n%s", sh.Text)
	}
	for _, callee := range []string{"Item.String", "itoa", "Gross", "Sum"} {
		i := at("example.com/shop/store." + callee)
		if i < 0 || (vat >= 0 && i > vat) {
			t.Errorf("callee %s at line %d of the Shape, the file's constant VAT at %d:\n%s", callee, i, vat, sh.Text)
		}
	}
}
