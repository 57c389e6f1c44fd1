package store

import (
	"testing"
	"unsafe"
)

// TestSlotRecordIsOneLine: on 64-bit platforms a slot record fills one
// 64-byte cache line exactly, so a leaf's records never straddle lines.
func TestSlotRecordIsOneLine(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("32-bit platform: records are smaller than a line")
	}
	if n := unsafe.Sizeof(slotRec{}); n != 64 {
		t.Fatalf("a slot record is %d bytes, want 64", n)
	}
}
