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
//	s, _ := db.Session(context.Background(), "mission")
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
// # Parameters
//
// Commit, Ingest and Recall take $parameters as Go values: nil, bool,
// integers, floats, strings, time.Time (a DATETIME) and slices or arrays
// of those. A value no property can hold is refused with 22G03 before
// anything applies: lists nested more than 64 deep (store.MaxNesting) or
// holding themselves, strings that are not UTF-8, NaN and infinite
// floats, times outside the years 0000–9999. The parameters of one call
// together take at most R's byte budget (WithCommitBudget) as GQL
// literals; their conversion stops where the bound is passed.
//
// # Errors
//
// Every error a caller can cause is an *Error carrying a GQLSTATUS code, a
// message that says what to do and, for text, a position:
//
//	var ge *goldfish.Error
//	if errors.As(err, &ge) && ge.Code == goldfish.CodeIntegrityViolation { … }
package goldfish
