package cabinet

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/values"
)

// bigSession appends steps entries to name, each with 1000 nodes of
// about 60 bytes, flushes the snapshot, and returns the graph.
func bigSession(t *testing.T, b *Bolt, name string, steps int) *store.Graph {
	t.Helper()
	g := store.New()
	pad := strings.Repeat("x", 40)
	for i := range steps {
		tx := g.Begin()
		for j := range 1000 {
			tx.InsertNode(tx.NewID(), []string{"TSK"}, values.MakeProps(map[string]values.Value{
				"n": values.Int(int64(i*1000 + j)), "pad": values.String(pad)}))
		}
		snap := tx.Commit()
		e := Entry{Version: snap.Version(), Kind: EntryDelta, Text: "INSERT (:TSK)", Time: time.Unix(1, 0).UTC()}
		if err := b.Append(name, e, MetaOf(name, snap, e.Time)).Wait(); err != nil {
			t.Fatal(err)
		}
	}
	snap := g.Snapshot()
	if err := b.Flush(name, snap, MetaOf(name, snap, time.Unix(1, 0).UTC()), snap); err != nil {
		t.Fatal(err)
	}
	return g
}

func appendOne(t *testing.T, b *Bolt, name string, g *store.Graph) {
	t.Helper()
	tx := g.Begin()
	tx.InsertNode(tx.NewID(), []string{"NOTE"}, nil)
	snap := tx.Commit()
	e := Entry{Version: snap.Version(), Kind: EntryDelta, Text: "INSERT (:NOTE)", Time: time.Unix(2, 0).UTC()}
	if err := b.Append(name, e, MetaOf(name, snap, e.Time)).Wait(); err != nil {
		t.Fatal(err)
	}
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

// TestSmallCommitWritesLittle: after a 20k-node session was flushed, a
// one-node entry writes a few pages (its log leaf, the index record's
// leaf and the branches above them), not the snapshot again.
func TestSmallCommitWritesLittle(t *testing.T) {
	b, err := Open(filepath.Join(t.TempDir(), "c.gf"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	g := bigSession(t, b, "big", 20)
	alloc := func() int64 { st := b.db.Stats(); return st.TxStats.GetPageAlloc() }
	before := alloc()
	const n = 20
	for range n {
		appendOne(t, b, "big", g)
	}
	per := (alloc() - before) / n
	if per > 64<<10 {
		t.Fatalf("a one-node entry wrote %d bytes of pages after a flush of 20k nodes, want at most 64 KiB", per)
	}
}

// TestDropGivesSpaceBack: a file whose only big session was dropped
// shrinks when it is closed, and a copy of it (never closed by its
// writer) shrinks when it is opened.
func TestDropGivesSpaceBack(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.gf")
	b, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	bigSession(t, b, "big", 20)
	small := store.New()
	appendOne(t, b, "small", small)
	full := fileSize(t, path)
	if err := b.Drop("big"); err != nil {
		t.Fatal(err)
	}
	copyPath := filepath.Join(dir, "copy.gf")
	if err := b.Backup(copyPath); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if got := fileSize(t, path); got > 128<<10 {
		t.Fatalf("closed after dropping its big session: %d bytes (%d before the drop), want at most 128 KiB", got, full)
	}
	c, err := Open(copyPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := fileSize(t, copyPath); got > 128<<10 {
		t.Fatalf("a copy with the big session dropped is %d bytes once opened, want at most 128 KiB", got)
	}
	if _, err := os.Stat(copyPath + compactSuffix); !os.IsNotExist(err) {
		t.Fatalf("the compaction left %s behind: %v", copyPath+compactSuffix, err)
	}
	for _, c := range []*Bolt{c} {
		metas, err := c.Sessions()
		if err != nil || len(metas) != 1 || metas[0].Name != "small" || metas[0].Version != 1 {
			t.Fatalf("after compaction: %+v %v", metas, err)
		}
		if _, err := c.Load("small"); err != nil {
			t.Fatal(err)
		}
		appendOne(t, c, "small", small) // and it goes on taking writes
	}
	c.Close()
	c, err = Open(copyPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if img, err := c.Load("small"); err != nil || img.Meta.Version != 2 {
		t.Fatalf("reopened: %v", err)
	}
}

// TestFlushReusesSpace: flushing a large session over and over reuses the
// pages of the snapshots it replaces; the file stops growing.
func TestFlushReusesSpace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.gf")
	b, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	g := bigSession(t, b, "big", 10)
	var sizes []int64
	for range 12 {
		appendOne(t, b, "big", g)
		snap := g.Snapshot()
		if err := b.Flush("big", snap, MetaOf("big", snap, time.Unix(3, 0).UTC()), snap); err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, fileSize(t, path))
	}
	if sizes[len(sizes)-1] > sizes[2] {
		t.Fatalf("the file grows with every flush of the same session: %v", sizes)
	}
}

// TestCompactionKeepsLock: a process that opens the file while another
// rewrites it (here: migrates it from format 1) must not end up using the
// replaced file: it waits, then opens the new one, and finds what the
// other process wrote there.
func TestCompactionKeepsLock(t *testing.T) {
	if !canCompact {
		t.Skip("no compaction on this system")
	}
	raw, err := os.ReadFile(filepath.Join("testdata", "format1.gf"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "c.gf")
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var second *Bolt
	var secondErr error
	beforeRename = func() {
		beforeRename = nil
		wg.Add(1)
		go func() { // opens the old file and waits for its lock, released only after the rename
			defer wg.Done()
			second, secondErr = Open(path, &Options{LockTimeout: time.Minute})
		}()
		time.Sleep(100 * time.Millisecond) // let it reach its wait (if it is late, it simply opens the new file)
	}
	defer func() { beforeRename = nil }()
	b, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	appendOne(t, b, "after", store.New())
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if secondErr != nil {
		t.Fatal(secondErr)
	}
	defer second.Close()
	if img, err := second.Load("after"); err != nil || img.Meta.Version != 1 {
		t.Fatalf("the second opener does not see what the first wrote after its migration: %v", err)
	}
}

// TestInUseWhileOpen: a second Open of a file in use fails with ErrInUse
// naming the file.
func TestInUseWhileOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.gf")
	b, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	_, err = Open(path, nil)
	if !errors.Is(err, ErrInUse) || !strings.Contains(err.Error(), path) {
		t.Fatalf("second Open: %v", err)
	}
}

// TestMigrateFormat1 opens a format-1 file (testdata/format1.gf, written
// by the first release; see TestCabinetFormat1 in the root package for
// what it holds): Open rewrites it in format 2 with every session's
// records and removes a compaction file left over by a crash, and a
// second Open finds format 2. Migrating in place (where the file cannot
// be renamed over) gives the same sessions.
func TestMigrateFormat1(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "format1.gf"))
	if err != nil {
		t.Fatal(err)
	}
	for _, inPlace := range []bool{false, true} {
		dir := t.TempDir()
		path := filepath.Join(dir, "old.gf")
		if err := os.WriteFile(path, raw, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path+compactSuffix, []byte("half written"), 0o600); err != nil {
			t.Fatal(err)
		}
		if inPlace {
			db, err := bolt.Open(path, 0o600, &bolt.Options{NoFreelistSync: true})
			if err != nil {
				t.Fatal(err)
			}
			if err := migrateInPlace(db, path); err != nil {
				t.Fatal(err)
			}
			db.Close()
		}
		for round := range 2 {
			b, err := Open(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			var format []byte
			b.db.View(func(tx *bolt.Tx) error {
				format = bytes.Clone(tx.Bucket(bucketRoot).Get(keyFormat))
				return nil
			})
			if string(format) != "2" {
				t.Fatalf("in place %v, round %d: format %q", inPlace, round, format)
			}
			metas, err := b.Sessions()
			if err != nil {
				t.Fatal(err)
			}
			var s strings.Builder
			for _, m := range metas {
				img, err := b.Load(m.Name)
				if err != nil {
					t.Fatal(err)
				}
				fmt.Fprintf(&s, "%s v%d snap v%d log %d nodes %d\n", m.Name, m.Version, m.SnapVersion, len(img.Log), img.Graph.Snapshot().NodeCount())
			}
			const want = "flushed v1 snap v1 log 0 nodes 1\nplain v3 snap v0 log 3 nodes 0\nwork v14 snap v12 log 2 nodes 4\n"
			if s.String() != want {
				t.Fatalf("in place %v, round %d: migrated\n%s\nwant\n%s", inPlace, round, s.String(), want)
			}
			b.Close()
			if _, err := os.Stat(path + compactSuffix); canCompact && !os.IsNotExist(err) {
				t.Fatalf("%s is still there: %v", path+compactSuffix, err)
			}
		}
	}
}

const compactCrashEnv = "GOLDFISH_COMPACT_CRASH_CHILD"

// TestCompactionCrashChild is the child of TestCompactionCrash (it does
// nothing otherwise): it opens the cabinet, which compacts it, and closes it.
func TestCompactionCrashChild(t *testing.T) {
	path := os.Getenv(compactCrashEnv)
	if path == "" {
		t.Skip("only run as the child of TestCompactionCrash")
	}
	b, err := Open(path, nil)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	b.Close()
	fmt.Println("done")
}

// TestCompactionCrash kills a process while Open compacts the cabinet, at
// random moments, and checks that the file then opens whole every time.
func TestCompactionCrash(t *testing.T) {
	if !canCompact {
		t.Skip("no compaction on this system")
	}
	if os.Getenv(compactCrashEnv) != "" {
		t.Skip()
	}
	dir := t.TempDir()
	orig := filepath.Join(dir, "orig.gf")
	b, err := Open(orig, nil)
	if err != nil {
		t.Fatal(err)
	}
	bigSession(t, b, "kept", 10)
	bigSession(t, b, "dropped", 30)
	if err := b.Drop("dropped"); err != nil {
		t.Fatal(err)
	}
	want, err := image(b)
	if err != nil {
		t.Fatal(err)
	}
	// A copy, so that Close does not compact the original.
	if err := b.Backup(orig + ".copy"); err != nil {
		t.Fatal(err)
	}
	b.Close()
	raw, err := os.ReadFile(orig + ".copy")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "c.gf")
	compacted := 0
	for i := range 16 {
		if err := os.WriteFile(path, raw, 0o600); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestCompactionCrashChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), compactCrashEnv+"="+path)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(i*4) * time.Millisecond) // from at once to after the compaction
		cmd.Process.Kill()
		cmd.Wait()
		if fileSize(t, path) < int64(len(raw)) {
			compacted++
		}
		b, err := Open(path, nil)
		if err != nil {
			t.Fatalf("kill %d: %v", i, err)
		}
		got, err := image(b)
		b.Close()
		if err != nil || len(got) != 1 || got["kept"] != want["kept"] {
			t.Fatalf("kill %d: the cabinet differs after a kill during compaction (%v)", i, err)
		}
	}
	t.Logf("%d of 16 kills came after the rename", compacted)
}

// TestCompactionFollowsSymlink: compacting a cabinet opened through a
// symbolic link replaces the file it points to, not the link.
func TestCompactionFollowsSymlink(t *testing.T) {
	if !canCompact {
		t.Skip("no compaction on this system")
	}
	dir := t.TempDir()
	real, link := filepath.Join(dir, "real.gf"), filepath.Join(dir, "link.gf")
	b, err := Open(real, nil)
	if err != nil {
		t.Fatal(err)
	}
	b.Close()
	if err := os.Symlink(real, link); err != nil {
		t.Skip(err)
	}
	b, err = Open(link, nil)
	if err != nil {
		t.Fatal(err)
	}
	bigSession(t, b, "big", 20)
	appendOne(t, b, "small", store.New())
	if err := b.Drop("big"); err != nil {
		t.Fatal(err)
	}
	b.Close()
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link is no longer a link: %v %v", st.Mode(), err)
	}
	if got := fileSize(t, real); got > 128<<10 {
		t.Fatalf("the file behind the link was not compacted: %d bytes", got)
	}
	b, err = Open(link, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if _, err := b.Load("small"); err != nil {
		t.Fatal(err)
	}
}
