package values

import (
	"bytes"
	"math"
	"sort"
	"testing"
)

func TestValueLiteral(t *testing.T) {
	cases := []struct {
		v    Value
		want string
	}{
		{Null(), "null"},
		{Bool(true), "true"},
		{Bool(false), "false"},
		{Int(0), "0"},
		{Int(-42), "-42"},
		{Int(math.MaxInt64), "9223372036854775807"},
		{Int(math.MinInt64), "-9223372036854775808"},
		{Float(1), "1.0"},
		{Float(-1), "-1.0"},
		{Float(0), "0.0"},
		{Float(math.Copysign(0, -1)), "-0.0"},
		{Float(1.5), "1.5"},
		{Float(100000), "100000.0"},
		{Float(1e20), "1e+20"},
		{Float(1e21), "1e+21"},
		{Float(1e-7), "1e-07"},
		{Float(0.1), "0.1"},
		{Float(math.NaN()), "NaN"},
		{Float(math.Inf(1)), "Infinity"},
		{Float(math.Inf(-1)), "-Infinity"},
		{String(""), `""`},
		{String("abc"), `"abc"`},
		{String(`a"b\c`), `"a\"b\\c"`},
		{String("l1\nl2\r\t"), `"l1\nl2\r\t"`},
		{String("\x00\x01\x1f\x7f"), `"\u0000\u0001\u001F\u007F"`},
		{String("bad\xffutf8\xc3"), `"bad\uFFFDutf8\uFFFD"`},
		{String("héllo 世界 🐟"), `"héllo 世界 🐟"`},
		{String("\u0085\u2028\u2029"), `"\u0085\u2028\u2029"`},
		{String("'single'"), `"'single'"`},
		{DateValue("2026-01-31"), "DATE '2026-01-31'"},
		{DateTimeValue("2026-01-31T10:00:00Z"), "DATETIME '2026-01-31T10:00:00Z'"},
		{List(), "[]"},
		{List(Int(1), String("a"), List(Int(2))), `[1, "a", [2]]`},
		{List(Null(), Float(2), Bool(true)), `[null, 2.0, true]`},
	}
	for _, c := range cases {
		if got := c.v.Literal(); got != c.want {
			t.Errorf("%v Literal = %s, want %s", c.v.Kind(), got, c.want)
		}
		if got := string(c.v.AppendLiteral([]byte("x"))); got != "x"+c.want {
			t.Errorf("AppendLiteral = %s", got)
		}
		if got := c.v.Size(); got != len(c.want) {
			t.Errorf("%s Size = %d, want %d", c.want, got, len(c.want))
		}
	}
}

func TestValueAccessors(t *testing.T) {
	if !Null().IsNull() || Int(1).IsNull() || (Value{}).Kind() != KindNull {
		t.Fatal("IsNull")
	}
	if !Bool(true).AsBool() || Bool(false).AsBool() || Int(1).AsBool() {
		t.Fatal("AsBool")
	}
	if Int(-7).AsInt() != -7 || Float(2).AsInt() != 0 {
		t.Fatal("AsInt")
	}
	if Float(2.5).AsFloat() != 2.5 || Int(2).AsFloat() != 0 {
		t.Fatal("AsFloat")
	}
	if String("s").AsString() != "s" || DateValue("2026-01-01").AsString() != "2026-01-01" || DateTimeValue("x").AsString() != "x" {
		t.Fatal("AsString")
	}
	src := []Value{Int(1), Int(2)}
	l := List(src...)
	src[0] = Int(9)
	if got := l.AsList(); len(got) != 2 || got[0].AsInt() != 1 {
		t.Fatal("List must copy its arguments")
	}
	if Int(1).AsList() != nil {
		t.Fatal("AsList of int")
	}
	names := []string{"NULL", "BOOLEAN", "INTEGER", "FLOAT", "STRING", "DATE", "DATETIME", "LIST"}
	for k, n := range names {
		if ValueKind(k).String() != n {
			t.Errorf("kind %d = %s", k, ValueKind(k))
		}
	}
	if !ValidFloat(1) || ValidFloat(math.NaN()) || ValidFloat(math.Inf(-1)) {
		t.Fatal("ValidFloat")
	}
}

