package engine

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/goldfish-gql/goldfish/store/cabinet"
	"github.com/goldfish-gql/goldfish/values"
	"github.com/goldfish-gql/goldfish/vocab"
)

// The attention record is what a session keeps beside its graph about its
// readers: changed by Recalls, never a version of the graph, persisted by
// the cabinet beside the log (sealed there with a magic and a CRC). It is
// saved before each Commit's log entry when it changed since the last
// save, and on Flush and Close, so after a crash it lags by the Recalls
// since the last of those, never by a Commit.
//
// Encoding, version 1 (integers are unsigned varints, floats their IEEE
// bits as one, strings a length then UTF-8 bytes):
//
//	record  = 0x01 section*
//	section = tag length body            (length: bytes of body)
//	tag 1, agents: count agent*          (sorted by name, names unique)
//	  agent = name length fields         (length: bytes of fields)
//	  fields = lastRead reads changed shape views actions attention lastTick viewRead recent
//	  recent = count tick (tick − previous tick)*   (the agent's latest
//	                                                Recalls, ascending)
//	tag 2, session: tick settings marks views gapWindow failures
//	  settings = staleReads decay threshold gapRatio gapMin
//	  marks = count (kind name score tick regTick)*   (kind 0 view, 1 action;
//	                                                  sorted by kind, name)
//	  views = count (name valueHash changedAt)*       (sorted by name)
//	  failures = count (name count tick error)*       (actions' failed
//	                                                  CALLs, sorted by name)
//	tag 3, pinned: count kind*           (the session's pinned kinds,
//	                                     sorted, each once; the section
//	                                     is left out when there are none)
//
// The agent's fields after reads, and the whole session section, came
// after the first records were written: a record without them reads as
// zeros and the defaults. A reader skips a section whose tag it does not
// know and the fields after those it knows, so a later encoding may add
// both without a new version; the version byte changes only for a change
// a reader of this one would misread.
const (
	attentionVersion = 1
	attentionAgents  = 1
	attentionSession = 2
	attentionPinned  = 3
)

// encodeAttention encodes the session's record.
func encodeAttention(s *Session) []byte {
	recs := s.agents.list()
	var body, fields []byte
	body = binary.AppendUvarint(body, uint64(len(recs)))
	for _, r := range recs {
		r.mu.Lock()
		seen, last, recent := r.seen, r.last, r.recent
		r.mu.Unlock()
		body = appendAttnString(body, r.name)
		fields = fields[:0]
		for _, n := range [...]uint64{seen.Version, seen.Reads, seen.Changed, seen.Shape, seen.Views, seen.Actions, seen.Attention, last, seen.ViewRead} {
			fields = binary.AppendUvarint(fields, n)
		}
		fields = appendRecent(fields, &recent)
		body = appendAttnString(body, string(fields))
	}
	b := []byte{attentionVersion}
	b = binary.AppendUvarint(b, attentionAgents)
	b = appendAttnString(b, string(body))
	b = binary.AppendUvarint(b, attentionSession)
	b = appendAttnString(b, string(s.attn.encode(s.vocab.cur.Load())))
	if kinds := s.pinnedKinds(); len(kinds) > 0 {
		var body []byte
		body = binary.AppendUvarint(body, uint64(len(kinds)))
		for _, k := range kinds {
			body = appendAttnString(body, k)
		}
		b = binary.AppendUvarint(b, attentionPinned)
		b = appendAttnString(b, string(body))
	}
	return b
}

func appendAttnString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// decodeAttention fills an empty session's record.
func decodeAttention(data []byte, s *Session) error {
	if len(data) == 0 {
		return errors.New("empty record")
	}
	if data[0] != attentionVersion {
		return fmt.Errorf("encoding version %d (this goldfish reads version %d; a newer goldfish wrote it)", data[0], attentionVersion)
	}
	d := attnReader{b: data[1:]}
	seenAgents, seenSession, seenPinned := false, false, false
	for len(d.b) > 0 {
		tag := d.uvarint()
		body := attnReader{b: d.bytes()}
		if d.err != nil {
			return d.err
		}
		switch tag {
		case attentionSession:
			if seenSession {
				return errors.New("two session sections")
			}
			seenSession = true
			if err := s.attn.decode(&body); err != nil {
				return err
			}
			continue
		case attentionPinned:
			if seenPinned {
				return errors.New("two pinned sections")
			}
			seenPinned = true
			if err := decodePinned(&body, s); err != nil {
				return err
			}
			continue
		case attentionAgents:
		default:
			continue // a section a later encoding added
		}
		if seenAgents {
			return errors.New("two agents sections")
		}
		seenAgents = true
		if err := decodeAgents(&body, &s.agents); err != nil {
			return err
		}
	}
	return nil
}

// decodePinned reads the pinned section: kinds valid as SetPinnedKinds
// takes them, sorted and each once, as encodeAttention writes them.
func decodePinned(body *attnReader, s *Session) error {
	n := body.uvarint()
	if body.err == nil && (n == 0 || n > MaxPinnedKinds) {
		return fmt.Errorf("%d pinned kinds (1 to %d)", n, MaxPinnedKinds)
	}
	kinds := make([]string, 0, n)
	for i := uint64(0); i < n && body.err == nil; i++ {
		k := string(body.bytes())
		switch {
		case body.err != nil:
		case checkKind(k) != nil:
			return fmt.Errorf("pinned kind %q is not valid", k)
		case i > 0 && k <= kinds[i-1]:
			return fmt.Errorf("pinned kind %q after %q: not sorted, or twice", k, kinds[i-1])
		}
		kinds = append(kinds, k)
	}
	if body.err != nil {
		return fmt.Errorf("pinned section: %v", body.err)
	}
	if len(body.b) != 0 {
		return fmt.Errorf("%d bytes after the pinned kinds", len(body.b))
	}
	s.pinned.Store(&kinds)
	return nil
}

