package engine

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish/store/cabinet"
	pgcabinet "github.com/goldfish-gql/goldfish/store/cabinet/postgres"
	"github.com/goldfish-gql/goldfish/values"
)

// The backend suite: what the engine keeps across a reopen, run alike on
// the embedded bbolt cabinet and on PostgreSQL (as package cabinettest
// runs the cabinet's own contract on both). A case is written once,
// against a backend that opens a database on the same storage each time;
// the PostgreSQL runs skip without a server unless the environment
// requires one (.ci/run does).

// backend is a fresh storage of one kind.
type backend struct {
	// open opens a database on the backend's storage; the test closes it
	// at its end (closing it before is harmless: Close is idempotent).
	open func() *DB
	// where is what CabinetPath says of the storage.
	where string
	// raw opens the storage's cabinet alone, as no database holds it.
	raw func() (cabinet.Cabinet, error)
}

// load reads the session's image as the storage holds it, with no
// database open on it.
func (b backend) load(t *testing.T, name string) *cabinet.Image {
	t.Helper()
	cab, err := b.raw()
	if err != nil {
		t.Fatal(err)
	}
	defer cab.Close()
	img, err := cab.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// backendSuite is every case the suite runs on each backend.
var backendSuite = []struct {
	name string
	run  func(*testing.T, backend)
}{
	{"RoundTrip", roundTrip},
	{"PinnedKinds", pinnedAcrossReopen},
	{"VersionsSayWhatChanged", versionsSayWhatChanged},
	{"DeepValues", deepValuesAcrossReopen},
	{"Agents", agentsAcrossReopen},
	{"AgentsGoWithDrop", agentsGoWithDrop},
	{"Past", pastAcrossReopen},
}

func TestBackends(t *testing.T) {
	kinds := []struct {
		name  string
		fresh func(t *testing.T) backend
	}{
		{"bbolt", func(t *testing.T) backend {
			path := filepath.Join(t.TempDir(), "c.gf")
			return backend{where: path, open: func() *DB {
				db := openCab(t, path)
				t.Cleanup(func() { db.Close() })
				return db
			}, raw: func() (cabinet.Cabinet, error) { return cabinet.Open(path, nil) }}
		}},
		{"postgres", func(t *testing.T) backend {
			url, schema := pgSchema(t)
			return backend{where: "schema " + schema, open: func() *DB {
				return openPG(t, url, schema, pgOptions{})
			}, raw: func() (cabinet.Cabinet, error) {
				return pgcabinet.Open(context.Background(), url, &pgcabinet.Options{Schema: schema})
			}}
		}},
	}
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			for _, c := range backendSuite {
				t.Run(c.name, func(t *testing.T) { c.run(t, k.fresh(t)) })
			}
		})
	}
}

