package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish/values"
)

// The tests of plan.go: what a text's comments make of a statement.

// TestCommentTrapNotices: a "--" that starts a comment right after ')'
// is a likely Cypher arrow; the warning (01000) reaches the caller on the
// CommitResult and on the Shape, and a Shape cached for the same token
// without the comment never stands in for it.
func TestCommentTrapNotices(t *testing.T) {
	ctx := context.Background()
	db, err := openTest()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s, _ := db.Session(ctx, "trap")
	if _, err := s.commitText(ctx, `INSERT (:A {nick: "a"})-[:r]->(:B {nick: "b"})`, nil); err != nil {
		t.Fatal(err)
	}

	res, err := s.commitText(ctx, "MATCH (a:A)-->(b)\nSET a.x = 1", nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != values.Code("01000") || len(res.Stmts) != 1 || len(res.Stmts[0].Notices) != 1 ||
		res.Stmts[0].Notices[0].Pos.Col != 12 || !strings.Contains(res.Stmts[0].Notices[0].Msg, `"-->(b)" was ignored`) {
		t.Fatalf("commit result %+v", res)
	}

	plain, err := s.recallShape(ctx, "MATCH (a:A)", values.RecallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	trapped, err := s.recallShape(ctx, "MATCH (a:A)-->(b) SET b.x = 1", values.RecallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(plain.Notices) != 0 || plain.Status != values.Code("00000") {
		t.Errorf("plain Recall: %v %v", plain.Status, plain.Notices)
	}
	if trapped.Status != values.Code("01000") || len(trapped.Notices) != 1 ||
		!strings.Contains(trapped.Text, "\n// 01000: \"--\" right after \")\" began a comment") {
		t.Errorf("trapped Recall: %v %v\n%s", trapped.Status, trapped.Notices, trapped.Text)
	}
	again, _ := s.recallShape(ctx, "MATCH (a:A)", values.RecallOptions{})
	if again.Text != plain.Text {
		t.Error("the plain Recall's Shape changed after the trapped one")
	}
}
