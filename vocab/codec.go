package vocab

import (
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"slices"
)

// The encoding of a State, kept with the graph's snapshot: a version
// byte, then the views and the actions in name order. A view is its
// texts and counters; an action is the CREATE ACTION statement as
// written and its counters, since only the planner can turn the text
// back into a body (Decode takes it as plan). Version 2 adds the ledger
// after them: Changed, the write counters in (kind, key) order, and the
// tombstones of dropped views, then of dropped actions, in name order.
// Version 3 adds the ledger's window (window.go) after the tombstones:
// the agents it names, then each Commit oldest first as its agent's
// index, its writes (the pair's index among the write counters, times
// two, plus one for a write inside an action) and the actions it called.
// Decode reads versions 1 and 2 too, with an empty ledger or window.
const codecVersion = 3

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
	b = binary.AppendUvarint(b, s.Changed())
	writes := s.Writes()
	b = binary.AppendUvarint(b, uint64(len(writes)))
	for _, w := range writes {
		b = appendStr(b, w.Kind)
		b = appendStr(b, w.Key)
		b = binary.AppendUvarint(b, w.Raw)
		b = binary.AppendUvarint(b, w.InAction)
	}
	var dv, da map[string]uint64
	if s != nil && s.led != nil {
		dv, da = s.led.droppedViews, s.led.droppedActions
	}
	b = appendTombstones(b, dv)
	b = appendTombstones(b, da)
	return appendWindow(b, s, writes)
}

// appendWindow writes the ledger's window, its pairs as indexes into
// writes (the write counters in order).
func appendWindow(b []byte, s *State, writes []WriteCount) []byte {
	var w *window
	if s != nil && s.led != nil {
		w = &s.led.win
	}
	if w == nil || w.len() == 0 {
		b = binary.AppendUvarint(b, 0) // no agents
		return binary.AppendUvarint(b, 0)
	}
	pair := make(map[[2]string]uint64, len(writes))
	for i, wc := range writes {
		pair[[2]string{wc.Kind, wc.Key}] = uint64(i)
	}
	agents := map[string]uint64{}
	var names []string
	for i := range w.len() {
		if a := w.at(i).agent; !slices.Contains(names, a) {
			names = append(names, a)
		}
	}
	slices.Sort(names)
	b = binary.AppendUvarint(b, uint64(len(names)))
	for i, a := range names {
		agents[a] = uint64(i)
		b = appendStr(b, a)
	}
	b = binary.AppendUvarint(b, uint64(w.len()))
	for i := range w.len() {
		c := w.at(i)
		b = binary.AppendUvarint(b, agents[c.agent])
		b = binary.AppendUvarint(b, uint64(len(c.writes)))
		for _, wr := range c.writes {
			n := 2 * pair[[2]string{wr.Kind, wr.Key}]
			if wr.InAction {
				n++
			}
			b = binary.AppendUvarint(b, n)
		}
		b = binary.AppendUvarint(b, uint64(len(c.calls)))
		for _, a := range c.calls {
			b = appendStr(b, a)
		}
	}
	return b
}

