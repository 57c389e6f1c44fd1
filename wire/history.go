package wire

import (
	"time"

	"github.com/goldfish-gql/goldfish/values"
)

// Diff is the answer of GET /v1/sessions/{name}/diff: the Δ that,
// committed on a copy of version from, gives version to, in
// values.Diff's JSON form.
type Diff = values.Diff

// History is the answer of GET /v1/sessions/{name}/history.
type History struct {
	Nick    string         `json:"nick"`
	Entries []HistoryEntry `json:"entries"`
	More    bool           `json:"more"`
	Oldest  uint64         `json:"oldest"`
}

// HistoryEntry is one version that changed the node.
type HistoryEntry struct {
	Version uint64 `json:"version"`
	How     string `json:"how"`
	Agent   string `json:"agent,omitempty"`
	// Time is RFC 3339 in UTC, "" when unknown.
	Time   string `json:"time,omitempty"`
	Change Diff   `json:"change"`
}

// HistoryOf is the answer for h.
func HistoryOf(h *values.History) History {
	out := History{Nick: h.Nick, More: h.More, Oldest: h.Oldest, Entries: []HistoryEntry{}}
	for _, e := range h.Entries {
		out.Entries = append(out.Entries, HistoryEntry{Version: e.Version, How: e.How, Agent: e.Agent, Time: timeText(e.Time), Change: *e.Change})
	}
	return out
}

// Value is the history h describes.
func (h History) Value() *values.History {
	out := &values.History{Nick: h.Nick, More: h.More, Oldest: h.Oldest}
	for _, e := range h.Entries {
		change := e.Change
		out.Entries = append(out.Entries, values.HistoryEntry{Version: e.Version, How: e.How, Agent: e.Agent, Time: timeOf(e.Time), Change: &change})
	}
	return out
}

// Versions is the answer of GET /v1/sessions/{name}/versions: the
// versions the session keeps readable, newest first (a timeline).
type Versions struct {
	Version  uint64         `json:"version"`
	Versions []VersionEntry `json:"versions"`
	More     bool           `json:"more"`
	Oldest   uint64         `json:"oldest"`
}

// VersionEntry is one version: what made it, who, when, what it changed.
type VersionEntry struct {
	Version uint64 `json:"version"`
	How     string `json:"how"`
	Agent   string `json:"agent,omitempty"`
	Time    string `json:"time,omitempty"`
	// Change is what the version's Δ did ("+2 nodes 1 property set").
	Change string `json:"change,omitempty"`
}

// VersionsOf is the answer for the entries es of a session whose newest
// version is newest: its version is the newest of newest and es's (a
// Commit may land between the two reads).
func VersionsOf(newest uint64, es []values.VersionEntry, more bool, oldest uint64) Versions {
	out := Versions{Version: newest, More: more, Oldest: oldest, Versions: []VersionEntry{}}
	for _, e := range es {
		out.Versions = append(out.Versions, VersionEntry{Version: e.Version, How: e.How, Agent: e.Agent, Time: timeText(e.Time), Change: e.Change})
		out.Version = max(out.Version, e.Version)
	}
	return out
}

// timeText is t in RFC 3339 in UTC, "" for the zero time.
func timeText(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// timeOf reads timeText back (the zero time for "").
func timeOf(s string) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, s)
	return t
}
