package server

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"sync"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/gqlstatus"
)

// A session keeps at most goldfish.MaxAgents agents, and a new agent's
// first Recall evicts the one seen least recently. Who may take those
// slots is bounded here, per token: a token acts as a named agent only
// when it may write the session or is bound to that agent's name, so a
// read token cannot move a writer's last read; and one token acts as at
// most agentsPerToken agents of one session, so no token fills the table
// and evicts the agents of others. A server without tokens trusts its
// caller.
//
// A connection's own agent (mcp_identity.go) is the token's alone, its
// name hashed with the token's id, so a read token may act as it too.
// Clients reconnect, and every connection is a new agent: the token's
// connection agents are kept in the order they were last used, within
// the same agentsPerToken slots, and a new agent (a connection's or a
// named one) that finds no slot free takes the slot of the token's least
// recently used connection agent, which the session then forgets. A
// named agent is never recycled: when all the slots are named agents, a
// new agent is refused, a connection's as a named one.

// agentsPerToken is the most agents one token acts as in one session.
const agentsPerToken = 64

type agentSlots struct {
	mu sync.Mutex
	// used is, per token and session, the agents it has acted as.
	used map[[2]string]*tokenAgents
}

// tokenAgents are the agents one token has acted as in one session.
type tokenAgents struct {
	// mu is held across a recycle's ForgetAgent, so two new agents of
	// the token do not take one freed slot; other tokens do not wait.
	mu    sync.Mutex
	named map[string]struct{}
	// conns are its connection agents, least recently used first.
	conns []string
}

// admit checks that scope may act as agent in session (sess, opened),
// and counts it; conn says agent is the connection's own (the call named
// none).
func (a *agentSlots) admit(ctx context.Context, scope *Scope, sess *goldfish.Session, session, agent string, conn bool) error {
	if scope.all {
		return nil
	}
	t := a.of(scope.id, session)
	t.mu.Lock()
	defer t.mu.Unlock()
	if i := slices.Index(t.conns, agent); i >= 0 {
		// One of the token's connection agents, named or not: its own.
		t.conns = append(slices.Delete(t.conns, i, i+1), agent)
		return nil
	}
	if !conn && !scope.Bound() && !scope.CanWrite(session) {
		return gqlstatus.Errorf(gqlstatus.AccessDenied, "this token reads session %q and is bound to no agent, so it may not act as agent %q: its reads would move that agent's last read", session, agent).
			WithHint(`leave "agent" out to read as nobody, or use a token bound to the agent (gqlsh token --read ` + session + ` --agent ` + agent + `)`)
	}
	if _, ok := t.named[agent]; ok {
		return nil
	}
	if len(t.named)+len(t.conns) >= agentsPerToken {
		if err := t.recycle(ctx, sess); err != nil {
			return err
		}
		if len(t.named)+len(t.conns) >= agentsPerToken {
			return gqlstatus.Errorf(gqlstatus.AccessDenied, "this token has acted as %d agents of session %q, the most one token may: agent %q would take the slot of another", len(t.named)+len(t.conns), session, agent).
				WithHint("act as one of the agents this token has used, or give each agent its own token (gqlsh token --agent NAME); limit " + strconv.Itoa(agentsPerToken))
		}
	}
	if conn {
		t.conns = append(t.conns, agent)
	} else {
		t.named[agent] = struct{}{}
	}
	return nil
}

// recycle frees the slot of the least recently used connection agent:
// the session forgets it, so a reconnecting client's old agents do not
// fill the session's table either. A session that cannot forget (a
// read-only database) keeps the slot taken; an agent the session does
// not keep (it only committed, or was evicted) frees its slot at once.
// Called with t.mu held.
func (t *tokenAgents) recycle(ctx context.Context, sess *goldfish.Session) error {
	if len(t.conns) == 0 {
		return nil
	}
	victim := t.conns[0]
	if err := sess.ForgetAgent(ctx, victim); err != nil && gqlstatus.CodeOf(err, "") != gqlstatus.InvalidReference {
		if errors.Is(err, goldfish.ErrReadOnly) {
			return nil
		}
		return err
	}
	t.conns = slices.Delete(t.conns, 0, 1)
	return nil
}

// of returns the token's agents of session, made on first use.
func (a *agentSlots) of(token, session string) *tokenAgents {
	key := [2]string{token, session}
	a.mu.Lock()
	defer a.mu.Unlock()
	t := a.used[key]
	if t == nil {
		if a.used == nil {
			a.used = map[[2]string]*tokenAgents{}
		}
		t = &tokenAgents{named: map[string]struct{}{}}
		a.used[key] = t
	}
	return t
}
