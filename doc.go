// Package goldfish is the embedding API of Goldfish, the working memory of
// LLM agents: named sessions, each a small labelled property graph, read
// with Recall and written with Commit in a subset of ISO GQL.
//
// # Sessions
//
// Open a database, then ask it for a session by name; a session is created
// on first use:
//
//	db, _ := goldfish.Open()
//	s, _ := db.Session("mission")
//
// # Commit
//
// Commit applies one Δ, a batch of GQL data-modifying statements, atomically:
// all of it applies or none of it, and the session version grows by one.
//
//	s.Commit(ctx, `INSERT (:TSK {nick: "TSK_login", status: "open"})`, nil)
//
// Ingest is Commit with the ingest id rule: nodes carrying a loc property
// get an id from (kind, loc), so ingesting the same artefact twice updates
// instead of duplicating.
//
// # Errors
//
// Every error a caller can cause is an *Error carrying a GQLSTATUS code, a
// message that says what to do and, for text, a position:
//
//	var ge *goldfish.Error
//	if errors.As(err, &ge) && ge.Code == goldfish.CodeIntegrityViolation { … }
package goldfish
