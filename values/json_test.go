package values

import (
	"encoding/json"
	"math"
	"testing"
	"time"

	"pgregory.net/rapid"
)

func genValue(depth int) *rapid.Generator[Value] {
	return rapid.Custom(func(t *rapid.T) Value {
		k := rapid.IntRange(0, 7).Draw(t, "kind")
		if depth > 2 && k == 7 {
			k = 4
		}
		switch k {
		case 0:
			return Null()
		case 1:
			return Bool(rapid.Bool().Draw(t, "b"))
		case 2:
			return Int(rapid.Int64().Draw(t, "i"))
		case 3:
			f := rapid.Float64().Draw(t, "f")
			if !ValidFloat(f) {
				f = 0
			}
			return Float(f)
		case 4:
			return String(rapid.String().Draw(t, "s"))
		case 5:
			return DateValue(time.Unix(rapid.Int64Range(-62135596800, 253402300799).Draw(t, "d"), 0).UTC().Format(time.DateOnly))
		case 6:
			tm := time.Unix(rapid.Int64Range(-62135596800+86400, 253402300799-86400).Draw(t, "dt"), rapid.Int64Range(0, 999999999).Draw(t, "ns"))
			v, err := DateTimeOf(tm.In(time.FixedZone("", rapid.IntRange(-14, 14).Draw(t, "zone")*3600)))
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
		return List(rapid.SliceOfN(genValue(depth+1), 0, 3).Draw(t, "list")...)
	})
}

// TestRapidJSONRoundTrip: a value's JSON reads back as the same value
// (an INTEGER stays an INTEGER, a FLOAT a FLOAT, -0.0 its sign, a DATE
// and a DATETIME their text), and so do properties.
func TestRapidJSONRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		v := genValue(0).Draw(t, "v")
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var back Value
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if !back.Equal(v) || (v.Kind() == KindFloat && math.Signbit(v.AsFloat()) != math.Signbit(back.AsFloat())) {
			t.Fatalf("%s read back as %s, want %s", b, back.Literal(), v.Literal())
		}
		m := map[string]Value{}
		for _, k := range rapid.SliceOfN(rapid.StringMatching(`[a-z"\\é]{0,4}`), 0, 4).Draw(t, "keys") {
			m[k] = genValue(1).Draw(t, "pv")
		}
		p := MakeProps(m)
		b, err = json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		var pb Props
		if err := json.Unmarshal(b, &pb); err != nil || !pb.Equal(p) {
			t.Fatalf("%s read back as %v (%v), want %v", b, pb, err, p)
		}
	})
}

// TestJSONForms pins the forms: the server's parameters read the same.
func TestJSONForms(t *testing.T) {
	p := MakeProps(map[string]Value{"i": Int(1), "f": Float(1), "d": DateValue("2026-01-31"), "t": DateTimeValue("2026-01-31T10:00:00+02:00"),
		"l": List(String("a"), Null()), "b": Bool(false)})
	b, err := json.Marshal(p)
	want := `{"b":false,"d":{"date":"2026-01-31"},"f":1.0,"i":1,"l":["a",null],"t":{"datetime":"2026-01-31T10:00:00+02:00"}}`
	if err != nil || string(b) != want {
		t.Fatalf("got %s (%v), want %s", b, err, want)
	}
	for _, bad := range []string{`{"date":"2026-02-30"}`, `{"datetime":"10000-01-01T00:00:00Z"}`, `{"x":1}`, `1e999`, `99999999999999999999`} {
		var v Value
		if err := json.Unmarshal([]byte(bad), &v); err == nil {
			t.Errorf("%s read as %s", bad, v.Literal())
		}
	}
}
