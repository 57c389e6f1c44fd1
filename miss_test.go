package goldfish_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish"
)

// TestMissSaysWhatDidNotMatch: a token that matches nothing says so in
// its first notice and in Shape.Miss, with the session's names a small
// edit away, in a session of 1,000 nicks as in a small one: past 1,024
// values of a key the miss compares the values nearest the wanted one,
// so a typo is still found and the miss stays cheap.
func TestMissSaysWhatDidNotMatch(t *testing.T) {
	ctx := context.Background()
	db, err := goldfish.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := mustSession(t, db, "people")
	for from := 0; from < 1000; from += 400 {
		var b strings.Builder
		b.WriteString("INSERT ")
		for i := from; i < min(from+400, 1000); i++ {
			if i > from {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "(:PERSON {nick: \"user%04d\", team: \"t%d\"})", i, i%7)
		}
		if from == 0 {
			b.WriteString(`, (:TSK {nick: "TSK_open"})`) // a live task: a miss shows it instead
		}
		if _, err := s.Commit(ctx, b.String(), nil); err != nil {
			t.Fatalf("%.200s", err)
		}
	}
	for _, c := range []struct {
		q         string
		unmatched string
		near      []string
		status    goldfish.Code
		opt       goldfish.RecallOptions
	}{
		{`MATCH (p {nick: "usre0500"})`, `no node has nick "usre0500"`, []string{`{nick: "user0500"}`}, goldfish.CodeNoMatch, goldfish.RecallOptions{}},
		{`MATCH (p {nick: "user09999"})`, `no node has nick "user09999"`, []string{`{nick: "user0999"}`}, goldfish.CodeNoMatch, goldfish.RecallOptions{}},
		{`MATCH (p:PERSN)`, `no node has label :PERSN`, []string{":PERSON"}, goldfish.CodeNoMatch, goldfish.RecallOptions{}},
		{`MATCH (p:PERSON {taem: "t1"})`, `no node has property taem`, []string{"team"}, goldfish.CodeNoMatch, goldfish.RecallOptions{}},
		{`MATCH (p {nick: "zzz"})`, `no node has nick "zzz"`, nil, goldfish.CodeNoMatch, goldfish.RecallOptions{}},
		{`MATCH (p:PERSN)`, `no node has label :PERSN`, []string{":PERSON"}, goldfish.CodeNoData, goldfish.RecallOptions{NoPeaks: true}},
	} {
		sh, err := s.Recall(ctx, c.q, c.opt)
		if err != nil {
			t.Fatalf("%s: %v", c.q, err)
		}
		// The nearest name comes first.
		if sh.Miss == nil || !slices.Contains(sh.Miss.Unmatched, c.unmatched) || len(sh.Miss.DidYouMean) < len(c.near) ||
			!slices.Equal(sh.Miss.DidYouMean[:len(c.near)], c.near) || len(c.near) == 0 && len(sh.Miss.DidYouMean) > 0 {
			t.Errorf("%s: miss %+v, want %q and did you mean %q", c.q, sh.Miss, c.unmatched, c.near)
			continue
		}
		if sh.Status != c.status || len(sh.Notices) == 0 || sh.Notices[0].Code != c.status || !strings.HasPrefix(sh.Notices[0].Msg, "no match: ") {
			t.Errorf("%s: status %s, notices %v: the miss must be the first notice, %s", c.q, sh.Status, sh.Notices, c.status)
		}
	}
	// A match says nothing of a miss.
	if sh, err := s.Recall(ctx, `MATCH (p {nick: "user0500"})`, goldfish.RecallOptions{}); err != nil || sh.Miss != nil || sh.Status != goldfish.CodeSuccess {
		t.Errorf("a match: %v %+v", err, sh)
	}
	// Past 1,024 values of a key the miss compares the 64 nearest the
	// wanted one in sorted order: a typo past the first characters is
	// still found.
	big := mustSession(t, db, "many")
	for from := 0; from < 5000; from += 500 {
		var b strings.Builder
		b.WriteString("INSERT ")
		for i := from; i < from+500; i++ {
			if i > from {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "(:PERSON {nick: \"user%04d\"})", i)
		}
		if _, err := big.Commit(ctx, b.String(), nil); err != nil {
			t.Fatalf("%.200s", err)
		}
	}
	sh, err := big.Recall(ctx, `MATCH (p {nick: "user4321x"})`, goldfish.RecallOptions{})
	if err != nil || sh.Miss == nil || len(sh.Miss.DidYouMean) == 0 || sh.Miss.DidYouMean[0] != `{nick: "user4321"}` {
		t.Errorf("a typo among 5,000 nicks: %v %+v", err, sh.Miss)
	}
}
