package cabinet

// What another backend (store/cabinet/postgres) shares with this one: the
// checked records, so that a session's bytes mean the same wherever it is
// kept, and the Ticket a backend hands back from Append.

// EncodeMeta encodes session metadata as the checked record (magic and
// CRC-32C) the bbolt backend keeps in its index.
func EncodeMeta(m Meta) []byte { return encodeMeta(m) }

// DecodeMeta checks and decodes a record EncodeMeta wrote.
func DecodeMeta(b []byte) (Meta, error) { return decodeMeta(b) }

// SealChunk seals chunk n of the snapshot record of the given version:
// its bytes with a CRC-32C over them, the version and the number, so a
// chunk of another snapshot, or from another place, fails OpenChunk.
func SealChunk(version, n uint64, p []byte) []byte { return sealChunk(version, n, p) }

// OpenChunk checks a sealed chunk and returns its bytes.
func OpenChunk(version, n uint64, b []byte) ([]byte, error) { return openChunk(version, n, b) }

// SealAttention wraps a session's attention record (the root package's
// encoding) with a magic and a CRC-32C.
func SealAttention(data []byte) []byte { return sealAttention(data) }

// OpenAttention checks a sealed attention record and returns a copy of
// what it holds.
func OpenAttention(b []byte) ([]byte, error) { return openAttention(b) }

// NewTicket returns a Ticket for a backend to finish once the write it
// stands for is durable or has failed.
func NewTicket() *Ticket { return newTicket() }

// Finish reports the outcome of the write: nil once it is durable. A
// backend calls it exactly once per Ticket.
func (t *Ticket) Finish(err error) { t.finish(err) }
