package cabinet

import "encoding/binary"

// The layout of a cabinet file (format 2; see the package doc). A Commit
// rewrites only its session's index record and the tail of its log, so
// what it writes does not grow with the session: the snapshot's chunks
// sit in a bucket of their own that only a flush touches.
var (
	bucketRoot  = []byte("goldfish")  // keys "format", "dropped"
	bucketIndex = []byte("index")     // session name → meta record
	bucketLogs  = []byte("logs")      // session name → bucket: version → entry
	bucketSnaps = []byte("snaps")     // session name → bucket: chunk number → chunk, "head" → head
	bucketAttn  = []byte("attention") // session name → attention record
	// bucketBases holds the base of each session's history whose history
	// starts after version 0 (Cabinet.Flush's base), laid out as a
	// snapshot: session name → bucket of chunks and a head.
	bucketBases = []byte("bases")
	keyFormat   = []byte("format")
	keyHead     = []byte("head")
	// keyDropped holds the dropped counter (Cabinet.Dropped), 8 bytes
	// big-endian, written in the transaction of each drop. A file written
	// before it was kept has no key and reads as 0: right for a file in
	// which no session was ever dropped; after an earlier drop the
	// catalogue's version may then repeat once across the first reopen
	// of such a file (not after: the counter grows from then on).
	keyDropped    = []byte("dropped")
	formatVersion = []byte("2")
)

// Format 1 (the first release) kept each session in one bucket under
// "sessions", its snapshot one value beside the meta record that every
// Commit rewrote. Open migrates such a file to format 2.
var (
	format1          = []byte("1")
	bucketSessions1  = []byte("sessions")
	bucketLog1       = []byte("log")
	keyMeta1         = []byte("meta")
	keySnap1         = []byte("snap")
	keySnapVersion1  = []byte("snapver")
	topBucketsFormat = [][]byte{bucketRoot, bucketIndex, bucketLogs, bucketSnaps, bucketAttn, bucketBases}
	// laterBuckets were added to format 2 after files of it were
	// written: Open adds them to a file that lacks them.
	laterBuckets = [][]byte{bucketAttn, bucketBases}
)

func versionKey(v uint64) []byte { return binary.BigEndian.AppendUint64(nil, v) }

// chunkBytes is how many snapshot bytes one chunk holds: two chunks, with
// their element headers, keys and CRCs, fill one page exactly, so a
// snapshot's leaves are single pages that any free page can take (values
// spanning pages need runs of free pages, which a fragmented file lacks).
func chunkBytes(pageSize int) int {
	const perChunk = 16 + 8 + 4 // leaf element header, key, CRC
	return (pageSize-pageHeaderSize)/2 - perChunk
}
