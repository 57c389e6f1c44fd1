package shapecache

import (
	"encoding/binary"
	"sync"

	"github.com/goldfish-gql/goldfish/internal/params"
	"github.com/goldfish-gql/goldfish/values"
)

// AppendKey appends the Shape cache key: the session's incarnation, its
// version, the normalised token, the values of the token's parameters
// (names, in the plan's order) and every option. Each variable-length
// part is written with its length first and every option has a fixed
// place, so two different requests never share a key (a pinned kind
// "K,J" is not the kinds "K" and "J", a pinned kind "nopeaks" is not
// NoPeaks). A parameter is converted as a Recall converts it, under the
// byte bound paramBytes, so a key never holds what the Recall refuses.
func AppendKey(b []byte, incarnation, version uint64, token string, names []string, o values.RecallOptions, f Flags, paramBytes int) ([]byte, error) {
	b = binary.AppendUvarint(b, incarnation)
	b = binary.AppendUvarint(b, version)
	b = appendField(b, token)
	var lit [64]byte
	pc := params.NewConverter(paramBytes)
	for _, n := range names {
		raw, ok := o.Params[n]
		if !ok {
			b = append(b, 0) // missing: the Recall reports it
			continue
		}
		v, err := pc.Recall(n, raw)
		if err != nil {
			return b, err
		}
		b = append(b, 1)
		b = appendField(b, v.AppendLiteral(lit[:0]))
	}
	for _, v := range [...]int{o.M, o.K, o.L, o.F, o.T, o.After} {
		b = binary.AppendUvarint(b, uint64(v))
	}
	b = appendField(b, o.View)
	b = binary.AppendUvarint(b, uint64(len(o.Pinned)))
	for _, p := range o.Pinned {
		b = appendField(b, p)
	}
	var flags byte
	if f.CapL {
		flags |= 1
	}
	if o.NoPeaks {
		flags |= 2
	}
	if o.ExactTokens {
		flags |= 4
	}
	if f.KDefault {
		flags |= 8
	}
	if o.Whole {
		flags |= 16
	}
	return append(b, flags), nil
}

// Flags are what a Recall's key holds besides its options: whether the
// caller set L (which then caps a LIMIT) and whether K is the default
// (a point token then walks one hop).
type Flags struct {
	CapL, KDefault bool
}

// appendField appends s with its length first.
func appendField[T string | []byte](b []byte, s T) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// KeyPool holds key buffers: a hit builds its key with no allocation.
var KeyPool = sync.Pool{New: func() any { b := make([]byte, 0, 256); return &b }}
