package engine

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"maps"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/goldfish-gql/goldfish/exec"
	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/store/cabinet"
	"github.com/goldfish-gql/goldfish/values"
	"github.com/goldfish-gql/goldfish/vocab"
)

// sessionAttention is what a session keeps beside its graph for the
// attention envelope (docs/design.md#the-vocabulary-and-attention): its Recall count, its settings, the
// salience marks of its views and actions, and what its views' values
// were last seen to be. Reads load it lock-free; the few writers (a
// Commit that registers or invokes, a Recall that reads views alone, a
// change of settings) copy and swap under mu.
type sessionAttention struct {
	// tick counts the session's Recalls: salience decays and staleness
	// is measured in it.
	tick     atomic.Uint64
	mu       sync.Mutex
	marks    atomic.Pointer[vocab.Marks]
	settings atomic.Pointer[values.AttentionSettings]
	// base is what the record said of the views' values (until the first
	// evaluation after hydrate, which starts from it).
	base map[string]viewSeen
}

// viewSeen is a view's value as the session last evaluated it: a hash of
// its text and the version it was first seen at.
type viewSeen struct{ hash, changedAt uint64 }

func (a *sessionAttention) currentSettings() values.AttentionSettings {
	if s := a.settings.Load(); s != nil {
		return *s
	}
	return values.DefaultAttentionSettings
}

// update swaps in the marks fn makes from a copy of the current ones.
func (a *sessionAttention) update(fn func(m *vocab.Marks)) {
	a.mu.Lock()
	defer a.mu.Unlock()
	next := &vocab.Marks{Views: map[string]vocab.Mark{}, Actions: map[string]vocab.Mark{}}
	if cur := a.marks.Load(); cur != nil {
		maps.Copy(next.Views, cur.Views)
		maps.Copy(next.Actions, cur.Actions)
		next.Failed = maps.Clone(cur.Failed)
	}
	fn(next)
	a.marks.Store(next)
}

// AttentionSettings returns the session's attention settings.
func (s *Session) AttentionSettings(ctx context.Context) (values.AttentionSettings, error) {
	if err := s.begin(ctx); err != nil {
		return values.AttentionSettings{}, err
	}
	defer s.end()
	if s.dropped.Load() {
		return values.AttentionSettings{}, s.errDropped()
	}
	if err := s.hydrateOnce(ctx); err != nil {
		return values.AttentionSettings{}, err
	}
	return s.attn.currentSettings(), nil
}

// SetAttentionSettings sets the session's attention settings, durably
// when the cabinet holds the session (a session never committed keeps
// them in memory until its first Commit saves them with it). A value out
// of range is refused with 22Q06.
func (s *Session) SetAttentionSettings(ctx context.Context, v values.AttentionSettings) error {
	if err := s.begin(ctx); err != nil {
		return err
	}
	defer s.end()
	if s.dropped.Load() {
		return s.errDropped()
	}
	if err := v.Check(); err != nil {
		return gqlstatus.Errorf(gqlstatus.InvalidOption, "%v", err).
			WithHint("the defaults: " + values.DefaultAttentionSettings.String())
	}
	if s.db.cfg.ReadOnly {
		return s.db.errReadOnly("setting the attention settings")
	}
	if err := s.hydrateOnce(ctx); err != nil {
		return err
	}
	if s.wmu.LockContext(ctx) != nil {
		return gqlstatus.Interrupted(ctx, "setting the attention settings")
	}
	s.attn.mu.Lock()
	s.attn.settings.Store(&v)
	s.attn.mu.Unlock()
	return s.saveSettingsAndUnlock()
}

// saveSettingsAndUnlock writes the session's attention record, which
// holds its settings, once they changed: called with s.wmu held, it
// releases it and waits for the write (a session never committed has no
// record yet; its first Commit writes one).
func (s *Session) saveSettingsAndUnlock() error {
	s.agents.dirty.Store(true)
	var t *cabinet.Ticket
	if s.poisoned == nil && s.graph.Snapshot().Version() > 0 {
		t = s.saveAttention()
	}
	s.wmu.Unlock()
	return waitAttention(s.name, t)
}

