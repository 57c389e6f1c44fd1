package cabinet

import (
	"bufio"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/values"
)

const corruptEnv = "GOLDFISH_CORRUPT_CHILD" // "seed trials path" for the child

// buildCabinet writes a cabinet with a flushed session whose log goes on
// after the snapshot, a session with only a log, a session with only a
// snapshot, and a dropped one (its pages free), and returns its path.
func buildCabinet(t testing.TB, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "orig.gf")
	b, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	pad := strings.Repeat("p", 40)
	session := func(name string, steps, flushAt int, flushEnd bool) {
		g := store.New()
		for i := 1; i <= steps; i++ {
			tx := g.Begin()
			for j := range 4 {
				tx.InsertNode(tx.NewID(), []string{"TSK"}, values.MakeProps(map[string]values.Value{
					"n": values.Int(int64(i*10 + j)), "pad": values.String(pad)}))
			}
			snap := tx.Commit()
			e := Entry{Version: snap.Version(), Kind: EntryDelta, Text: fmt.Sprintf("INSERT (:TSK {n: $n}) /* %s */", pad),
				Params: map[string]values.Value{"n": values.Int(int64(i))}, Time: time.Unix(int64(i), 0).UTC()}
			if err := b.Append(name, e, MetaOf(name, snap, e.Time)).Wait(); err != nil {
				t.Fatal(err)
			}
			if i == flushAt || (flushEnd && i == steps) {
				if err := b.Flush(name, snap, MetaOf(name, snap, e.Time), snap); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	session("gone", 40, 30, false)
	session("alpha", 120, 80, false)
	session("beta", 60, 0, false)
	session("gamma", 30, 0, true)
	if err := b.Drop("gone"); err != nil {
		t.Fatal(err)
	}
	return path
}

// image is what a cabinet holds, as text, for comparisons.
func image(b *Bolt) (map[string]string, error) {
	metas, err := b.Sessions()
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, m := range metas {
		img, err := b.Load(m.Name)
		if err != nil {
			return nil, err
		}
		var s strings.Builder
		fmt.Fprintf(&s, "%+v\n%x\n", img.Meta, EncodeSnapshot(img.Graph.Snapshot()))
		for _, e := range img.Log {
			fmt.Fprintf(&s, "%d %s %v\n", e.Version, e.Text, e.Params)
		}
		out[m.Name] = s.String()
	}
	return out, nil
}

// TestCorruptChild runs the trials of TestCorruption (it does nothing
// otherwise): each damages a copy of the cabinet, then opens it, lists
// and loads its sessions. It prints "trial N WHAT" before each trial and
// "bad N: WHY" for a wrong outcome; a crash or a hang shows as a trial
// without its end.
func TestCorruptChild(t *testing.T) {
	spec := strings.Fields(os.Getenv(corruptEnv))
	if len(spec) != 3 {
		t.Skip("only run as the child of TestCorruption")
	}
	seed, _ := strconv.ParseUint(spec[0], 10, 64)
	trials, _ := strconv.Atoi(spec[1])
	orig := spec[2]
	out := bufio.NewWriter(os.Stdout)
	say := func(format string, args ...any) {
		fmt.Fprintf(out, format+"\n", args...)
		out.Flush()
	}
	raw, err := os.ReadFile(orig)
	if err != nil {
		say("bad -1: %v", err)
		return
	}
	b, err := Open(orig, nil)
	if err != nil {
		say("bad -1: %v", err)
		return
	}
	want, err := image(b)
	b.Close()
	if err != nil || len(want) != 3 {
		say("bad -1: reference image: %v (%d sessions)", err, len(want))
		return
	}
	const ps = 4096 // the test's files; the damage lands anywhere anyway
	pages := len(raw) / ps
	rng := rand.New(rand.NewPCG(seed, 7))
	path := filepath.Join(filepath.Dir(orig), "trial.gf")
	kept := 0
	for n := range trials {
		c := slices.Clone(raw)
		var what string
		lo := len(c) // lowest damaged offset
		hit := func(off, n int) {
			lo = min(lo, off)
			for i := off; i < off+n && i < len(c); i++ {
				c[i] = byte(rng.UintN(256))
			}
		}
		switch kind := n % 6; kind {
		case 0: // 16 random bytes anywhere
			off := rng.IntN(len(c))
			what = fmt.Sprintf("16 bytes at %d", off)
			hit(off, 16)
		case 1: // 8 bytes of a page header: id, or flags+count+overflow
			off := rng.IntN(pages)*ps + 8*rng.IntN(2)
			what = fmt.Sprintf("page header bytes at %d", off)
			hit(off, 8)
		case 2: // element headers of a page
			off := rng.IntN(pages)*ps + 16 + rng.IntN(96)
			what = fmt.Sprintf("4 element-header bytes at %d", off)
			hit(off, 4)
		case 3: // a few single bits
			k := 1 + rng.IntN(4)
			what = fmt.Sprintf("%d bit flips", k)
			for range k {
				off := rng.IntN(len(c))
				lo = min(lo, off)
				c[off] ^= 1 << rng.UintN(8)
				what += fmt.Sprintf(" %d", off)
			}
		case 4: // one page copied over another (a stale or misdirected write)
			from, to := rng.IntN(pages), rng.IntN(pages)
			what = fmt.Sprintf("page %d copied over page %d", from, to)
			copy(c[to*ps:(to+1)*ps], raw[from*ps:(from+1)*ps])
			lo = to * ps
		case 5: // a page zeroed
			p := rng.IntN(pages)
			what = fmt.Sprintf("page %d zeroed", p)
			clear(c[p*ps : (p+1)*ps])
			lo = p * ps
		}
		say("trial %d %s", n, what)
		if err := os.WriteFile(path, c, 0o600); err != nil {
			say("bad %d: %v", n, err)
			return
		}
		why, intact := trial(path, want, lo < 2*ps, n%2 == 1)
		if why != "" {
			say("bad %d: %s", n, why)
		}
		if intact {
			kept++
		}
	}
	say("done: %d of %d damaged files opened and loaded whole", kept, trials)
}

// trial opens a damaged cabinet and says what is wrong with the outcome
// ("" if nothing), and whether everything loaded: every step must work or
// fail with ErrDamaged naming the file, and what loads must be what was
// written, except that damage to a meta page may fall back to the state
// before the last write. With write, it then commits to every session that
// loaded and flushes one.
func trial(path string, want map[string]string, meta, write bool) (why string, intact bool) {
	damagedOK := func(step string, err error) string {
		if errors.Is(err, ErrDamaged) && strings.Contains(err.Error(), path) {
			return ""
		}
		return fmt.Sprintf("%s: an error that is not ErrDamaged naming the file: %v", step, err)
	}
	b, err := Open(path, nil)
	if err != nil {
		return damagedOK("Open", err), false
	}
	defer b.Close()
	metas, err := b.Sessions()
	if err != nil {
		return damagedOK("Sessions", err), false
	}
	if !meta && len(metas) != len(want) {
		return fmt.Sprintf("Sessions lists %d sessions, want %d", len(metas), len(want)), false
	}
	intact = true
	var tickets []*Ticket
	var flush func()
	for name, w := range want {
		img, err := b.Load(name)
		if err != nil {
			if why := damagedOK("Load "+name, err); why != "" {
				return why, false
			}
			intact = false
			continue
		}
		var s strings.Builder
		fmt.Fprintf(&s, "%+v\n%x\n", img.Meta, EncodeSnapshot(img.Graph.Snapshot()))
		for _, e := range img.Log {
			fmt.Fprintf(&s, "%d %s %v\n", e.Version, e.Text, e.Params)
		}
		if !meta && s.String() != w {
			return fmt.Sprintf("Load %s: loaded without error but differs", name), false
		}
		// Writing to what passed its checks must not crash either (bbolt
		// reads the pages it rewrites): an entry for every session, in one
		// group commit, and a flush, which rewrites a snapshot.
		if !write {
			continue
		}
		m := img.Meta
		m.Version++
		tickets = append(tickets, b.Append(name, Entry{Version: m.Version, Kind: EntryPurge, Time: time.Unix(1, 0).UTC()}, m))
		if snap := img.Graph.Snapshot(); snap.Version() > img.Meta.SnapVersion && flush == nil {
			flush = func() { _ = b.Flush(name, snap, img.Meta, snap) }
		}
	}
	for _, t := range tickets {
		t.Wait()
	}
	if flush != nil {
		flush()
	}
	return "", intact
}

// TestCorruption damages a real cabinet file in hundreds of ways (random
// bytes, page headers, element headers, bit flips, stale and zeroed
// pages) and checks that opening, listing and loading it either works or
// reports ErrDamaged: never a panic, a fault, a hang, or a session that
// loads wrong. The trials run in a child process, so a crash fails this
// test instead of ending the test binary. GOLDFISH_CORRUPT_SEED repeats a
// run; GOLDFISH_CORRUPT_TRIALS sets how many trials.
func TestCorruption(t *testing.T) {
	if os.Getenv(corruptEnv) != "" {
		t.Skip()
	}
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("GOLDFISH_CORRUPT_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	trials := 600
	if testing.Short() {
		trials = 120
	}
	if s := os.Getenv("GOLDFISH_CORRUPT_TRIALS"); s != "" {
		trials, _ = strconv.Atoi(s)
	}
	t.Logf("seed %d (GOLDFISH_CORRUPT_SEED=%d repeats this run), %d trials", seed, seed, trials)
	orig := buildCabinet(t, t.TempDir())
	cmd := exec.Command(os.Args[0], "-test.run=^TestCorruptChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d %d %s", corruptEnv, seed, trials, orig))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// A hang is a failure too; the limit is far above what the trials need.
	watchdog := time.AfterFunc(5*time.Minute, func() { cmd.Process.Kill() })
	defer watchdog.Stop()
	var last string
	done := false
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "trial "):
			last = line
		case strings.HasPrefix(line, "bad "):
			t.Errorf("%s (%s)", line, last)
		case strings.HasPrefix(line, "done"):
			done = true
			t.Log(line)
		}
	}
	err = cmd.Wait()
	if !done {
		tail := stderr.String()
		if len(tail) > 3000 {
			tail = tail[:3000]
		}
		t.Fatalf("the child died in %q (seed %d): %v\n%s", last, seed, err, tail)
	}
}