func TestValueEqual(t *testing.T) {
	neq := [][2]Value{
		{Int(1), Float(1)},
		{Float(0), Float(math.Copysign(0, -1))},
		{String("2026-01-01"), DateValue("2026-01-01")},
		{DateValue("2026-01-01"), DateTimeValue("2026-01-01")},
		{List(Int(1)), List(Int(1), Int(2))},
		{List(Int(1)), List(Float(1))},
		{Null(), Bool(false)},
		{Bool(false), Int(0)},
	}
	for _, p := range neq {
		if p[0].Equal(p[1]) || p[1].Equal(p[0]) {
			t.Errorf("%s should not equal %s", p[0].Literal(), p[1].Literal())
		}
	}
	eq := [][2]Value{
		{Null(), Null()},
		{Int(3), Int(3)},
		{Float(math.NaN()), Float(math.NaN())},
		{List(String("a"), List()), List(String("a"), List())},
	}
	for _, p := range eq {
		if !p[0].Equal(p[1]) || p[0].Compare(p[1]) != 0 {
			t.Errorf("%s should equal %s", p[0].Literal(), p[1].Literal())
		}
	}
}

// orderedValues is strictly increasing under Compare.
var orderedValues = []Value{
	Null(),
	Bool(false), Bool(true),
	Int(math.MinInt64), Int(-1), Int(0), Int(1), Int(math.MaxInt64),
	Float(math.Inf(-1)), Float(-1e300), Float(-1), Float(math.Copysign(0, -1)), Float(0),
	Float(math.SmallestNonzeroFloat64), Float(1), Float(1e300), Float(math.Inf(1)), Float(math.NaN()),
	String(""), String("\x00"), String("\x00\x00"), String("\x01"), String("A"), String("a"), String("a\x00"), String("ab"), String("b"), String("é"),
	DateValue("2025-12-31"), DateValue("2026-01-01"),
	DateTimeValue("2026-01-01T00:00:00Z"), DateTimeValue("2026-01-01T00:00:01Z"),
	List(), List(Null()), List(Int(1)), List(Int(1), Null()), List(Int(1), Int(2)), List(Int(2)), List(Float(0)), List(String("")), List(List()),
}

func TestValueCompareTotalOrder(t *testing.T) {
	for i, a := range orderedValues {
		for j, b := range orderedValues {
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			if got := a.Compare(b); got != want {
				t.Errorf("Compare(%s, %s) = %d, want %d", a.Literal(), b.Literal(), got, want)
			}
			if got := bytes.Compare(a.AppendKey(nil), b.AppendKey(nil)); got != want {
				t.Errorf("key order (%s, %s) = %d, want %d", a.Literal(), b.Literal(), got, want)
			}
			if a.Equal(b) != (i == j) {
				t.Errorf("Equal(%s, %s)", a.Literal(), b.Literal())
			}
		}
	}
	// Sorting a shuffled copy restores the order (transitivity sanity check).
	vs := append([]Value(nil), orderedValues...)
	for i := range vs {
		j := (i * 7919) % len(vs)
		vs[i], vs[j] = vs[j], vs[i]
	}
	sort.Slice(vs, func(i, j int) bool { return vs[i].Compare(vs[j]) < 0 })
	for i := range vs {
		if !vs[i].Equal(orderedValues[i]) {
			t.Fatalf("sorted[%d] = %s", i, vs[i].Literal())
		}
	}
}

