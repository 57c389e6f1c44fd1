package store

import "github.com/goldfish-gql/goldfish/values"

// The names a session holds, read from the property index: what a Recall
// that matched nothing compares its token with ("did you mean …").

// keyPivot is the first entry of the property index at or after key: a
// null value sorts before every other kind, and a node with no
// observable key before every node.
func keyPivot(key string) propItem {
	return propItem{n: &Node{Props: values.Props{{Key: key}}}}
}

// HasPropKey reports whether a live node has a property named key:
// O(log n).
func (s *Snapshot) HasPropKey(key string) bool {
	found := false
	s.st.props.AscendGreaterOrEqual(keyPivot(key), func(it propItem) bool {
		found = it.prop().Key == key
		return false
	})
	return found
}

// PropKeys returns the distinct property keys of live nodes, sorted, at
// most max of them: O(keys · log n), one descent per key.
func (s *Snapshot) PropKeys(max int) []string {
	var out []string
	pivot := keyPivot("")
	for len(out) < max {
		key, ok := "", false
		s.st.props.AscendGreaterOrEqual(pivot, func(it propItem) bool {
			key, ok = it.prop().Key, true
			return false
		})
		if !ok {
			break
		}
		out = append(out, key)
		pivot = keyPivot(key + "\x00") // the next key: the least string after key
	}
	return out
}

// ScanStrings calls fn with the distinct STRING values of property key
// on live nodes, from the first at or after from, in order, until fn
// returns false: O(log n + nodes with the key it passes).
func (s *Snapshot) ScanStrings(key, from string, fn func(string) bool) {
	pivot := propItem{n: &Node{Props: values.Props{{Key: key, Val: values.String(from)}}}}
	last, first := "", true
	s.st.props.AscendGreaterOrEqual(pivot, func(it propItem) bool {
		p := it.prop()
		if p.Key != key || p.Val.Kind() != values.KindString {
			return false
		}
		if v := p.Val.AsString(); first || v != last {
			first, last = false, v
			return fn(v)
		}
		return true
	})
}

// ScanStringsBefore is ScanStrings downwards: the distinct STRING values
// of key before from, the nearest first.
func (s *Snapshot) ScanStringsBefore(key, from string, fn func(string) bool) {
	pivot := propItem{n: &Node{Props: values.Props{{Key: key, Val: values.String(from)}}}}
	last, first := "", true
	s.st.props.DescendLessOrEqual(pivot, func(it propItem) bool {
		p := it.prop()
		if p.Key != key || p.Val.Kind() != values.KindString {
			return false
		}
		v := p.Val.AsString()
		if v == from || !first && v == last {
			return true
		}
		first, last = false, v
		return fn(v)
	})
}
