package engine

import (
	"context"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/values"
)

// Pinned kinds per session (docs/design.md#the-walk): the kinds SetPinnedKinds names
// are kept with the session, beside its attention settings, and every
// Recall of the session that names no pinned kinds of its own carries
// their live nodes first (a call's RecallOptions.Pinned replaces them for
// that call). The walk gives them a share of M (shapewalk.PinnedShare).

// MaxPinnedKinds is the most kinds a session pins, and MaxKindName the
// longest kind name it takes.
const (
	MaxPinnedKinds = values.MaxPinnedKinds
	MaxKindName    = 128
)

// checkKind checks one pinned kind: 1 to MaxKindName bytes of UTF-8.
func checkKind(k string) error {
	if k == "" || len(k) > MaxKindName || !utf8.ValidString(k) {
		shown := k
		if len(shown) > MaxKindName {
			// The message names the kind, not the megabytes a
			// request may have put in it.
			shown = strings.ToValidUTF8(shown[:MaxKindName], "") + "…"
		}
		return gqlstatus.Errorf(gqlstatus.InvalidOption, "pinned kind %q (%d bytes): a kind is 1 to %d bytes of UTF-8", shown, len(k), MaxKindName).
			WithHint("name kinds as the session writes them, e.g. LAW,RULE")
	}
	return nil
}

// NormalizePinned checks kinds and returns them sorted, each once (nil
// for none); too many or an invalid kind is 22Q06. It stops at the
// first kind past the bound, so a long list costs no more than 16 kinds.
func NormalizePinned(kinds []string) ([]string, error) {
	var out []string
	for _, k := range kinds {
		if err := checkKind(k); err != nil {
			return nil, err
		}
		if slices.Contains(out, k) {
			continue
		}
		if len(out) == MaxPinnedKinds {
			return nil, gqlstatus.Errorf(gqlstatus.InvalidOption, "more than %d pinned kinds; a session or a Recall pins at most %d", MaxPinnedKinds, MaxPinnedKinds).
				WithHint("pin the few kinds every reader needs (LAW, RULE); recall the others by a token")
		}
		out = append(out, k)
	}
	slices.Sort(out)
	return out, nil
}

// pinnedKinds returns the session's pinned kinds (nil: none). The slice
// is shared: callers never change it.
func (s *Session) pinnedKinds() []string {
	if p := s.pinned.Load(); p != nil {
		return *p
	}
	return nil
}

// PinnedKinds returns the session's pinned kinds, sorted (nil: none).
func (s *Session) PinnedKinds(ctx context.Context) ([]string, error) {
	if err := s.begin(ctx); err != nil {
		return nil, err
	}
	defer s.end()
	if s.dropped.Load() {
		return nil, s.errDropped()
	}
	if err := s.hydrateOnce(ctx); err != nil {
		return nil, err
	}
	return slices.Clone(s.pinnedKinds()), nil
}

// SetPinnedKinds sets the session's pinned kinds (none: nil or empty
// clears them), durably when the cabinet holds the session (a session
// never committed keeps them in memory until its first Commit saves them
// with it), as SetAttentionSettings does. The catalogue pins nothing
// (42Q02); too many kinds or an invalid one is 22Q06.
func (s *Session) SetPinnedKinds(ctx context.Context, kinds []string) error {
	if err := s.begin(ctx); err != nil {
		return err
	}
	defer s.end()
	if s.dropped.Load() {
		return s.errDropped()
	}
	if s.catalog {
		return gqlstatus.Errorf(gqlstatus.ReadOnlySession, "the %s session is kept by the engine and pins no kinds", CatalogName).
			WithHint("pin kinds in a session of your own, or per Recall (values.RecallOptions.Pinned)")
	}
	norm, err := NormalizePinned(kinds)
	if err != nil {
		return err
	}
	if s.db.cfg.ReadOnly {
		return s.db.errReadOnly("setting the pinned kinds")
	}
	if err := s.hydrateOnce(ctx); err != nil {
		return err
	}
	if s.wmu.LockContext(ctx) != nil {
		return gqlstatus.Interrupted(ctx, "setting the pinned kinds")
	}
	if slices.Equal(norm, s.pinnedKinds()) {
		s.wmu.Unlock()
		return nil
	}
	s.pinned.Store(&norm)
	return s.saveSettingsAndUnlock()
}
