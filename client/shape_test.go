package client_test

import (
	"context"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/values"
)

// TestRecallSameShape: a Recall through the server gives the Shape the
// embedded Recall gives, text and rows alike: every value of its kind
// (INTEGER, FLOAT, DATE, DATETIME, lists), the seeds, hops, trimmed and
// pinned nodes, the fan-out clamps, the elided values, the edges, the
// outline's counts, the header's facts.
func TestRecallSameShape(t *testing.T) {
	db, c := serve(t)
	ctx := context.Background()
	es, err := db.Session(ctx, "same")
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 1, 2, 10, 0, 0, 500, time.FixedZone("", 2*3600))
	p := map[string]any{"d": goldfish.Date{Year: 2026, Month: 1, Day: 31}, "t": at, "big": strings.Repeat("word ", 4000)}
	if _, err := es.Commit(ctx, `INSERT (t1:TSK:Open {nick: "t1", n: 3, f: 2.0, g: 2.5, b: true, d: $d, dt: $t, l: [1, 2.0, "a->b <&>", [DATE '2000-02-29']], body: $big}),
		(m1:MOD {loc: "a/b.go", note: "x"}), (m2:MOD {loc: "c.go"}), (m3:MOD {loc: "d.go"}), (m4:MOD {loc: "e.go"}),
		(p1:PIN {nick: "p1"}),
		(t1)-[:touches {w: 0.5}]->(m1), (t1)-[:touches]->(m2), (t1)-[:touches]->(m3), (t1)-[:touches]->(m4), (m1)-[:near]->(m2)`, p); err != nil {
		t.Fatal(err)
	}
	cs, err := c.Session(ctx, "same")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []struct {
		q string
		o values.RecallOptions
	}{
		{`MATCH (t:TSK {nick: "t1"})`, values.RecallOptions{}},
		{`MATCH (t:TSK {nick: "t1"})`, values.RecallOptions{K: 2, M: 7, T: 200, Pinned: []string{"PIN"}}},
		{`MATCH (t:TSK)`, values.RecallOptions{K: values.NoWalk}},
		{`MATCH (m:MOD) LIMIT 99`, values.RecallOptions{View: values.ViewShell}},
		{`MATCH ()`, values.RecallOptions{}},
		{`MATCH (n:NOPE)`, values.RecallOptions{NoPeaks: true}},
		{`MATCH (t:TSK)`, values.RecallOptions{AtVersion: 1}},
	} {
		want, err := es.Recall(ctx, r.q, r.o)
		if err != nil {
			t.Fatal(err)
		}
		got, err := cs.Recall(ctx, r.q, r.o)
		if err != nil {
			t.Fatal(err)
		}
		if got.Text != want.Text {
			t.Errorf("%s %+v: the text\n%s\nwant\n%s", r.q, r.o, got.Text, want.Text)
		}
		if d := firstDiff("Shape", reflect.ValueOf(got), reflect.ValueOf(want)); d != "" {
			t.Errorf("%s %+v: the Shapes differ at %s", r.q, r.o, d)
		}
		if d := firstDiff("Shape.Nodes()", reflect.ValueOf(got.Nodes()), reflect.ValueOf(want.Nodes())); d != "" {
			t.Errorf("%s %+v: the node rows differ at %s", r.q, r.o, d)
		}
		if d := firstDiff("Shape.Edges()", reflect.ValueOf(got.Edges()), reflect.ValueOf(want.Edges())); d != "" {
			t.Errorf("%s %+v: the edge rows differ at %s", r.q, r.o, d)
		}
		if len(want.Nodes()) == 0 && r.q != `MATCH (n:NOPE)` {
			t.Errorf("%s: no rows to compare", r.q)
		}
	}
	sh, _ := cs.Recall(ctx, `MATCH (t:TSK {nick: "t1"})`, values.RecallOptions{M: 5, T: 200})
	if len(sh.Clamps) == 0 || sh.Elided == 0 || sh.Nodes()[0].More == 0 {
		t.Errorf("the test meant a Shape with clamps and elided values: %+v", sh)
	}
	kinds := map[string]values.ValueKind{"n": values.KindInt, "f": values.KindFloat, "d": values.KindDate, "dt": values.KindDateTime, "l": values.KindList}
	for key, want := range kinds {
		if v, _ := sh.Nodes()[0].Props.Get(key); v.Kind() != want {
			t.Errorf("%s: %v, want %v", key, v.Kind(), want)
		}
	}
}

// firstDiff names the first field where a and b differ ("" for none):
// reflect.DeepEqual, but for an empty list, which equals an empty list
// whether it is nil or not.
func firstDiff(path string, a, b reflect.Value) string {
	if a.Kind() != b.Kind() {
		return path + ": kinds differ"
	}
	if a.Type() == reflect.TypeFor[values.Value]() {
		if !reflect.DeepEqual(a.Interface(), b.Interface()) {
			return path + ": values differ"
		}
		return ""
	}
	switch a.Kind() {
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			if a.IsNil() != b.IsNil() {
				return path + ": nil on one side"
			}
			return ""
		}
		return firstDiff(path, a.Elem(), b.Elem())
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			if !a.Type().Field(i).IsExported() {
				continue // a Shape's rows are compared by Nodes and Edges
			}
			if d := firstDiff(path+"."+a.Type().Field(i).Name, a.Field(i), b.Field(i)); d != "" {
				return d
			}
		}
		return ""
	case reflect.Slice:
		// A list with nothing in it is none, nil or not: JSON writes
		// both [] (the engine hands out either).
		if a.Len() != b.Len() {
			return path + ": lengths differ"
		}
		for i := 0; i < a.Len(); i++ {
			if d := firstDiff(path+"["+strconv.Itoa(i)+"]", a.Index(i), b.Index(i)); d != "" {
				return d
			}
		}
		return ""
	}
	if !reflect.DeepEqual(a.Interface(), b.Interface()) {
		return path + ": values differ"
	}
	return ""
}
