package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/values"
)

// The tests of hydrate.go and durable.go: a cabinet file written, cut, damaged, held by another process and reopened.

// workload writes a history with params, recycling, nick reuse after
// delete, ingest ids and edges, and returns the session's dump.
func workload(t *testing.T, s *Session) {
	ctx := context.Background()
	mustCommit(t, s, `INSERT (:TSK {nick: "a", n: 1, f: -0.0, d: DATE "2024-01-02", l: [1, "x", [true]]})`, nil)
	mustCommit(t, s, `INSERT (:TSK {nick: "b", n: $n, s: $s})`, map[string]any{"n": 2, "s": "two\x00\u00e9"})
	mustCommit(t, s, `MATCH (a:TSK {nick: "a"}), (b:TSK {nick: "b"}) INSERT (a)-[:needs {w: 1.5}]->(b)`, nil)
	mustCommit(t, s, `MATCH (a:TSK {nick: "a"}) DETACH DELETE a`, nil)
	mustCommit(t, s, `INSERT (:TSK:Extra {nick: "a", n: 3})`, nil) // nick reused: the recycled node keeps it
	mustCommit(t, s, `MATCH (b:TSK {nick: "b"}) SET b.status = "done"`, nil)
	if _, err := s.ingestText(ctx, `INSERT (:MOD {loc: "auth/login.go"})`, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ingestText(ctx, `INSERT (:MOD {loc: "auth/login.go", size: 10})`, nil); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, s, `INSERT (:NOTE {text: "gone"})`, nil)
	mustCommit(t, s, `MATCH (x:NOTE) DELETE x`, nil)
	if n, err := s.Purge(ctx); err != nil || n != 3 {
		t.Fatalf("purge: %d %v", n, err)
	}
	mustCommit(t, s, `INSERT (:NOTE {text: "after purge"})`, nil)
}

func fingerprint(s *Session) string {
	snap := s.Snapshot()
	var b strings.Builder
	fmt.Fprintf(&b, "%s\nnext %d\n", s.Dump(), snap.NextID())
	snap.ScanAllNodes(func(n *store.Node) bool {
		fmt.Fprintf(&b, "n %d %v %v %s\n", n.ID, n.Recycled, n.Labels, n.Props.Literal())
		return true
	})
	snap.ScanAllEdges(func(e *store.Edge) bool {
		fmt.Fprintf(&b, "e %d %v %s %d %d %s\n", e.ID, e.Recycled, e.Type, e.From, e.To, e.Props.Literal())
		return true
	})
	return b.String()
}

func TestCatalog(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "c.gf")
	db := openCab(t, path)
	for i, name := range []string{"alpha", "beta"} {
		s := mustSession(t, db, name)
		for j := 0; j <= i; j++ {
			mustCommit(t, s, `INSERT (:TSK {n: $n})`, map[string]any{"n": j})
		}
	}
	cat := mustSession(t, db, CatalogName)
	sh, err := cat.recallShape(ctx, `MATCH (s:SESSION) LIMIT 4`, values.RecallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`name: "alpha"`, `name: "beta"`, `version: 2`, `kinds: ["TSK:2"]`} {
		if !strings.Contains(sh.Text, want) {
			t.Errorf("catalogue shape lacks %s:\n%s", want, sh.Text)
		}
	}
	_, err = cat.commitText(ctx, `INSERT (:SESSION {name: "x"})`, nil)
	var ge *gqlstatus.Error
	if !errors.As(err, &ge) || ge.Code != gqlstatus.ReadOnlySession {
		t.Fatalf("commit to catalog: %v", err)
	}
	if got := strings.Join(db.Sessions(), ","); got != "alpha,beta" {
		t.Fatalf("Sessions = %s", got)
	}
	db.Close()
	// The catalogue is rebuilt at Open without hydrating anything.
	db = openCab(t, path)
	defer db.Close()
	infos := db.SessionInfos()
	if len(infos) != 2 || infos[1].Name != "beta" || infos[1].Version != 2 || infos[1].Nodes != 2 || infos[1].LastCommit.IsZero() {
		t.Fatalf("infos = %+v", infos)
	}
	if err := db.Drop(ctx, "alpha"); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(db.Sessions(), ","); got != "beta" {
		t.Fatalf("after drop Sessions = %s", got)
	}
	sh, _ = mustSession(t, db, CatalogName).recallShape(ctx, `MATCH (s:SESSION) LIMIT 4`, values.RecallOptions{})
	if strings.Contains(sh.Text, "alpha") {
		t.Fatalf("dropped session still catalogued:\n%s", sh.Text)
	}
	if s := mustSession(t, db, "alpha"); s.Version() != 0 {
		t.Fatalf("dropped session came back at version %d", s.Version())
	}
	if err := db.Drop(ctx, CatalogName); err == nil {
		t.Fatal("dropping the catalogue worked")
	}
	for _, bad := range []string{"", "../x", "a/b", ".hidden", strings.Repeat("x", 65)} {
		if _, err := db.Session(context.Background(), bad); err == nil {
			t.Errorf("session name %q accepted", bad)
		}
	}
}