func appendTombstones(b []byte, m map[string]uint64) []byte {
	b = binary.AppendUvarint(b, uint64(len(m)))
	for _, name := range slices.Sorted(maps.Keys(m)) {
		b = appendStr(b, name)
		b = binary.AppendUvarint(b, m[name])
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
	v := d.byte1()
	if d.err == nil && (v == 0 || v > codecVersion) {
		return nil, fmt.Errorf("vocabulary encoding version %d, this goldfish reads 1 to %d", v, codecVersion)
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
	if v >= 2 && d.err == nil {
		if err := d.ledger(s, v >= 3); err != nil {
			return nil, err
		}
	}
	if d.err == nil && len(d.b) != 0 {
		d.err = errors.New("trailing bytes")
	}
	if d.err != nil {
		return nil, fmt.Errorf("vocabulary: %w", d.err)
	}
	return s, nil
}

// ledger reads the ledger of a version 2 or 3 (withWindow) encoding
// into s, whose views and actions are read already: entries must come in
// strictly increasing order (so none twice), and no tombstone may name a
// registered item.
func (d *decoder) ledger(s *State, withWindow bool) error {
	var last WriteCount
	l := &ledger{changed: d.uvarint()}
	s.led = l
	var pairs []WriteCount
	for i, n := 0, d.count(); i < n && d.err == nil; i++ {
		w := WriteCount{Kind: d.str(), Key: d.str(), Raw: d.uvarint(), InAction: d.uvarint()}
		if d.err != nil {
			break
		}
		if i > 0 && comparePair(last.Kind, last.Key, w.Kind, w.Key) >= 0 {
			return errors.New("vocabulary: write counters out of order")
		}
		last = w
		if w.Raw == 0 && w.InAction == 0 {
			return errors.New("vocabulary: a write counter of zero")
		}
		l.put(w)
		pairs = append(pairs, w)
	}
	var err error
	if l.droppedViews, err = d.tombstones(func(name string) bool { _, ok := s.views[name]; return ok }); err != nil {
		return err
	}
	if l.droppedActions, err = d.tombstones(func(name string) bool { _, ok := s.actions[name]; return ok }); err != nil {
		return err
	}
	if withWindow {
		return d.window(l, pairs)
	}
	return nil
}

// window reads the ledger's window: every index must name an agent or a
// pair that was read, a Commit's pairs and calls each once.
func (d *decoder) window(l *ledger, pairs []WriteCount) error {
	agents := make([]string, d.count())
	for i := range agents {
		agents[i] = d.str()
		if d.err == nil && i > 0 && agents[i] <= agents[i-1] {
			return errors.New("vocabulary: window agents out of order")
		}
	}
	n := d.count()
	if n > maxWindowLen {
		return fmt.Errorf("vocabulary: a window of %d Commits, more than %d", n, maxWindowLen)
	}
	for i := 0; i < n && d.err == nil; i++ {
		ai := d.uvarint()
		if d.err == nil && ai >= uint64(len(agents)) {
			return errors.New("vocabulary: a window Commit of an unknown agent")
		}
		var del Delta
		if d.err == nil {
			del.agent = agents[ai]
		}
		for j, m := 0, d.count(); j < m && d.err == nil; j++ {
			k := d.uvarint()
			if d.err == nil && k/2 >= uint64(len(pairs)) {
				return errors.New("vocabulary: a window write of an unknown pair")
			}
			if d.err == nil {
				p := pairs[k/2]
				w := Write{Kind: p.Kind, Key: p.Key, InAction: k%2 == 1}
				if slices.Contains(del.writes, w) {
					return errors.New("vocabulary: a window Commit writes a pair twice")
				}
				del.writes = append(del.writes, w)
			}
		}
		for j, m := 0, d.count(); j < m && d.err == nil; j++ {
			a := d.str()
			if slices.Contains(del.calls, a) {
				return errors.New("vocabulary: a window Commit calls an action twice")
			}
			del.calls = append(del.calls, a)
		}
		if d.err == nil {
			if len(del.writes)+len(del.calls) == 0 {
				return errors.New("vocabulary: an empty window Commit")
			}
			l.win = l.win.push(windowEntry(&del))
		}
	}
	return nil
}

func (d *decoder) tombstones(live func(string) bool) (map[string]uint64, error) {
	n := d.count()
	if n > MaxTombstones {
		return nil, fmt.Errorf("vocabulary: %d tombstones, more than %d", n, MaxTombstones)
	}
	if n == 0 {
		return nil, nil
	}
	m := make(map[string]uint64, n)
	last := ""
	for i := 0; i < n && d.err == nil; i++ {
		name, at := d.str(), d.uvarint()
		if d.err != nil {
			break
		}
		switch {
		case i > 0 && name <= last:
			return nil, errors.New("vocabulary: tombstones out of order")
		case live(name):
			return nil, fmt.Errorf("vocabulary: tombstone of %s, which is registered", name)
		}
		m[name], last = at, name
	}
	return m, nil
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
