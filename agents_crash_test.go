package goldfish_test

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/goldfish-gql/goldfish"
)

const agentsCrashEnv = "GOLDFISH_AGENTS_CRASH_CHILD"

// agentsCrashNames are the child's agents: c* read a few times, then
// commit; r* only read.
var agentsCrashNames = []string{"c0", "c1", "c2", "r0", "r1"}

// TestAgentsCrashChild is the child of TestAgentsCrash (it does nothing
// otherwise). Each agent runs in a goroutine of its own and, after each of
// its Recalls, publishes its read count and the version it read. It prints
//
//	start NAME READS            the count hydrated, before anything runs
//	read NAME                   after each Recall
//	ack NAME V A:V:R…           after each Commit returned (durable), V its
//	                            version, then for every agent A the
//	                            version V and count R it had published
//	                            before that Commit began
//
// until it is killed.
func TestAgentsCrashChild(t *testing.T) {
	path := os.Getenv(agentsCrashEnv)
	if path == "" {
		t.Skip("only run as the child of TestAgentsCrash")
	}
	fail := func(err error) {
		fmt.Println("error", err)
		os.Exit(2)
	}
	ctx := context.Background()
	db, err := goldfish.Open(goldfish.WithCabinet(path), goldfish.WithAutoFlush(40, 0))
	if err != nil {
		fail(err)
	}
	s, err := db.Session(ctx, "crash")
	if err != nil {
		fail(err)
	}
	list, err := s.Agents(ctx)
	if err != nil {
		fail(err)
	}
	start := map[string]uint64{}
	for _, a := range list {
		start[a.Name] = a.Reads
	}
	var mu sync.Mutex
	out := bufio.NewWriter(os.Stdout)
	say := func(format string, args ...any) {
		mu.Lock()
		fmt.Fprintf(out, format+"\n", args...)
		out.Flush()
		mu.Unlock()
	}
	published := make([]atomic.Pointer[[2]uint64], len(agentsCrashNames))
	for i, name := range agentsCrashNames {
		say("start %s %d", name, start[name])
		published[i].Store(&[2]uint64{0, start[name]})
	}
	say("ready")
	// Each child's steps are new nodes, not echoes of an earlier child's
	// (which would apply nothing, docs/design.md#commit), so every Commit applies.
	run := time.Now().UnixNano()
	for i, name := range agentsCrashNames {
		go func() {
			rng := rand.New(rand.NewPCG(uint64(i), uint64(time.Now().UnixNano())))
			reads := start[name]
			for n := 0; ; n++ {
				sh, err := s.Recall(ctx, `MATCH (s:STEP) LIMIT 2`, goldfish.RecallOptions{NoPeaks: true, Agent: name})
				if err != nil {
					fail(err)
				}
				reads++
				published[i].Store(&[2]uint64{sh.Version, reads})
				say("read %s", name)
				if name[0] == 'r' || rng.IntN(3) != 0 {
					time.Sleep(100 * time.Microsecond)
					continue
				}
				var seen strings.Builder
				for j, a := range agentsCrashNames {
					p := published[j].Load()
					fmt.Fprintf(&seen, " %s:%d:%d", a, p[0], p[1])
				}
				res, err := s.CommitWith(ctx, `INSERT (:STEP {by: $by, n: $n, run: $run})`, map[string]any{"by": name, "n": n, "run": run},
					goldfish.CommitOptions{Agent: name})
				if err != nil {
					fail(err)
				}
				say("ack %s %d%s", name, res.Version, seen.String())
			}
		}()
	}
	select {}
}

// TestAgentsCrash kills a child that reads and commits as several agents
// with SIGKILL at random moments, and checks after each kill that what
// the reopened session keeps per agent lags only by reads:
//
//   - at least what the agent had published before any acknowledged
//     Commit began (its count and the version it read): the Commit's
//     record was queued before its log entry, after those reads, so it is
//     durable with it — whichever agent committed;
//   - at most the count it started the run with plus the Recalls it
//     printed plus the one it may have had in flight, and a version no
//     newer than the recovered one (a Recall reads only durable versions).
//
// It logs its seed; set GOLDFISH_CRASH_SEED to replay the same kill times.
func TestAgentsCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test takes a few seconds")
	}
	if os.Getenv(agentsCrashEnv) != "" {
		t.Skip()
	}
	path := filepath.Join(t.TempDir(), "crash.gf")
	rng := crashRand(t, 2)
	floor := map[string][2]uint64{} // agent → the highest version, count an ack vouched for
	acks, lagged := 0, 0
	for kill := 0; kill < 12 || acks < 200; kill++ {
		if kill > 60 {
			t.Fatalf("only %d acknowledged Commits after %d kills", acks, kill)
		}
		cmd, lines := startChild(t, "TestAgentsCrashChild", agentsCrashEnv, path)
		start, printed := map[string]uint64{}, map[string]uint64{}
		killAfterReady(cmd, lines, time.Duration(rng.IntN(150)+5)*time.Millisecond, func(f []string) {
			switch {
			case len(f) == 1 && f[0] == "ready":
			case len(f) == 3 && f[0] == "start":
				start[f[1]], _ = strconv.ParseUint(f[2], 10, 64)
			case len(f) == 2 && f[0] == "read":
				printed[f[1]]++
			case len(f) == 3+len(agentsCrashNames) && f[0] == "ack":
				acks++
				for _, seen := range f[3:] {
					p := strings.Split(seen, ":")
					v, _ := strconv.ParseUint(p[1], 10, 64)
					r, _ := strconv.ParseUint(p[2], 10, 64)
					fl := floor[p[0]]
					floor[p[0]] = [2]uint64{max(fl[0], v), max(fl[1], r)}
				}
			default:
				t.Fatalf("child: %v", f)
			}
		})

		db := openCab(t, path)
		s := mustSession(t, db, "crash")
		got := map[string]goldfish.AgentInfo{}
		for _, a := range mustAgents(t, s) {
			got[a.Name] = a
		}
		for _, name := range agentsCrashNames {
			a, fl := got[name], floor[name]
			if a.LastRead < fl[0] || a.Reads < fl[1] {
				t.Fatalf("kill %d: agent %s recovered last read v%d, %d reads; an acknowledged Commit vouched for v%d, %d reads",
					kill, name, a.LastRead, a.Reads, fl[0], fl[1])
			}
			if most := start[name] + printed[name] + 1; a.Reads > most {
				t.Fatalf("kill %d: agent %s recovered %d reads, more than the %d it could have made", kill, name, a.Reads, most)
			}
			if a.LastRead > s.Version() {
				t.Fatalf("kill %d: agent %s read v%d, newer than the recovered v%d", kill, name, a.LastRead, s.Version())
			}
			if a.Reads < start[name]+printed[name] {
				lagged++
			}
		}
		db.Close()
	}
	t.Logf("%d acknowledged Commits; %d times an agent's recovered count missed reads it had made", acks, lagged)
}

// mustAgents is the session's agents, failing the test on an error.
func mustAgents(t testing.TB, s *goldfish.Session) []goldfish.AgentInfo {
	t.Helper()
	list, err := s.Agents(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return list
}
