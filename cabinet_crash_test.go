package goldfish_test

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// TestCrashRecovery kills a committing child (TestCrashChild on a cabinet
// file) with SIGKILL at random moments and checks after each kill that
// reopening yields every acknowledged Δ exactly once, no version below
// the last acknowledged and none below the last one a Recall saw, and at
// most four (one per writer) past the later of the last acknowledged
// version and the one the killed child started from. It logs its seed;
// set GOLDFISH_CRASH_SEED to replay the same kill times.
func TestCrashRecovery(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test takes ~30 s")
	}
	if os.Getenv(stepsEnv) != "" {
		t.Skip()
	}
	path := filepath.Join(t.TempDir(), "crash.gf")
	rng := crashRand(t, 1)
	var st steps
	kills, deadline := 0, time.Now().Add(40*time.Second)
	for kills < 25 || (len(st.acked) < 4000 && time.Now().Before(deadline)) {
		if time.Now().After(deadline.Add(20 * time.Second)) {
			t.Fatalf("ran out of time after %d kills, %d acks", kills, len(st.acked))
		}
		cmd, lines := startChild(t, "TestCrashChild", stepsEnv, "bbolt "+path)
		var start uint64 // the version this child opened: the last one's unacknowledged Commits included
		killAfterReady(cmd, lines, time.Duration(rng.IntN(250)+5)*time.Millisecond, func(f []string) {
			if len(f) == 2 && f[0] == "ready" {
				start, _ = strconv.ParseUint(f[1], 10, 64)
			}
			if !st.line(f) {
				t.Fatalf("child: %v", f)
			}
		})
		kills++
		db := openCab(t, path)
		v, _ := st.check(t, mustSession(t, db, "crash"))
		if base := max(st.maxAck, start); v > base+4 { // at most 4 commits in flight, durable but not yet printed
			t.Fatalf("recovered version %d, more than four past %d", v, base)
		}
		db.Close()
	}
	t.Logf("%d kills, %d acknowledged commits, last version %d, last version read %d", kills, len(st.acked), st.maxAck, st.maxRead)
}
