package vocab

import (
	"math"
)

// Mark is what a session keeps about one view's or action's salience:
// the score at the session's Recall count Tick (it decays lazily: by
// Decay per Recall since), and the Recall count when the item was last
// registered or revised. An action's mark is raised only when it is
// invoked, so for an action invoked since RegTick, Tick is the Recall
// count of its last invocation: staleness counts from the later of the
// two (the attention record keeps both, so it holds across a reopen).
type Mark struct {
	Score   float64
	Tick    uint64
	RegTick uint64
}

// At is the score at Recall count tick.
func (m Mark) At(tick uint64, decay float64) float64 {
	if tick <= m.Tick || decay == 1 {
		return m.Score
	}
	return m.Score * math.Pow(decay, float64(tick-m.Tick))
}

// Raised is the mark after a use at Recall count tick: the score it had
// then, plus one (a deposit that evaporates, as pheromone does).
func (m Mark) Raised(tick uint64, decay float64) Mark {
	return Mark{Score: m.At(tick, decay) + 1, Tick: tick, RegTick: m.RegTick}
}

// Fresh is the mark of an item registered or revised at Recall count tick.
func Fresh(tick uint64) Mark { return Mark{Score: 1, Tick: tick, RegTick: tick} }

// Marks are a session's marks, by item name, and its actions' failed
// CALLs. A Marks value is never changed once shared: the session swaps
// in a new one.
type Marks struct {
	Views, Actions map[string]Mark
	Failed         map[string]Failure
}

// Failure is what a session keeps of an action's failed CALLs (a CALL
// that could not apply: arguments refused, precondition false or not
// evaluable, its body's error), which are no version and so no part of
// the vocabulary: how many, the Recall count at the latest, and the
// latest's error as one line (ErrorLine).
type Failure struct {
	Count, Tick uint64
	Error       string
	// Around is the target ("KIND.key") a raw Commit wrote after the
	// failures, which the action writes: the agents worked around it
	// (worked_around.go); "" until then.
	Around string
}

// view returns the mark of a view; an item the session has no mark for
// (a record lost in a crash) counts as fresh now.
func (m *Marks) view(name string, tick uint64) Mark {
	if m != nil {
		if k, ok := m.Views[name]; ok {
			return k
		}
	}
	return Fresh(tick)
}

func (m *Marks) action(name string, tick uint64) Mark {
	if m != nil {
		if k, ok := m.Actions[name]; ok {
			return k
		}
	}
	return Fresh(tick)
}
