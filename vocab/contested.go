package vocab

import (
	"hash/fnv"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/goldfish-gql/goldfish/values"
)

// Contested targets: what two or more actions' bodies write.
//
// An action's write targets are read from its planned body when it is
// registered, never by running it:
//
//   - SET v.key, SET v = {…} / v += {…} (each key given) and REMOVE v.key
//     write (kind, key), the kind being v's first label in the pattern
//     that binds it (an edge's type for an edge variable);
//   - INSERT of a node, and DELETE of a node variable, write the kind as a
//     whole, (:KIND): the node's properties given at INSERT are not
//     targets, so an action that creates a TSK and one that later sets its
//     status do not contest TSK.status;
//   - INSERT of an edge, and DELETE of an edge variable, write (from-kind,
//     edge type), the from-kind being the kind of the edge's source node.
//
// A variable with no label is of kind "" (any): its target contests the
// targets of every kind with the same key or edge type. Labels set or
// removed are not targets. A target written by two or more actions is
// contested.

// Target is one thing an action's body writes.
type Target struct {
	// Kind is the node kind (the first label), or for a property of an
	// edge its type; for an edge target the kind of its source node. ""
	// is any kind.
	Kind string
	// Key is the property key written; Edge the edge type inserted or
	// deleted; neither for a node target (the kind's nodes inserted or
	// deleted).
	Key, Edge string
}

// String writes the target as the envelope shows it: TSK.status,
// (:TSK), (:TSK)-[:has_note]->, and with * or () for any kind.
func (t Target) String() string {
	switch {
	case t.Key != "":
		k := t.Kind
		if k == "" {
			k = "*"
		}
		return k + "." + t.Key
	case t.Edge != "":
		if t.Kind == "" {
			return "()-[:" + t.Edge + "]->"
		}
		return "(:" + t.Kind + ")-[:" + t.Edge + "]->"
	case t.Kind == "":
		return "()"
	}
	return "(:" + t.Kind + ")"
}

// shape is the target without its kind: what a target of any kind
// matches.
func (t Target) shape() Target { return Target{Key: t.Key, Edge: t.Edge} }

// Contested returns the contested targets of the vocabulary, in the
// order of their text.
func (s *State) Contested() []values.ContestedTarget {
	if s == nil {
		return nil
	}
	return s.contested
}

// contestedOf computes the contested targets of a set of actions.
func contestedOf(acts map[string]*Action) []values.ContestedTarget {
	by := map[Target][]string{}
	for _, name := range slices.Sorted(maps.Keys(acts)) {
		for _, t := range acts[name].Writes {
			if l := by[t]; len(l) == 0 || l[len(l)-1] != name {
				by[t] = append(l, name)
			}
		}
	}
	// A target of any kind joins the targets of each kind of its shape.
	for t, names := range by {
		if t.Kind != "" {
			continue
		}
		for u, other := range by {
			if u.Kind != "" && u.shape() == t {
				by[u] = union(other, names)
			}
		}
	}
	var out []values.ContestedTarget
	for t, names := range by {
		if len(names) >= 2 {
			out = append(out, values.ContestedTarget{Target: t.String(), Actions: names})
		}
	}
	slices.SortFunc(out, func(a, b values.ContestedTarget) int { return strings.Compare(a.Target, b.Target) })
	return out
}

// leanContested is how many actions a contested target names at lean.
const leanContested = 3

// contestedPrint is the fingerprint of the contested targets.
func contestedPrint(cs []values.ContestedTarget) uint64 {
	if len(cs) == 0 {
		return 0
	}
	h := fnv.New64a()
	for _, c := range cs {
		h.Write([]byte(contestedText(c)))
		h.Write([]byte{0})
	}
	return h.Sum64()
}

// union returns the sorted union of two sorted name lists, a new slice.
func union(a, b []string) []string {
	out := make([]string, 0, len(a)+len(b))
	out = append(append(out, a...), b...)
	slices.Sort(out)
	return slices.Compact(out)
}

// contestedText writes one contested target: TSK.status (settle, close).
func contestedText(c values.ContestedTarget) string {
	return c.Target + " (" + strings.Join(c.Actions, ", ") + ")"
}

// contestedLean is contestedText at lean: at most leanContested actions.
func contestedLean(c values.ContestedTarget) string {
	if len(c.Actions) <= leanContested {
		return contestedText(c)
	}
	return c.Target + " (" + strings.Join(c.Actions[:leanContested], ", ") + ", +" + strconv.Itoa(len(c.Actions)-leanContested) + ")"
}

// contestedTail is the advice a contested line ends with.
const contestedTail = " (one action per target, or one with a parameter)"
