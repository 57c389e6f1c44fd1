package values

import (
	"encoding/binary"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ValueKind is the dynamic type of a Value. The numeric order of the kinds is
// the kind rank used by Value.Compare.
type ValueKind uint8

const (
	KindNull ValueKind = iota
	KindBool
	KindInt
	KindFloat
	KindString
	KindDate
	KindDateTime
	KindList
)

var kindNames = [...]string{"NULL", "BOOLEAN", "INTEGER", "FLOAT", "STRING", "DATE", "DATETIME", "LIST"}

// String returns the GQL type name of the kind.
func (k ValueKind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "KIND(" + strconv.Itoa(int(k)) + ")"
}

// Value is an immutable property value. The zero Value is Null.
//
// Layout: n holds the bool (0/1), the int64 or the float64 bits; s holds the
// string, date or datetime text; l holds list elements. Values are copied by
// value; a list's backing array is shared and must never be mutated.
type Value struct {
	kind ValueKind
	n    uint64
	s    string
	l    *[]Value
}

// Null returns the null value.
func Null() Value { return Value{} }

// Bool returns a BOOLEAN value.
func Bool(b bool) Value {
	if b {
		return Value{kind: KindBool, n: 1}
	}
	return Value{kind: KindBool}
}

// Int returns an INTEGER value.
func Int(i int64) Value { return Value{kind: KindInt, n: uint64(i)} }

// Float returns a FLOAT value. Callers must reject NaN and ±Inf (see
// ValidFloat) before storing a float: the GQL grammar has no literal for them.
// If one slips through it is still ordered and compared deterministically.
func Float(f float64) Value { return Value{kind: KindFloat, n: math.Float64bits(f)} }

// ValidFloat reports whether f can be stored and printed as a GQL literal,
// i.e. it is neither NaN nor infinite.
func ValidFloat(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// String returns a STRING value.
func String(s string) Value { return Value{kind: KindString, s: s} }

// DateValue returns a DATE value from ISO text ("2026-01-31"), already validated
// by the caller.
func DateValue(iso string) Value { return Value{kind: KindDate, s: iso} }

// DateTimeValue returns a DATETIME value from ISO-8601 text, already validated and
// normalised by the caller (so that text order is chronological order).
func DateTimeValue(iso string) Value { return Value{kind: KindDateTime, s: iso} }

// List returns a LIST value. The slice is copied.
func List(vs ...Value) Value {
	c := make([]Value, len(vs))
	copy(c, vs)
	return Value{kind: KindList, l: &c}
}

// SharingBytes returns v with its text read from the same bytes in
// blob when blob holds them: a store record that writes its values into
// its rendering keeps each string once.
func (v Value) SharingBytes(blob string) Value {
	if v.l == nil && len(v.s) > 0 {
		if at := strings.Index(blob, v.s); at >= 0 {
			v.s = blob[at : at+len(v.s)]
		}
	}
	return v
}

// Kind returns the value's kind.
func (v Value) Kind() ValueKind { return v.kind }

// IsNull reports whether v is null.
func (v Value) IsNull() bool { return v.kind == KindNull }

// AsBool returns the boolean (false for other kinds).
func (v Value) AsBool() bool { return v.kind == KindBool && v.n != 0 }

// AsInt returns the integer (0 for other kinds).
func (v Value) AsInt() int64 {
	if v.kind != KindInt {
		return 0
	}
	return int64(v.n)
}

// AsFloat returns the float (0 for other kinds).
func (v Value) AsFloat() float64 {
	if v.kind != KindFloat {
		return 0
	}
	return math.Float64frombits(v.n)
}

// AsString returns the text of a STRING, DATE or DATETIME ("" otherwise).
func (v Value) AsString() string { return v.s }

// AsList returns the list elements (nil for other kinds). The result is
// shared and must not be modified.
func (v Value) AsList() []Value {
	if v.kind != KindList || v.l == nil {
		return nil
	}
	return *v.l
}

// Equal reports exact equality: same kind and same value. Int(1) and
// Float(1) are not Equal; Float(0) and Float(-0) are not Equal (their
// literals differ). Equal(v, w) ⇔ Compare(v, w) == 0.
func (v Value) Equal(w Value) bool {
	if v.kind != w.kind {
		return false
	}
	switch v.kind {
	case KindNull:
		return true
	case KindBool, KindInt, KindFloat:
		return v.n == w.n
	case KindList:
		a, b := v.AsList(), w.AsList()
		if len(a) != len(b) {
			return false
		}
		for i := range a {
			if !a[i].Equal(b[i]) {
				return false
			}
		}
		return true
	default:
		return v.s == w.s
	}
}

// OrderKey returns a BOOLEAN's, an INTEGER's or a FLOAT's order as an
// unsigned integer: for two values of one of those kinds, OrderKey's
// order is Compare's (0 for the other kinds).
func (v Value) OrderKey() uint64 {
	switch v.kind {
	case KindBool:
		return v.n
	case KindInt:
		return v.n ^ 1<<63
	case KindFloat:
		return FloatKey(v.n)
	}
	return 0
}

// FloatKey maps float bits to an unsigned integer whose order is the IEEE
// total order: -NaN < -Inf < … < -0 < +0 < … < +Inf < +NaN.
func FloatKey(bits uint64) uint64 {
	if bits&(1<<63) != 0 {
		return ^bits
	}
	return bits | 1<<63
}

func cmpU64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Compare is a total order over values: by kind rank (the ValueKind order:
// NULL < BOOLEAN < INTEGER < FLOAT < STRING < DATE < DATETIME < LIST) first,
// then by value: false < true; integers numerically; floats by IEEE total
// order (so -0 < +0 and NaNs sort deterministically at the ends); strings,
// dates and datetimes bytewise; lists lexicographically (a proper prefix
// sorts first). It agrees with the order-preserving key encoding used by
// the indexes.
func (v Value) Compare(w Value) int {
	if v.kind != w.kind {
		if v.kind < w.kind {
			return -1
		}
		return 1
	}
	switch v.kind {
	case KindNull:
		return 0
	case KindBool:
		return cmpU64(v.n, w.n)
	case KindInt:
		return cmpU64(v.n^1<<63, w.n^1<<63)
	case KindFloat:
		return cmpU64(FloatKey(v.n), FloatKey(w.n))
	case KindList:
		a, b := v.AsList(), w.AsList()
		for i := 0; i < len(a) && i < len(b); i++ {
			if c := a[i].Compare(b[i]); c != 0 {
				return c
			}
		}
		return cmpU64(uint64(len(a)), uint64(len(b)))
	default:
		return strings.Compare(v.s, w.s)
	}
}

// Literal returns the canonical GQL literal of v.
func (v Value) Literal() string { return string(v.AppendLiteral(nil)) }

// AppendLiteral appends the canonical GQL literal of v to b:
// null, true, false; decimal integers; floats in shortest 'g' form always
// containing '.' or 'e' (1 → 1.0, 1e21 → 1e+21); double-quoted strings with
// \" \\ \n \r \t escapes, other control characters (C0, DEL, C1, U+2028,
// U+2029) as \uXXXX and invalid UTF-8 bytes as \uFFFD; DATE '…'; DATETIME '…';
// lists as [a, b]. NaN and ±Inf (which callers must reject) print as NaN,
// Infinity and -Infinity, which do not parse.
func (v Value) AppendLiteral(b []byte) []byte {
	switch v.kind {
	case KindNull:
		return append(b, "null"...)
	case KindBool:
		if v.n != 0 {
			return append(b, "true"...)
		}
		return append(b, "false"...)
	case KindInt:
		return strconv.AppendInt(b, int64(v.n), 10)
	case KindFloat:
		return appendFloat(b, math.Float64frombits(v.n))
	case KindString:
		return appendQuoted(b, v.s)
	case KindDate:
		b = append(b, "DATE '"...)
		b = append(b, v.s...)
		return append(b, '\'')
	case KindDateTime:
		b = append(b, "DATETIME '"...)
		b = append(b, v.s...)
		return append(b, '\'')
	case KindList:
		b = append(b, '[')
		for i, e := range v.AsList() {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = e.AppendLiteral(b)
		}
		return append(b, ']')
	}
	return b
}

func appendFloat(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, "NaN"...)
	case math.IsInf(f, 1):
		return append(b, "Infinity"...)
	case math.IsInf(f, -1):
		return append(b, "-Infinity"...)
	}
	start := len(b)
	b = strconv.AppendFloat(b, f, 'g', -1, 64)
	for _, c := range b[start:] {
		if c == '.' || c == 'e' || c == 'E' {
			return b
		}
	}
	return append(b, ".0"...)
}

const hexDigits = "0123456789ABCDEF"

// needsUEscape reports whether rune r (valid) is printed as \uXXXX.
func needsUEscape(r rune) bool {
	return r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) || r == 0x2028 || r == 0x2029
}

