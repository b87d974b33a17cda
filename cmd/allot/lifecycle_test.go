package main

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/allot-sim/allot/cmd/internal/simrun"
	"github.com/allot-sim/allot/sim"

	"github.com/allot-sim/allot/workload"
)

// lifecycle writes a one-node scenario with a low-priority job L (10 h of
// work, checkpoints every 1 h if ckpt) preempted at 2.5 h by a high-priority
// job H (1 h).
func lifecycle(t *testing.T, preemption string, ckpt bool) runResult {
	t.Helper()
	dir := t.TempDir()
	iv := ""
	if ckpt {
		iv = "3600"
	}
	writeFile(t, dir, "jobs.csv", fmt.Sprintf(`
job_id,submit_time,team,accelerators,duration_s,priority_class,checkpoint_interval_s
L,0,a,8,36000,low,%s
H,9000,a,8,3600,high,
`, iv))
	p := writeFile(t, dir, "s.yaml", `
name: lifecycle
fleet:
  instance_types: [{name: eight, accelerators: 8, vcpus: 64, memory_gib: 512}]
  nodes: [{type: eight, count: 1}]
teams: [{name: a, quota: {eight: 8}}]
priority_classes: [{name: high, value: 10}, {name: low, value: 1}]
policy: {kind: quota, preemption: `+preemption+`}
workload: {trace: jobs.csv}
sim: {horizon: 3d}
`)
	return simulate(t, p, "", 0, true)
}

func approx(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-6 {
		t.Errorf("%s = %g, want %g", what, got, want)
	}
}

func TestPreemptedJobThatCanSaveKeepsAllItsProgress(t *testing.T) {
	r := lifecycle(t, "{grace_period: 5m, checkpoint_save: 2m, restore: 5m}", true)
	L, H := r.rec.jobs["L"], r.rec.jobs["H"]
	approx(t, "H wait (L saves for 2 min)", H.Wait, 120)
	approx(t, "L end (9120+3600 H, +300 restore, +27000 left)", L.End, 40020)
	approx(t, "L kept accelerator-seconds", L.KeptAccS, 8*36000)
	approx(t, "L lost accelerator-seconds", L.LostAccS, 0)
	approx(t, "L wait", L.Wait, 12720-9120)
	if L.Preemptions != 1 || L.State != workload.StateCompleted {
		t.Errorf("L: %d preemptions, %s", L.Preemptions, L.State)
	}
}

// policy.preemption.min_runtime: L, started at 0, cannot be preempted
// before 3 h; H (arriving at 2.5 h) gets it when the protection ends,
// though nothing else happens then: the core asks the simulator to wake
// it.
func TestPreemptorIsAdmittedWhenTheVictimsMinRuntimeEnds(t *testing.T) {
	r := lifecycle(t, "{grace_period: 5m, checkpoint_save: 2m, restore: 5m, min_runtime: 3h}", true)
	L, H := r.rec.jobs["L"], r.rec.jobs["H"]
	approx(t, "H wait (until 3 h, then L saves for 2 min)", H.Wait, 10800+120-9000)
	approx(t, "L end (14520 H ends, +300 restore, +25200 left)", L.End, 14520+300+25200)
	if L.Preemptions != 1 {
		t.Errorf("L preempted %d times, want 1", L.Preemptions)
	}
}

func TestPreemptedJobThatCannotSaveInTimeFallsBackToItsLastCheckpoint(t *testing.T) {
	r := lifecycle(t, "{grace_period: 5m, checkpoint_save: 10m, restore: 5m}", true)
	L, H := r.rec.jobs["L"], r.rec.jobs["H"]
	approx(t, "H wait (L killed after the 5 min grace period)", H.Wait, 300)
	approx(t, "L lost accelerator-seconds (30 min since the 2 h checkpoint)", L.LostAccS, 8*1800)
	approx(t, "L end (restart 12900, +300 restore, +28800 left)", L.End, 42000)
	approx(t, "L kept", L.KeptAccS, 8*36000)
}

func TestPreemptedJobWithoutCheckpointsRestartsFromZero(t *testing.T) {
	r := lifecycle(t, "{grace_period: 5m, checkpoint_save: 10m, restore: 5m}", false)
	L := r.rec.jobs["L"]
	approx(t, "L lost accelerator-seconds", L.LostAccS, 8*9000)
	approx(t, "L end (restart 12900, +300 restore, +36000)", L.End, 49200)
}

func TestJobFailsWhenPreemptedMoreThanMaxRetries(t *testing.T) {
	r := lifecycle(t, "{grace_period: 5m, checkpoint_save: 2m, max_retries: 0}", true)
	if L := r.rec.jobs["L"]; L.State != workload.StateFailed || L.Preemptions != 1 {
		t.Errorf("L: %s after %d preemptions, want failed after 1", L.State, L.Preemptions)
	}
	r = lifecycle(t, "{grace_period: 5m, checkpoint_save: 2m, max_retries: 1}", true)
	if L := r.rec.jobs["L"]; L.State != workload.StateCompleted {
		t.Errorf("with one retry L %s, want completed", L.State)
	}
}

func TestRestoreAndSaveTimeCountAsAllocatedButNotGoodput(t *testing.T) {
	r := lifecycle(t, "{grace_period: 5m, checkpoint_save: 2m, restore: 5m}", true)
	s := r.sum
	installed := 8.0 * 3 * 86400
	// Allocated: L 0..9120 (incl. 120 s saving), H 9120..12720, L 12720..40020.
	approx(t, "utilisation", s.Utilization.Mean, 8*(9120+3600+27300)/installed)
	// Goodput: all of L's 36000 s and H's 3600 s of work, no save or restore.
	approx(t, "goodput", s.Goodput, 8*(36000+3600)/installed)
}

