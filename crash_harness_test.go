package goldfish_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/postgres"
	"github.com/goldfish-gql/goldfish/store"
)

// The crash tests' one harness: a child test run in a process of its
// own, which prints what it did line by line and is killed with SIGKILL;
// the parent reads the lines and then checks what a reopened database
// holds. TestCrashRecovery (a cabinet file), TestPostgresKillHost (two
// hosts on PostgreSQL) and TestAgentsCrash (the agents' record) run on it.

// stepsEnv names the backend of TestCrashChild: "bbolt PATH" or
// "postgres URL SCHEMA HOST".
const stepsEnv = "GOLDFISH_CRASH_CHILD"

// crashRand is the kill times' source: GOLDFISH_CRASH_SEED replays a
// run's, whose seed the test logs.
func crashRand(t *testing.T, stream uint64) *rand.Rand {
	t.Helper()
	seed := uint64(time.Now().UnixNano())
	if env := os.Getenv("GOLDFISH_CRASH_SEED"); env != "" {
		var err error
		if seed, err = strconv.ParseUint(env, 10, 64); err != nil {
			t.Fatalf("GOLDFISH_CRASH_SEED: %v", err)
		}
	}
	t.Logf("seed %d (GOLDFISH_CRASH_SEED=%d replays the kill times)", seed, seed)
	return rand.New(rand.NewPCG(stream, seed))
}

// startChild runs the test child in a process of its own with env set
// to value; each line it prints comes on lines, closed when it exits.
func startChild(t *testing.T, child, env, value string) (*exec.Cmd, <-chan string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+child+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), env+"="+value)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 1024)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	return cmd, lines
}

// killAfterReady hands each line of the child to onLine, split into
// fields, and kills the child killAt after its line "ready …"; it
// returns once the child has exited.
func killAfterReady(cmd *exec.Cmd, lines <-chan string, killAt time.Duration, onLine func(f []string)) {
	var timer <-chan time.Time
	for line := range lines {
		f := strings.Fields(line)
		if len(f) > 0 && f[0] == "ready" {
			timer = time.After(killAt)
		}
		onLine(f)
		select {
		case <-timer:
			cmd.Process.Signal(syscall.SIGKILL)
			timer = nil
		default:
		}
	}
	cmd.Wait()
}

// TestCrashChild is the child of TestCrashRecovery and TestPostgresKillHost
// (it does nothing otherwise): on the backend stepsEnv names, four
// writers commit numbered Δs to one session, each printing "ack VERSION
// N" once its Commit has returned, and a reader prints "read VERSION" for
// each Recall, after "ready VERSION", until killed.
func TestCrashChild(t *testing.T) {
	arg := strings.Fields(os.Getenv(stepsEnv))
	if len(arg) == 0 {
		t.Skip("only run as the child of TestCrashRecovery or TestPostgresKillHost")
	}
	fail := func(err error) {
		fmt.Println("error", err)
		os.Exit(2)
	}
	var db *goldfish.DB
	var err error
	var first func(version uint64) int64 // the first n, unique across runs and hosts
	switch arg[0] {
	case "bbolt":
		db, err = goldfish.Open(goldfish.WithCabinet(arg[1]), goldfish.WithAutoFlush(300, 0))
		first = func(v uint64) int64 { return int64(v) * 1000 }
	case "postgres":
		host, _ := strconv.Atoi(arg[3])
		db, err = goldfish.Open(postgres.Cabinet(arg[1], postgres.Options{Schema: arg[2], PollInterval: 50 * time.Millisecond}), goldfish.WithAutoFlush(150, 0))
		first = func(uint64) int64 { return int64(host) << 32 }
	default:
		err = fmt.Errorf("%s=%q names no backend", stepsEnv, os.Getenv(stepsEnv))
	}
	if err != nil {
		fail(err)
	}
	s, err := db.Session(context.Background(), "crash")
	if err != nil {
		fail(err)
	}
	var next atomic.Int64
	next.Store(first(s.Version()))
	var mu sync.Mutex
	out := bufio.NewWriter(os.Stdout)
	say := func(err error, format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			fmt.Fprintln(out, "error", err)
		} else {
			fmt.Fprintf(out, format+"\n", args...)
		}
		out.Flush()
		if err != nil {
			os.Exit(2)
		}
	}
	fmt.Println("ready", s.Version())
	go func() {
		for {
			sh, err := s.Recall(context.Background(), `MATCH (s:STEP) LIMIT 1`, goldfish.RecallOptions{NoPeaks: true})
			if err == nil {
				say(nil, "read %d", sh.Version)
			} else {
				say(err, "")
			}
			time.Sleep(200 * time.Microsecond)
		}
	}()
	for range 4 {
		go func() {
			for {
				n := next.Add(1)
				res, err := s.Commit(context.Background(), `INSERT (:STEP {n: $n})`, map[string]any{"n": n})
				var ge *goldfish.Error
				if errors.As(err, &ge) && ge.Code == goldfish.CodeSerializationFailure {
					continue // another host took the version: not acknowledged, nothing applied
				}
				if err == nil {
					say(nil, "ack %d %d", res.Version, n)
				} else {
					say(err, "")
				}
			}
		}()
	}
	select {}
}

// steps reads the lines of TestCrashChild: the acknowledged steps (n →
// version), the last version acknowledged and the last version read.
type steps struct {
	mu              sync.Mutex
	acked           map[int64]uint64
	maxAck, maxRead uint64
}

// line takes one line of a child; it reports false for a line that is
// not one TestCrashChild prints.
func (st *steps) line(f []string) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	switch {
	case len(f) == 2 && f[0] == "ready":
	case len(f) == 3 && f[0] == "ack":
		v, _ := strconv.ParseUint(f[1], 10, 64)
		n, _ := strconv.ParseInt(f[2], 10, 64)
		if st.acked == nil {
			st.acked = map[int64]uint64{}
		}
		st.acked[n] = v
		st.maxAck = max(st.maxAck, v)
	case len(f) == 2 && f[0] == "read":
		v, _ := strconv.ParseUint(f[1], 10, 64)
		st.maxRead = max(st.maxRead, v)
	default:
		return false
	}
	return true
}

// check checks a reopened session: every acknowledged step exactly once,
// one version per step, none below the last acknowledged or read. It
// returns the version and the steps' count.
func (st *steps) check(t *testing.T, s *goldfish.Session) (uint64, int) {
	t.Helper()
	st.mu.Lock()
	defer st.mu.Unlock()
	snap := goldfish.SnapshotOf(s)
	v := snap.Version()
	seen := map[int64]int{}
	snap.ScanLabel("STEP", func(n *store.Node) bool {
		x, _ := n.Props.Get("n")
		seen[x.AsInt()]++
		return true
	})
	if v < st.maxAck || v < st.maxRead {
		t.Fatalf("recovered version %d; the last acknowledged %d, the last read %d", v, st.maxAck, st.maxRead)
	}
	if uint64(len(seen)) != v || uint64(snap.NodeCount()) != v {
		t.Fatalf("version %d but %d steps, %d nodes: a Δ lost or applied twice", v, len(seen), snap.NodeCount())
	}
	for n, c := range seen {
		if c != 1 {
			t.Fatalf("step %d present %d times", n, c)
		}
	}
	for n, av := range st.acked {
		if seen[n] != 1 {
			t.Fatalf("acknowledged step %d (version %d) present %d times (recovered version %d)", n, av, seen[n], v)
		}
	}
	return v, len(seen)
}