// noteCommit raises the salience of what a Commit used: an item it
// registered or revised starts fresh (a revised action's failed CALLs
// are forgotten), an action it invoked and the views an invoked or
// registered item names are raised, a dropped item's mark goes. A
// Commit of a known agent that named views so, or registered one, is
// that agent's read of views. Called with s.wmu held, after the Δ
// applied and before its entry is queued, so the record saved with the
// entry has them.
func (s *Session) noteCommit(old, cur *vocab.State, version uint64, agent string) {
	if old == cur || (old.Empty() && cur.Empty()) {
		return
	}
	tick := s.attn.tick.Load()
	decay := s.attn.currentSettings().Decay
	changed, viewsRead := false, false
	s.attn.update(func(m *vocab.Marks) {
		raiseViews := func(refs []string) {
			for _, name := range refs {
				if mk, ok := m.Views[name]; ok {
					m.Views[name] = mk.Raised(tick, decay)
					viewsRead = true
				}
			}
		}
		for _, v := range cur.Views() {
			if v.Revised == version {
				m.Views[v.Name] = vocab.Fresh(tick)
				raiseViews(v.Refs)
				changed = true
				viewsRead = viewsRead || v.Agent == agent
			}
		}
		for _, a := range cur.Actions() {
			if a.Revised == version {
				m.Actions[a.Name] = vocab.Fresh(tick)
				delete(m.Failed, a.Name)
				raiseViews(a.Refs)
				changed = true
			}
			if a.LastInvoked == version {
				mk, ok := m.Actions[a.Name]
				if !ok {
					mk = vocab.Fresh(tick)
				}
				m.Actions[a.Name] = mk.Raised(tick, decay)
				raiseViews(a.Refs)
				changed = true
			}
		}
		for name := range m.Views {
			if _, ok := cur.View(name); !ok {
				delete(m.Views, name)
				changed = true
			}
		}
		for name := range m.Actions {
			if _, ok := cur.Action(name); !ok {
				delete(m.Actions, name)
				changed = true
			}
		}
		for name := range m.Failed {
			if _, ok := cur.Action(name); !ok {
				delete(m.Failed, name)
				changed = true
			}
		}
		// A raw Commit wrote what an action with failed CALLs writes:
		// the agents worked around it (the post-error pattern).
		for name, target := range cur.WorkedAround(old, m.Failed) {
			f := m.Failed[name]
			f.Around = target
			m.Failed[name] = f
			changed = true
		}
	})
	if changed {
		s.agents.dirty.Store(true)
	}
	if viewsRead && agent != "" {
		s.agents.readViews(agent)
	}
}

// noteFailure counts a failed CALL of the named action: its error as
// one line and the Recall count now, kept in the attention record.
func (s *Session) noteFailure(action string, err error) {
	msg := err.Error()
	var ge *gqlstatus.Error
	if errors.As(err, &ge) {
		msg = ge.Msg
	}
	if _, ok := exec.Vocabulary(s.graph.Snapshot()).Action(action); !ok {
		return // registered by the Δ that failed: it never was
	}
	tick := s.attn.tick.Load()
	s.attn.update(func(m *vocab.Marks) {
		if m.Failed == nil {
			m.Failed = map[string]vocab.Failure{}
		}
		f := m.Failed[action]
		m.Failed[action] = vocab.Failure{Count: f.Count + 1, Tick: tick, Error: vocab.ErrorLine(msg)}
	})
	s.agents.dirty.Store(true)
}

// ensureMarks gives every item of a newly evaluated version that has no
// mark (its record was lost in a crash) a fresh one, so its staleness
// counts from now.
func (s *Session) ensureMarks(state *vocab.State) {
	cur := s.attn.marks.Load()
	if cur == nil {
		cur = &vocab.Marks{}
	}
	missing := false
	for _, v := range state.Views() {
		if _, ok := cur.Views[v.Name]; !ok {
			missing = true
			break
		}
	}
	for _, a := range state.Actions() {
		if _, ok := cur.Actions[a.Name]; !ok {
			missing = true
			break
		}
	}
	if !missing {
		return
	}
	tick := s.attn.tick.Load()
	s.attn.update(func(m *vocab.Marks) {
		for _, v := range state.Views() {
			if _, ok := m.Views[v.Name]; !ok {
				m.Views[v.Name] = vocab.Fresh(tick)
			}
		}
		for _, a := range state.Actions() {
			if _, ok := m.Actions[a.Name]; !ok {
				m.Actions[a.Name] = vocab.Fresh(tick)
			}
		}
	})
}

