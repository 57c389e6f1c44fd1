package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goldfish-gql/goldfish"
)

// noagentCall is one call of noagent.mjs and its answer.
type noagentCall struct {
	Args       map[string]any `json:"args"`
	Text       string         `json:"text"`
	Structured struct {
		Attention *goldfish.Attention `json:"attention"`
	} `json:"structured"`
	IsError bool `json:"isError"`
}

// TestMCPConnectionAgentNode: an agent on the official TypeScript
// client (StreamableHTTPClientTransport) against gqlsh serve, naming no
// agent anywhere (noagent.mjs), hears what a named agent hears, as its
// connection's own agent: its first read says so and names it; it takes
// the example action from the help text goldfish://help/vocabulary,
// registers it, and its next read says the action was registered since
// and is its own, never invoked (yours); it acts on a node with it, and
// its next read says the action was invoked since. A second connection
// is another agent, with a first read of its own.
func TestMCPConnectionAgentNode(t *testing.T) {
	node := needNode(t)
	base := serveForNode(t)
	const session = "noagent"
	resp, err := http.Post(base+"/v1/sessions/"+session+"/commit", "application/json", strings.NewReader(`{"text": "INSERT (:NOTE {nick: 'start'})"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("the session's first commit: %s", resp.Status)
	}
	cmd := exec.Command(node, "noagent.mjs", base, session)
	cmd.Dir = nodeDir
	cmd.Env = processEnvFor(t)
	var out, errs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	if err := cmd.Run(); err != nil {
		t.Fatalf("node noagent.mjs: %v\n%s", err, errs.String())
	}
	var run struct {
		SessionID      string `json:"sessionId"`
		OtherSessionID string `json:"otherSessionId"`
		Example        struct{ Action, Call string }
		Reads          map[string]noagentCall `json:"reads"`
		Commits        map[string]noagentCall `json:"commits"`
	}
	if err := json.Unmarshal(out.Bytes(), &run); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	for what, c := range run.Commits {
		if c.IsError {
			t.Fatalf("the commit %s (%v) failed: %s", what, c.Args["text"], c.Text)
		}
	}
	for what, c := range run.Reads {
		if c.IsError || c.Structured.Attention == nil {
			t.Fatalf("the read %s: no attention: %s", what, c.Text)
		}
	}
	// The client kept the id /mcp issued and named itself by it.
	agent := func(id string) string {
		h := sha256.Sum256([]byte("\x00" + id))
		return "mcp-" + hex.EncodeToString(h[:])[:12]
	}
	if !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(run.SessionID) || run.OtherSessionID == run.SessionID {
		t.Fatalf("the connections' ids: %q and %q", run.SessionID, run.OtherSessionID)
	}
	me, other := agent(run.SessionID), agent(run.OtherSessionID)
	if !strings.HasPrefix(run.Example.Action, "CREATE ACTION settle_task(") || !strings.HasPrefix(run.Example.Call, "CALL settle_task(") {
		t.Errorf("the example taken from the help text: %q, %q", run.Example.Action, run.Example.Call)
	}

	first := run.Reads["first"].Structured.Attention
	if !first.FirstRead || !strings.Contains(first.Note, "agent "+me+" ") || !strings.Contains(run.Reads["first"].Text, me) {
		t.Errorf("the first read does not name the connection's agent %s: %+v", me, first)
	}
	if o := run.Reads["other"].Structured.Attention; !o.FirstRead || !strings.Contains(o.Note, "agent "+other+" ") {
		t.Errorf("the second connection's first read does not name its agent %s: %+v", other, o)
	}
	reg := run.Reads["registered"].Structured.Attention
	if reg.FirstRead || reg.SinceYourLastRead == nil || !slices.Contains(reg.SinceYourLastRead.ActionsRegistered, "settle_task") {
		t.Errorf("the read after registering: since_your_last_read %+v (first_read %v)", reg.SinceYourLastRead, reg.FirstRead)
	}
	if reg.Yours == nil || !slices.Contains(reg.Yours.NeverInvoked, "settle_task") {
		t.Errorf("the read after registering: yours %+v", reg.Yours)
	}
	inv := run.Reads["invoked"].Structured.Attention
	if inv.SinceYourLastRead == nil || !slices.Contains(inv.SinceYourLastRead.ActionsInvoked, "settle_task") || inv.SinceYourLastRead.Versions != 2 {
		t.Errorf("the read after the CALL: since_your_last_read %+v", inv.SinceYourLastRead)
	}
	if !strings.Contains(run.Reads["invoked"].Text, `TSK:Settled {nick: "TSK_login"`) {
		t.Errorf("the CALL did not settle the task:\n%s", run.Reads["invoked"].Text)
	}

	// The session keeps the two connections' agents, and no other.
	resp, err = http.Get(base + "/v1/sessions/" + session + "/agents")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var agents struct {
		Agents []struct {
			Name  string `json:"name"`
			Reads uint64 `json:"reads"`
		} `json:"agents"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&agents); err != nil {
		t.Fatal(err)
	}
	got := map[string]uint64{}
	for _, a := range agents.Agents {
		got[a.Name] = a.Reads
	}
	if len(got) != 2 || got[me] != 3 || got[other] != 11 {
		t.Errorf("the session's agents %v, want %s with 3 reads and %s with 11", got, me, other)
	}
}

// serveForNode runs gqlsh serve on a fresh cabinet and a free loopback
// port, ready, and returns its base URL.
func serveForNode(t *testing.T) string {
	t.Helper()
	_, base, stderr := startServe(t, "--cabinet", filepath.Join(t.TempDir(), "c.gf"))
	for i := 0; ; i++ { // ready: /readyz answers 200
		if resp, err := http.Get(base + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return base
			}
		}
		if i == 1000 {
			t.Fatalf("gqlsh serve is not ready:\n%s", stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}
