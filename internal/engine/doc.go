// Package engine is the session machinery behind the root package's
// public contract: the registry of sessions and the admission of calls
// (engine.go, session.go), the one write path every change of a session
// goes through (write.go: Commit, Ingest, Absorb, Purge and so every
// registration of the vocabulary), Recall with its Shape cache and
// attention envelope (recall.go, envelope.go, vocabulary.go), the one
// entry from text to plan (plan.go), hydrate and replay (hydrate.go),
// durability and publishing to readers (durable.go), many hosts on
// PostgreSQL as a strategy of the write path (hosts.go, over
// cabinet.Shared), the memory budget (residency.go), and what the agents
// of a session have read (agents.go, attention.go).
//
// A call goes down the layers once: the facade resolves nothing the
// engine needs to check again, the engine plans (planner), executes on a
// store snapshot (exec), writes the cabinet (store/cabinet) and hands the
// facade the lower layers' results, which the facade converts into its
// own types. Tests and benchmarks of the module reach the engine's
// internals through its own tests, never through the facade.
package engine
