package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// memoryFile is a memory.jsonl as the original writes one: names and
// types with spaces, unicode, backquotes, HTML characters and reserved
// words, entities without observations, relations of several types.
func memoryFile() string {
	var b strings.Builder
	kinds := []string{"person", "MATCH", "project `x`", "città"}
	for i := 0; i < 40; i++ {
		var obs []string
		for j := 0; j < i%4; j++ {
			obs = append(obs, fmt.Sprintf("note %d.%d <b>&</b> «ç» 🐟", i, j))
		}
		// The keys in the original's order (json.Marshal of a map sorts them).
		name, kind, list := jsonText(fmt.Sprintf("Zoë %02d", i)), jsonText(kinds[i%4]), jsonText(append([]string{}, obs...))
		fmt.Fprintf(&b, `{"type":"entity","name":%s,"entityType":%s,"observations":%s}`, name, kind, list)
		b.WriteByte('\n')
	}
	for i := 0; i < 40; i++ {
		for _, rt := range []string{"knows", "works with"} {
			fmt.Fprintf(&b, `{"type":"relation","from":"Zoë %02d","to":"Zoë %02d","relationType":%q}`, i, (i*7+3)%40, rt)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// jsonText is v in JSON as the original writes it (JSON.stringify: no
// HTML escapes).
func jsonText(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	return strings.TrimSuffix(b.String(), "\n")
}

func runOut(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errs bytes.Buffer
	code := run(args, strings.NewReader(""), &out, &errs)
	return out.String(), errs.String(), code
}

// TestImportExportMemory: import-memory loads the file, a second run
// applies nothing, export-memory writes the file's lines back, and a bad
// file is refused whole with every bad line named.
func TestImportExportMemory(t *testing.T) {
	dir := t.TempDir()
	file, cab := filepath.Join(dir, "memory.jsonl"), filepath.Join(dir, "c.gf")
	content := memoryFile()
	os.WriteFile(file, []byte(content), 0o644)
	out, errs, code := runOut(t, "import-memory", file, "--cabinet", cab)
	if code != 0 || !strings.Contains(out, "120 changes") || errs != "" {
		t.Fatalf("import: %d %q %q", code, out, errs)
	}
	out, errs, code = runOut(t, "import-memory", "--cabinet", cab, file)
	if code != 0 || !strings.Contains(out, " 0 changes") || !strings.Contains(out, "in 0 Commits") {
		t.Fatalf("second import: %d %q %q", code, out, errs)
	}
	out, errs, code = runOut(t, "export-memory", "--cabinet", cab, "--session", "memory")
	if code != 0 {
		t.Fatalf("export: %d %q", code, errs)
	}
	got, want := strings.Split(strings.TrimSpace(out), "\n"), strings.Split(strings.TrimSpace(content), "\n")
	slices.Sort(want)
	if sorted := slices.Sorted(slices.Values(got)); !slices.Equal(sorted, want) {
		t.Errorf("export differs from the file:\n%s", out)
	}
	if !slices.IsSortedFunc(got[:40], strings.Compare) {
		t.Errorf("the entities are not sorted by name:\n%s", out)
	}
	exported := filepath.Join(dir, "out.jsonl")
	if _, errs, code := runOut(t, "export-memory", "--cabinet", cab, exported); code != 0 {
		t.Fatal(errs)
	}
	if b, _ := os.ReadFile(exported); string(b) != out {
		t.Errorf("export to a file differs from the export to stdout")
	}

	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte(`{"type":"entity","name":"new","entityType":"t","observations":[]}
oops
{"type":"relation","from":"new","to":"nobody","relationType":"r"}
`), 0o644)
	out, errs, code = runOut(t, "import-memory", bad, "--cabinet", cab)
	if code != 1 || !strings.Contains(errs, "bad.jsonl:2: GQLSTATUS 22000") || !strings.Contains(errs, "bad.jsonl:3: GQLSTATUS 42002") ||
		!strings.Contains(errs, "2 bad lines") {
		t.Errorf("bad file: %d %q %q", code, out, errs)
	}
	out, _, _ = runOut(t, "export-memory", "--cabinet", cab)
	if strings.Contains(out, `"new"`) {
		t.Errorf("a refused import applied its good lines")
	}
	for _, args := range [][]string{{"import-memory"}, {"import-memory", "a", "b"}, {"export-memory", "--mem", "--cabinet", cab}} {
		if _, _, code := runOut(t, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
	if _, errs, code := runOut(t, "export-memory", "--cabinet", cab, "--session", "absent"); code != 1 || !strings.Contains(errs, "42002") {
		t.Errorf("export of a missing session: %d %q", code, errs)
	}
}

// TestMemoryRoundTrip: a memory.jsonl imported, exported, and read by
// the original memory server (read_graph, through the official client)
// gives the entities and relations the original reads from the file
// itself.
func TestMemoryRoundTrip(t *testing.T) {
	node := needNode(t)
	bin := gqlshBinary(t)
	dir := t.TempDir()
	file, cab, exported := filepath.Join(dir, "memory.jsonl"), filepath.Join(dir, "c.gf"), filepath.Join(dir, "exported.jsonl")
	os.WriteFile(file, []byte(memoryFile()), 0o644)
	for _, args := range [][]string{{"import-memory", file, "--cabinet", cab}, {"export-memory", "--cabinet", cab, exported}} {
		cmd := exec.Command(bin, args...)
		cmd.Env = processEnvFor(t)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("gqlsh %v: %v\n%s", args, err, out)
		}
	}
	readGraph := func(path string) graphJSON {
		cmd := exec.Command(node, "readgraph.mjs", path)
		cmd.Dir = nodeDir
		cmd.Env = processEnvFor(t)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("node readgraph.mjs %s: %v\n%s", path, err, stderr.String())
		}
		var g graphJSON
		if err := json.Unmarshal(out, &g); err != nil {
			t.Fatalf("read_graph: %v\n%s", err, out)
		}
		slices.SortFunc(g.Entities, func(a, b struct {
			Name         string   `json:"name"`
			EntityType   string   `json:"entityType"`
			Observations []string `json:"observations"`
		}) int {
			return strings.Compare(a.Name, b.Name)
		})
		slices.SortFunc(g.Relations, func(a, b struct {
			From         string `json:"from"`
			To           string `json:"to"`
			RelationType string `json:"relationType"`
		}) int {
			return strings.Compare(a.From+"\x00"+a.RelationType+"\x00"+a.To, b.From+"\x00"+b.RelationType+"\x00"+b.To)
		})
		return g
	}
	want, got := readGraph(file), readGraph(exported)
	if len(want.Entities) != 40 || len(want.Relations) != 80 {
		t.Fatalf("the original reads %d entities and %d relations from the file", len(want.Entities), len(want.Relations))
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("the original's read_graph of the export differs from its read_graph of the file:\n got %+v\nwant %+v", got, want)
	}
}
