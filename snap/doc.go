// Package snap is Model Snap for Go (docs/design.md#sessions-slices-and-model-snap): it partitions the code
// graph of a Go source tree into sessions that each stay Shape-sized, so
// an agent reads a large model in two Recalls of a few hundred tokens
// each, never with a larger M.
//
// Go(ctx, db, dir, opts) reads the tree with the Go ingester
// (ingest/golang: PKG, FILE, FN, TYPE, VAR and CONST nodes; contains,
// imports, has_method, calls, refs and implements edges, type-checked
// where the go command can list the packages; a recursive function's
// call of itself is a calls edge from its FN node to itself, kept in its
// part like any other edge) and writes:
//
//   - a catalogue session named opts.Prefix: one PART node per part, with
//     loc (the part's interior session name), packages (their import
//     paths), prefix (the locator prefix they share), nodes, stubs and
//     edges (the interior's counts) and, for a piece of a split package,
//     files; and an imports edge from a part to each part whose packages
//     its packages import;
//   - an interior session Prefix.<part> per part, holding the part's
//     nodes and edges exactly as the Go ingester writes them, with a STUB
//     node for each node of another part an edge of it reaches, and a
//     CALLERS node for each other part that calls one of its functions.
//
// # Parts
//
// No interior holds more than opts.PartNodes nodes (default 5,000),
// stubs and CALLERS nodes included; the partition is a function of the
// tree only:
//
//   - a directory whose whole tree fits is one part, named after the
//     directory (Prefix.geo holds geo and geo/vec);
//   - otherwise its own package and each child directory are placed on
//     their own, and the small ones among them (under a quarter of the
//     budget each) are grouped in path order while the group fits, named
//     after its first and last (Prefix.cmd..util);
//   - a package over the budget is split along its files, in file-name
//     order, each piece taking the next file while it fits, and a file
//     over the budget on its own along its declarations; the pieces are
//     named Prefix.<package>-1, -2, … and the catalogue lists each
//     piece's files.
//
// A part is over the budget only when it holds one node whose own edges
// need more stubs (or whose callers more CALLERS nodes) than the budget
// allows.
//
// # Stubs
//
// An edge that crosses parts is kept in one interior, with the node of
// the other part standing in it as a STUB node: loc (that node's
// locator), kind (its kind) and session (the interior that holds it), so
// a Recall of the loc finds the stub and the stub names where to look
// next. A function outside the tree that the tree calls is a stub too,
// with its pkg and no session. Edges stay with their source (calls,
// refs, implements, imports, has_method), except
// the hierarchical contains, which stays with its child: a piece of a
// split package then holds one stub for its package rather than the
// package's part holding a stub for every file elsewhere, and every
// file and declaration keeps its parent in view.
//
// # Callers
//
// A stub leads from a caller to its callee in another part. The other
// way, a function called from other parts has, in its own part, one
// CALLERS node per calling part: loc (the function's loc, " <- " and
// that part's session), callers (how many functions there call it) and
// session (that part's interior), with a calls edge to the function. A
// Recall of Tx.Commit in its part then shows its callers elsewhere:
//
//	(fn1:FN {loc: "example.com/bank/db.Tx.Commit", …}),
//	(callers1:CALLERS {callers: 3, loc: "example.com/bank/db.Tx.Commit <- bank.a", session: "bank.a"}),
//	(callers1)-[:calls]->(fn1)
//
// and a Recall of its loc in bank.a (MATCH (s:STUB {loc:
// "example.com/bank/db.Tx.Commit"})) finds it as a stub with those three
// callers around it. Only calls are counted back so, not refs,
// implements or imports, and a function outside the tree has none.
//
// CALLERS nodes count toward the part budget. Parts are filled before it
// is known which part will hold which caller, so a part being filled
// reckons one CALLERS node per function and group of its callers outside
// it, where a group is what is sure to stay in one part: the highest
// directory tree, else the package, else the file holding the caller
// that fits the budget even at one CALLERS node per outside caller;
// else the caller alone. The reckoning is never below the count, so the
// budget holds; it is above it when one part takes several groups, which
// makes parts somewhat smaller than stubs alone would (Go 1.26's
// standard library at the default budget: 66 parts instead of 56, with
// 12,204 CALLERS nodes among 160,000).
//
// # Re-snapping
//
// Everything is written with the ingest id rule (Session.Ingest), so a
// second snap of an unchanged tree applies no Δ in any session, and a
// changed file changes only the sessions whose content it changes (its
// part; the parts of the functions whose callers it changes, whose
// CALLERS nodes move; and, when a part's counts move, the catalogue). After ingesting
// a session's content the snap deletes what the tree no longer has (see
// sweep.go): the nodes of the snap's kinds that carry a loc and the edges
// of its types between them that the content lacks, so the interior
// matches the tree; what agents committed into an interior is kept. The
// interiors of parts that are gone (after a change of budget, say) are
// dropped.
//
// Go may run beside other work on the same database, but only one snap
// of a prefix at a time.
package snap