func TestNodeFailuresInterruptJobsThatKeepOnlyTheirCheckpoints(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "jobs.csv", "job_id,submit_time,team,accelerators,duration_s,checkpoint_interval_s\nlong,0,a,8,360000,3600\n")
	p := writeFile(t, dir, "s.yaml", `
name: failures
fleet:
  instance_types: [{name: eight, accelerators: 8, vcpus: 64, memory_gib: 512}]
  nodes: [{type: eight, count: 2}]
  failures: {node_mtbf: 24h, repair_time: 2h}
teams: [{name: a}]
policy: {kind: fifo}
workload: {trace: jobs.csv}
sim: {horizon: 30d, seed: 3}
`)
	r := simulate(t, p, "", 0, true)
	j := r.rec.jobs["long"]
	stops := 0
	for _, e := range r.rec.events {
		if e.Kind == workload.EvStop && e.Reason == workload.StopFailed {
			stops++
			if lost := e.ProgressEnd - e.KeptEnd; lost < 0 || lost >= 3600 {
				t.Errorf("a failure lost %g s, want under one checkpoint interval", lost)
			}
		}
	}
	if j.Failures == 0 || j.Failures != stops {
		t.Errorf("job failures %d, stops by failure %d; want equal and > 0", j.Failures, stops)
	}
	if r.sum.NodeFailures == 0 || j.State != workload.StateCompleted {
		t.Errorf("node failures %d, job %s", r.sum.NodeFailures, j.State)
	}
	approx(t, "kept accelerator-seconds", j.KeptAccS, 8*360000)
}

func TestTimelineNodesArriveAndLeave(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "jobs.csv", "job_id,submit_time,team,accelerators,duration_s\nj1,0,a,8,86400\nj2,0,a,8,86400\nj3,0,a,8,86400\n")
	p := writeFile(t, dir, "s.yaml", `
name: timeline
fleet:
  instance_types: [{name: eight, accelerators: 8, vcpus: 64, memory_gib: 512}]
  nodes: [{type: eight, count: 2}]
teams: [{name: a}]
policy: {kind: fifo}
timeline:
  - {at: 1h, nodes: {type: eight, count: 1}}
  - {at: 2h, nodes: {type: eight, count: -2}}
workload: {trace: jobs.csv}
sim: {horizon: 3d}
`)
	r := simulate(t, p, "", 0, true)
	// j3 waits for the third node at 1 h; at 2 h two nodes leave, all busy,
	// so two jobs are interrupted and wait for the one node left.
	approx(t, "j3 first start", r.rec.jobs["j3"].FirstStart, 3600)
	removed := 0
	for _, e := range r.rec.events {
		if e.Kind == workload.EvStop && e.Reason == workload.StopRemoved {
			removed++
		}
	}
	if removed != 2 {
		t.Errorf("%d jobs interrupted by nodes leaving, want 2", removed)
	}
}

func TestBadTraceRowStopsTheRunNamingRowAndColumn(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "jobs.csv", "job_id,submit_time,team,accelerators,duration_s\nok,0,a,1,60\nbad,5,ghost,1,60\n")
	p := writeFile(t, dir, "s.yaml", `
name: badrow
fleet:
  instance_types: [{name: one, accelerators: 1, vcpus: 8, memory_gib: 64}]
  nodes: [{type: one, count: 1}]
teams: [{name: a}]
policy: {kind: fifo}
workload: {trace: jobs.csv}
sim: {horizon: 1d}
`)
	code, _, stderr := cli("sim", p, "--json")
	want := filepath.Join(dir, "jobs.csv") + `: row 3: column team: job "bad": unknown team "ghost" (the scenario's teams: a)` + "\n"
	if code != exitBadInput || stderr != want {
		t.Errorf("exit %d, stderr %q, want %q", code, stderr, want)
	}
	// With skip_invalid the row is skipped and counted.
	q := writeFile(t, dir, "s2.yaml", strings.Replace(mustRead(t, p), "workload: {trace: jobs.csv}", "workload: {trace: jobs.csv, skip_invalid: true}", 1))
	r := simulate(t, q, "", 0, false)
	if r.sum.Jobs.SkippedInvalid != 1 || r.sum.Jobs.Submitted != 1 {
		t.Errorf("skipped %d, submitted %d", r.sum.Jobs.SkippedInvalid, r.sum.Jobs.Submitted)
	}
}

// A generated workload is taken in on the goroutine that makes it (read
// ahead); taken in as the run asks for it, every event and record must be
// the same: user numbers and estimate draws follow the jobs' order either way.
func TestTakingJobsInAheadChangesNoEventOrRecord(t *testing.T) {
	s, err := loadScenario("../../scenarios/amazon-search.yaml", "")
	if err != nil {
		t.Fatal(err)
	}
	var runs [2]*recorder
	for i, ahead := range []bool{true, false} {
		in, err := simrun.Input(s, s.Seed)
		if err != nil {
			t.Fatal(err)
		}
		if !in.ReadAhead {
			t.Fatal("a synthetic workload should be read ahead")
		}
		in.ReadAhead = ahead
		runs[i] = &recorder{}
		if err := sim.Run(in, runs[i]); err != nil {
			t.Fatal(err)
		}
		in.Source.Close()
	}
	if len(runs[0].jobs) == 0 {
		t.Fatal("no job records")
	}
	// Printed, as NaN (a start never made) equals nothing, not even NaN;
	// fmt prints a map in key order.
	if fmt.Sprint(runs[0].events) != fmt.Sprint(runs[1].events) {
		t.Error("events differ between reading ahead and not")
	}
	if fmt.Sprint(runs[0].jobs) != fmt.Sprint(runs[1].jobs) {
		t.Error("job records differ between reading ahead and not")
	}
}
