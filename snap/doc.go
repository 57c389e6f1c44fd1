// Package snap is Model Snap for Go (SPEC §8): it partitions the code
// graph of a Go source tree into sessions that each stay Shape-sized, so
// an agent reads a large model in two Recalls of a few hundred tokens
// each, never with a larger M.
//
// Go(ctx, db, dir, opts) reads the tree with the Go ingester
// (ingest/golang: PKG, FILE, FN, TYPE, VAR and CONST nodes; contains,
// imports, has_method, calls, refs and implements edges, type-checked
// where the go command can list the packages) and writes:
//
//   - a catalogue session named opts.Prefix: one PART node per part, with
//     loc (the part's interior session name), packages (their import
//     paths), prefix (the locator prefix they share), nodes, stubs and
//     edges (the interior's counts) and, for a piece of a split package,
//     files; and an imports edge from a part to each part whose packages
//     its packages import;
//   - an interior session Prefix.<part> per part, holding the part's
//     nodes and edges exactly as the Go ingester writes them.
//
// # Parts
//
// No interior holds more than opts.PartNodes nodes (default 5,000),
// stubs included; the partition is a function of the tree only:
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
// need more stubs than the budget allows.
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
// # Re-snapping
//
// Everything is written with the ingest id rule (Session.Ingest), so a
// second snap of an unchanged tree applies no Δ in any session, and a
// changed file changes only the sessions whose content it changes (its
// part and, when the part's counts move, the catalogue). After ingesting
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
