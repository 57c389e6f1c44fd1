package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/server"
)

// badLines is what a *FileErrors says: "line: code" for each bad line.
func badLines(err error) []string {
	var fe *server.FileErrors
	if !errors.As(err, &fe) {
		return nil
	}
	var out []string
	for _, e := range fe.Lines {
		out = append(out, fmt.Sprintf("%d: %s", e.Pos.Line, e.Code))
	}
	return out
}

// TestReadMemoryFile: the file is read whole, every bad line named with
// its number and code, duplicates merged as the original merges them.
func TestReadMemoryFile(t *testing.T) {
	huge := strings.Repeat("é", 300_000)
	for _, tc := range []struct {
		name, file string
		bad        []string // "line: code"
		entities   []server.Entity
		relations  int
	}{
		{name: "empty", file: "", entities: nil},
		{name: "blank lines", file: "\n  \n\r\n", entities: nil},
		{name: "one of each", file: `{"type":"entity","name":"ann","entityType":"person","observations":["likes tea"]}
{"type":"relation","from":"ann","to":"ann","relationType":"knows"}`,
			entities: []server.Entity{{Name: "ann", EntityType: "person", Observations: []string{"likes tea"}}}, relations: 1},
		{name: "crlf and extra fields", file: "{\"type\":\"entity\",\"name\":\"a\",\"entityType\":\"t\",\"observations\":[],\"extra\":1}\r\n",
			entities: []server.Entity{{Name: "a", EntityType: "t", Observations: []string{}}}},
		{name: "unicode", file: `{"type":"entity","name":"Zoë 東京 🐟","entityType":"città","observations":["naïve \u2028 line","` + "`tick`" + `"]}`,
			entities: []server.Entity{{Name: "Zoë 東京 🐟", EntityType: "città", Observations: []string{"naïve \u2028 line", "`tick`"}}}},
		{name: "duplicate entity merges observations", file: `{"type":"entity","name":"a","entityType":"t","observations":["x","y"]}
{"type":"entity","name":"a","entityType":"t","observations":["y","z","z"]}
{"type":"relation","from":"a","to":"a","relationType":"r"}
{"type":"relation","from":"a","to":"a","relationType":"r"}`,
			entities: []server.Entity{{Name: "a", EntityType: "t", Observations: []string{"x", "y", "z", "z"}}}, relations: 1},
		{name: "huge observation", file: `{"type":"entity","name":"a","entityType":"t","observations":["` + huge + `"]}`,
			entities: []server.Entity{{Name: "a", EntityType: "t", Observations: []string{huge}}}},
		{name: "every bad line", file: `not json
{"type":"thing","name":"a"}
{"name":"a"}
{"type":"entity","name":"a","entityType":"t"}
{"type":"entity","name":"b","entityType":"t","observations":[1]}
{"type":"relation","from":"a","relationType":"r"}
{"type":"entity","name":"","entityType":"t","observations":[]}
{"type":"entity","name":"c","entityType":"","observations":[]}
{"type":"entity","name":"d","entityType":"t","observations":[]}
{"type":"entity","name":"d","entityType":"u","observations":[]}
{"type":"entity","name":5,"entityType":"t","observations":[]}
` + "{\"type\":\"entity\",\"name\":\"\xff\",\"entityType\":\"t\",\"observations\":[]}\n" +
			`{"type":"relation","from":"a","to":"b","relationType":""}
{"type":"entity","name":"e","entityType":"t","observations":null}
[1,2]`,
			// Line 8, an empty entityType, is a node without a kind, as
			// create_entities makes it.
			bad: []string{"1: 22000", "2: 22000", "3: 22000", "4: 22000", "5: 22G03", "6: 22000", "7: 42Q03",
				"10: 22G03", "11: 22G03", "12: 22000", "13: 42Q03", "14: 22000", "15: 22000"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := server.ReadMemoryFile(strings.NewReader(tc.file), "memory.jsonl")
			if got := badLines(err); !slices.Equal(got, tc.bad) {
				t.Fatalf("bad lines %v, want %v (%v)", got, tc.bad, err)
			}
			if tc.bad != nil {
				if gqlstatus.CodeOf(err, "") != gqlstatus.DataException || !strings.Contains(err.Error(), "nothing imported") {
					t.Errorf("the error: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(f.Entities) != len(tc.entities) || len(f.Relations) != tc.relations {
				t.Fatalf("%d entities, %d relations", len(f.Entities), len(f.Relations))
			}
			for i, e := range tc.entities {
				g := f.Entities[i]
				if g.Name != e.Name || g.EntityType != e.EntityType || !slices.Equal(g.Observations, e.Observations) {
					t.Errorf("entity %d: %+v, want %+v", i, g, e)
				}
			}
		})
	}
}

func importText(t *testing.T, s *goldfish.Session, file string) (server.ImportReport, error) {
	t.Helper()
	f, err := server.ReadMemoryFile(strings.NewReader(file), "memory.jsonl")
	if f == nil {
		return server.ImportReport{}, err
	}
	return server.ImportMemory(context.Background(), s, f, server.ImportOptions{})
}

// TestImportMemoryAgainstSession: the errors only the session shows
// (an unknown entity, another kind, too large for a Δ) fail the import
// whole, and nothing is written.
func TestImportMemoryAgainstSession(t *testing.T) {
	ctx := context.Background()
	db, err := goldfish.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s, _ := db.Session(ctx, "memory")
	if _, err := s.Commit(ctx, `INSERT (:person {nick: "ann", observations: ["x"]}), (:city {nick: "rome"})`, nil); err != nil {
		t.Fatal(err)
	}
	v := s.Version()
	file := `{"type":"entity","name":"bob","entityType":"person","observations":[]}
{"type":"relation","from":"bob","to":"ann","relationType":"knows"}
{"type":"relation","from":"bob","to":"nobody","relationType":"knows"}
{"type":"entity","name":"rome","entityType":"person","observations":[]}
{"type":"entity","name":"big","entityType":"t","observations":["` + strings.Repeat("x", 300<<10) + `"]}
{"type":"relation","from":"ghost","to":"ann","relationType":"knows"}
not json`
	_, err = importText(t, s, file)
	if got, want := badLines(err), []string{"3: 42002", "4: 22G03", "5: 22Q02", "6: 42002", "7: 22000"}; !slices.Equal(got, want) {
		t.Fatalf("bad lines %v, want %v (%v)", got, want, err)
	}
	if s.Version() != v {
		t.Errorf("a failed import applied something: version %d → %d", v, s.Version())
	}
}

// TestImportMemoryIdempotent: an import makes the entities and relations
// (merging into what the session holds), a second applies nothing, and
// the export is the file's content in the export's order.
func TestImportMemoryIdempotent(t *testing.T) {
	ctx := context.Background()
	db, err := goldfish.Open(goldfish.WithCommitBudget(goldfish.Budget{Rows: 40}))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s, _ := db.Session(ctx, "memory")
	if _, err := s.Commit(ctx, `INSERT (:person {nick: "p000", observations: ["old"]})`, nil); err != nil {
		t.Fatal(err)
	}
	var file strings.Builder
	for i := 0; i < 60; i++ {
		fmt.Fprintf(&file, `{"type":"entity","name":"p%03d","entityType":"person","observations":["obs %d","shared"]}`+"\n", i, i)
	}
	for i := 0; i < 60; i++ {
		fmt.Fprintf(&file, `{"type":"relation","from":"p%03d","to":"p%03d","relationType":"knows"}`+"\n", i, (i+1)%60)
	}
	file.WriteString(`{"type":"relation","from":"p001","to":"p000","relationType":"works with"}` + "\n")
	rep, err := importText(t, s, file.String())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Created != 59 || rep.Merged != 1 || rep.Linked != 61 || rep.Commits < 2 {
		t.Errorf("first import: %+v", rep)
	}
	t.Logf("first import: %+v", rep)
	v := s.Version()
	rep, err = importText(t, s, file.String())
	if err != nil || rep.Changes() != 0 || rep.Commits != 0 || s.Version() != v {
		t.Errorf("second import: %+v %v (version %d → %d)", rep, err, v, s.Version())
	}
	var out bytes.Buffer
	if _, err := server.ExportMemory(ctx, s, &out); err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(file.String(), `"p000","entityType":"person","observations":["obs 0","shared"]`,
		`"p000","entityType":"person","observations":["old","obs 0","shared"]`, 1)
	if got, want := sortedLines(out.String()), sortedLines(want); !slices.Equal(got, want) {
		t.Errorf("export differs from the file:\n%s", strings.Join(diffLines(got, want), "\n"))
	}
	// The export imported again changes nothing either.
	if rep, err := importText(t, s, out.String()); err != nil || rep.Changes() != 0 {
		t.Errorf("the export imported back: %+v %v", rep, err)
	}
}

func sortedLines(s string) []string {
	l := strings.Split(strings.TrimSpace(s), "\n")
	slices.Sort(l)
	return l
}

func diffLines(got, want []string) []string {
	var out []string
	for _, g := range got {
		if !slices.Contains(want, g) {
			out = append(out, "+ "+g)
		}
	}
	for _, w := range want {
		if !slices.Contains(got, w) {
			out = append(out, "- "+w)
		}
	}
	return out
}

// FuzzDecodeMemoryLine: any line decodes or fails with a GQLSTATUS, and
// a line that decodes encodes to one that decodes to the same.
func FuzzDecodeMemoryLine(f *testing.F) {
	for _, s := range []string{
		`{"type":"entity","name":"ann","entityType":"person","observations":["likes tea"]}`,
		`{"type":"relation","from":"ann","to":"bob","relationType":"knows"}`,
		`{"type":"entity","name":"","entityType":"t","observations":[]}`,
		`{"type":"entity","name":"a","entityType":"t","observations":null}`,
		`{"type":"thing"}`, `[1]`, `not json`, "{\"type\":\"entity\",\"name\":\"\xff\"}", `{"type":"relation","from":1}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := server.DecodeMemoryLine(b)
		if err != nil {
			if gqlstatus.CodeOf(err, "") == "" {
				t.Fatalf("an error without a GQLSTATUS: %v", err)
			}
			return
		}
		if (l.Entity == nil) == (l.Relation == nil) {
			t.Fatalf("decoded %q to %+v", b, l)
		}
		var again []byte
		if e := l.Entity; e != nil {
			again, _ = json.Marshal(struct {
				Type string `json:"type"`
				server.Entity
			}{"entity", *e})
		} else {
			again, _ = json.Marshal(struct {
				Type string `json:"type"`
				server.Relation
			}{"relation", *l.Relation})
		}
		l2, err := server.DecodeMemoryLine(again)
		if err != nil || !reflect.DeepEqual(l, l2) {
			t.Fatalf("%q decodes to %+v, encoded as %s to %+v (%v)", b, l, again, l2, err)
		}
	})
}

// TestImportDropInExport: the import and the drop-in tools share one
// mapping. After an import the drop-in's read_graph and open_nodes show
// the entities, observations and relations; the drop-in takes the
// imported entities as its own (create_entities finds them there,
// add_observations extends them); and the export holds the drop-in's
// writes as the original would.
func TestImportDropInExport(t *testing.T) {
	ctx := context.Background()
	db, srv := mcpServer(t, server.Options{})
	cs := connect(t, srv)
	s, err := db.Session(ctx, server.DefaultMemorySession)
	if err != nil {
		t.Fatal(err)
	}
	var progress [][2]int
	f, err := server.ReadMemoryFile(strings.NewReader(`{"type":"entity","name":"ann","entityType":"person","observations":["likes tea"]}
{"type":"entity","name":"Roma","entityType":"città","observations":[]}
{"type":"relation","from":"ann","to":"Roma","relationType":"lives in"}`), "m.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := server.ImportMemory(ctx, s, f, server.ImportOptions{Progress: func(d, n int) { progress = append(progress, [2]int{d, n}) }}); err != nil {
		t.Fatal(err)
	}
	if len(progress) == 0 || progress[len(progress)-1] != [2]int{3, 3} {
		t.Errorf("progress %v", progress)
	}
	for _, tool := range []struct {
		name string
		args map[string]any
	}{{"read_graph", map[string]any{}}, {"open_nodes", map[string]any{"names": []any{"ann"}}}} {
		text, _ := callTool(t, cs, tool.name, tool.args, false)
		for _, want := range []string{`nick: "ann"`, `"likes tea"`, `nick: "Roma"`, "`lives in`", ":`città`"} {
			if !strings.Contains(text, want) {
				t.Errorf("%s lacks %s:\n%s", tool.name, want, text)
			}
		}
	}
	if text, _ := callTool(t, cs, "create_entities", map[string]any{"entities": []any{
		map[string]any{"name": "ann", "entityType": "person", "observations": []any{}},
		map[string]any{"name": "bob", "entityType": "person", "observations": []any{"new"}}}}, false); !strings.HasPrefix(text, `[{"name":"bob",`) {
		t.Errorf("create_entities: %s", text)
	}
	callTool(t, cs, "add_observations", map[string]any{"observations": []any{map[string]any{"entityName": "ann", "contents": []any{"moved"}}}}, false)
	callTool(t, cs, "create_relations", map[string]any{"relations": []any{map[string]any{"from": "bob", "to": "ann", "relationType": "knows"}}}, false)
	var out bytes.Buffer
	if _, err := server.ExportMemory(ctx, s, &out); err != nil {
		t.Fatal(err)
	}
	want := `{"type":"entity","name":"Roma","entityType":"città","observations":[]}
{"type":"entity","name":"ann","entityType":"person","observations":["likes tea","moved"]}
{"type":"entity","name":"bob","entityType":"person","observations":["new"]}
{"type":"relation","from":"ann","to":"Roma","relationType":"lives in"}
{"type":"relation","from":"bob","to":"ann","relationType":"knows"}
`
	if out.String() != want {
		t.Errorf("export:\n%s\nwant:\n%s", out.String(), want)
	}
}

// TestImportMemoryResumes: an import stopped after its first Commit (as a
// process that dies midway) keeps what it committed, and running it
// again completes it.
func TestImportMemoryResumes(t *testing.T) {
	db, err := goldfish.Open(goldfish.WithCommitBudget(goldfish.Budget{Rows: 30}))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s, _ := db.Session(context.Background(), "memory")
	var file strings.Builder
	for i := 0; i < 50; i++ {
		fmt.Fprintf(&file, `{"type":"entity","name":"e%d","entityType":"t","observations":["o"]}`+"\n", i)
		fmt.Fprintf(&file, `{"type":"relation","from":"e%d","to":"e%d","relationType":"r"}`+"\n", i, i/2)
	}
	f, _ := server.ReadMemoryFile(strings.NewReader(file.String()), "m.jsonl")
	ctx, cancel := context.WithCancel(context.Background())
	rep, err := server.ImportMemory(ctx, s, f, server.ImportOptions{Budget: goldfish.Budget{Rows: 30}, Progress: func(int, int) { cancel() }})
	if err == nil || rep.Commits != 1 {
		t.Fatalf("the stopped import: %+v %v", rep, err)
	}
	rep, err = server.ImportMemory(context.Background(), s, f, server.ImportOptions{Budget: goldfish.Budget{Rows: 30}})
	if err != nil || rep.Created != 20 || rep.Linked != 50 {
		t.Fatalf("the import run again: %+v %v", rep, err)
	}
	if in, _ := s.Info(context.Background()); in.Nodes != 50 || in.Edges != 50 {
		t.Errorf("%d nodes, %d edges", in.Nodes, in.Edges)
	}
}
