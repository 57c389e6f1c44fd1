package goldfish_test

import (
	"context"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish"
)

// TestCommentTrapNotices: a "--" that starts a comment right after ')'
// is a likely Cypher arrow; the warning (01000) reaches the caller on the
// CommitResult and on the Shape, and a Shape cached for the same token
// without the comment never stands in for it.
func TestCommentTrapNotices(t *testing.T) {
	ctx := context.Background()
	db, err := goldfish.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s, _ := db.Session(ctx, "trap")
	if _, err := s.Commit(ctx, `INSERT (:A {nick: "a"})-[:r]->(:B {nick: "b"})`, nil); err != nil {
		t.Fatal(err)
	}

	res, err := s.Commit(ctx, "MATCH (a:A)-->(b)\nSET a.x = 1", nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != goldfish.Code("01000") || len(res.Stmts) != 1 || len(res.Stmts[0].Notices) != 1 ||
		res.Stmts[0].Notices[0].Pos.Col != 12 || !strings.Contains(res.Stmts[0].Notices[0].Msg, `"-->(b)" was ignored`) {
		t.Fatalf("commit result %+v", res)
	}

	plain, err := s.Recall(ctx, "MATCH (a:A)", goldfish.RecallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	trapped, err := s.Recall(ctx, "MATCH (a:A)-->(b) SET b.x = 1", goldfish.RecallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(plain.Notices) != 0 || plain.Status != goldfish.Code("00000") {
		t.Errorf("plain Recall: %v %v", plain.Status, plain.Notices)
	}
	if trapped.Status != goldfish.Code("01000") || len(trapped.Notices) != 1 ||
		!strings.Contains(trapped.Text, "\n// 01000: \"--\" right after \")\" began a comment") {
		t.Errorf("trapped Recall: %v %v\n%s", trapped.Status, trapped.Notices, trapped.Text)
	}
	again, _ := s.Recall(ctx, "MATCH (a:A)", goldfish.RecallOptions{})
	if again.Text != plain.Text {
		t.Error("the plain Recall's Shape changed after the trapped one")
	}
}
