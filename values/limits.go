package values

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