// raiseViews raises the views a Recall that asked for views alone listed.
func (s *Session) raiseViews(names []string, tick uint64) {
	if len(names) == 0 {
		return
	}
	decay := s.attn.currentSettings().Decay
	s.attn.update(func(m *vocab.Marks) {
		for _, n := range names {
			if mk, ok := m.Views[n]; ok {
				m.Views[n] = mk.Raised(tick, decay)
			}
		}
	})
}

// seenValues says, per view of a new evaluation, the hash of its value
// and the version it changed at: kept from prev (the previous
// evaluation, or what the record held) when the value is the same.
func seenValues(vals *vocab.Values, state *vocab.State, prev map[string]viewSeen, version uint64) map[string]viewSeen {
	out := make(map[string]viewSeen, len(state.Views()))
	for _, v := range state.Views() {
		res := vals.Results[v.Name]
		h := fnv.New64a()
		if res.Err != nil {
			h.Write([]byte{0})
			h.Write([]byte(res.Err.Error()))
		} else {
			h.Write([]byte{1})
			h.Write([]byte(res.Text))
		}
		sum := h.Sum64()
		if p, ok := prev[v.Name]; ok && p.hash == sum {
			out[v.Name] = p
		} else if ok {
			out[v.Name] = viewSeen{hash: sum, changedAt: version}
		} else {
			// First seen: it changed when it was registered or revised.
			out[v.Name] = viewSeen{hash: sum, changedAt: v.Revised}
		}
	}
	return out
}

// envelope composes a Recall's envelope; rec is the agent's record (nil
// for a read that names none).
func (s *Session) envelope(ctx context.Context, voc *vocabRead, tick uint64, agent string, rec *agentRecord, depth vocab.Depth, only vocab.Sections, target envelopeTarget) *vocab.Envelope {
	r := &vocab.Read{Tick: tick, Settings: s.attn.currentSettings(), Marks: s.attn.marks.Load(),
		Agent: agent, Depth: depth, Only: only, Target: target.milli, TargetTokens: target.tokens}
	if rec != nil {
		rec.loadRead(r)
	}
	if voc != nil {
		r.Prepared, r.Version, r.Changed = voc.prepared, voc.version, voc.state.Changed()
		r.ViewChangedAt = voc.changedAt
		if agent != "" && r.Seen.Reads > 0 && r.Seen.Version < voc.version {
			r.SinceDiff = s.sinceDiff(ctx, r.Seen.Version, voc.version)
		}
	}
	return vocab.Compose(r)
}

// envelopeTarget is what a Recall's token target leaves its envelope at
// depth=full: the target (T, tokens) less the Shape's own tokens when
// the read shows the Shape, in tokens.Milli units (vocab.Read.Target).
type envelopeTarget struct {
	milli  int64
	tokens int
}

// elidedShapeTokens bounds what a Shape whose rows a read left out
// (only) still shows: its header, its notes and the line saying so.
const elidedShapeTokens = 80

// targetFor is the envelope's target for a Recall of options o whose
// Shape (without an envelope) is shapeTokens.
func targetFor(o values.RecallOptions, shapeTokens int, only vocab.Sections) envelopeTarget {
	t := o.T
	if t <= 0 {
		t = values.DefaultRecall.T
	}
	left := int64(t) * 1000
	if only&vocab.SectionShape != 0 {
		left -= int64(shapeTokens) * 1000
	} else {
		left -= elidedShapeTokens * 1000
	}
	return envelopeTarget{milli: max(left, 1), tokens: t}
}

