package goldfish

import (
	"context"
	"strings"

	"github.com/goldfish-gql/goldfish/internal/engine"
	"github.com/goldfish-gql/goldfish/values"
)

// The vocabulary and the attention envelope (package values declares
// them).
type (
	// Vocabulary is a session's registered views and actions at one
	// version, each in name order; View, Action and ActionParam are its
	// parts.
	Vocabulary  = values.Vocabulary
	View        = values.View
	Action      = values.Action
	ActionParam = values.ActionParam
	// Attention is what a Recall tells its reader to notice (the
	// attention envelope); the others are its parts.
	Attention       = values.Attention
	BrokenView      = values.BrokenView
	ContestedTarget = values.ContestedTarget
	SinceLastRead   = values.SinceLastRead
	VocabularyGap   = values.VocabularyGap
	Yours           = values.Yours
	IntentOverlap   = values.IntentOverlap
	WorkedAround    = values.WorkedAround
	// AttentionSettings are a session's attention thresholds: they
	// change what a Recall shows, never what a Commit does.
	AttentionSettings = values.AttentionSettings
	// HistoryKeep is the history setting: a count of versions,
	// HistoryAll or HistoryNone; as text "all", "none" or the count.
	HistoryKeep = values.HistoryKeep
)

// The history setting's ends.
const (
	HistoryNone = values.HistoryNone
	HistoryAll  = values.HistoryAll
)

// MaxGapWindow is the largest GapWindow.
const MaxGapWindow = values.MaxGapWindow

// DefaultAttentionSettings are the settings of a session that set none.
var DefaultAttentionSettings = values.DefaultAttentionSettings

// AttentionSettings returns the session's attention settings.
func (s *Session) AttentionSettings(ctx context.Context) (AttentionSettings, error) {
	return s.e.AttentionSettings(ctx)
}

// SetAttentionSettings sets the session's attention settings, durably
// when the cabinet holds the session (a session never committed keeps
// them in memory until its first Commit saves them with it). A value out
// of range is refused with 22Q06.
func (s *Session) SetAttentionSettings(ctx context.Context, set AttentionSettings) error {
	return s.e.SetAttentionSettings(ctx, set)
}

// MaxPinnedKinds is the most kinds a session pins (SetPinnedKinds).
const MaxPinnedKinds = values.MaxPinnedKinds

// PinnedKinds returns the session's pinned kinds, sorted (nil: none).
func (s *Session) PinnedKinds(ctx context.Context) ([]string, error) {
	return s.e.PinnedKinds(ctx)
}

// SetPinnedKinds sets the session's pinned kinds (nil or empty clears
// them), kept with the session as its attention settings are: durably
// when the cabinet holds the session, across reopen, on PostgreSQL too.
// Every Recall of the session that names no Pinned kinds of its own
// carries the live nodes of these kinds first (RecallOptions.Pinned).
// Kinds are sorted and kept once; more than MaxPinnedKinds, or a kind
// that is empty or over 128 bytes, is refused with 22Q06; the catalogue
// pins none (42Q02).
func (s *Session) SetPinnedKinds(ctx context.Context, kinds []string) error {
	return s.e.SetPinnedKinds(ctx, kinds)
}

// ParseKinds reads a list of kinds as shells and servers take it as
// words: "LAW,RULE" (spaces around the names are dropped, empty names
// skipped; "" is none).
func ParseKinds(text string) []string {
	var out []string
	for _, k := range strings.Split(text, ",") {
		if k = strings.TrimSpace(k); k != "" {
			out = append(out, k)
		}
	}
	return out
}

// Vocabulary returns the session's views, with their values at its
// current version, and its actions with their counters.
func (s *Session) Vocabulary(ctx context.Context) (*Vocabulary, error) { return s.e.Vocabulary(ctx) }

// AttentionSettingNames are the settings' names, as SetAttentionSetting
// and the shell's :set take them.
var AttentionSettingNames = values.AttentionSettingNames

// SetAttentionSetting returns cur with the named setting (stale_reads,
// decay, salience_threshold, gap_ratio, gap_min, gap_window, history)
// set from its text, for shells and servers that take settings as words;
// a name it does not know or a value out of range is refused with 22Q06.
func SetAttentionSetting(cur AttentionSettings, name, value string) (AttentionSettings, error) {
	return engine.SetSetting(cur, name, value)
}
