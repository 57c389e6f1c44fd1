package values

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// AttentionSettings are a session's attention thresholds. They change
// what a Recall shows, never what a Commit does.
type AttentionSettings struct {
	// StaleReads: an action not invoked in this many Recalls of the
	// session (since its registration, or since its last invocation) is
	// stale; it is also the window
	// vocabulary_health looks back over.
	StaleReads uint64 `json:"stale_reads"`
	// Decay is the factor each Recall that does not use an item
	// multiplies its salience by (0.001 ≤ Decay ≤ 1).
	Decay float64 `json:"decay"`
	// SalienceThreshold is the salience under which an item is
	// low_salience.
	SalienceThreshold float64 `json:"salience_threshold"`
	// GapRatio and GapMin: a (kind, property) pair written by at least
	// GapMin raw Commits, and at least GapRatio times more often raw than
	// inside actions, is a vocabulary gap.
	GapRatio float64 `json:"gap_ratio"`
	GapMin   uint64  `json:"gap_min"`
	// GapWindow is how many of the session's latest Commits (those that
	// wrote a property or called an action) gaps and pre-action clusters
	// are counted over, 1 to MaxGapWindow.
	GapWindow uint64 `json:"gap_window"`
	// History is how many versions before its newest a session keeps
	// readable across a flush: HistoryAll (the default) keeps
	// every one, HistoryNone none past its snapshot. The one setting here
	// that is not about attention: it bounds what a flush keeps of the
	// log, kept with the others so that one place sets a session.
	History HistoryKeep `json:"history"`
}

// HistoryKeep is the history setting: a count of versions, HistoryAll or
// HistoryNone. As text (JSON, the shell) it is "all", "none" or the
// count.
type HistoryKeep uint64

// The history setting's ends.
const (
	HistoryNone HistoryKeep = 0
	HistoryAll  HistoryKeep = math.MaxUint64
)

// String writes the setting as the shell takes it.
func (h HistoryKeep) String() string {
	switch h {
	case HistoryAll:
		return "all"
	case HistoryNone:
		return "none"
	}
	return strconv.FormatUint(uint64(h), 10)
}

// ParseHistoryKeep reads "all", "none" or a count of versions.
func ParseHistoryKeep(text string) (HistoryKeep, error) {
	switch t := strings.ToLower(strings.TrimSpace(text)); t {
	case "all":
		return HistoryAll, nil
	case "none", "0":
		return HistoryNone, nil
	default:
		n, err := strconv.ParseUint(t, 10, 64)
		if err != nil || HistoryKeep(n) == HistoryAll {
			return 0, fmt.Errorf("history: %q is not all, none or a count of versions", text)
		}
		return HistoryKeep(n), nil
	}
}

// MarshalText writes the setting as its text ("all", "none", a count).
func (h HistoryKeep) MarshalText() ([]byte, error) { return []byte(h.String()), nil }

// UnmarshalText reads "all", "none" or a count.
func (h *HistoryKeep) UnmarshalText(b []byte) error {
	v, err := ParseHistoryKeep(string(b))
	if err == nil {
		*h = v
	}
	return err
}

// UnmarshalJSON reads a string or a bare count.
func (h *HistoryKeep) UnmarshalJSON(b []byte) error {
	t := strings.TrimSpace(string(b))
	if u, err := strconv.Unquote(t); err == nil {
		t = u
	}
	return h.UnmarshalText([]byte(t))
}

// DefaultAttentionSettings are the settings of a session that set none.
var DefaultAttentionSettings = AttentionSettings{StaleReads: 10, Decay: 0.9, SalienceThreshold: 0.1, GapRatio: 4, GapMin: 5, GapWindow: DefaultGapWindow, History: HistoryAll}

// DefaultGapWindow is gap_window's default.
const DefaultGapWindow = 200

// MaxGapWindow is the largest gap_window.
const MaxGapWindow = 1000

// AttentionSettingNames are the settings' names, as Set and the shell take them.
var AttentionSettingNames = []string{"stale_reads", "decay", "salience_threshold", "gap_ratio", "gap_min", "gap_window", "history"}

// Check reports a setting out of its range.
func (s AttentionSettings) Check() error {
	switch {
	case s.StaleReads < 1 || s.StaleReads > 1_000_000:
		return fmt.Errorf("stale_reads is %d; it counts Recalls, 1 to 1000000", s.StaleReads)
	case !(s.Decay >= 0.001 && s.Decay <= 1):
		return fmt.Errorf("decay is %v; it is a factor from 0.001 to 1 (1: salience never fades)", s.Decay)
	case !(s.SalienceThreshold >= 0 && s.SalienceThreshold <= 1e6):
		return fmt.Errorf("salience_threshold is %v; it is 0 (nothing is low) or more, up to 1000000", s.SalienceThreshold)
	case !(s.GapRatio >= 1 && s.GapRatio <= 1e6):
		return fmt.Errorf("gap_ratio is %v; it is 1 to 1000000", s.GapRatio)
	case s.GapMin < 1 || s.GapMin > 1_000_000_000:
		return fmt.Errorf("gap_min is %d; it counts Commits, 1 to 1000000000", s.GapMin)
	case s.GapWindow < 1 || s.GapWindow > MaxGapWindow:
		return fmt.Errorf("gap_window is %d; it counts the latest Commits, 1 to %d", s.GapWindow, MaxGapWindow)
	}
	return nil
}

// Set returns s with the named setting set from its text.
func (s AttentionSettings) Set(name, value string) (AttentionSettings, error) {
	var err error
	value = strings.TrimSpace(value)
	count := func(dst *uint64) { *dst, err = strconv.ParseUint(value, 10, 64) }
	factor := func(dst *float64) { *dst, err = strconv.ParseFloat(value, 64) }
	switch strings.ToLower(name) {
	case "stale_reads":
		count(&s.StaleReads)
	case "decay":
		factor(&s.Decay)
	case "salience_threshold", "threshold":
		factor(&s.SalienceThreshold)
	case "gap_ratio":
		factor(&s.GapRatio)
	case "gap_min":
		count(&s.GapMin)
	case "gap_window":
		count(&s.GapWindow)
	case "history":
		h, herr := ParseHistoryKeep(value)
		if herr != nil {
			return s, herr
		}
		s.History = h
	default:
		return s, fmt.Errorf("no setting named %q; the settings are %s", name, strings.Join(AttentionSettingNames, ", "))
	}
	if err != nil {
		return s, fmt.Errorf("%s: %q is not a number in its range", name, value)
	}
	return s, s.Check()
}

// String writes the settings as the shell shows them.
func (s AttentionSettings) String() string {
	return fmt.Sprintf("stale_reads=%d decay=%g salience_threshold=%g gap_ratio=%g gap_min=%d gap_window=%d history=%s",
		s.StaleReads, s.Decay, s.SalienceThreshold, s.GapRatio, s.GapMin, s.GapWindow, s.History)
}
