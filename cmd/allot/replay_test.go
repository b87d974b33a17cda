package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/allot-sim/allot/live/local"
)

// About 30 jobs of two teams on 8 devices, research borrowing and prod
// reclaiming, run by real processes 1,200 times faster than their times:
// the live daemon takes the simulator's decisions in the simulator's order
// and uses the devices as much, within 2 percentage points. A machine too
// loaded to keep up (a decision more than 10 minutes of workload time
// late) makes the run say nothing: it is run again 4 times slower.
func TestLiveReplayTakesTheSimulatorsDecisionsInItsOrder(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real processes for about 25 s")
	}
	text := liveReplay(t, 1200)
	if late := replayLatency(t, text) * 1200; late > 600_000 && !strings.Contains(text, "live and sim agree") {
		t.Logf("a decision was %.0f s of workload time late at 1200x: the machine did not keep up; again at 300x\n%s", late/1000, text)
		text = liveReplay(t, 300)
	}
	t.Log("\n" + text)
	preempts := regexp.MustCompile(`sim: +(\d+) admissions, (\d+) preemptions`).FindStringSubmatch(text)
	if preempts == nil {
		t.Fatalf("no sim line in:\n%s", text)
	}
	if n, _ := strconv.Atoi(preempts[2]); n < 2 {
		t.Errorf("the sim preempted %d times: the scenario should reclaim borrowed devices a few times", n)
	}
	for _, want := range []string{"0 pairs out of order, 0 only in sim, 0 only live", "live and sim agree"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q", want)
		}
	}
}

// liveReplay runs replay-small at a speedup and returns what it printed;
// a disagreement (exit 1) is returned too, other failures are fatal.
func liveReplay(t *testing.T, speedup int) string {
	t.Helper()
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(2400/speedup+1)*time.Minute)
	defer cancel()
	dir, err := os.MkdirTemp("", "allot-replay") // short: a socket path has a length limit
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	cmd := exec.CommandContext(ctx, bin, "live", "replay", filepath.Join("testdata", "replay-small.yaml"), "--speedup", strconv.Itoa(speedup), "--data-dir", dir)
	cmd.Env = append(os.Environ(), docCLIEnv+"=1")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	local.KillRuns(dir)
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1 && strings.Contains(out.String(), "DISAGREE")) {
		t.Fatalf("allot live replay --speedup %d: %v\n%s%s", speedup, err, out.String(), errb.String())
	}
	return out.String()
}

// replayLatency is the replay's largest scheduling latency (ms).
func replayLatency(t *testing.T, text string) float64 {
	m := regexp.MustCompile(`scheduling latency: (\d+) ms at most`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no latency line in:\n%s", text)
	}
	ms, _ := strconv.ParseFloat(m[1], 64)
	return ms
}

// What the simulator would model and the sleeping jobs cannot do is
// refused, naming the setting, before any daemon starts.
func TestLiveReplayRefusesWhatALiveRunCannotFollow(t *testing.T) {
	base, err := os.ReadFile(filepath.Join("testdata", "replay-small.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ name, from, to, want string }{
		{"node failures", "  nodes:\n", "  failures: {node_mtbf: 100h, repair_time: 1h}\n  nodes:\n", "fleet.failures"},
		{"backfill", "  reclaim: any\n", "  reclaim: any\n  backfill: true\n", "policy.backfill"},
		{"fractional accelerators", "accelerators: 1, checkpoint", "accelerators: 0.5, checkpoint", "live jobs take whole devices"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			text := strings.Replace(string(base), c.from, c.to, 1)
			if text == string(base) {
				t.Fatalf("%q not in the scenario", c.from)
			}
			p := filepath.Join(t.TempDir(), "s.yaml")
			if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			var o, e bytes.Buffer
			code := run([]string{"live", "replay", p, "--speedup", "1000"}, &o, &e)
			if code != 2 || !strings.Contains(e.String(), c.want) {
				t.Errorf("exit %d, stderr %q: want 2 and %q", code, e.String(), c.want)
			}
		})
	}
}
