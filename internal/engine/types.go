package engine

import (
	"github.com/goldfish-gql/goldfish/exec"
)

// Mint is a Commit's id rule (the engine hands out package values'
// values under their own names: a Shape, a CommitResult, the envelope).
type Mint = exec.Mint

// The id rules of a Commit.
const (
	MintDefault = exec.MintDefault
	MintIngest  = exec.MintIngest
)
