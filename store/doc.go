// Package store is the in-memory labelled property graph of ONE Goldfish
// session, with MVCC-style snapshots.
//
// # Model
//
// A Graph holds nodes (labels, the first of which is the node's kind, plus
// properties) and directed, typed edges (plus properties). Every element has
// an engine ID that is never shown to a model. Deleting an element recycles
// it: it vanishes from every scan and index but stays retrievable with
// Snapshot.RecycledNode/RecycledEdge and can be revived until it is purged.
// The STRING property "nick" is a session-unique handle over live nodes
// (a recycled node's nick is free again).
//
// # Snapshots and the single writer
//
// A Graph publishes one immutable Snapshot at a time through an
// atomic.Pointer. Graph.Snapshot is a single atomic load: readers never take
// a lock and never block the writer. Writes go through a Tx (Graph.Begin),
// which holds the graph's writer lock, so there is exactly one writer at a
// time. Tx.Commit publishes the Tx's state as version+1 with one pointer
// swap; Tx.Rollback drops it. A reader therefore sees the version before or
// the version after a Tx, never part of one, and a Snapshot, once obtained,
// never changes, however long it is held and whatever is committed later.
//
// Every index is a copy-on-write B-tree (github.com/google/btree's BTreeG,
// kept in store/internal/btree, which counts what a write displaces).
// Begin takes an O(1) lazy Clone of each tree of the published snapshot;
// the Tx's first write to a B-tree node copies that node (and its path from
// the root), so a Tx costs O(written entries × log n) memory and time,
// independent of the graph size, and unchanged subtrees are shared by all
// versions still referenced. Old versions are reclaimed by the garbage
// collector when no reader holds them. This is why copy-on-write trees
// rather than maps: a map would have to be copied whole per commit, or
// guarded by locks that make readers and the writer wait for each other.
//
// Node and Edge records, their Labels slices and their Props are immutable
// once published and shared between versions; a write builds a new record
// and replaces it in the trees. Callers must never modify them.
//
// Restore builds a graph from a persisted snapshot's elements in one pass
// (each index sorted, then built in order, the independent ones
// concurrently) instead of replaying them through a Tx.
//
// Tx.Snapshot is different: it is a view of the working state, for the
// executor's MATCH inside a Δ; it sees the Tx's own writes and is valid
// only until the Tx's next write (it shares the trees, it does not clone).
//
// # Indexes
//
//   - id → node (live and recycled, with live in/out degree), id → edge;
//   - all live nodes by (observable key, id)       — ScanNodes, ScanIdentical;
//   - (label, observable key, id) for every label after a node's kind (a
//     kind's nodes are a range of the observable order) — ScanLabel;
//   - (property key, value, observable key, id) over every property of
//     live nodes, ordered by values.Value.Compare; an entry is just (node
//     pointer, property index), 16 bytes       — ScanProp;
//   - nick → live node, a persistent hash trie (trie.go): one small
//     node per 5 bits of the nick's hash                — NodeByNick;
//   - slot table: every node has a dense slot; its record holds the
//     current *Node, live degree and adjacency — Adjacency, Edges, Degree;
//   - counters per label, per kind and per edge type (small B-trees).
//
// Scans run in O(log n + hits) and stop as soon as the callback returns
// false, so "the first L matches in canonical order" costs L, not the
// number of candidates.
//
// # Observable order
//
// Scans return nodes in observable order: the bytewise order of a key that
// is a function of observables only (kind, properties, labels), never of
// engine ids, insertion order or map order:
//
//	escaped(kind) 0x00 0x01
//	props part: order-preserving encoding of the properties, verbatim when
//	            at most 72 bytes, else its first 64 bytes + 8-byte xxhash
//	escaped(extra label) 0x00 0x01 … for the labels after the kind, sorted
//
// The property encoding is, per property in key order, the escaped key then
// the value encoding (values.Value.AppendKey: a kind-rank tag byte, then
// sign-flipped big-endian ints, IEEE-total-order float bits, strings with
// 0x00 escaped as 0x00 0xFF and terminated by 0x00 0x01, lists as elements
// then 0x01), ended by 0x00 0x00; bytewise it sorts like values.Value.Compare and
// values.Props.Compare. Long property sets are truncated with a hash so keys stay
// bounded; two nodes with different observables then still get different
// keys (up to a 2^-64 hash collision) in a deterministic order.
//
// Nodes whose observables are identical have identical keys; only then does
// the engine id break the tie, just so index entries are unique. That
// tie-break is NOT observable-only: callers (Recall) must order such ties
// themselves, by a structural signature of the neighbourhood.
//
// # Slot table and adjacency
//
// Every node gets a dense slot (uint32) when first inserted; recycling
// keeps it, Purge clears its record (slots are not reused). The slot
// table is a persistent copy-on-write array in three levels (a slice of
// directories of 64 leaves of 16 records; a Tx copies the slice once
// and each directory and leaf it writes once). A record holds the node's current *Node, its
// live out/in degree and its adjacency: an immutable slice of entries
// {edge, far slot, direction} sorted by (edge type, direction, far node's
// observable key, far node's engine id, edge id) — the canonical (docs/design.md#the-walk)
// neighbour order, up to the WL tie-break the walker applies within runs
// of observably equal neighbours. A *Node knows its slot, so
// Snapshot.Adjacency(n) and every far node are reached by index with no
// tree lookup; only id → node (Snapshot.Node) pays O(log n).
//
// Keeping that order has a write cost: inserting or removing an edge is a
// binary search plus an O(degree) copy of each end's list (in place after
// the Tx's first copy); a write that changes a node's observable key
// (SetProps, SetLabels) moves its entries in every neighbour's list,
// O(Σ neighbour degrees) (a node adjacent to a hub pays the hub's
// degree).
//
// Edges(id, dir) keeps its historical order (direction, edge type, engine
// edge id), sorting a group of same-type edges by id on the fly.

// # Values
//
// The store keeps package values' Value: a small immutable tagged union
// (NULL, BOOLEAN, INTEGER, FLOAT, STRING, DATE, DATETIME, LIST) with exact
// equality (Int(1) ≠ Float(1)), a total order and a canonical GQL
// literal. NaN and ±Inf have no GQL literal: callers reject them
// (values.ValidFloat) before storing. Value.Check says whether a value
// can be stored at all: lists nested at most values.MaxNesting deep,
// UTF-8 strings, canonical DATE and DATETIME text in the years 0000–9999;
// every writer checks it, so whatever is stored encodes, decodes and
// parses back.
package store