func appendQuoted(b []byte, s string) []byte {
	b = append(b, '"')
	// Fast path: copy the leading run that needs no escape in one append.
	plain := 0
	for plain < len(s) && plainByte[s[plain]] {
		plain++
	}
	b = append(b, s[:plain]...)
	for i := plain; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch c {
			case '"':
				b = append(b, '\\', '"')
			case '\\':
				b = append(b, '\\', '\\')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				if c < 0x20 || c == 0x7f {
					b = appendU(b, rune(c))
				} else {
					b = append(b, c)
				}
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, `\uFFFD`...)
		} else if needsUEscape(r) {
			b = appendU(b, r)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

// plainByte marks the ASCII bytes a string literal holds as they are.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < 0x7f; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return
}()

func appendU(b []byte, r rune) []byte {
	return append(b, '\\', 'u', hexDigits[r>>12&0xf], hexDigits[r>>8&0xf], hexDigits[r>>4&0xf], hexDigits[r&0xf])
}

// quotedLen is len(appendQuoted(nil, s)) without allocating.
func quotedLen(s string) int {
	n, _ := QuotedSize(s)
	return n
}

// QuotedSize returns the length of the canonical literal of the STRING s
// and whether s is valid UTF-8, in one pass: what a parameter's
// conversion needs of a string.
func QuotedSize(s string) (n int, valid bool) {
	n, valid = 2, true
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case plainByte[c]:
				n++
			case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t':
				n += 2
			default:
				n += 6
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			n += 6
			valid = false
		} else if needsUEscape(r) {
			n += 6
		} else {
			n += size
		}
		i += size
	}
	return n, valid
}

