package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/goldfish-gql/goldfish/server"
	"github.com/goldfish-gql/goldfish/wire"
)

// TestAgentSlotsPerToken: one token acts as at most 64 agents of a
// session, so a token naming agent after agent cannot fill the session's
// slots and evict a writer's agent: ana, who read once, is still known
// (her next read is not a first read) after 1,100 Recalls of evilN.
func TestAgentSlotsPerToken(t *testing.T) {
	tokens, toks := tokenSet(t, map[string][2]string{"writer": {"", "team"}, "evil": {"", "team"}})
	db, _, ts := newServer(t, server.Options{Tokens: tokens})
	ctx := context.Background()
	if code, body := call(t, ts, "POST", "/v1/sessions/team/commit", toks["writer"], `{"text": "INSERT (:TSK {nick: 't'})"}`); code != 200 {
		t.Fatalf("%d %s", code, body)
	}
	recall := func(tok, agent string) (int, string) {
		b, _ := json.Marshal(wire.RecallRequest{Q: "MATCH (t:TSK)", Agent: agent})
		return call(t, ts, "POST", "/v1/sessions/team/recall", tok, string(b))
	}
	if code, body := recall(toks["writer"], "ana"); code != 200 {
		t.Fatalf("ana: %d %s", code, body)
	}
	refused := 0
	for i := range 1100 {
		code, _ := recall(toks["evil"], fmt.Sprintf("evil%d", i))
		if code == 403 {
			refused++
		}
	}
	if refused != 1100-64 {
		t.Errorf("%d of 1,100 agents refused to one token, want all past the 64th", refused)
	}
	if code, _ := recall(toks["evil"], "evil3"); code != 200 {
		t.Errorf("an agent the token has acted as: %d, want 200", code)
	}
	sess, _ := db.Session(ctx, "team")
	agents, err := sess.Agents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, a := range agents {
		found = found || a.Name == "ana"
	}
	if !found || len(agents) != 65 {
		t.Errorf("after 1,100 agents from one token: %d agents kept, ana kept %v", len(agents), found)
	}
}
