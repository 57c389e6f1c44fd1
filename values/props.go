package values

import (
	"sort"
	"strings"
)

// Prop is one property: a key and a non-null value.
type Prop struct {
	Key string
	Val Value
}

// Props is a property set: sorted by Key, unique keys, never containing null
// values (setting null removes a key). Props slices are shared between
// snapshots and must be treated as immutable: every "modifying" method
// returns a new slice.
type Props []Prop

// MakeProps builds Props from a map: sorted, nulls dropped.
func MakeProps(m map[string]Value) Props {
	p := make(Props, 0, len(m))
	for k, v := range m {
		if !v.IsNull() {
			p = append(p, Prop{Key: k, Val: v})
		}
	}
	sort.Slice(p, func(i, j int) bool { return p[i].Key < p[j].Key })
	if len(p) == 0 {
		return nil
	}
	return p
}

// NormalizeProps returns p if it is already canonical (sorted, unique keys,
// no nulls); otherwise a canonical copy where for duplicate keys the last
// occurrence wins and null values are dropped. It never mutates p.
func NormalizeProps(p Props) Props {
	if p.valid() {
		return p
	}
	c := make(Props, len(p))
	copy(c, p)
	sort.SliceStable(c, func(i, j int) bool { return c[i].Key < c[j].Key })
	out := c[:0]
	for i := 0; i < len(c); i++ {
		if i+1 < len(c) && c[i+1].Key == c[i].Key {
			continue // a later duplicate wins
		}
		if !c[i].Val.IsNull() {
			out = append(out, c[i])
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func (p Props) valid() bool {
	for i := range p {
		if p[i].Val.IsNull() || (i > 0 && p[i-1].Key >= p[i].Key) {
			return false
		}
	}
	return true
}

func (p Props) search(key string) (int, bool) {
	lo, hi := 0, len(p)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if p[m].Key < key {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(p) && p[lo].Key == key
}

// Get returns the value of key (binary search).
func (p Props) Get(key string) (Value, bool) {
	i, ok := p.search(key)
	if !ok {
		return Value{}, false
	}
	return p[i].Val, true
}

// With returns a new Props with key set to v; a null v removes the key.
// p is never mutated.
func (p Props) With(key string, v Value) Props {
	if v.IsNull() {
		return p.Without(key)
	}
	i, ok := p.search(key)
	if ok {
		c := make(Props, len(p))
		copy(c, p)
		c[i].Val = v
		return c
	}
	c := make(Props, len(p)+1)
	copy(c, p[:i])
	c[i] = Prop{Key: key, Val: v}
	copy(c[i+1:], p[i:])
	return c
}

// Without returns a new Props without key. p is never mutated.
func (p Props) Without(key string) Props {
	i, ok := p.search(key)
	if !ok {
		c := make(Props, len(p))
		copy(c, p)
		return c
	}
	if len(p) == 1 {
		return nil
	}
	c := make(Props, 0, len(p)-1)
	c = append(c, p[:i]...)
	return append(c, p[i+1:]...)
}

// Equal reports whether p and q hold the same keys with Equal values.
func (p Props) Equal(q Props) bool {
	if len(p) != len(q) {
		return false
	}
	for i := range p {
		if p[i].Key != q[i].Key || !p[i].Val.Equal(q[i].Val) {
			return false
		}
	}
	return true
}

// Compare orders property sets lexicographically by (key, value) pairs, a
// proper prefix first. It agrees with the props part of the observable key
// (before truncation).
func (p Props) Compare(q Props) int {
	for i := 0; i < len(p) && i < len(q); i++ {
		if c := strings.Compare(p[i].Key, q[i].Key); c != 0 {
			// Key encodings: "" sorts before anything, matching string order.
			return c
		}
		if c := p[i].Val.Compare(q[i].Val); c != 0 {
			return c
		}
	}
	return cmpU64(uint64(len(p)), uint64(len(q)))
}

// Literal returns the canonical map literal: {a: 1, b: "x"}; {} when empty.
func (p Props) Literal() string { return string(p.AppendLiteral(nil)) }

// AppendLiteral appends the canonical map literal to b.
func (p Props) AppendLiteral(b []byte) []byte { return p.AppendLiteralOf(b, nil) }

// AppendLiteralOf appends the canonical map literal of the properties keep
// reports true for (all of them when keep is nil).
func (p Props) AppendLiteralOf(b []byte, keep func(Prop) bool) []byte {
	b = append(b, '{')
	first := true
	for _, kv := range p {
		if keep != nil && !keep(kv) {
			continue
		}
		if !first {
			b = append(b, ", "...)
		}
		first = false
		b = AppendKeyLiteral(b, kv.Key)
		b = append(b, ": "...)
		b = kv.Val.AppendLiteral(b)
	}
	return append(b, '}')
}

// Size returns the length of the canonical map literal.
func (p Props) Size() int {
	n := 2
	for i, kv := range p {
		if i > 0 {
			n += 2
		}
		n += keyLiteralLen(kv.Key) + 2 + kv.Val.Size()
	}
	return n
}

// IsIdentifier reports whether s is a plain identifier [A-Za-z_][A-Za-z0-9_]*.
func IsIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (i > 0 && c >= '0' && c <= '9') {
			continue
		}
		return false
	}
	return true
}

// AppendPropsKey appends the order-preserving encoding of p: for each
// property the escaped key then the value encoding, then 0x00 0x00.
func AppendPropsKey(b []byte, p Props) []byte {
	for _, kv := range p {
		b = AppendKeyString(b, kv.Key)
		b = kv.Val.AppendKey(b)
	}
	return append(b, propsEnd, propsEnd)
}

// AppendLiteralReplacing appends the canonical map literal of p, with the
// value of each key replace names written as the text it gives instead
// (a Shape writes an elided value as a parameter that stands for it).
func (p Props) AppendLiteralReplacing(b []byte, replace func(key string) (string, bool)) []byte {
	b = append(b, '{')
	for i, kv := range p {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = AppendKeyLiteral(b, kv.Key)
		b = append(b, ": "...)
		if r, ok := replace(kv.Key); ok {
			b = append(b, r...)
			continue
		}
		b = kv.Val.AppendLiteral(b)
	}
	return append(b, '}')
}
