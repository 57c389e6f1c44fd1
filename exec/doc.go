// Package exec runs plans against a session's graph. A Commit runs every
// statement of one Δ inside one store transaction and publishes it only if
// all of them succeed; a Recall seeds, walks and emits over one snapshot.
package exec