// MaxGapWindow and DefaultGapWindow bound and default the gap_window
// setting.
const (
	MaxGapWindow     = values.MaxGapWindow
	DefaultGapWindow = values.DefaultGapWindow
)

// encode writes the session section of the attention record.
func (a *sessionAttention) encode(cur *vocabRead) []byte {
	b := binary.AppendUvarint(nil, a.tick.Load())
	set := a.currentSettings()
	for _, n := range [...]uint64{set.StaleReads, math.Float64bits(set.Decay), math.Float64bits(set.SalienceThreshold),
		math.Float64bits(set.GapRatio), set.GapMin} {
		b = binary.AppendUvarint(b, n)
	}
	m := a.marks.Load()
	var views, actions map[string]vocab.Mark
	if m != nil {
		views, actions = m.Views, m.Actions
	}
	b = binary.AppendUvarint(b, uint64(len(views)+len(actions)))
	for kind, set := range []map[string]vocab.Mark{views, actions} {
		for _, name := range slices.Sorted(maps.Keys(set)) {
			mk := set[name]
			b = append(b, byte(kind))
			b = appendAttnString(b, name)
			b = binary.AppendUvarint(b, math.Float64bits(mk.Score))
			b = binary.AppendUvarint(b, mk.Tick)
			b = binary.AppendUvarint(b, mk.RegTick)
		}
	}
	seen := a.base
	if cur != nil {
		seen = cur.seen
	}
	b = binary.AppendUvarint(b, uint64(len(seen)))
	for _, name := range slices.Sorted(maps.Keys(seen)) {
		b = appendAttnString(b, name)
		b = binary.AppendUvarint(b, seen[name].hash)
		b = binary.AppendUvarint(b, seen[name].changedAt)
	}
	b = binary.AppendUvarint(b, set.GapWindow)
	var failed map[string]vocab.Failure
	if m != nil {
		failed = m.Failed
	}
	b = binary.AppendUvarint(b, uint64(len(failed)))
	for _, name := range slices.Sorted(maps.Keys(failed)) {
		f := failed[name]
		b = appendAttnString(b, name)
		b = binary.AppendUvarint(b, f.Count)
		b = binary.AppendUvarint(b, f.Tick)
		b = appendAttnString(b, f.Error)
	}
	// history, plus one: all (the most) wraps to 0, which a record
	// written before the setting was kept reads as.
	b = binary.AppendUvarint(b, uint64(set.History)+1)
	// The failures worked around (came later: a record without them has
	// none), in name order.
	var around []string
	for _, name := range slices.Sorted(maps.Keys(failed)) {
		if failed[name].Around != "" {
			around = append(around, name)
		}
	}
	b = binary.AppendUvarint(b, uint64(len(around)))
	for _, name := range around {
		b = appendAttnString(b, name)
		b = appendAttnString(b, failed[name].Around)
	}
	return b
}

