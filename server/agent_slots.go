package server

import (
	"strconv"
	"sync"

	"github.com/goldfish-gql/goldfish/gqlstatus"
)

// A session keeps at most goldfish.MaxAgents agents, and a new agent's
// first Recall evicts the one seen least recently. Who may take those
// slots is bounded here, per token: a token acts as an agent only when it
// may write the session or is bound to that agent's name, so a read token
// cannot move a writer's last read; and one token acts as at most
// agentsPerToken agents of one session, so no token fills the table and
// evicts the agents of others. A server without tokens trusts its caller.

// agentsPerToken is the most agents one token acts as in one session.
const agentsPerToken = 64

type agentSlots struct {
	mu sync.Mutex
	// used is, per token and session, the agents it has acted as.
	used map[[2]string]map[string]struct{}
}

// admit checks that scope may act as agent in session, and counts it.
func (a *agentSlots) admit(scope *Scope, session, agent string) error {
	if scope.all {
		return nil
	}
	if !scope.Bound() && !scope.CanWrite(session) {
		return gqlstatus.Errorf(gqlstatus.AccessDenied, "this token reads session %q and is bound to no agent, so it may not act as agent %q: its reads would move that agent's last read", session, agent).
			WithHint(`leave "agent" out to read as nobody, or use a token bound to the agent (gqlsh token --read ` + session + ` --agent ` + agent + `)`)
	}
	key := [2]string{scope.id, session}
	a.mu.Lock()
	defer a.mu.Unlock()
	names := a.used[key]
	if _, ok := names[agent]; ok {
		return nil
	}
	if len(names) >= agentsPerToken {
		return gqlstatus.Errorf(gqlstatus.AccessDenied, "this token has acted as %d agents of session %q, the most one token may: agent %q would take the slot of another", len(names), session, agent).
			WithHint("act as one of the agents this token has used, or give each agent its own token (gqlsh token --agent NAME); limit " + strconv.Itoa(agentsPerToken))
	}
	if a.used == nil {
		a.used = map[[2]string]map[string]struct{}{}
	}
	if names == nil {
		names = map[string]struct{}{}
		a.used[key] = names
	}
	names[agent] = struct{}{}
	return nil
}
