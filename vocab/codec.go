package vocab

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// The encoding of a State, kept with the graph's snapshot: a version
// byte, then the views and the actions in name order. A view is its
// texts and counters; an action is the CREATE ACTION statement as
// written and its counters, since only the planner can turn the text
// back into a body (Decode takes it as plan).
const codecVersion = 1

// AppendExt implements store.Ext.
func (s *State) AppendExt(b []byte) []byte {
	b = append(b, codecVersion)
	views, actions := s.Views(), s.Actions()
	b = binary.AppendUvarint(b, uint64(len(views)))
	for _, v := range views {
		for _, str := range []string{v.Name, v.Intent, v.Expr, v.Agent} {
			b = appendStr(b, str)
		}
		for _, n := range []uint64{v.Registered, v.Revised, uint64(v.Revisions)} {
			b = binary.AppendUvarint(b, n)
		}
	}
	b = binary.AppendUvarint(b, uint64(len(actions)))
	for _, a := range actions {
		b = appendStr(b, a.Source)
		b = appendStr(b, a.Agent)
		for _, n := range []uint64{a.Registered, a.Revised, uint64(a.Revisions), uint64(a.Invocations), a.LastInvoked} {
			b = binary.AppendUvarint(b, n)
		}
	}
	return b
}

func appendStr(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// Decode reads a State that AppendExt wrote. plan turns an action's
// CREATE ACTION text back into its definition (the planner's work);
// views are compiled again.
func Decode(b []byte, plan func(source string) (ActionDef, error)) (*State, error) {
	d := &decoder{b: b}
	if v := d.byte1(); d.err == nil && v != codecVersion {
		return nil, fmt.Errorf("vocabulary encoding version %d, this goldfish reads %d", v, codecVersion)
	}
	s := &State{views: map[string]*View{}, actions: map[string]*Action{}}
	for i, n := 0, d.count(); i < n && d.err == nil; i++ {
		v := &View{Name: d.str(), Intent: d.str(), Expr: d.str(), Agent: d.str()}
		v.Registered, v.Revised, v.Revisions = d.uvarint(), d.uvarint(), int(d.uvarint())
		if d.err != nil {
			break
		}
		prog, refs, err := compileView(v.Expr)
		if err != nil {
			return nil, fmt.Errorf("view %s: %w", v.Name, err)
		}
		v.prog, v.Refs = prog, refs
		s.views[v.Name] = v
	}
	for i, n := 0, d.count(); i < n && d.err == nil; i++ {
		source, agent := d.str(), d.str()
		reg, rev, revs, inv, last := d.uvarint(), d.uvarint(), d.uvarint(), d.uvarint(), d.uvarint()
		if d.err != nil {
			break
		}
		def, err := plan(source)
		if err != nil {
			return nil, fmt.Errorf("action in %q: %w", source, err)
		}
		next, err := s.DefineAction(def, false, agent, reg)
		if err != nil {
			return nil, fmt.Errorf("action %s: %w", def.Name, err)
		}
		a := next.actions[def.Name]
		a.Revised, a.Revisions, a.Invocations, a.LastInvoked = rev, int(revs), int(inv), last
		s = next
	}
	if d.err == nil && len(d.b) != 0 {
		d.err = errors.New("trailing bytes")
	}
	if d.err != nil {
		return nil, fmt.Errorf("vocabulary: %w", d.err)
	}
	return s, nil
}

type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail(what string) {
	if d.err == nil {
		d.err = fmt.Errorf("truncated or malformed %s", what)
	}
}

func (d *decoder) byte1() byte {
	if d.err != nil || len(d.b) == 0 {
		d.fail("byte")
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail("integer")
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) count() int {
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.fail("count")
		return 0
	}
	return int(n)
}

func (d *decoder) str() string {
	n := d.uvarint()
	if d.err != nil {
		return ""
	}
	if n > uint64(len(d.b)) {
		d.fail("string")
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}
