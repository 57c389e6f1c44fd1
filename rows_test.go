package goldfish_test

import (
	"context"
	"sync"
	"testing"

	"github.com/goldfish-gql/goldfish"
)

// TestRowsOfACachedShape: the callers of one cached Recall share its rows,
// built on the first read, whoever reads first and however many read at
// once (run it with -race); each still has a Shape of its own, and the
// rows render the INSERT its text ends with.
func TestRowsOfACachedShape(t *testing.T) {
	ctx := context.Background()
	db, err := goldfish.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s, _ := db.Session(ctx, "rows")
	if _, err := s.Commit(ctx, `INSERT (t:TSK {nick: "t", title: "fix"})-[:touches]->(:MOD {loc: "a.go"}), (t)-[:has_note]->(:NOTE {text: "n"})`, nil); err != nil {
		t.Fatal(err)
	}
	const q = `MATCH (t:TSK {nick: "t"})`
	if _, err := s.Recall(ctx, q, goldfish.RecallOptions{}); err != nil { // the Shape cache holds it now
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	shapes := make([]*goldfish.Shape, 16)
	for i := range shapes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sh, err := s.Recall(ctx, q, goldfish.RecallOptions{})
			if err != nil {
				t.Error(err)
				return
			}
			shapes[i] = sh
			if n := len(sh.Nodes()); n != 3 || len(sh.Edges()) != 2 {
				t.Errorf("rows: %d nodes, %d edges", n, len(sh.Edges()))
			}
		}()
	}
	wg.Wait()
	for _, sh := range shapes {
		if sh == nil {
			continue
		}
		body := string(sh.AppendInsert(nil))
		if len(sh.Text) < len(body) || sh.Text[len(sh.Text)-len(body):] != body {
			t.Fatalf("the rows render\n%s\nthe text is\n%s", body, sh.Text)
		}
		if &sh.Nodes()[0] != &shapes[0].Nodes()[0] {
			t.Fatal("two callers of one cached Shape hold rows of their own")
		}
	}
	shapes[0].Text = "changed"
	if again, _ := s.Recall(ctx, q, goldfish.RecallOptions{}); again.Text == "changed" {
		t.Fatal("a caller's change reached the next caller")
	}
}
