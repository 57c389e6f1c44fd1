package cabinet

import (
	"bytes"
	"encoding/binary"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/goldfish-gql/goldfish/values"
)

// TestCompressedEntry: a large Δ's entry is kept compressed and reads
// back equal; a small one stays plain; a damaged compressed entry, one
// whose length lies and one that claims more than any Δ are refused.
func TestCompressedEntry(t *testing.T) {
	e := Entry{Version: 9, Kind: EntryDelta, Mint: 1, Time: time.Unix(5, 0).UTC(), Agent: "ana",
		Text:   "INSERT " + strings.Repeat(`(:FN {loc: "net/http/server.go:120", name: "ServeHTTP"}), `, 200) + "(:A)",
		Params: map[string]values.Value{"x": values.Int(1)}}
	b := EncodeEntry(e)
	if !bytes.HasPrefix(b, magicEntryZ) || len(b)*4 > len(e.Text) {
		t.Fatalf("a %d-byte Δ's entry is %d bytes, magic %q", len(e.Text), len(b), b[:4])
	}
	got, err := DecodeEntry(b)
	if err != nil || !reflect.DeepEqual(got, e) {
		t.Fatalf("round trip: %v\n%+v", err, got)
	}
	small := EncodeEntry(Entry{Version: 1, Kind: EntryDelta, Text: "INSERT (:A)"})
	if !bytes.HasPrefix(small, magicEntry) {
		t.Fatalf("a small entry is compressed: %q", small[:4])
	}
	damaged := bytes.Clone(b)
	damaged[len(damaged)/2] ^= 0x40
	if _, err := DecodeEntry(damaged); err == nil {
		t.Fatal("a damaged compressed entry decodes")
	}
	reseal := func(length uint64, body []byte) []byte {
		p := binary.AppendUvarint(append([]byte(nil), magicEntryZ...), length)
		return seal(append(p, body...))
	}
	n, k := binary.Uvarint(b[len(magicEntryZ):])
	body := b[len(magicEntryZ)+k : len(b)-4]
	for _, tc := range []struct {
		name   string
		length uint64
	}{{"shorter", n - 1}, {"longer", n + 1}, {"a bomb", 1 << 40}} {
		if _, err := DecodeEntry(reseal(tc.length, body)); err == nil {
			t.Errorf("a compressed entry whose length is %s decodes", tc.name)
		}
	}
}
