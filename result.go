package goldfish

import "github.com/goldfish-gql/goldfish/values"

// What a Commit did (package values declares them).
type (
	// CommitResult reports what a Commit did, per statement and in total.
	// It is the caller's: nothing the engine keeps shares its slices.
	CommitResult = values.CommitResult
	// StmtResult reports what one statement of a Δ did.
	StmtResult = values.StmtResult
	// Counts are the element counts of a statement or a Δ.
	Counts = values.Counts
)
