package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"pgregory.net/rapid"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/parser"
	"github.com/goldfish-gql/goldfish/values"
)

// The property test of the values a Commit takes (write.go): any Go value a
// parameter may hold is stored, recalled and read back as it was.

// drawn is a generated Go parameter value: whether a property can hold
// it, and how deep its lists are nested.
type drawn struct {
	v       any
	valid   bool
	nesting int
}

// oddRunes are runes the literal, the lexer and the codec treat
// specially.
var oddRunes = []rune{0, 1, 0x1f, '\t', '\n', '\r', 0x7f, 0x80, 0x9f, 0xa0, 0x2028, 0x2029, 0xfeff,
	utf8.RuneError, 0xffff, utf8.MaxRune, 0x1f600, '"', '\'', '`', '\\', '/', '*', '-', '$', '[', ']', '{', '}', '(', ')', 'é', 'a', ' '}

var zones = []*time.Location{time.UTC, time.FixedZone("", 0), time.FixedZone("", 3600), time.FixedZone("", -3600),
	time.FixedZone("", 5*3600+30*60), time.FixedZone("", -14*3600), time.FixedZone("", 3601), time.FixedZone("", 30*3600)}

// Years 0000 and 9999, in Unix seconds, and the span around them drawn.
const (
	unixYear0    = -62167219200
	unixYear9999 = 253402300799
	unixMargin   = 3 * 366 * 24 * 3600
)

func drawGoValue(t *rapid.T, depth int) drawn {
	switch rapid.IntRange(0, 13).Draw(t, "kind") {
	case 0:
		return drawn{v: nil, valid: true}
	case 1:
		return drawn{v: rapid.Bool().Draw(t, "bool"), valid: true}
	case 2:
		i := rapid.OneOf(rapid.Int64(), rapid.SampledFrom([]int64{math.MinInt64, math.MaxInt64, 0, -1})).Draw(t, "int64")
		return drawn{v: i, valid: true}
	case 3:
		return drawn{v: rapid.SampledFrom([]any{int8(math.MinInt8), int16(math.MaxInt16), int32(math.MinInt32), uint8(255),
			uint16(math.MaxUint16), uint32(math.MaxUint32), int(math.MinInt), uint(math.MaxUint32)}).Draw(t, "int"), valid: true}
	case 4:
		u := rapid.OneOf(rapid.Uint64(), rapid.SampledFrom([]uint64{math.MaxInt64, math.MaxInt64 + 1, math.MaxUint64})).Draw(t, "uint64")
		return drawn{v: u, valid: u <= math.MaxInt64}
	case 5:
		f := rapid.OneOf(rapid.Float64(), rapid.SampledFrom([]float64{math.Copysign(0, -1), 0, math.MaxFloat64, -math.MaxFloat64,
			math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, 1e21, 1e20, 1e-7, math.NaN(), math.Inf(1), math.Inf(-1)})).Draw(t, "float64")
		return drawn{v: f, valid: values.ValidFloat(f)}
	case 6:
		f := rapid.Float32().Draw(t, "float32")
		return drawn{v: f, valid: values.ValidFloat(float64(f))}
	case 7:
		s := rapid.StringOf(rapid.SampledFrom(oddRunes)).Draw(t, "string")
		return drawn{v: s, valid: true}
	case 8:
		b := rapid.SliceOfN(rapid.Byte(), 0, 6).Draw(t, "bytes")
		s := string(b)
		return drawn{v: s, valid: utf8.ValidString(s)}
	case 9:
		sec := rapid.Int64Range(unixYear0-unixMargin, unixYear9999+unixMargin).Draw(t, "unix")
		tm := time.Unix(sec, rapid.Int64Range(0, 999999999).Draw(t, "nanos")).In(rapid.SampledFrom(zones).Draw(t, "zone"))
		y := tm.UTC().Year()
		return drawn{v: tm, valid: y >= 0 && y <= 9999}
	case 10:
		if depth >= 3 {
			return drawn{v: "leaf", valid: true}
		}
		n := rapid.IntRange(0, 3).Draw(t, "len")
		l := make([]any, n)
		d := drawn{valid: true, nesting: 1}
		for i := range l {
			e := drawGoValue(t, depth+1)
			l[i] = e.v
			d.valid = d.valid && e.valid
			d.nesting = max(d.nesting, e.nesting+1)
		}
		d.v = l
		return d
	case 11:
		n := rapid.IntRange(values.MaxNesting-2, values.MaxNesting+2).Draw(t, "chain")
		if rapid.Bool().Draw(t, "scalar leaf") {
			return drawn{v: nestedList(n, 1), valid: true, nesting: n}
		}
		return drawn{v: nestedList(n-1, []any{}), valid: true, nesting: n}
	case 12:
		a := make([]any, 2)
		a[0] = "x"
		a[1] = a
		return drawn{v: a, valid: false, nesting: values.MaxNesting + 1}
	default:
		s := rapid.SliceOfN(rapid.StringOf(rapid.SampledFrom(oddRunes)), 0, 3).Draw(t, "strings")
		return drawn{v: s, valid: true, nesting: 1}
	}
}