// decode reads the session section into an empty sessionAttention.
func (a *sessionAttention) decode(d *attnReader) error {
	a.tick.Store(d.uvarint())
	set := values.AttentionSettings{StaleReads: d.uvarint(), Decay: math.Float64frombits(d.uvarint()),
		SalienceThreshold: math.Float64frombits(d.uvarint()), GapRatio: math.Float64frombits(d.uvarint()), GapMin: d.uvarint(),
		GapWindow: values.DefaultGapWindow, History: values.HistoryAll}
	if d.err != nil {
		return fmt.Errorf("session section: %v", d.err)
	}
	if err := set.Check(); err != nil {
		return fmt.Errorf("session settings: %v", err)
	}
	a.settings.Store(&set)
	n := d.uvarint()
	if d.err == nil && n > uint64(len(d.b)) {
		return fmt.Errorf("%d marks in %d bytes", n, len(d.b))
	}
	m := &vocab.Marks{Views: map[string]vocab.Mark{}, Actions: map[string]vocab.Mark{}}
	for i := uint64(0); i < n && d.err == nil; i++ {
		if len(d.b) == 0 {
			return errors.New("truncated mark")
		}
		kind := d.b[0]
		d.b = d.b[1:]
		name := string(d.bytes())
		mk := vocab.Mark{Score: math.Float64frombits(d.uvarint()), Tick: d.uvarint(), RegTick: d.uvarint()}
		switch {
		case d.err != nil:
		case kind > 1:
			return fmt.Errorf("mark of kind %d", kind)
		case !utf8.ValidString(name) || name == "":
			return fmt.Errorf("mark name %q is not valid", name)
		case math.IsNaN(mk.Score) || math.IsInf(mk.Score, 0) || mk.Score < 0:
			return fmt.Errorf("mark %q has score %v", name, mk.Score)
		case kind == 0:
			m.Views[name] = mk
		default:
			m.Actions[name] = mk
		}
	}
	a.marks.Store(m)
	n = d.uvarint()
	if d.err == nil && n > uint64(len(d.b)) {
		return fmt.Errorf("%d view values in %d bytes", n, len(d.b))
	}
	a.base = map[string]viewSeen{}
	for i := uint64(0); i < n && d.err == nil; i++ {
		name := string(d.bytes())
		a.base[name] = viewSeen{hash: d.uvarint(), changedAt: d.uvarint()}
	}
	if d.err == nil && len(d.b) > 0 {
		// gap_window and the failed CALLs came later: a record without
		// them has the default window and no failures.
		set.GapWindow = d.uvarint()
		if err := set.Check(); d.err == nil && err != nil {
			return fmt.Errorf("session settings: %v", err)
		}
		a.settings.Store(&set)
		if err := decodeFailures(d, m); err != nil {
			return err
		}
		if d.err == nil && len(d.b) > 0 {
			set.History = values.HistoryKeep(d.uvarint() - 1) // see encode
			a.settings.Store(&set)
		}
		if d.err == nil && len(d.b) > 0 {
			n := d.uvarint()
			if d.err == nil && n > uint64(len(d.b)) {
				return fmt.Errorf("%d failures worked around in %d bytes", n, len(d.b))
			}
			for i := uint64(0); i < n && d.err == nil; i++ {
				name, target := string(d.bytes()), string(d.bytes())
				f, ok := m.Failed[name]
				switch {
				case d.err != nil:
				case !ok || target == "" || !utf8.ValidString(target):
					return fmt.Errorf("failure of %q worked around by %q is not valid", name, target)
				default:
					f.Around = target
					m.Failed[name] = f
				}
			}
		}
	}
	if d.err != nil {
		return fmt.Errorf("session section: %v", d.err)
	}
	return nil
}

// decodeFailures reads the failed CALLs into m: names valid and each
// once, in order, counts at least one.
func decodeFailures(d *attnReader, m *vocab.Marks) error {
	n := d.uvarint()
	if d.err == nil && n > uint64(len(d.b)) {
		return fmt.Errorf("%d failed actions in %d bytes", n, len(d.b))
	}
	last := ""
	for i := uint64(0); i < n && d.err == nil; i++ {
		name := string(d.bytes())
		f := vocab.Failure{Count: d.uvarint(), Tick: d.uvarint()}
		f.Error = string(d.bytes())
		switch {
		case d.err != nil:
		case name == "" || !utf8.ValidString(name) || i > 0 && name <= last:
			return fmt.Errorf("failed action %q is not valid or out of order", name)
		case f.Count == 0 || !utf8.ValidString(f.Error):
			return fmt.Errorf("failed action %q has no failure", name)
		default:
			if m.Failed == nil {
				m.Failed = map[string]vocab.Failure{}
			}
			m.Failed[name], last = f, name
		}
	}
	return nil
}

// SetSetting returns cur with the named setting set from its text, for
// shells and servers that take settings as words; a name it does not know
// or a value out of range is refused with 22Q06.
func SetSetting(cur values.AttentionSettings, name, value string) (values.AttentionSettings, error) {
	next, err := cur.Set(name, value)
	if err != nil {
		return cur, gqlstatus.Errorf(gqlstatus.InvalidOption, "%v", err).
			WithHint("the defaults: " + values.DefaultAttentionSettings.String())
	}
	return next, nil
}