func TestCabinetInUse(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.gf")
	db := openCab(t, path)
	defer db.Close()
	_, err := openTest(WithCabinet(path))
	if !errors.Is(err, ErrInUse) || !strings.Contains(err.Error(), path) {
		t.Fatalf("second open: %v", err)
	}
}

// TestTornTail cuts bytes off the end of a cabinet file: reopening must
// either give every acknowledged version or a clear error, never a crash
// and never an empty session.
func TestTornTail(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.gf")
	db := openCab(t, path)
	s := mustSession(t, db, "work")
	for i := range 300 {
		mustCommit(t, s, `INSERT (:STEP {n: $n, pad: $p})`, map[string]any{"n": i, "p": strings.Repeat("x", 200)})
	}
	want := s.Dump()
	db.Close()
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, cut := range []int{1, 100, 4096, 4097, 16384, len(orig) / 2, len(orig) - 4096, len(orig) - 1} {
		p := filepath.Join(dir, fmt.Sprintf("cut%d.gf", cut))
		if err := os.WriteFile(p, orig[:len(orig)-cut], 0o600); err != nil {
			t.Fatal(err)
		}
		db, err := openTest(WithCabinet(p))
		if err != nil {
			if !errors.Is(err, ErrDamaged) {
				t.Errorf("cut %d: error is not ErrDamaged: %v", cut, err)
			}
			continue
		}
		s, err := db.Session(context.Background(), "work")
		switch {
		case err != nil:
			if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), `"work"`) {
				t.Errorf("cut %d: hydrate error does not name the session: %v", cut, err)
			}
		case s.Dump() != want:
			t.Errorf("cut %d: opened without error but the session differs (version %d)", cut, s.Version())
		}
		db.Close()
	}
}

