package exec

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish/parser"
	"github.com/goldfish-gql/goldfish/planner"
	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/values"
	"github.com/goldfish-gql/goldfish/vocab"
)

func commitText(t *testing.T, g *store.Graph, text string, mint Mint) (*values.CommitResult, error) {
	t.Helper()
	script, err := parser.Parse(text)
	if err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	plan, err := planner.Build(script)
	if err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	return Commit(context.Background(), g, plan, nil, CommitOptions{Mint: mint})
}

// writesOf renders a ledger's counters as "KIND.key" → "raw/inAction".
func writesOf(s *vocab.State) map[string]string {
	out := map[string]string{}
	for _, w := range s.Writes() {
		out[w.Kind+"."+w.Key] = fmt.Sprintf("%d/%d", w.Raw, w.InAction)
	}
	return out
}

// TestCommitLedger: each Δ adds its distinct changed elements to Changed
// and counts each (kind, key) it wrote once per side, raw or in an
// action; ingests count no writes; a Δ that fails, rolls back or changes
// nothing leaves the State as it was.
func TestCommitLedger(t *testing.T) {
	g := store.New()
	steps := []struct {
		text    string
		mint    Mint
		fails   bool
		changed uint64
		writes  map[string]string // the pairs whose counters changed, as they are after
	}{
		{text: `INSERT (:TSK {nick: "a", status: "open"}), (:TSK {nick: "b", status: "open"}), (:TSK {nick: "c"})`,
			changed: 3, writes: map[string]string{"TSK.nick": "1/0", "TSK.status": "1/0"}},
		// Three statements writing TSK.status count once.
		{text: `MATCH (t:TSK {nick: "a"}) SET t.status = "done"; MATCH (t:TSK {nick: "b"}) SET t.status = "done"; MATCH (t:TSK {nick: "c"}) SET t.status = "done"`,
			changed: 3, writes: map[string]string{"TSK.status": "2/0"}},
		// Setting a property to the value it has is a write, not a change.
		{text: `MATCH (t:TSK {nick: "a"}) SET t.status = "done"`,
			changed: 0, writes: map[string]string{"TSK.status": "3/0"}},
		// The kind of a node is its first label; an edge's is its type.
		{text: `MATCH (t:TSK {nick: "a"}) INSERT (t)-[:has_note {w: 1}]->(:NOTE:TSK {text: "x"})`,
			changed: 2, writes: map[string]string{"has_note.w": "1/0", "NOTE.text": "1/0"}},
		{text: `MATCH (t:TSK {nick: "b"}) REMOVE t.status, t.missing`,
			changed: 1, writes: map[string]string{"TSK.status": "4/0"}},
		// Labels change elements but are no property writes.
		{text: `MATCH (t:TSK {nick: "b"}) SET t:Urgent`, changed: 1},
		{text: `MATCH (t:TSK {nick: "b"}) REMOVE t:Urgent`, changed: 1},
		// The whole-map forms: = writes its keys and those it removes, += its keys.
		{text: `MATCH (t:TSK {nick: "c"}) SET t = {nick: "c", pri: 2}`,
			changed: 1, writes: map[string]string{"TSK.nick": "2/0", "TSK.pri": "1/0", "TSK.status": "5/0"}},
		{text: `MATCH (t:TSK {nick: "c"}) SET t += {pri: 3, owner: "ana"}`,
			changed: 1, writes: map[string]string{"TSK.pri": "2/0", "TSK.owner": "1/0"}},
		// The note names its task: a note equal to another task's would be
		// an echo of it, and bind to it (docs/design.md#commit).
		{text: `CREATE ACTION settle(nick STRING) { MATCH (t:TSK {nick: $nick}) SET t.status = "settled" INSERT (t)-[:has_note]->(:NOTE {text: $nick}) }`},
		{text: `CALL settle('a')`,
			changed: 3, writes: map[string]string{"TSK.status": "5/1", "NOTE.text": "1/1"}},
		// Raw and in an action in one Δ: once on each side.
		{text: `MATCH (t:TSK {nick: "c"}) SET t.status = "x"; CALL settle('b')`,
			changed: 4, writes: map[string]string{"TSK.status": "6/2", "NOTE.text": "1/2"}},
		// DETACH DELETE changes the node and each of its edges.
		{text: `MATCH (t:TSK {nick: "a"}) DETACH DELETE t`, changed: 3},
		// An ingest changes elements and counts no writes, a re-ingest of
		// the same artefact changes nothing.
		{text: `INSERT (m:MOD {loc: "a.go", lines: 3}), (n:MOD {loc: "b.go"}), (m)-[:imports {w: 2}]->(n)`, mint: MintIngest, changed: 3},
		{text: `INSERT (m:MOD {loc: "a.go", lines: 3}), (n:MOD {loc: "b.go"}), (m)-[:imports {w: 2}]->(n)`, mint: MintIngest},
		{text: `INSERT (m:MOD {loc: "a.go", lines: 4})`, mint: MintIngest, changed: 1},
		// A failed Δ, a rolled back one, one that binds nothing: no change.
		{text: `MATCH (t:TSK {nick: "c"}) SET t.status = "y"; INSERT (:TSK {nick: "c", status: "z"})`, fails: true},
		{text: `START TRANSACTION; MATCH (t:TSK {nick: "c"}) SET t.status = "y"; ROLLBACK`},
		{text: `MATCH (t:TSK {nick: "nobody"}) SET t.status = "y"`},
		// A Δ of echoes only (the live b restated, its note and the edge) changes
		// nothing and writes nothing.
		{text: `INSERT (:TSK {nick: "b"})-[:has_note]->(:NOTE {text: "b"})`},
		{text: `DROP ACTION settle`},
	}
	for i, st := range steps {
		before := Vocabulary(g.Snapshot())
		old := writesOf(before)
		_, err := commitText(t, g, st.text, st.mint)
		if (err != nil) != st.fails {
			t.Fatalf("step %d %s: error %v", i, st.text, err)
		}
		after := Vocabulary(g.Snapshot())
		if got := after.Changed() - before.Changed(); got != st.changed {
			t.Errorf("step %d %s: %d elements changed, want %d", i, st.text, got, st.changed)
		}
		got := map[string]string{}
		for k, v := range writesOf(after) {
			if old[k] != v {
				got[k] = v
			}
		}
		if !maps.Equal(got, st.writes) {
			t.Errorf("step %d %s: counters changed %v, want %v", i, st.text, got, st.writes)
		}
		if st.changed == 0 && st.writes == nil && !strings.HasPrefix(st.text, "CREATE") && !strings.HasPrefix(st.text, "DROP") && after != before {
			t.Errorf("step %d %s: the State was replaced", i, st.text)
		}
	}
	final := Vocabulary(g.Snapshot())
	if _, dropped := final.DroppedSince(0); !slices.Equal(dropped, []string{"settle"}) {
		t.Errorf("dropped actions %v", dropped)
	}
	if !final.Empty() || !final.HasLedger() {
		t.Errorf("Empty %v HasLedger %v", final.Empty(), final.HasLedger())
	}
}