// roundTrip: what a database commits (values of every kind, recycling,
// ingest ids, a purge) another database on the same storage reads back,
// from the log and from a flushed snapshot alike, and default ids go on
// from the restored counter exactly as they would have in memory.
func roundTrip(t *testing.T, b backend) {
	db := b.open()
	s := mustSession(t, db, "work")
	workload(t, s)
	want := fingerprint(s)
	wantV := s.Version()
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	for _, round := range []struct {
		from  string
		flush bool
	}{{"the log", true}, {"the snapshot", false}, {"the snapshot again", false}} {
		db = b.open()
		s = mustSession(t, db, "work")
		if got := fingerprint(s); got != want || s.Version() != wantV {
			t.Fatalf("from %s:\n%s\nwant\n%s", round.from, got, want)
		}
		if round.flush {
			if err := db.Flush(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		db.Close()
	}
	db = b.open()
	infos := db.SessionInfos()
	if len(infos) != 1 || infos[0].Name != "work" || infos[0].Version != wantV || !infos[0].Persisted {
		t.Fatalf("SessionInfos: %+v", infos)
	}
	if !strings.Contains(db.CabinetPath(), b.where) {
		t.Fatalf("CabinetPath %q does not say %q", db.CabinetPath(), b.where)
	}
	s = mustSession(t, db, "work")
	mustCommit(t, s, `INSERT (:NOTE {text: "later"})`, nil)
	mem, _ := openTest()
	defer mem.Close()
	ms := mustSession(t, mem, "work")
	workload(t, ms)
	mustCommit(t, ms, `INSERT (:NOTE {text: "later"})`, nil)
	if got, want := fingerprint(s), fingerprint(ms); got != want {
		t.Fatalf("a Commit after reopening:\n%s\nwant, in memory:\n%s", got, want)
	}
}

const pinnedGraph = `INSERT (:LAW {nick: "LAW_review", title: "Two reviewers"}),
	(:LAW {nick: "LAW_tests", title: "Every fix has a test"}),
	(:RULE {nick: "RULE_fridays", text: "no deploy on Fridays"}),
	(:TSK {nick: "TSK_alone", status: "open"})`

// pinnedAcrossReopen: the session's pinned kinds hold across a reopen,
// and every Recall of the session carries their nodes: an isolated TSK
// comes with the LAW nodes.
func pinnedAcrossReopen(t *testing.T, b backend) {
	ctx := context.Background()
	const q = `MATCH (t:TSK {nick: "TSK_alone"})`
	db := b.open()
	s := mustSession(t, db, "work")
	// Set before the first Commit: kept in memory, saved with it.
	if err := s.SetPinnedKinds(ctx, []string{"LAW"}); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, s, pinnedGraph, nil)
	recall := func(s *Session, o values.RecallOptions) *values.Shape {
		t.Helper()
		sh, err := s.recallShape(ctx, q, o)
		if err != nil {
			t.Fatal(err)
		}
		return sh
	}
	sh := recall(s, values.RecallOptions{})
	if sh.Rows != 3 || !strings.Contains(sh.Text, "LAW_review") || !strings.Contains(sh.Text, "LAW_tests") || strings.Contains(sh.Text, "RULE") {
		t.Fatalf("pinned LAW:\n%s", sh.Text)
	}
	want := sh.Text
	// A call's own kinds replace the session's.
	if sh := recall(s, values.RecallOptions{Pinned: []string{"RULE"}}); sh.Rows != 2 || !strings.Contains(sh.Text, "RULE_fridays") || strings.Contains(sh.Text, "LAW") {
		t.Fatalf("per call RULE:\n%s", sh.Text)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = b.open()
	s = mustSession(t, db, "work")
	if kinds, err := s.PinnedKinds(ctx); err != nil || !slices.Equal(kinds, []string{"LAW"}) {
		t.Fatalf("after reopen: %v %v", kinds, err)
	}
	if got := recall(s, values.RecallOptions{}).Text; got != want {
		t.Fatalf("after reopen:\n%s\nwant\n%s", got, want)
	}
	// Changed after the Commit, sorted and kept once; the cached Shape
	// of the old kinds is not served.
	if err := s.SetPinnedKinds(ctx, []string{"RULE", "LAW", "RULE"}); err != nil {
		t.Fatal(err)
	}
	if sh := recall(s, values.RecallOptions{}); sh.Rows != 4 {
		t.Fatalf("LAW,RULE:\n%s", sh.Text)
	}
	if err := db.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db = b.open()
	s = mustSession(t, db, "work")
	if kinds, err := s.PinnedKinds(ctx); err != nil || !slices.Equal(kinds, []string{"LAW", "RULE"}) {
		t.Fatalf("after flush and reopen: %v %v", kinds, err)
	}
	if err := s.SetPinnedKinds(ctx, nil); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db = b.open()
	s = mustSession(t, db, "work")
	if kinds, err := s.PinnedKinds(ctx); err != nil || kinds != nil {
		t.Fatalf("cleared, after reopen: %v %v", kinds, err)
	}
	if sh := recall(s, values.RecallOptions{}); sh.Rows != 1 {
		t.Fatalf("cleared:\n%s", sh.Text)
	}
}

// versionsSayWhatChanged: each version of the list says what its Δ did,
// as the Commit's summary says it (a purge, how many it removed), and
// says the same once the session is reopened and the versions after its
// stored state are replayed.
func versionsSayWhatChanged(t *testing.T, b backend) {
	ctx := context.Background()
	db := b.open()
	s := mustSession(t, db, "v")
	commit := func(agent, text string) {
		t.Helper()
		if _, err := s.commitWith(ctx, text, nil, values.CommitOptions{Agent: agent}); err != nil {
			t.Fatalf("%s: %v", text, err)
		}
	}
	commit("ana", `INSERT (:TSK {nick: "TSK_a"})-[:touches]->(:MOD {loc: "a.go"})`)
	commit("", `MATCH (m:MOD {loc: "a.go"}) DETACH DELETE m`)
	if n, err := s.Purge(ctx); err != nil || n != 2 {
		t.Fatalf("purge: %d %v", n, err)
	}
	// The purge cut the history before it: the list starts there.
	commit("bo", `MATCH (t:TSK {nick: "TSK_a"}) SET t.status = "done", t.due = 3`)
	commit("ana", `CREATE VIEW open AS 'nodes("TSK").size()'`)
	want := []string{"registered view open", "2 properties set", "purged 2 recycled elements"}
	check := func(when string) {
		t.Helper()
		es, _, _, err := s.Versions(ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(es) != len(want) {
			t.Fatalf("%s: %d versions, want %d", when, len(es), len(want))
		}
		for i, e := range es {
			if e.Change != want[i] {
				t.Errorf("%s: version %d changed %q, want %q", when, e.Version, e.Change, want[i])
			}
		}
	}
	check("as committed")
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = b.open()
	s = mustSession(t, db, "v")
	// The purge wrote the session's state (it cut the history there): a
	// reopened session starts from it, and what made it is not stored.
	want[2] = ""
	check("reopened")
}

// deepValuesAcrossReopen: a list as deep as a property may hold, as a
// parameter and as a literal, on a node and on an edge, reads back the
// same after a reopen, from the log and from a flushed snapshot; its
// Shape parses and commits again.
func deepValuesAcrossReopen(t *testing.T, b backend) {
	ctx := context.Background()
	db := b.open()
	s := mustSession(t, db, "deep")
	mustCommit(t, s, `INSERT (:K {nick: "param", p: $p})`, map[string]any{"p": nestedList(values.MaxNesting, 1)})
	mustCommit(t, s, `INSERT (:K {nick: "a", p: `+nestedText(values.MaxNesting)+`})`, nil)
	mustCommit(t, s, `MATCH (n:K {nick: "a"}) INSERT (n)-[:r {p: `+nestedText(values.MaxNesting)+`}]->(:K {nick: "b"})`, nil)
	shapeReparses(t, s, `MATCH (n:K)`)
	want := s.Dump()
	for _, from := range []string{"the log", "the snapshot"} {
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		db = b.open()
		s = mustSession(t, db, "deep")
		if got := s.Dump(); got != want {
			t.Fatalf("from %s:\n%s\nwant\n%s", from, got, want)
		}
		if err := db.Flush(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// agentsAcrossReopen: what each agent read, and who committed each Δ,
// are kept across a restart, reads after the last Commit included (Close
// saves them); a Recall without an agent counts for nobody.
func agentsAcrossReopen(t *testing.T, b backend) {
	ctx := context.Background()
	db := b.open()
	s := mustSession(t, db, "s")
	mustCommit(t, s, `INSERT (:TSK {nick: "a"})`, nil)
	mustRecall(t, s, "ana")
	mustRecall(t, s, "ana")
	mustRecall(t, s, "")
	commitAs(t, s, "bob", `INSERT (:TSK {nick: "b"})`)
	if _, err := s.ingestWith(ctx, `INSERT (:MOD {loc: "m"})`, nil, values.CommitOptions{Agent: "ingest.go"}); err != nil {
		t.Fatal(err)
	}
	mustRecall(t, s, "bob") // after the last Commit: saved by Close
	want := []values.AgentInfo{{Name: "ana", LastRead: 1, Reads: 2}, {Name: "bob", LastRead: 3, Reads: 1}}
	if got := mustAgents(t, s); !reflect.DeepEqual(got, want) {
		t.Fatalf("agents %+v, want %+v", got, want)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	img := b.load(t, "s")
	var agents []string
	for _, e := range img.Log {
		agents = append(agents, e.Agent)
	}
	if !reflect.DeepEqual(agents, []string{"", "bob", "ingest.go"}) {
		t.Fatalf("the log's agents are %q", agents)
	}

	db = b.open()
	s = mustSession(t, db, "s")
	if got := mustAgents(t, s); !reflect.DeepEqual(got, want) {
		t.Fatalf("after a restart the agents are %+v, want %+v", got, want)
	}
	mustRecall(t, s, "ana")
	want[0] = values.AgentInfo{Name: "ana", LastRead: 3, Reads: 3}
	if got := mustAgents(t, s); !reflect.DeepEqual(got, want) {
		t.Fatalf("agents %+v, want %+v", got, want)
	}
	// Flush saves too, and keeps the record when it trims the log.
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db = b.open()
	if got := mustAgents(t, mustSession(t, db, "s")); !reflect.DeepEqual(got, want) {
		t.Fatalf("after a flush and a restart the agents are %+v, want %+v", got, want)
	}
}

// agentsGoWithDrop: a dropped session's agents are gone with it, in
// memory and in the cabinet.
func agentsGoWithDrop(t *testing.T, b backend) {
	ctx := context.Background()
	db := b.open()
	s := mustSession(t, db, "s")
	mustCommit(t, s, `INSERT (:TSK {nick: "a"})`, nil)
	mustRecall(t, s, "ana")
	mustCommit(t, s, `INSERT (:TSK {nick: "b"})`, nil) // saves ana's read
	if err := db.Drop(ctx, "s"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Agents(ctx); !errors.Is(err, values.ErrDropped) {
		t.Fatalf("Agents of a dropped session: %v", err)
	}
	s = mustSession(t, db, "s")
	if got := mustAgents(t, s); len(got) != 0 {
		t.Fatalf("a new session of the same name has agents %+v", got)
	}
	mustCommit(t, s, `INSERT (:TSK {nick: "c"})`, nil)
	db.Close()
	db = b.open()
	if got := mustAgents(t, mustSession(t, db, "s")); len(got) != 0 {
		t.Fatalf("after a restart, the re-created session has agents %+v", got)
	}
}

// pastAcrossReopen: the versions a session made stay readable after a
// reopen, those a Flush compacted included (history=all, the default): a
// Recall as of each version gives the body it gave when that version
// was the newest, and a diff between versions and a node's history are
// the same bytes as before the reopen.
func pastAcrossReopen(t *testing.T, b backend) {
	ctx := context.Background()
	db := b.open()
	s := mustSession(t, db, "h")
	tokens := []string{`MATCH (t:TSK)`, `MATCH (n:NOTE)`, `MATCH (t:TSK {nick: "t1"})`}
	steps := []string{
		`INSERT (:TSK {nick: "t1", status: "open"}), (:TSK {nick: "t2", status: "open"})`,
		`MATCH (t:TSK {nick: "t1"}) INSERT (t)-[:has_note]->(:NOTE {text: "first"})`,
		`MATCH (t:TSK {nick: "t1"}) SET t.status = "done"`,
		`flush`,
		`MATCH (t:TSK {nick: "t2"}) DETACH DELETE t`,
		`INSERT (:TSK {nick: "t3", status: "open"})-[:needs]->(:NOTE {text: "second"})`,
		`MATCH (t:TSK {nick: "t1"}) SET t.status = "reopened", t.due = DATE "2026-12-31"`,
	}
	bodies := map[uint64][]string{}
	for _, text := range steps {
		if text == "flush" {
			if err := s.Flush(ctx); err != nil {
				t.Fatal(err)
			}
			continue
		}
		v := mustCommit(t, s, text, nil).Version
		for _, q := range tokens {
			sh, err := s.recallShape(ctx, q, values.RecallOptions{})
			if err != nil {
				t.Fatal(err)
			}
			bodies[v] = append(bodies[v], shapeBody(sh.Text))
		}
	}
	// what reads the past, the same bytes before the reopen and after.
	past := func(s *Session) string {
		var out strings.Builder
		for v, want := range bodies {
			for i, q := range tokens {
				sh, err := s.recallShape(ctx, q, values.RecallOptions{AtVersion: v})
				if err != nil {
					t.Fatalf("%s as of %d: %v", q, v, err)
				}
				if got := shapeBody(sh.Text); got != want[i] || !sh.AsOf || sh.Version != v {
					t.Fatalf("%s as of %d:\n%s\nwhen it was the newest:\n%s", q, v, got, want[i])
				}
			}
		}
		for _, span := range [][2]uint64{{0, 6}, {1, 4}, {3, 6}} {
			d, err := s.Diff(ctx, span[0], span[1], values.DiffOptions{})
			if err != nil {
				t.Fatalf("diff %v: %v", span, err)
			}
			out.WriteString(d.Text)
		}
		for _, nick := range []string{"t1", "t2", "t3"} {
			h, err := s.History(ctx, nick, 0)
			if err != nil {
				t.Fatalf("history of %s: %v", nick, err)
			}
			for _, e := range h.Entries {
				fmt.Fprintf(&out, "%s %d %s\n%s", nick, e.Version, e.How, e.Change.Text)
			}
		}
		return out.String()
	}
	want := past(s)
	for _, line := range []string{"t1 6 commit", "t1 3 commit", "t1 2 commit", "t1 1 commit", "t2 4 commit", "t3 5 commit"} {
		if !strings.Contains(want, line+"\n") {
			t.Fatalf("the history does not hold %q:\n%s", line, want)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = b.open()
	if got := past(mustSession(t, db, "h")); got != want {
		t.Fatalf("after a reopen:\n%s\nbefore:\n%s", got, want)
	}
}