func TestProps(t *testing.T) {
	p := MakeProps(map[string]Value{"b": String("x"), "a": Int(1), "z": Null()})
	if p.Literal() != `{a: 1, b: "x"}` {
		t.Fatalf("literal %s", p.Literal())
	}
	if p.Size() != len(p.Literal()) {
		t.Fatal("size")
	}
	if v, ok := p.Get("a"); !ok || v.AsInt() != 1 {
		t.Fatal("Get a")
	}
	if _, ok := p.Get("z"); ok {
		t.Fatal("null kept")
	}
	if _, ok := p.Get("0"); ok {
		t.Fatal("Get missing")
	}
	q := p.With("c", Bool(true))
	if q.Literal() != `{a: 1, b: "x", c: true}` || p.Literal() != `{a: 1, b: "x"}` {
		t.Fatalf("With: %s / %s", q.Literal(), p.Literal())
	}
	q2 := q.With("a", Int(2))
	if q2.Literal() != `{a: 2, b: "x", c: true}` || q.Literal() != `{a: 1, b: "x", c: true}` {
		t.Fatal("With replace mutated")
	}
	q3 := q.With("_", Int(0))
	if q3.Literal() != `{_: 0, a: 1, b: "x", c: true}` {
		t.Fatal(q3.Literal())
	}
	r := q.With("b", Null())
	if r.Literal() != `{a: 1, c: true}` || q.Literal() != `{a: 1, b: "x", c: true}` {
		t.Fatal("With null")
	}
	w := q.Without("a")
	if w.Literal() != `{b: "x", c: true}` || q.Literal() != `{a: 1, b: "x", c: true}` {
		t.Fatal("Without")
	}
	if x := w.Without("nope"); !x.Equal(w) || (len(x) > 0 && &x[0] == &w[0]) {
		t.Fatal("Without missing must copy")
	}
	if Props(nil).Literal() != "{}" || Props(nil).Size() != 2 {
		t.Fatal("empty")
	}
	if (Props{{Key: "a", Val: Int(1)}}).Without("a") != nil {
		t.Fatal("Without last")
	}
	if !p.Equal(Props{{Key: "a", Val: Int(1)}, {Key: "b", Val: String("x")}}) || p.Equal(q) || p.Equal(Props{{Key: "a", Val: Float(1)}, {Key: "b", Val: String("x")}}) {
		t.Fatal("Equal")
	}
	odd := Props{{Key: "my key", Val: Int(1)}, {Key: "a`b", Val: Int(2)}, {Key: "9x", Val: Int(3)}, {Key: "", Val: Int(4)}, {Key: "ok_1", Val: Int(5)}}
	n := NormalizeProps(odd)
	if n.Literal() != "{``: 4, `9x`: 3, `a``b`: 2, `my key`: 1, ok_1: 5}" {
		t.Fatal(n.Literal())
	}
	if n.Size() != len(n.Literal()) {
		t.Fatal("size quoted")
	}
	if KeyLiteral("abc_1") != "abc_1" || KeyLiteral("a-b") != "`a-b`" || KeyLiteral("é") != "`é`" {
		t.Fatal("KeyLiteral")
	}
	dup := NormalizeProps(Props{{Key: "b", Val: Int(1)}, {Key: "a", Val: Int(2)}, {Key: "b", Val: Int(3)}, {Key: "c", Val: Null()}})
	if dup.Literal() != "{a: 2, b: 3}" {
		t.Fatal(dup.Literal())
	}
	if NormalizeProps(p); &NormalizeProps(p)[0] != &p[0] {
		t.Fatal("valid props must not be copied")
	}
}

func TestPropsCompareMatchesKey(t *testing.T) {
	ps := []Props{
		nil,
		{{"", Int(1)}},
		{{"\x00", Int(1)}},
		{{"a", Null()}}, // not valid props, but the order still holds
		{{"a", Int(1)}},
		{{"a", Int(1)}, {"b", Int(0)}},
		{{"a", Int(2)}},
		{{"a", String("x")}},
		{{"a", String("x")}, {"a0", Int(1)}},
		{{"a\x00", Int(0)}},
		{{"aa", Int(0)}},
		{{"b", Int(0)}},
	}
	for i, a := range ps {
		for j, b := range ps {
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			if got := a.Compare(b); got != want {
				t.Errorf("Compare(%s, %s) = %d", a.Literal(), b.Literal(), got)
			}
			if got := bytes.Compare(AppendPropsKey(nil, a), AppendPropsKey(nil, b)); got != want {
				t.Errorf("key(%s, %s) = %d", a.Literal(), b.Literal(), got)
			}
		}
	}
}
