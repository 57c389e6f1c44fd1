// Package shapewalk computes the Shape of a Recall (docs/design.md#recall): pure,
// deterministic functions over one immutable *store.Snapshot.
//
//   - Walk: the bounded breadth-first neighbourhood of a seed set (k hops,
//     at most M rows, fan-out clamp F, pinned kinds first within their
//     share of M, leading seeds walked first, view=shell), with closing
//     edges and clamp notes.
//   - Compare, Sort, Signature: the canonical node order (docs/design.md#canonical-order-and-the-emit).
//   - Peaks: the Peak_L last-resort cue (docs/design.md#seeds).
//   - Outline: the MATCH () cue (docs/design.md#seeds).
//
// # Canonical order
//
// Nodes are ordered first by their observable key: the exact byte encoding
// store uses for its observable order (escaped kind, order-preserving
// property encoding truncated with an xxhash past 72 bytes, sorted extra
// labels; see the store package doc), read with store.Node.ObservableKey
// (the key store keeps; no re-encoding). So "first L in store scan order"
// and "first L in canonical order" agree up to ties.
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
// Walk expands at most M/2 nodes. It reads adjacency through
// store.Snapshot.Adjacency, which lists a node's edges grouped by (type,
// direction) and, within a group, in the far nodes' observable order.
// Expanding a node walks each group from its start, skips far nodes
// already in the Shape or chosen, and takes the first new ones; only a
// run of far nodes with equal observable keys at the cut is ordered by
// WL signature. The clamp count of a light group (at most 32 entries) is
// counted by scanning it; for a heavy group it is the group size minus
// the entries leading to Shape or chosen nodes, each found from that
// node's own (light) reverse group or by binary search in the heavy one.
// So expanding costs O(groups + F + skipped entries + |Shape| per heavy
// group), never O(degree). Closing edges are found from each edge's From
// side the same way: light Out groups are scanned, heavy ones probed per
// Shape node. All scratch state lives in a pooled walker: a Walk
// allocates its result and little else.
package shapewalk
