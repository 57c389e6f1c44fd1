package cabinet

import (
	"bytes"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goldfish-gql/goldfish/store"
)

// fileState is what a read-only open must leave as it was: the file's
// bytes and modification time, and the names in its directory.
type fileState struct {
	data  []byte
	mtime time.Time
	names []string
}

func stateOf(t *testing.T, path string) fileState {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return fileState{data: data, mtime: fi.ModTime(), names: names}
}

func (s fileState) same(o fileState) bool {
	return bytes.Equal(s.data, o.data) && s.mtime.Equal(o.mtime) && strings.Join(s.names, "/") == strings.Join(o.names, "/")
}

// readOnlyDir makes the file 0444 in a 0555 directory until the test
// ends. As root the modes stop no write: the tests compare the file's
// state too.
func readOnlyDir(t *testing.T, path string) {
	t.Helper()
	dir := filepath.Dir(path)
	if err := os.Chmod(path, 0o444); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755); os.Chmod(path, 0o644) })
}

// TestReadOnlyReaders: two read-only openers of one cabinet at once, in
// a directory and of a file neither writable, read what a read-write
// open reads, refuse every write with ErrReadOnly, may back the file
// up, and leave the file, its time and its directory as they were (the
// file a compaction left over stays; a read-write open removes it).
func TestReadOnlyReaders(t *testing.T) {
	dir := t.TempDir()
	path := buildCabinet(t, dir)
	rw, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, err := image(rw)
	if err != nil {
		t.Fatal(err)
	}
	rw.Close()
	if err := os.WriteFile(path+compactSuffix, []byte("half written"), 0o600); err != nil {
		t.Fatal(err)
	}
	backups := t.TempDir()
	readOnlyDir(t, path)
	time.Sleep(10 * time.Millisecond) // a write would move the time
	before := stateOf(t, path)

	var readers []*Bolt
	for range 2 {
		b, err := Open(path, &Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		readers = append(readers, b)
	}
	for i, b := range readers {
		got, err := image(b)
		if err != nil {
			t.Fatal(err)
		}
		if !maps.Equal(got, want) {
			t.Fatalf("reader %d reads\n%v\nwant\n%v", i, got, want)
		}
		if _, err := b.History("alpha", 90, 100); err != nil {
			t.Fatalf("reader %d: History: %v", i, err)
		}
		if _, err := b.Dropped(); err != nil {
			t.Fatal(err)
		}
		snap := store.New().Snapshot()
		for what, err := range map[string]error{
			"Append":        b.Append("alpha", Entry{Version: 121, Kind: EntryDelta, Text: "INSERT (:A)"}, Meta{Name: "alpha", Version: 121}).Wait(),
			"SaveAttention": b.SaveAttention("alpha", []byte("x")).Wait(),
			"Flush":         b.Flush("alpha", snap, MetaOf("alpha", snap, time.Time{}), nil),
			"Drop":          b.Drop("alpha"),
		} {
			if !errors.Is(err, ErrReadOnly) || !strings.Contains(err.Error(), path) {
				t.Errorf("reader %d: %s: %v, want ErrReadOnly naming the file", i, what, err)
			}
		}
		copyPath := filepath.Join(backups, "copy.gf")
		if err := b.Backup(copyPath); err != nil {
			t.Fatalf("reader %d: Backup: %v", i, err)
		}
		os.Remove(copyPath)
	}
	for _, b := range readers {
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
		if err := b.Close(); err != nil {
			t.Fatalf("second Close: %v", err)
		}
	}
	if after := stateOf(t, path); !after.same(before) {
		t.Fatalf("a read-only open changed the file or its directory: %d bytes at %v, %v; were %d at %v, %v",
			len(after.data), after.mtime, after.names, len(before.data), before.mtime, before.names)
	}
}

// TestReadOnlyLocks: a read-only open while a writer holds the file,
// and a writer while a reader holds it, get ErrInUse naming the file;
// readers share it.
func TestReadOnlyLocks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.gf")
	ro := &Options{ReadOnly: true, LockTimeout: 50 * time.Millisecond}
	w, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Open(path, ro); !errors.Is(err, ErrInUse) || !strings.Contains(err.Error(), path) {
		t.Fatalf("read-only open beside a writer: %v", err)
	}
	w.Close()
	r1, err := Open(path, ro)
	if err != nil {
		t.Fatal(err)
	}
	defer r1.Close()
	r2, err := Open(path, ro)
	if err != nil {
		t.Fatalf("second reader: %v", err)
	}
	defer r2.Close()
	if _, err := Open(path, &Options{LockTimeout: 50 * time.Millisecond}); !errors.Is(err, ErrInUse) || !strings.Contains(err.Error(), path) {
		t.Fatalf("writer beside readers: %v", err)
	}
}

