package vocab

// The post-error pattern (seed 001's post-error messaging): an action's
// CALLs failed, and then a raw Commit (a statement of its own, no CALL)
// wrote what the action writes. The agents are working around the
// action rather than through it; the action needs revising. The engine
// notes it on the action's failure record (Failure.Around) when the
// Commit lands, and the envelope says so until the action is revised.

// WorkedAround returns, for each action of failed (those with failed
// CALLs and no pattern noted yet) that the newest Commit recorded in s
// since old worked around, the target it wrote ("KIND.key"): a pair the
// Commit wrote raw that the action's body writes.
func (s *State) WorkedAround(old *State, failed map[string]Failure) map[string]string {
	raw := s.newRawWrites(old)
	if len(raw) == 0 {
		return nil
	}
	var out map[string]string
	for name, f := range failed {
		if f.Around != "" {
			continue
		}
		for _, w := range raw {
			if s.actionWrites(name, w.Kind, w.Key) {
				if out == nil {
					out = map[string]string{}
				}
				out[name] = w.Kind + "." + w.Key
				break
			}
		}
	}
	return out
}

// newRawWrites returns the pairs the newest window entry of s wrote
// raw, when s recorded it after old (its last entry is not old's).
func (s *State) newRawWrites(old *State) []Write {
	if s == nil || s.led == nil {
		return nil
	}
	w := &s.led.win
	n := w.len()
	if n == 0 {
		return nil
	}
	if old != nil && old.led != nil {
		if ow := &old.led.win; ow.len() > 0 && ow.at(ow.len()-1) == w.at(n-1) {
			return nil // no Commit recorded since old
		}
	}
	var raw []Write
	for _, wr := range w.at(n - 1).writes {
		if !wr.InAction {
			raw = append(raw, wr)
		}
	}
	return raw
}
