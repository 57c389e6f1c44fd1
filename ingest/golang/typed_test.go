package golang_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish/ingest/golang"
)

// edgesOf lists a graph's edges of one type as "from -> to" locators,
// sorted.
func edgesOf(g *golang.Graph, typ string) []string {
	var out []string
	for _, e := range g.Edges {
		if e.Type == typ {
			out = append(out, e.From.Loc+" -> "+e.To.Loc)
		}
	}
	slices.Sort(out)
	return out
}

// TestTypedCalls: the type-checked pass resolves calls through
// receivers, embedded fields, promoted methods, method expressions,
// interfaces, generic functions and other packages, and leaves out calls
// of values.
func TestTypedCalls(t *testing.T) {
	g, err := golang.LoadGraph("testdata/typed", golang.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if g.Stats.Resolve != golang.ModeTyped || g.Stats.Typed != 2 || g.Stats.Untyped != 0 {
		t.Errorf("resolve %q typed %d untyped %d (%s); want every package type-checked", g.Stats.Resolve, g.Stats.Typed, g.Stats.Untyped, g.Stats.TypeNote)
	}
	const a, z = "example.com/typed/animal.", "example.com/typed/zoo."
	want := []string{
		a + "Base.Name -> strings.ToUpper",
		a + "Chorus -> " + a + "Namer.Name",
		a + "Chorus -> " + a + "Speaker.Speak",
		a + "Dog.Speak -> " + a + "Base.Name",
		a + "Dog.Speak -> " + a + "bark",
		a + "Register -> " + a + "Namer.Name",
		a + "bark -> strings.Repeat",
		z + "Open -> " + a + "Chorus",
		z + "Open -> " + a + "Dog.Speak",
		z + "Open -> " + a + "Map",
		z + "Open -> " + a + "Register",
		z + "Open -> fmt.Println",
	}
	if got := edgesOf(g, "calls"); !slices.Equal(got, want) {
		t.Errorf("calls:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	wantRefs := []string{
		a + "Dog.Speak -> " + a + "Loud",
		a + "Register -> " + a + "Registry",
	}
	if got := edgesOf(g, "refs"); !slices.Equal(got, wantRefs) {
		t.Errorf("refs:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantRefs, "\n"))
	}
	wantImpl := []string{
		a + "Base -> " + a + "Namer",
		a + "Dog -> " + a + "Namer",
		a + "Dog -> " + a + "Speaker",
		z + "Keeper -> " + a + "Namer",
		z + "Keeper -> " + a + "Speaker",
	}
	if got := edgesOf(g, "implements"); !slices.Equal(got, wantImpl) {
		t.Errorf("implements:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantImpl, "\n"))
	}
	var ext []string
	for _, n := range g.External {
		ext = append(ext, n.Loc)
	}
	if want := []string{"fmt.Println", "strings.Repeat", "strings.ToUpper"}; !slices.Equal(ext, want) {
		t.Errorf("external %v; want %v", ext, want)
	}
	if g.Stats.External != 3 || g.Stats.Calls != 9 || g.Stats.Refs != 2 || g.Stats.Implements != 5 {
		t.Errorf("stats %+v", g.Stats)
	}
}

// TestTypedNodes: a function's node reads like its outline: name,
// receiver, signature, file:line and the doc's first line; an
// interface's methods are FN nodes under it.
func TestTypedNodes(t *testing.T) {
	g, err := golang.LoadGraph("testdata/typed", golang.Options{})
	if err != nil {
		t.Fatal(err)
	}
	nodes := map[string]golang.Node{}
	for _, p := range g.Packages {
		for _, f := range p.Files {
			for _, d := range f.Decls {
				nodes[d.Loc] = d
			}
		}
	}
	props := func(loc string) map[string]any {
		m := map[string]any{}
		for _, p := range nodes[loc].Props {
			m[p.Key] = p.Val
		}
		return m
	}
	for loc, want := range map[string]map[string]any{
		"example.com/typed/animal.Dog.Speak": {"at": "animal/animal.go:38", "doc": "Speak barks, Loud times for a loud dog.",
			"name": "Speak", "recv": "Dog", "sig": "func (d *Dog) Speak() string"},
		"example.com/typed/animal.Speaker.Speak": {"at": "animal/animal.go:18", "doc": "Speak returns what the speaker says.",
			"name": "Speak", "recv": "Speaker", "sig": "func (Speaker) Speak() string"},
		"example.com/typed/animal.Speaker": {"at": "animal/animal.go:16", "doc": "Speaker is anything that speaks.",
			"name": "Speaker", "sig": "type Speaker interface"},
		"example.com/typed/animal.bark": {"at": "animal/animal.go:45", "name": "bark", "sig": "func bark(n int) string"},
		"example.com/typed/animal.Loud": {"at": "animal/animal.go:8", "doc": "Loud is how many times a loud animal speaks.",
			"name": "Loud", "sig": "const Loud = 3"},
	} {
		got := props(loc)
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s: %s = %v; want %v", loc, k, got[k], v)
			}
		}
		if len(got) != len(want) {
			t.Errorf("%s: props %v; want %v", loc, got, want)
		}
	}
	var hm []string
	for _, e := range g.Edges {
		if e.Type == "has_method" && strings.Contains(e.From.Loc, "Speaker") {
			hm = append(hm, e.To.Loc)
		}
	}
	if want := []string{"example.com/typed/animal.Speaker.Speak"}; !slices.Equal(hm, want) {
		t.Errorf("Speaker's methods %v; want %v (the embedded Namer's stay Namer's)", hm, want)
	}
}

// TestSyntaxFallback: without type-checking (asked for, or a tree the go
// command cannot load) calls are resolved by syntax, and the stats say
// so.
func TestSyntaxFallback(t *testing.T) {
	g, err := golang.LoadGraph("testdata/typed", golang.Options{NoTypes: true})
	if err != nil {
		t.Fatal(err)
	}
	if g.Stats.Resolve != golang.ModeSyntax || g.Stats.Untyped != 2 || g.Stats.TypeNote == "" {
		t.Errorf("resolve %q untyped %d note %q", g.Stats.Resolve, g.Stats.Untyped, g.Stats.TypeNote)
	}
	if got := edgesOf(g, "calls"); !slices.Contains(got, "example.com/typed/zoo.Open -> example.com/typed/animal.Chorus") ||
		slices.Contains(got, "example.com/typed/zoo.Open -> example.com/typed/animal.Dog.Speak") {
		t.Errorf("syntax calls %v", got)
	}
}
