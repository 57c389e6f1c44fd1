package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/goldfish-gql/goldfish/exec"
	"github.com/goldfish-gql/goldfish/vocab"
)

// vocabSteps are the Δs a random history draws from: registrations,
// revisions, drops, calls (some refused), and raw writes the views read
// and the ledger counts (an "ingest:" step is an Ingest).
var vocabSteps = []string{
	`INSERT (:TSK {nick: $n, status: "open"})`,
	`MATCH (t:TSK {nick: $n}) SET t.status = "done"`,
	`MATCH (t:TSK {nick: $n}) SET t += {pri: 2, status: "open"}; MATCH (u:TSK {nick: $n}) REMOVE u.owner`,
	`MATCH (t:TSK {nick: $n}) SET t = {nick: $n, owner: "ana"}, t:Urgent`,
	`MATCH (t:TSK {nick: $n}) DETACH DELETE t`,
	`MATCH (t:TSK {nick: $n}) SET t.status = "open"; CALL settle($n)`,
	`ingest:INSERT (m:MOD {loc: $n, lines: 1}), (f:MOD {loc: "f.go"}), (m)-[:imports {w: 1}]->(f)`,
	`ingest:MATCH (t:TSK {nick: $n}) SET t.status = "ingested"`,
	`CREATE VIEW open AS 'size(nodes("TSK").filter(t, t.status == "open"))'`,
	`CREATE OR REPLACE VIEW open AS 'count("TSK") - size(nodes("TSK").filter(t, t.status == "done"))'`,
	`CREATE OR REPLACE VIEW notes AS 'edges("has_note").map(e, e.from)'`,
	`CREATE OR REPLACE VIEW both AS '[view("open"), count("NOTE"), version]'`,
	`CREATE OR REPLACE VIEW broken AS 'nodes("TSK").filter(t, t.missing == 1).size()'`,
	`DROP VIEW open`,
	`DROP VIEW both`,
	`CREATE OR REPLACE ACTION settle(nick STRING, why STRING = 'done') INTENT 'settle a task'
	   IF 'size(nodes("TSK").filter(t, t.nick == nick && t.status != "done")) == 1'
	   { MATCH (t:TSK {nick: $nick}) SET t.status = "done" INSERT (t)-[:has_note]->(:NOTE {text: $why}) }`,
	`CREATE OR REPLACE ACTION add(nick STRING) { INSERT (:TSK {nick: $nick, status: "open"}) }`,
	`CALL settle($n)`,
	`CALL settle(nick: $n, why: 'by name')`,
	`CALL add($n)`,
	`DROP ACTION add`,
}

// TestVocabularySurvivesReplay: for random histories of registrations,
// calls and writes, the session a reopened cabinet hydrates (from its
// snapshot and log, with flushes at random points) has the same
// vocabulary, counters and view values as the live session, the same
// ledger of what the Commits wrote, and the same graph.
func TestVocabularySurvivesReplay(t *testing.T) {
	dir := t.TempDir()
	run := 0
	rapid.Check(t, func(t *rapid.T) {
		ctx := context.Background()
		run++
		path := filepath.Join(dir, fmt.Sprintf("c%d.gf", run))
		db, err := openTest(WithCabinet(path))
		if err != nil {
			t.Fatal(err)
		}
		s, _ := db.Session(ctx, "s")
		for i, n := 0, rapid.IntRange(1, 25).Draw(t, "steps"); i < n; i++ {
			step := rapid.SampledFrom(vocabSteps).Draw(t, "step")
			nick := fmt.Sprintf("t%d", rapid.IntRange(0, 3).Draw(t, "nick"))
			var params map[string]any
			if strings.Contains(step, "$n") {
				params = map[string]any{"n": nick}
			}
			// Refusals (an existing name, a false IF) are part of the history.
			if text, ok := strings.CutPrefix(step, "ingest:"); ok {
				s.ingestText(ctx, text, params)
			} else {
				s.commitText(ctx, step, params)
			}
			if rapid.IntRange(0, 5).Draw(t, "flush") == 0 {
				if err := s.Flush(ctx); err != nil {
					t.Fatal(err)
				}
			}
		}
		live, err := s.Vocabulary(ctx)
		if err != nil {
			t.Fatal(err)
		}
		liveLedger := ledgerOf(exec.Vocabulary(s.snapshot()))
		liveExt := exec.Vocabulary(s.snapshot()).AppendExt(nil)
		dump := s.Dump()
		db.Close()
		db, err = openTest(WithCabinet(path))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		s, err = db.Session(ctx, "s")
		if err != nil {
			t.Fatal(err)
		}
		again, err := s.Vocabulary(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(live, again) {
			t.Fatalf("vocabulary after reopening differs:\nlive  %+v\nagain %+v", live, again)
		}
		if got := ledgerOf(exec.Vocabulary(s.snapshot())); got != liveLedger {
			t.Fatalf("ledger after reopening differs:\n%s\nwant\n%s", got, liveLedger)
		}
		if got := exec.Vocabulary(s.snapshot()).AppendExt(nil); string(got) != string(liveExt) {
			t.Fatalf("the encoded vocabulary and ledger differ after reopening")
		}
		if got := s.Dump(); got != dump {
			t.Fatalf("graph after reopening differs:\n%s\nwant\n%s", got, dump)
		}
	})
}

// ledgerOf renders what the ledger of a State holds.
func ledgerOf(s *vocab.State) string {
	views, actions := s.DroppedSince(0)
	return fmt.Sprintf("changed %d\nwrites %v\ndropped views %v actions %v", s.Changed(), s.Writes(), views, actions)
}