// names a Δ may give a property or a label, as written in GQL text.
var propKeys = []string{"p", "`a b`", "`x``y`", "`é`", "`😀`", "`1x`", "`MATCH`", "match", "`null`", "`--`", "`/*`"}

var kindLabels = []string{"K", "`a b`", "`MATCH`", "match", "`é`", "`x``y`"}

// quotedName draws a back-quoted name of odd runes, as a Δ writes a key
// or a label.
func quotedName() *rapid.Generator[string] {
	return rapid.Custom(func(t *rapid.T) string {
		name := rapid.StringOfN(rapid.SampledFrom(oddRunes), 1, 6, -1).Draw(t, "name")
		return "`" + strings.ReplaceAll(name, "`", "``") + "`"
	})
}

// TestCommitReadsBack commits random Go parameter values to a session in
// a cabinet and checks the promise of docs/design.md#persistence-and-history: what Commit acknowledges reads
// back identically after the database is reopened (from the log, or from
// a snapshot after a flush), and its Shape parses and commits again to
// the same node; what no property can hold is refused at Commit with the
// code of what is wrong with it (22G03, 22003, 22008, 22Q05), never
// acknowledged and then lost.
func TestCommitReadsBack(t *testing.T) {
	dir := t.TempDir()
	runs := 0
	rapid.Check(t, func(rt *rapid.T) {
		runs++
		ctx := context.Background()
		path := filepath.Join(dir, fmt.Sprintf("s%d.db", runs))
		db, err := openTest(WithCabinet(path))
		if err != nil {
			rt.Fatal(err)
		}
		defer func() { db.Close() }()
		s, err := db.Session(context.Background(), "s")
		if err != nil {
			rt.Fatal(err)
		}
		if _, err := s.commitText(ctx, `INSERT (:K {nick: "before"})`, nil); err != nil {
			rt.Fatal(err)
		}
		p := drawGoValue(rt, 0)
		key := rapid.OneOf(rapid.SampledFrom(propKeys), quotedName()).Draw(rt, "key")
		label := rapid.OneOf(rapid.SampledFrom(kindLabels), quotedName()).Draw(rt, "label")
		valid := p.valid && p.nesting <= values.MaxNesting
		var text string
		switch rapid.IntRange(0, 2).Draw(rt, "form") {
		case 0:
			text = fmt.Sprintf(`INSERT (:%s {nick: "x", %s: $p})`, label, key)
		case 1: // a computed list: CEL builds it
			text = fmt.Sprintf(`INSERT (:%s {nick: "x", %s: [$p, 1]})`, label, key)
			valid = valid && p.nesting+1 <= values.MaxNesting
		default: // unused, but logged
			text = fmt.Sprintf(`INSERT (:%s {nick: "x"})`, label)
		}
		if _, err := parser.Parse(text); err != nil {
			// A name the lexer does not take as a quoted name: the text
			// is refused whatever the value.
			if _, err := s.commitText(ctx, text, map[string]any{"p": p.v}); err == nil {
				rt.Fatalf("%s: acknowledged a text that does not parse", text)
			}
			return
		}
		_, err = s.commitText(ctx, text, map[string]any{"p": p.v})
		if err != nil {
			var ge *gqlstatus.Error
			if !errors.As(err, &ge) || !slices.Contains([]values.Code{gqlstatus.InvalidValueType, gqlstatus.NumericOutOfRange,
				gqlstatus.DateTimeOverflow, gqlstatus.ValueBudget}, ge.Code) {
				rt.Fatalf("%s with %#v: refused with %v, want a value's refusal (22G03, 22003, 22008 or 22Q05)", text, p.v, err)
			}
			if valid {
				rt.Fatalf("%s with %#v: refused a value a property can hold: %v", text, p.v, err)
			}
		} else if !valid {
			rt.Fatalf("%s with %#v: acknowledged a value no property can hold:\n%s", text, p.v, s.Dump())
		}
		if err == nil && rapid.Bool().Draw(rt, "copy") {
			copyText := fmt.Sprintf(`MATCH (n {nick: "x"}) SET n.copy = n.%s`, key)
			if _, err := s.commitText(ctx, copyText, nil); err != nil {
				rt.Fatalf("%s: %v", copyText, err)
			}
		}
		if rapid.Bool().Draw(rt, "flush") {
			if err := s.Flush(ctx); err != nil {
				rt.Fatal(err)
			}
		}
		before := s.Dump()
		checkShape(rt, s, `MATCH (n {nick: "x"})`)
		if err := db.Close(); err != nil {
			rt.Fatal(err)
		}
		db, err = openTest(WithCabinet(path))
		if err != nil {
			rt.Fatal(err)
		}
		s, err = db.Session(context.Background(), "s")
		if err != nil {
			rt.Fatalf("the session does not open again: %v", err)
		}
		if after := s.Dump(); after != before {
			rt.Fatalf("after reopening:\n%s\nbefore:\n%s", after, before)
		}
	})
}

// checkShape is shapeReparses under rapid.
func checkShape(t *rapid.T, s *Session, q string) {
	if err := checkShapeText(s, q); err != nil {
		t.Fatal(err)
	}
}
