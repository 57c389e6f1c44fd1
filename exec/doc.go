// Package exec runs plans against a session's graph. A Commit runs every
// statement of one Δ inside one store transaction and publishes it only if
// all of them succeed; a Recall seeds, walks and emits over one snapshot.
// ExportSlice writes a slice (the neighbourhoods of a few anchors, with
// engine ids, as GQL text), ReadSlice reads one back with every check,
// and Absorb commits it as one Δ (slice.go explains the text).
package exec
