package values

import "github.com/goldfish-gql/goldfish/gqlstatus"

// Names and bounds of the contract, the same in every layer.
const (
	// MaxSessionName is the longest session name accepted.
	MaxSessionName = 64
	// MaxAgentName is the longest agent name accepted.
	MaxAgentName = 64
	// MaxAgents is the most agents one session keeps: a new agent's first
	// Recall when the session keeps as many evicts the agent seen least
	// recently.
	MaxAgents = 1024
	// MaxPinnedKinds is the most kinds a session pins.
	MaxPinnedKinds = 16
	// MaxSliceBytes is the most bytes a slice may hold (the parser's text
	// limit, so every slice parses).
	MaxSliceBytes = 1 << 20
	// DefaultPlanCacheBytes is the plan cache's default size.
	DefaultPlanCacheBytes = 16 << 20
	// CatalogName is the session that lists the others; SessionLabel the
	// label of its nodes.
	CatalogName  = "catalog"
	SessionLabel = "SESSION"
)

// ValidSessionName checks a session name: 1 to MaxSessionName letters,
// digits, '_', '-' or '.', not starting with '.' or '-' (a name is one
// segment of a server's paths, and a cabinet's key).
func ValidSessionName(name string) error {
	return validName("session", name, MaxSessionName, "")
}

// ValidAgentName checks an agent name: the rules of session names, at
// most MaxAgentName bytes.
func ValidAgentName(name string) error {
	return validName("agent", name, MaxAgentName, "e.g. planner, ana.2 or build-bot")
}

func validName(what, name string, most int, hint string) error {
	if name == "" || len(name) > most {
		return gqlstatus.Errorf(gqlstatus.InvalidName, "%s name must be 1 to %d characters, got %d", what, most, len(name)).WithHint(hint)
	}
	for i := 0; i < len(name); i++ {
		r := name[i]
		ok := r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') ||
			(i > 0 && (r == '-' || r == '.'))
		if !ok {
			return gqlstatus.Errorf(gqlstatus.InvalidName, "%s name %q may hold only letters, digits, '_', and (not first) '-' or '.'", what, name).WithHint(hint)
		}
	}
	return nil
}
