package cabinet

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"io"
	"os"
)

// preflight reads bbolt's two meta pages itself, before bbolt maps the
// file, and refuses a file shorter than the newest valid meta page says
// it is. bbolt would otherwise map it and fault (SIGBUS) or panic in a
// goroutine of its own when it walks the missing pages; neither can be
// turned into an error. A missing or empty file is fine (bbolt creates it).
func preflight(path string) error {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("cabinet: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("cabinet: %w", err)
	}
	if fi.Size() == 0 {
		return nil
	}
	const hdr = 16 // page header: id, flags, count, overflow
	read := func(off int64) (pageSize, pgid, txid uint64, ok bool) {
		var m [64]byte
		if _, err := f.ReadAt(m[:], off+hdr); err != nil && err != io.EOF {
			return 0, 0, 0, false
		}
		le := binary.LittleEndian
		if le.Uint32(m[0:]) != 0xED0CDAED {
			return 0, 0, 0, false
		}
		h := fnv.New64a()
		h.Write(m[:56])
		if h.Sum64() != le.Uint64(m[56:]) {
			return 0, 0, 0, false
		}
		return uint64(le.Uint32(m[8:])), le.Uint64(m[40:]), le.Uint64(m[48:]), true
	}
	ps0, pg0, tx0, ok0 := read(0)
	var best struct{ ps, pg, tx uint64 }
	if ok0 {
		best.ps, best.pg, best.tx = ps0, pg0, tx0
	}
	for _, ps := range []uint64{ps0, 4096, 8192, 16384, 65536} {
		if ps == 0 {
			continue
		}
		if ps1, pg1, tx1, ok1 := read(int64(ps)); ok1 && ps1 == ps && (best.ps == 0 || tx1 > best.tx) {
			best.ps, best.pg, best.tx = ps1, pg1, tx1
			break
		}
	}
	if best.ps == 0 {
		return fmt.Errorf("%w: %s is not a cabinet file (no valid bbolt meta page)", ErrDamaged, path)
	}
	if need := int64(best.pg * best.ps); fi.Size() < need {
		return fmt.Errorf("%w: %s is truncated: %d bytes, its pages need %d (restore it from a backup)",
			ErrDamaged, path, fi.Size(), need)
	}
	return nil
}
