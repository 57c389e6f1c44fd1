// Package btree is github.com/google/btree v1.1.3's generic B-tree
// (btree_generic.go, Apache License 2.0, see LICENSE), kept here with
// four changes for the store's versions:
//
//   - a tree counts the bytes of the nodes its writes displace from the
//     tree it was cloned from (BTreeG.Displaced): what the version
//     before a store transaction holds that the version after it does
//     not, which the engine's ring of past versions adds up to bound
//     its memory by measure rather than by estimate;
//   - a copy's arrays fit its content with a little room, rather than
//     the capacity its original grew to;
//   - a node names the context that owns it by a number, not a
//     pointer, so the contexts of old writes are not kept alive by
//     their nodes;
//   - there is no free list: a node is allocated when a write needs
//     one, and every tree of a session shares none of its nodes with a
//     list guarded by a lock.
//
// The non-generic API, Clear and the free list are left out; the rest
// is upstream's code.
package btree
