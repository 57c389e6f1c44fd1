package store

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/goldfish-gql/goldfish/values"
)

func TestKindPrefix(t *testing.T) {
	for _, c := range []struct {
		labels []string
		props  values.Props
		want   string
	}{
		{nil, nil, ""},
		{nil, values.Props{{Key: "a", Val: values.Int(1)}}, ""},
		{[]string{"TSK"}, nil, ":TSK"},
		{[]string{"TSK"}, values.Props{{Key: "a", Val: values.Int(1)}}, ":TSK"},
		{[]string{"TSK", "Open"}, nil, ":TSK"},
		{[]string{"two words"}, nil, ":`two words`"},
		{[]string{"a`b", "c"}, values.Props{{Key: "a", Val: values.Int(1)}}, ":`a``b`"},
		{[]string{"`"}, nil, ":````"},
		{[]string{""}, nil, ":``"},
		{[]string{"x:y"}, nil, ":`x:y`"},
	} {
		text := string(appendRendering(nil, c.labels, c.props))
		if got := KindPrefix(text); got != c.want {
			t.Errorf("KindPrefix(%q) = %q, want %q", text, got, c.want)
		}
	}
}

// TestKindPrefixRapid: the prefix of a rendering is its kind's rendering,
// whatever the kind, the other labels and the properties.
func TestKindPrefixRapid(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		label := rapid.SampledFrom([]string{"A", "TSK", "a b", "`", "``x", "x:", "", "é", "1a", " "})
		labels := rapid.SliceOfNDistinct(label, 0, 4, rapid.ID[string]).Draw(t, "labels")
		var props values.Props
		if rapid.Bool().Draw(t, "props") {
			props = values.Props{{Key: rapid.SampledFrom([]string{"k", "a b", "`"}).Draw(t, "key"), Val: values.String(rapid.String().Draw(t, "val"))}}
		}
		want := ""
		if len(labels) > 0 {
			want = string(AppendLabels(nil, labels[:1]))
		}
		if got := KindPrefix(string(appendRendering(nil, labels, props))); got != want {
			t.Fatalf("KindPrefix of %q %v = %q, want %q", labels, props, got, want)
		}
	})
}
