package cabinet

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/goldfish-gql/goldfish/values"
)

// FuzzDecodeEntry feeds arbitrary bytes to the log-entry decoder, sealed
// with a valid header and checksum so the fuzzer reaches the field decoding
// (a CRC would reject nearly every mutation before it): the decoder must
// answer with an entry or an error, never panic, and what it accepts must
// survive encoding and decoding again unchanged (bytes may differ: a varint
// has more than one spelling).
func FuzzDecodeEntry(f *testing.F) {
	payload := func(e Entry) []byte {
		b := EncodeEntry(e)
		return b[len(magicEntry) : len(b)-4]
	}
	f.Add(payload(Entry{Version: 7, Kind: EntryDelta, Time: time.Unix(1, 0).UTC(), Text: "INSERT (:A)",
		Params: map[string]values.Value{"x": values.List(values.Int(1), values.String("a"), values.DateValue("2026-01-31"))}}))
	f.Add(payload(Entry{Version: 1, Kind: EntryPurge, Time: time.Unix(2, 0).UTC()}))
	f.Add(payload(Entry{Version: 3, Kind: EntryAbsorb, Mint: 2, Time: time.Unix(3, 0).UTC(), Agent: "ana",
		Text: "// goldfish slice session=a version=1 anchors=1 k=2 rows=1/50 sum=0000000000000000\n// anchors: a_1\nINSERT\n  (a_1:A)\n"}))
	f.Add([]byte{})
	f.Add(append([]byte{0x01}, payload(Entry{Version: 4, Kind: EntryDelta, Text: "INSERT " + strings.Repeat("(:A {n: 1}), ", 80) + "(:A)"})...))
	f.Fuzz(func(t *testing.T, p []byte) {
		// A first byte 1 reads the rest as a compressed entry's body.
		magic := magicEntry
		if len(p) > 0 && p[0] == 1 {
			magic, p = magicEntryZ, p[1:]
		}
		b := seal(append(append([]byte(nil), magic...), p...))
		e, err := DecodeEntry(b)
		if err != nil {
			return
		}
		again, err := DecodeEntry(EncodeEntry(e))
		if err != nil || !reflect.DeepEqual(again, e) {
			t.Fatalf("entry does not survive a round trip: %v\n%+v\n%+v", err, e, again)
		}
	})
}