func TestCabinetConcurrent(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "c.gf")
	db := openCab(t, path, WithAutoFlush(50, 0))
	const writers, each = 8, 40
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := mustSession(t, db, fmt.Sprintf("s%d", w%3))
			for i := range each {
				if _, err := s.commitText(ctx, `INSERT (:STEP {w: $w, n: $n})`, map[string]any{"w": w, "n": i}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	var rg sync.WaitGroup
	for r := range 3 {
		rg.Add(1)
		go func() {
			defer rg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				s := mustSession(t, db, fmt.Sprintf("s%d", r))
				if _, err := s.recallShape(ctx, `MATCH (x:STEP) LIMIT 4`, values.RecallOptions{}); err != nil {
					t.Error(err)
					return
				}
				_ = db.SessionInfos()
				if r == 0 {
					_ = db.Flush(ctx)
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	rg.Wait()
	dumps := map[string]string{}
	total := uint64(0)
	for i := range 3 {
		s := mustSession(t, db, fmt.Sprintf("s%d", i))
		dumps[s.Name()] = s.Dump()
		total += s.Version()
	}
	if total != writers*each {
		t.Fatalf("total versions %d, want %d", total, writers*each)
	}
	db.Close()
	db = openCab(t, path)
	defer db.Close()
	for name, want := range dumps {
		if got := mustSession(t, db, name).Dump(); got != want {
			t.Errorf("%s differs after reopen", name)
		}
	}
}

// TestCatalogQueued: Commits queue their catalogue changes and a read of
// the catalogue applies them first, so every read sees each session's
// latest version; the catalogue's own version moves once per read that
// found changes, to the sum of the sessions' weights (twice their
// versions on a cabinet file and in memory, plus what drops added),
// however many Commits the read found.
func TestCatalogQueued(t *testing.T) {
	ctx := context.Background()
	db, _ := openTest()
	defer db.Close()
	s := mustSession(t, db, "work")
	cat := mustSession(t, db, CatalogName)
	read := func() string {
		sh, err := cat.recallShape(ctx, `MATCH (s:SESSION {name: "work"})`, values.RecallOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return sh.Text
	}
	for i := range 3 {
		mustCommit(t, s, `INSERT (:TSK {n: $n})`, map[string]any{"n": i})
	}
	if text := read(); !strings.Contains(text, "version: 3") || !strings.Contains(text, `kinds: ["TSK:3"]`) {
		t.Fatalf("after three commits the catalogue reads:\n%s", text)
	}
	v := cat.Version()
	if v != 6 {
		t.Fatalf("three commits, one read: catalogue version %d, want 6 (twice the session's version: Meta.Weight)", v)
	}
	if cat.Version() != v || !strings.Contains(read(), "version: 3") {
		t.Fatal("a read with nothing queued changed the catalogue")
	}
	mustCommit(t, s, `INSERT (:NOTE {n: 9})`, nil)
	if infos := db.SessionInfos(); len(infos) != 1 || infos[0].Version != 4 || infos[0].Nodes != 4 {
		t.Fatalf("SessionInfos after a fourth commit = %+v", infos)
	}
	if cat.Version() != v+2 {
		t.Fatalf("catalogue version %d after one more read with changes, want %d", cat.Version(), v+2)
	}
	if err := db.Drop(ctx, "work"); err != nil {
		t.Fatal(err)
	}
	if text := read(); strings.Contains(text, "work") {
		t.Fatalf("dropped session still catalogued:\n%s", text)
	}
}

// TestCabinetMissingSessionData damages the name of a session wherever it
// occurs in the file, one occurrence at a time (as a key of the index, of
// its log, of its snapshot, inside its records): the session must then be
// reported damaged, or load whole, never come back empty at version 0
// while the cabinet's own records say it has versions.
func TestCabinetMissingSessionData(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.gf")
	const name = "sessionzq"
	db := openCab(t, path, WithAutoFlush(0, 0))
	s := mustSession(t, db, name)
	for i := range 20 {
		mustCommit(t, s, `INSERT (:STEP {n: $n})`, map[string]any{"n": i})
		if i == 9 {
			if err := s.Flush(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
	}
	want, wantV := s.Dump(), s.Version()
	db.Close()
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	hits := 0
	for at := 0; ; at++ {
		i := bytes.Index(orig[at:], []byte(name))
		if i < 0 {
			break
		}
		at += i
		hits++
		c := bytes.Clone(orig)
		c[at] = 't' // "tessionzq"
		p := filepath.Join(dir, fmt.Sprintf("at%d.gf", at))
		if err := os.WriteFile(p, c, 0o600); err != nil {
			t.Fatal(err)
		}
		db, err := openTest(WithCabinet(p))
		if err != nil {
			if !errors.Is(err, ErrDamaged) {
				t.Errorf("name at %d: Open: %v", at, err)
			}
			continue
		}
		s, err := db.Session(context.Background(), name)
		switch {
		case err != nil:
			if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), name) {
				t.Errorf("name at %d: the error does not report the session damaged: %v", at, err)
			}
		case s.Version() != wantV || s.Dump() != want:
			t.Errorf("name at %d: the session opened at version %d without an error, want version %d or ErrDamaged", at, s.Version(), wantV)
		}
		db.Close()
	}
	if hits < 2 {
		t.Fatalf("the name occurs %d times in the file", hits)
	}
}

// TestCabinetFormat1 opens a cabinet written by the first release (format
// 1: store/cabinet/testdata/format1.gf, written by that release's
// goldfish with the Commits replayed below) and finds every session as
// it was: the file is migrated to the current format on Open.
func TestCabinetFormat1(t *testing.T) {
	ctx := context.Background()
	raw, err := os.ReadFile(filepath.Join("..", "..", "store", "cabinet", "testdata", "format1.gf"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "old.gf")
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	mem, _ := openTest()
	defer mem.Close()
	w := mustSession(t, mem, "work")
	workload(t, w)
	mustCommit(t, w, `INSERT (:NOTE {text: "after the flush", n: $n})`, map[string]any{"n": 1})
	mustCommit(t, w, `MATCH (b:TSK {nick: "b"}) SET b.status = "reopened"`, nil)
	p := mustSession(t, mem, "plain")
	for i := range 3 {
		mustCommit(t, p, `INSERT (:TSK {nick: $nick, n: $n})`, map[string]any{"nick": string(rune('x' + i)), "n": i})
	}
	f := mustSession(t, mem, "flushed")
	mustCommit(t, f, `INSERT (:LAW {nick: "law", text: "only flushed"})`, nil)
	for round := range 2 { // migrated, then as migrated
		db := openCab(t, path)
		if got := strings.Join(db.Sessions(), ","); got != "flushed,plain,work" {
			t.Fatalf("round %d: sessions %s", round, got)
		}
		for _, name := range []string{"work", "plain", "flushed"} {
			s := mustSession(t, db, name)
			if got, want := fingerprint(s), fingerprint(mustSession(t, mem, name)); got != want {
				t.Fatalf("round %d: %s hydrated\n%s\nwant\n%s", round, name, got, want)
			}
		}
		if round == 0 {
			mustCommit(t, mustSession(t, db, "plain"), `INSERT (:TSK {nick: "w", n: 3})`, nil)
			mustCommit(t, p, `INSERT (:TSK {nick: "w", n: 3})`, nil)
			if err := db.Flush(ctx); err != nil {
				t.Fatal(err)
			}
		}
		db.Close()
	}
}
