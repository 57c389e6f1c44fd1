// Package vocab is a session's vocabulary (docs/design.md#the-vocabulary-and-attention): its views, named CEL
// expressions over the session, and its actions, named Δ templates with
// typed parameters, an optional CEL precondition and an intent.
//
// # State
//
// A State is the vocabulary of one session version: immutable, carried by
// the store as the snapshot's extension (store.Ext), so it is published
// with the graph in the same pointer swap, read by whoever reads that
// version, and rebuilt exactly by replaying the session's log. Every
// change (a registration, a drop, an invocation's counters) makes a new
// State; nothing in one is ever modified.
//
// # Ledger
//
// A State also holds the ledger of the session's Commits, which the
// attention envelope reads: how many elements they changed (Changed), how
// many Commits wrote each (kind, property) pair raw and how many inside an
// action (Writes, Gaps), and which views and actions were dropped at which
// version (DroppedSince). The executor gathers one Commit's facts in a
// Delta and Record makes the next State from it, at a cost in proportion
// to the Delta: the counters live in a hash trie whose paths are copied,
// never the whole table. The ledger is not vocabulary: a State with only
// a ledger is Empty.
//
// # The CEL environment
//
// Views and preconditions are CEL over the session:
//
//	nodes("KIND")   the live nodes of that kind, as maps of their
//	                properties plus "labels"
//	edges("TYPE")   the live edges of that type, as maps of their
//	                properties plus "type", "from" and "to" (each end's
//	                nick, else its loc, else null)
//	count("KIND")   the number of live nodes of that kind
//	view("name")    the value of another view
//	version         the session version
//
// Engine ids are never shown. nodes and edges cost what they return:
// they read the store's label and edge-type indexes, never another kind's
// elements, and materialise nothing until a program reads an element.
// Each call is priced by the elements it returns, so a view is bounded by
// its cost limit whatever the session's size.
//
// # Evaluation
//
// Views are evaluated once per session version (the caller caches the
// Values), in name order, each under a per-view cost limit and all of
// them under a budget per read; a view that fails (a missing key, a type
// error, its cost, a cycle through view(), the read's budget spent) is
// broken: kept, with its error.
package vocab
