package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/allot-sim/allot/reports"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// docs/examples/replay-check.yaml: the record ran j1 at 0, j3 at 110 and
// j2 at 160 on the one node, with idle gaps; fifo runs j1, j2, j3, j4 back
// to back from 0. j4 never started in the record.
func TestSimReplayCheckReportsTheReplayBesideTheRecord(t *testing.T) {
	code, out, errs := cli("sim", "../../docs/examples/replay-check.yaml", "--replay-check", "--json")
	require.Equal(t, 0, code, errs)
	var s reports.Summary
	require.NoError(t, json.Unmarshal([]byte(out), &s))
	rc := s.ReplayCheck
	require.NotNil(t, rc)
	assert.Equal(t, [2]float64{0, 210}, rc.RecordS)
	assert.Equal(t, 3, rc.Jobs)
	assert.Equal(t, 1, rc.NotStartedInRecord)
	assert.InDelta(t, 200.0/210, rc.Utilization.Recorded, 1e-9) // 8 × 200 of 8 × 210
	assert.InDelta(t, 1.0, rc.Utilization.Simulated, 1e-9)
	// Recorded starts 0, 110, 160 are replayed at 0, 150, 100: j2 moved.
	assert.InDelta(t, 2.0/3, rc.All.SameOrderShare, 1e-9)
	assert.Equal(t, 1, rc.All.OutOfOrder)
	assert.Equal(t, reports.WaitQuantiles{Mean: 80, P50: 90, P95: 150}, rc.All.Wait.Recorded) // 0, 90, 150
	assert.Equal(t, reports.WaitQuantiles{Mean: 220.0 / 3, P50: 90, P95: 130}, rc.All.Wait.Simulated)
	a := rc.ByTeam["a"] // j1 and j3: waits 0 and 90 recorded, 0 and 130 replayed
	assert.InDelta(t, 65.0/45-1, *a.Wait.MeanRelativeError, 1e-9)
	assert.Equal(t, 1.0, a.SameOrderShare)
	assert.Equal(t, 130.0, rc.ByPriorityClass["high"].Wait.Simulated.Mean)

	code, out, errs = cli("sim", "../../docs/examples/replay-check.yaml", "--replay-check")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "admitted in the recorded order: 66.7% of jobs (1 would have to move)")
	assert.Contains(t, out, "utilisation over the record: recorded 95.2%, simulated 100.0%")
}

// A synthetic workload, or a trace without orig_start_time, has nothing
// to check against: exit 2 before the run, naming the file.
func TestSimReplayCheckRefusesAWorkloadWithoutRecordedStarts(t *testing.T) {
	code, _, errs := cli("sim", "../../scenarios/mm16.yaml", "--replay-check")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errs, "mm16.yaml: the workload is synthetic: --replay-check compares a replay with a recorded history")

	dir := t.TempDir()
	scen := strings.Replace(mustRead(t, "../../docs/examples/replay-check.yaml"), "trace: replay-check.csv", "trace: plain.csv", 1)
	writeBytes(t, filepath.Join(dir, "plain.yaml"), []byte(scen))
	writeBytes(t, filepath.Join(dir, "plain.csv"), []byte("job_id,submit_time,team,accelerators,duration_s\nj1,0,a,8,100\n"))
	code, _, errs = cli("sim", filepath.Join(dir, "plain.yaml"), "--replay-check")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errs, "plain.csv: the trace has no recorded starts (no job has orig_start_time)")
}
