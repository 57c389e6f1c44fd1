package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/goldfish-gql/goldfish/values"
	"github.com/goldfish-gql/goldfish/wire"
)

// The client reads an answer only when it has the form a goldfish server
// gives it: one JSON object holding the keys the server always writes
// for that call, each with a value, and values a reader can act on. An
// answer of something else at the address (a proxy's page, a stub
// answering {} to everything, a hostile server) is refused whole, rather
// than read as zeros: {} to a Commit would otherwise read as "not
// applied", and to a Recall as an empty Shape.

// answerKeys are the keys the server always writes in the answer out
// decodes (the fields without omitempty that say what the call did),
// for each answer type the client reads.
func answerKeys(out any) []string {
	commit := []string{"status", "version", "applied", "notices", "nodes_created", "edges_created", "properties_set",
		"labels_added", "labels_removed", "nodes_recycled", "edges_recycled"}
	switch out.(type) {
	case *wire.Sessions:
		return []string{"sessions"}
	case *wire.Session:
		return []string{"name", "version", "nodes", "edges"}
	case *wire.Dropped:
		return []string{"dropped"}
	case *wire.Flush:
		return []string{"cabinet"}
	case *wire.Shape:
		return []string{"status", "cue", "seeds", "rows", "tokens", "version", "notices", "gql"}
	case *wire.Commit:
		return commit
	case *wire.Absorb:
		return append(commit, "policy")
	case *wire.Slice:
		return []string{"status", "version", "anchors", "nodes", "edges", "rows", "bound", "notices", "slice"}
	case *wire.Diff:
		return []string{"from", "to", "nodes_created", "nodes_deleted", "nodes_changed", "edges_created", "edges_deleted",
			"rows", "bound", "diff"}
	case *wire.History:
		return []string{"nick", "entries", "more", "oldest"}
	case *wire.Kinds:
		return []string{"kinds"}
	case *wire.Names:
		return []string{"labels", "edge_types", "keys", "nicks"}
	case *wire.Vocabulary:
		return []string{"version", "views", "actions"}
	case *wire.Agents:
		return []string{"agents"}
	case *wire.Settings:
		return []string{"stale_reads", "decay", "salience_threshold", "gap_ratio", "gap_min", "gap_window", "history", "pinned"}
	case *wire.Purge:
		return []string{"purged", "version"}
	case *wire.Dump:
		return []string{"version", "dump"}
	case *wire.Help:
		return []string{"topic", "text"}
	}
	panic(fmt.Sprintf("client: no answer keys for %T", out))
}

// readAnswer decodes b, the body of a 200 answer, into out, or says what
// about it is not a goldfish server's answer.
func readAnswer(b []byte, out any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var obj map[string]json.RawMessage
	if err := dec.Decode(&obj); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return fmt.Errorf("it is a JSON %s, not an object", te.Value)
		}
		if len(bytes.TrimSpace(b)) == 0 {
			return errors.New("it is empty")
		}
		return fmt.Errorf("it is not JSON: %v", err)
	}
	if obj == nil {
		return errors.New("it is null, not an object")
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("more follows its JSON object")
	}
	var missing []string
	for _, k := range answerKeys(out) {
		if v, ok := obj[k]; !ok || string(v) == "null" {
			missing = append(missing, fmt.Sprintf("%q", k))
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("it lacks %s", strings.Join(missing, ", "))
	}
	dec = json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(out); err != nil {
		return fmt.Errorf("it does not read as goldfish's JSON: %v", err)
	}
	return checkAnswer(out)
}

// checkAnswer refuses values no goldfish server writes: a status that is
// no GQLSTATUS code, a write applied at no version, a negative count, a
// text without the header its kind of text starts with, a session or
// agent name outside the names' rules.
func checkAnswer(out any) error {
	switch a := out.(type) {
	case *wire.Sessions:
		for _, s := range a.Sessions {
			if err := checkSession(s); err != nil {
				return err
			}
		}
	case *wire.Session:
		return checkSession(*a)
	case *wire.Dropped:
		return checkSession(a.Dropped)
	case *wire.Shape:
		if err := checkStatus(a.Status, a.Notices); err != nil {
			return err
		}
		if a.Seeds < 0 || a.Rows < 0 || a.Tokens < 0 {
			return fmt.Errorf("it counts seeds=%d rows=%d tokens=%d", a.Seeds, a.Rows, a.Tokens)
		}
		return checkHeader("gql", a.GQL, "// goldfish session=")
	case *wire.Commit:
		return checkCommit(a)
	case *wire.Absorb:
		return checkCommit(&a.Commit)
	case *wire.Slice:
		if err := checkStatus(a.Status, a.Notices); err != nil {
			return err
		}
		return checkHeader("slice", a.Slice, "// goldfish slice ")
	case *wire.Diff:
		return checkHeader("diff", a.Text, "// goldfish diff ")
	case *wire.Agents:
		for _, ag := range a.Agents {
			if values.ValidAgentName(ag.Name) != nil {
				return fmt.Errorf("it names an agent %q", ag.Name)
			}
		}
	case *wire.Purge:
		if a.Purged < 0 {
			return fmt.Errorf("it purged %d elements", a.Purged)
		}
	}
	return nil
}

func checkSession(s wire.Session) error {
	if values.ValidSessionName(s.Name) != nil {
		return fmt.Errorf("it names a session %q", s.Name)
	}
	if s.Nodes < 0 || s.Edges < 0 || s.Recycled < 0 {
		return fmt.Errorf("session %s counts nodes=%d edges=%d", s.Name, s.Nodes, s.Edges)
	}
	return nil
}

func checkCommit(c *wire.Commit) error {
	if err := checkStatus(c.Status, c.Notices); err != nil {
		return err
	}
	if c.Applied && c.Version == 0 {
		return errors.New("it says applied, at version 0")
	}
	n := c.Counts
	for _, v := range []int{n.NodesCreated, n.EdgesCreated, n.PropsSet, n.LabelsAdded, n.LabelsRemoved, n.NodesRecycled,
		n.EdgesRecycled, n.NodesUpdated, n.Bindings, n.NodesEchoed, n.EdgesEchoed} {
		if v < 0 {
			return fmt.Errorf("it counts %d of something", v)
		}
	}
	for _, st := range c.Results {
		if !validCode(st.Status) {
			return fmt.Errorf("statement %d's status %q is no GQLSTATUS code", st.Statement, st.Status)
		}
	}
	return nil
}

// checkStatus checks an answer's status and its notices' codes.
func checkStatus(status string, notices []wire.Notice) error {
	if !validCode(status) {
		return fmt.Errorf("its status %q is no GQLSTATUS code", status)
	}
	for _, n := range notices {
		if !validCode(n.Code) {
			return fmt.Errorf("a notice's code %q is no GQLSTATUS code", n.Code)
		}
	}
	return nil
}

// validCode reports whether s is a GQLSTATUS code: five digits or
// upper-case letters.
func validCode(s string) bool {
	if len(s) != 5 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// checkHeader checks that text, the answer's key, starts with the header
// line the server writes first.
func checkHeader(key, text, header string) error {
	if !strings.HasPrefix(text, header) {
		return fmt.Errorf("its %q does not start with %q", key, strings.TrimSpace(header)+" …")
	}
	return nil
}