// Size returns the length in bytes of v's canonical literal (exact), used
// for the Δ text budget.
func (v Value) Size() int {
	switch v.kind {
	case KindNull:
		return 4
	case KindBool:
		if v.n != 0 {
			return 4
		}
		return 5
	case KindString:
		return quotedLen(v.s)
	case KindDate:
		return len(v.s) + 7
	case KindDateTime:
		return len(v.s) + 11
	case KindList:
		l := v.AsList()
		n := 2
		for i, e := range l {
			if i > 0 {
				n += 2
			}
			n += e.Size()
		}
		return n
	}
	var buf [32]byte
	return len(v.AppendLiteral(buf[:0]))
}

// Order-preserving binary encoding (used in index keys). Every encoding is
// self-delimiting and bytewise order of encodings equals Value.Compare order.
//
//	tag byte 0x10+kind, then
//	BOOLEAN: 0x00/0x01; INTEGER: 8 bytes big-endian, sign bit flipped;
//	FLOAT: 8 bytes big-endian of FloatKey(bits);
//	STRING/DATE/DATETIME: escaped text (0x00 → 0x00 0xFF), then 0x00 0x01;
//	LIST: element encodings, then 0x01 (below every tag).
const (
	tagBase  = 0x10
	listEnd  = 0x01
	strEsc   = 0xFF
	strTerm  = 0x01
	propsEnd = 0x00
)

// AppendKeyString appends the order-preserving encoding of the text s,
// as a STRING's AppendKey writes it after its tag.
func AppendKeyString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == 0 {
			b = append(b, 0, strEsc)
		} else {
			b = append(b, c)
		}
	}
	return append(b, 0, strTerm)
}

// AppendKey appends the order-preserving encoding of v to b: for any values
// v, w, bytes.Compare(v.AppendKey(nil), w.AppendKey(nil)) == v.Compare(w).
func (v Value) AppendKey(b []byte) []byte {
	b = append(b, tagBase+byte(v.kind))
	switch v.kind {
	case KindBool:
		return append(b, byte(v.n))
	case KindInt:
		return binary.BigEndian.AppendUint64(b, v.n^1<<63)
	case KindFloat:
		return binary.BigEndian.AppendUint64(b, FloatKey(v.n))
	case KindString, KindDate, KindDateTime:
		return AppendKeyString(b, v.s)
	case KindList:
		for _, e := range v.AsList() {
			b = e.AppendKey(b)
		}
		return append(b, listEnd)
	}
	return b
}
