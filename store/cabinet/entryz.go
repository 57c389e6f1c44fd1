package cabinet

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"io"
	"sync"
)

// A log entry of a large Δ (an ingested file, an absorbed slice) is kept
// compressed: the log is the session's history (history.go), kept past
// every flush, and GQL text compresses several times over, which keeps
// a cabinet with its whole history within a small factor of one without
// (gqlbench: the standard library's ingest). A small entry stays plain:
// a Commit writes bytes in proportion to its Δ either way.
//
//	"GFLZ" | raw length (uvarint) | DEFLATE of the GFL1 payload | CRC-32C
//
// The payload is what a plain entry holds between its magic and its CRC;
// the CRC covers the magic, the length and the compressed bytes.

var magicEntryZ = []byte("GFLZ")

// compressFrom is the payload size from which an entry is compressed.
const compressFrom = 512

// maxEntryBytes bounds what a compressed entry may claim to inflate to:
// far above any Δ the parser takes (its text limit is 1 MiB), so a
// damaged length is refused instead of allocated.
const maxEntryBytes = 64 << 20

var flaters = sync.Pool{New: func() any {
	w, _ := flate.NewWriter(nil, flate.BestSpeed)
	return w
}}

// compressEntry returns the compressed record of a plain entry record b
// (magic and payload, no CRC yet), or nil when compressing would not pay.
func compressEntry(b []byte) []byte {
	payload := b[len(magicEntry):]
	if len(payload) < compressFrom {
		return nil
	}
	var buf bytes.Buffer
	buf.Grow(len(payload)/3 + 16)
	buf.Write(magicEntryZ)
	var n [10]byte
	buf.Write(n[:binary.PutUvarint(n[:], uint64(len(payload)))])
	w := flaters.Get().(*flate.Writer)
	w.Reset(&buf)
	_, err := w.Write(payload)
	if err == nil {
		err = w.Close()
	}
	flaters.Put(w)
	if err != nil || buf.Len() >= len(b) {
		return nil
	}
	return seal(buf.Bytes())
}

// inflateEntry checks a compressed record and returns its payload.
func inflateEntry(b []byte) ([]byte, error) {
	p, err := unseal(b, magicEntryZ)
	if err != nil {
		return nil, err
	}
	n, k := binary.Uvarint(p)
	if k <= 0 || n > maxEntryBytes {
		return nil, errors.New("compressed entry: bad length")
	}
	r := flate.NewReader(bytes.NewReader(p[k:]))
	defer r.Close()
	out := make([]byte, n)
	if _, err := io.ReadFull(r, out); err != nil {
		return nil, errors.New("compressed entry: " + err.Error())
	}
	if m, _ := r.Read(make([]byte, 1)); m != 0 {
		return nil, errors.New("compressed entry: more bytes than its length")
	}
	return out, nil
}
