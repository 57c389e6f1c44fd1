package engine

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/values"
)

// pinnedSection is an attention record of the pinned section alone with
// the kinds given, as written (not checked).
func pinnedSection(kinds ...string) []byte {
	var body []byte
	body = binary.AppendUvarint(body, uint64(len(kinds)))
	for _, k := range kinds {
		body = appendAttnString(body, k)
	}
	b := []byte{attentionVersion}
	b = binary.AppendUvarint(b, attentionPinned)
	return appendAttnString(b, string(body))
}

// TestPinnedRecord: the pinned kinds round-trip through the attention
// record; a record written before them (no pinned section) reads as none
// and is written back byte for byte; a damaged pinned section is refused.
func TestPinnedRecord(t *testing.T) {
	s := &Session{}
	s.agents.insert("ana")
	s.attn.tick.Store(4)
	old := encodeAttention(s) // no kinds: no section, as before them
	s.pinned.Store(&[]string{"LAW", "RULE"})
	rec := encodeAttention(s)
	if bytes.Equal(rec, old) || !bytes.HasPrefix(rec, old) {
		t.Fatalf("the pinned section is not appended to the record")
	}
	back := &Session{}
	if err := decodeAttention(rec, back); err != nil {
		t.Fatal(err)
	}
	if got := back.pinnedKinds(); !slices.Equal(got, []string{"LAW", "RULE"}) {
		t.Fatalf("pinned %v", got)
	}
	if !bytes.Equal(encodeAttention(back), rec) {
		t.Fatal("the record does not encode back the same")
	}
	older := &Session{}
	if err := decodeAttention(old, older); err != nil || older.pinnedKinds() != nil {
		t.Fatalf("a record without pinned kinds: %v, %v", older.pinnedKinds(), err)
	}
	if !bytes.Equal(encodeAttention(older), old) {
		t.Fatal("an older record does not encode back the same")
	}
	many := make([]string, MaxPinnedKinds+1)
	for i := range many {
		many[i] = string(rune('A' + i))
	}
	for name, bad := range map[string][]byte{
		"none":          pinnedSection(),
		"unsorted":      pinnedSection("RULE", "LAW"),
		"twice":         pinnedSection("LAW", "LAW"),
		"empty kind":    pinnedSection(""),
		"not UTF-8":     pinnedSection("\xff"),
		"too many":      pinnedSection(many...),
		"two sections":  append(pinnedSection("LAW"), pinnedSection("LAW")[1:]...),
		"trailing byte": append([]byte{attentionVersion, attentionPinned, 5}, append(pinnedSection("LAW")[3:], 0)...),
		"truncated":     pinnedSection("LAW")[:6],
	} {
		if err := decodeAttention(bad, &Session{}); err == nil {
			t.Errorf("%s: %x decoded", name, bad)
		}
	}
}

// TestNormalizePinned: kinds sorted and kept once; none is nil.
func TestNormalizePinned(t *testing.T) {
	if got, err := NormalizePinned([]string{"RULE", "LAW", "RULE"}); err != nil || !slices.Equal(got, []string{"LAW", "RULE"}) {
		t.Errorf("%v %v", got, err)
	}
	if got, err := NormalizePinned([]string{}); err != nil || got != nil {
		t.Errorf("none: %v %v", got, err)
	}
}

// TestPinnedKindsRefused: too many kinds, an empty one and the catalogue
// are refused, each with its code and a hint.
func TestPinnedKindsRefused(t *testing.T) {
	ctx := context.Background()
	db, err := openTest()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := mustSession(t, db, "work")
	many := make([]string, MaxPinnedKinds+1)
	for i := range many {
		many[i] = string(rune('A' + i))
	}
	cat := mustSession(t, db, CatalogName)
	for _, c := range []struct {
		name  string
		s     *Session
		kinds []string
		code  values.Code
	}{
		{"too many", s, many, gqlstatus.InvalidOption},
		{"empty kind", s, []string{"LAW", ""}, gqlstatus.InvalidOption},
		{"too long", s, []string{strings.Repeat("K", 129)}, gqlstatus.InvalidOption},
		{"catalogue", cat, []string{"SESSION"}, gqlstatus.ReadOnlySession},
	} {
		var ge *gqlstatus.Error
		if err := c.s.SetPinnedKinds(ctx, c.kinds); !errors.As(err, &ge) || ge.Code != c.code || ge.Hint == "" {
			t.Errorf("%s: %v, want %s with a hint", c.name, err, c.code)
		}
	}
	if kinds, _ := s.PinnedKinds(ctx); kinds != nil {
		t.Errorf("a refusal changed the kinds: %v", kinds)
	}
	// A request's megabytes are not echoed, nor sorted: a kind of 1 MiB
	// is named by its first bytes, and a list of 100,000 stops at the
	// 17th kind.
	huge := make([]string, 100_000)
	for i := range huge {
		huge[i] = fmt.Sprint("K", i)
	}
	for name, kinds := range map[string][]string{"a 1 MiB kind": {strings.Repeat("é", 1<<19)}, "100,000 kinds": huge} {
		err := s.SetPinnedKinds(ctx, kinds)
		if !isCode(err, gqlstatus.InvalidOption) || len(err.Error()) > 400 {
			t.Errorf("%s: %d bytes of error: %.200v", name, len(err.Error()), err)
		}
	}
	// A Recall's own kinds are held to the same rules.
	for name, kinds := range map[string][]string{"too many": many, "empty kind": {"LAW", ""}, "too long": {strings.Repeat("K", 129)}} {
		var ge *gqlstatus.Error
		if _, err := s.recallShape(ctx, `MATCH (t:TSK)`, values.RecallOptions{Pinned: kinds}); !errors.As(err, &ge) || ge.Code != gqlstatus.InvalidOption || ge.Hint == "" {
			t.Errorf("a Recall pinning %s: %v, want %s with a hint", name, err, gqlstatus.InvalidOption)
		}
	}
}
