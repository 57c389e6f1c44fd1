// Package shapewalk computes the Shape of a Recall (SPEC §5): pure,
// deterministic functions over one immutable *store.Snapshot.
//
//   - Walk: the bounded breadth-first neighbourhood of a seed set (k hops,
//     at most M rows, fan-out clamp F, pinned kinds first, view=shell),
//     with closing edges and clamp notes.
//   - Compare, Sort, Signature: the canonical node order (§5.3).
//   - Peaks: the Peak_L last-resort cue (§5.1).
//   - Outline: the MATCH () cue (§5.1).
//
// # Canonical order
//
// Nodes are ordered first by their observable key: the exact byte encoding
// store uses for its observable order (escaped kind, order-preserving
// property encoding truncated with an xxhash past 72 bytes, sorted extra
// labels; see the store package doc). shapewalk re-encodes it into reusable
// scratch buffers (store.Snapshot.ObservableKey allocates a copy per call);
// a test checks the two encodings are byte-identical, so "first L in store
// scan order" and "first L in canonical order" agree up to ties.
//
// Nodes with identical observables are then ordered by Signature, a
// Weisfeiler-Lehman hash after two rounds of refinement:
//
//	h0(v) = xxhash(observable key of v)
//	h1(v) = mix(h0(v), Σ_e term(e, h0(far end of e)))
//	h2(v) = mix(h1(v), Σ_e term(e, h1(far end of e)))
//
// where the sum runs over the live edges incident to v (a self-loop counts
// once per direction) and term hashes the edge type, the direction as seen
// from v, the edge's properties and the far end's hash. The sum makes the
// multiset hash independent of adjacency order. For a node with more than
// wlDegreeCap incident edges the sum is replaced by a hash of its (out, in)
// degrees, so one hub never costs O(degree²) in a signature: still a
// function of the structure only, but weaker. Only when two distinct nodes
// also tie on the signature (they are indistinguishable to two rounds of
// WL, for example nodes of a regular structure or true automorphs) does
// the engine id decide; this is the only place an engine id is read, and
// for automorphic nodes it cannot change what is emitted.
//
// Signatures are computed lazily, only for nodes that tie on observables
// with another candidate, and memoised for the duration of one call.
//
// # Cost
//
// Walk expands at most M/2 nodes. Expanding a node reads its adjacency in
// store order (direction, type, edge id), groups it by (type, direction),
// and looks up the far ends only of the groups it takes neighbours from; in
// the group where the fan-out F runs out it keeps a bounded sorted
// selection of at most F entries (O(g·F) worst case, O(g) typically), and
// every further edge is only counted for the clamp note. So a hub costs
// O(degree) for the node being expanded and nothing for the others. Closing
// edges are found from the low-degree side of each edge. All scratch state
// lives in a pooled walker: a Walk allocates its result and little else.
package shapewalk