func decodeAgents(body *attnReader, t *agentTable) error {
	n := body.uvarint()
	if body.err == nil && n > uint64(len(body.b)) {
		return fmt.Errorf("%d agents in %d bytes", n, len(body.b))
	}
	prev := ""
	for i := uint64(0); i < n && body.err == nil; i++ {
		name := string(body.bytes())
		fields := attnReader{b: body.bytes()}
		var seen vocab.Seen
		var recent vocab.Recent
		var last uint64
		seen.Version, seen.Reads = fields.uvarint(), fields.uvarint()
		for _, p := range []*uint64{&seen.Changed, &seen.Shape, &seen.Views, &seen.Actions, &seen.Attention, &last, &seen.ViewRead} {
			if len(fields.b) > 0 {
				*p = fields.uvarint()
			}
		}
		if len(fields.b) > 0 {
			readRecent(&fields, &recent)
		}
		switch {
		case body.err != nil:
			return body.err
		case fields.err != nil:
			return fmt.Errorf("agent %q: %v", name, fields.err)
		case !utf8.ValidString(name) || values.ValidAgentName(name) != nil:
			return fmt.Errorf("agent name %q is not valid", name)
		case i > 0 && name <= prev:
			return fmt.Errorf("agent %q after %q: not sorted, or twice", name, prev)
		}
		prev = name
		r := t.insert(name)
		r.seen, r.last, r.recent = seen, last, recent
	}
	if body.err != nil {
		return body.err
	}
	if len(body.b) != 0 {
		return fmt.Errorf("%d bytes after the agents", len(body.b))
	}
	return nil
}

// appendRecent encodes an agent's latest Recalls: the count, the first,
// then each one's distance from the one before.
func appendRecent(b []byte, r *vocab.Recent) []byte {
	ticks := r.Ticks()
	b = binary.AppendUvarint(b, uint64(len(ticks)))
	prev := uint64(0)
	for _, t := range ticks {
		b = binary.AppendUvarint(b, t-prev)
		prev = t
	}
	return b
}

// readRecent decodes what appendRecent wrote.
func readRecent(d *attnReader, r *vocab.Recent) {
	n := d.uvarint()
	if d.err == nil && n > vocab.RecentReads {
		d.err = fmt.Errorf("%d recent reads, more than %d", n, vocab.RecentReads)
		return
	}
	t := uint64(0)
	for i := uint64(0); i < n && d.err == nil; i++ {
		step := d.uvarint()
		if d.err == nil && (i > 0 && step == 0 || t+step < t) {
			d.err = fmt.Errorf("recent reads out of order")
			return
		}
		t += step
		r.Add(t)
	}
}

// attnReader reads the record; the first error sticks.
type attnReader struct {
	b   []byte
	err error
}

func (r *attnReader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = errors.New("truncated number")
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *attnReader) bytes() []byte {
	n := r.uvarint()
	if r.err != nil {
		return nil
	}
	if n > uint64(len(r.b)) {
		r.err = fmt.Errorf("a length of %d with %d bytes left", n, len(r.b))
		return nil
	}
	p := r.b[:n]
	r.b = r.b[n:]
	return p
}

// saveAttention queues the attention record for the cabinet when it
// changed since the last save; nil when nothing was queued. Called with
// s.wmu held, which orders saves with each other and with the Commits'
// log entries: a save queued before a Commit's entry is durable when that
// entry is. Only a session the cabinet holds (or is about to, at a
// Commit) is saved, so no record outlives a session that was never
// committed.
func (s *Session) saveAttention() *cabinet.Ticket {
	if s.db.cab == nil || s.catalog || s.db.cfg.ReadOnly || !s.agents.dirty.Load() {
		return nil
	}
	s.agents.dirty.Store(false)
	return s.db.cab.SaveAttention(s.name, encodeAttention(s))
}

// queueAttention queues the record of a session the cabinet holds, if it
// changed (Close). A session a memory budget unloaded keeps its record in
// memory (memory.go), so it is saved too.
func (s *Session) queueAttention() *cabinet.Ticket {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	v := s.unloadedVersion.Load()
	if s.graph != nil {
		v = s.graph.Snapshot().Version()
	}
	if s.dropped.Load() || s.poisoned != nil || v == 0 {
		return nil
	}
	return s.saveAttention()
}

// waitAttention waits for a queued save (nil: none).
func waitAttention(name string, t *cabinet.Ticket) error {
	if t == nil {
		return nil
	}
	if err := t.Wait(); err != nil {
		return hostsError(fmt.Errorf("saving what the agents of session %q have read: %w", name, err), "saving session "+strconv.Quote(name))
	}
	return nil
}

// saveAttention saves the changed records of every hydrated or unloaded
// session (Close, once no call is in flight, so none is hydrated or
// unloaded meanwhile): all are queued, then waited for, so they share the
// cabinet's group commit.
func (db *DB) saveAttention() error {
	db.mu.Lock()
	list := make([]*Session, 0, len(db.sessions))
	for _, s := range db.sessions {
		list = append(list, s)
	}
	db.mu.Unlock()
	tickets := make([]*cabinet.Ticket, len(list))
	for i, s := range list {
		if s.hydrated.Load() || s.unloaded.Load() {
			tickets[i] = s.queueAttention()
		}
	}
	var errs []error
	for i, t := range tickets {
		errs = append(errs, waitAttention(list[i].name, t))
	}
	return errors.Join(errs...)
}
