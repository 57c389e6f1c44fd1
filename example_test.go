package goldfish_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/goldfish-gql/goldfish"
)

func ExampleOpen() {
	db, err := goldfish.Open()
	if err != nil {
		panic(err)
	}
	defer db.Close()
	s, _ := db.Session(context.Background(), "mission")
	fmt.Println(s.Name(), s.Version())
	// Output: mission 0
}

func ExampleDB_Session() {
	db, _ := goldfish.Open()
	a, _ := db.Session(context.Background(), "alpha")
	b, _ := db.Session(context.Background(), "beta")
	_, _ = a.Commit(context.Background(), `INSERT (:NOTE {text: "only in alpha"})`, nil)
	// Only a write makes a session: beta is open, but not listed.
	fmt.Println(a.Version(), b.Version(), db.Sessions())
	// Output: 1 0 [alpha]
}

func ExampleSession_Commit() {
	db, _ := goldfish.Open()
	s, _ := db.Session(context.Background(), "mission")
	ctx := context.Background()
	res, err := s.Commit(ctx, `
		INSERT (:TSK {nick: "TSK_login", title: "Fix login redirect", status: "open"});
		MATCH (t:TSK {nick: "TSK_login"})
		INSERT (t)-[:touches]->(:MOD {loc: "auth/login.go"})`, nil)
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Status, res.Version, res.Total.Summary())

	res, _ = s.Commit(ctx, `MATCH (t:TSK {nick: $nick}) SET t.status = "done", t:Settled`,
		map[string]any{"nick": "TSK_login"})
	fmt.Println(res.Status, res.Version, res.Total.Summary())
	// Output:
	// 00001 1 +2 nodes +1 edge 4 properties set 1 binding
	// 00001 2 1 property set +1 label 1 binding
}

func ExampleSession_Ingest() {
	db, _ := goldfish.Open()
	s, _ := db.Session(context.Background(), "code")
	ctx := context.Background()
	delta := `INSERT (:PKG {loc: "auth", name: "auth"})-[:contains]->(:FILE {loc: "auth/login.go"})`
	first, _ := s.Ingest(ctx, delta, nil)
	again, _ := s.Ingest(ctx, delta, nil)
	fmt.Println(first.Version, first.Total.Summary())
	fmt.Println(again.Version, again.Applied)
	// Output:
	// 1 +2 nodes +1 edge 3 properties set
	// 1 false
}

func ExampleError() {
	db, _ := goldfish.Open()
	s, _ := db.Session(context.Background(), "mission")
	ctx := context.Background()
	_, _ = s.Commit(ctx, `INSERT (:TSK {nick: "TSK_a", status: "open"})`, nil)
	// A second TSK_a that disagrees with the first: a nick clash. (One
	// that agrees would be an echo, and bind to it.)
	_, err := s.Commit(ctx, `INSERT (:TSK {nick: "TSK_b"}), (:TSK {nick: "TSK_a", status: "done"})`, nil)
	var ge *goldfish.Error
	if errors.As(err, &ge) {
		fmt.Println(ge.Code, ge.Pos.Line, ge.Pos.Col)
		fmt.Println(ge.Caret())
	}
	fmt.Println("version still", s.Version())
	// Output:
	// 40002 1 32
	//   INSERT (:TSK {nick: "TSK_b"}), (:TSK {nick: "TSK_a", status: "done"})
	//                                  ^
	// version still 1
}
