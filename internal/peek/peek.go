// Package peek lets the module's own tools and tests read a session's
// store snapshot, which the embedding API does not show (SPEC §10: no
// type of an inner package leaks through it). The root package sets
// Snapshot when it is initialised; being internal, nothing outside this
// module can import it.
package peek

import "github.com/goldfish-gql/goldfish/store"

// Snapshot returns the newest durable snapshot of a *goldfish.Session.
var Snapshot func(session any) *store.Snapshot