// TestReadOnlyRefuses: what a read-only open cannot open without
// writing, or cannot read, fails with an error that says so, and writes
// nothing: no file where there was none, an empty file, a format-1 file
// (to migrate), a truncated file (damaged).
func TestReadOnlyRefuses(t *testing.T) {
	format1, err := os.ReadFile(filepath.Join("testdata", "format1.gf"))
	if err != nil {
		t.Fatal(err)
	}
	good := buildCabinet(t, t.TempDir())
	raw, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		data []byte // nil: no file
		want string
		is   error
	}{
		{"missing", nil, "no cabinet at", fs.ErrNotExist},
		{"empty", []byte{}, "is an empty file, not a cabinet yet", nil},
		{"format1", format1, "has cabinet format 1", nil},
		{"truncated", raw[:len(raw)/2], "is truncated", ErrDamaged},
		{"meta pages only", raw[:8192], "", ErrDamaged},
		{"garbage", bytes.Repeat([]byte{0xff}, 16384), "", ErrDamaged},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "c.gf")
			if c.data != nil {
				if err := os.WriteFile(path, c.data, 0o600); err != nil {
					t.Fatal(err)
				}
				readOnlyDir(t, path)
			}
			var before fileState
			if c.data != nil {
				before = stateOf(t, path)
			}
			b, err := Open(path, &Options{ReadOnly: true})
			if err == nil {
				b.Close()
				t.Fatal("opened")
			}
			if !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), path) || c.is != nil && !errors.Is(err, c.is) {
				t.Fatalf("error %q; want one naming the file, with %q (%v)", err, c.want, c.is)
			}
			if c.is == nil && !strings.Contains(err.Error(), "once without read-only") {
				t.Fatalf("error %q does not say to open it read-write once", err)
			}
			if c.data == nil {
				if _, err := os.Stat(path); !os.IsNotExist(err) {
					t.Fatalf("a read-only open made %s: %v", path, err)
				}
				return
			}
			if after := stateOf(t, path); !after.same(before) {
				t.Fatal("a read-only open changed the file")
			}
		})
	}
}

// TestReadOnlyRace: readers opening and closing while a writer does, in
// a loop until each opened ten times: each open succeeds or gets
// ErrInUse, never another error, and every successful reader reads the
// whole cabinet.
func TestReadOnlyRace(t *testing.T) {
	path := buildCabinet(t, t.TempDir())
	rw, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, err := image(rw)
	rw.Close()
	if err != nil {
		t.Fatal(err)
	}
	opts := []*Options{{LockTimeout: time.Millisecond}, {ReadOnly: true, LockTimeout: time.Millisecond}}
	var wg sync.WaitGroup
	var mu sync.Mutex
	opened := map[bool]int{}
	for g := range 6 {
		o := opts[min(g, 1)] // one writer, five readers
		wg.Add(1)
		go func() {
			defer wg.Done()
			deadline := time.Now().Add(20 * time.Second)
			for n := 0; n < 10 && time.Now().Before(deadline); {
				b, err := Open(path, o)
				if errors.Is(err, ErrInUse) {
					time.Sleep(time.Millisecond)
					continue
				}
				n++
				if err != nil {
					t.Errorf("read-only %v: %v", o.ReadOnly, err)
					return
				}
				got, err := image(b)
				if err == nil && !maps.Equal(got, want) {
					err = errors.New("another image")
				}
				if err != nil {
					t.Errorf("read-only %v: %v", o.ReadOnly, err)
				}
				b.Close()
				mu.Lock()
				opened[o.ReadOnly]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if opened[true] == 0 || opened[false] == 0 {
		t.Fatalf("opened: %v", opened)
	}
}
