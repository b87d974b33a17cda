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

// docs/examples/replay-check.yaml: the record ran team a's j1 at 0, its
// high-priority j3 at 110 and j2 at 160, and team b's j4 at 215, with
// idle gaps; fifo runs j1, j2, j3, j4 and j5 back to back from 0. j5
// never started in the record.
func TestSimReplayCheckReportsTheReplayBesideTheRecord(t *testing.T) {
	code, out, errs := cli("sim", "../../docs/examples/replay-check.yaml", "--replay-check", "--json")
	require.Equal(t, 0, code, errs)
	var s reports.Summary
	require.NoError(t, json.Unmarshal([]byte(out), &s))
	rc := s.ReplayCheck
	require.NotNil(t, rc)
	assert.Equal(t, [2]float64{0, 225}, rc.RecordS)
	assert.Equal(t, 4, rc.Jobs)
	assert.Equal(t, 1, rc.NotStartedInRecord)
	assert.InDelta(t, 210.0/225, rc.Utilization.Recorded, 1e-9)  // 8 × 210 of 8 × 225
	assert.InDelta(t, 220.0/225, rc.Utilization.Simulated, 1e-9) // j5 too, to 220
	// Team a's recorded starts 0, 110, 160 are replayed at 0, 150, 100:
	// j2 moved. Team b's one job is in order.
	assert.InDelta(t, 2.0/3, rc.ByTeam["a"].SameOrderShare, 1e-9)
	assert.InDelta(t, 0.75, rc.All.SameOrderShare, 1e-9)
	assert.Equal(t, 1, rc.All.OutOfOrder)
	assert.Equal(t, reports.WaitQuantiles{Mean: 106.25, P50: 90, P95: 185}, rc.All.Wait.Recorded) // 0, 150, 90, 185
	assert.Equal(t, reports.WaitQuantiles{Mean: 97.5, P50: 90, P95: 170}, rc.All.Wait.Simulated)  // 0, 90, 130, 170
	a := rc.ByTeam["a"]
	assert.InDelta(t, 220.0/3/80-1, *a.Wait.MeanRelativeError, 1e-9)
	assert.Equal(t, 130.0, rc.ByPriorityClass["high"].Wait.Simulated.Mean)
	assert.Equal(t, 1.0, rc.ByPriorityClass["none"].SameOrderShare) // j1 before j2, as recorded

	code, out, errs = cli("sim", "../../docs/examples/replay-check.yaml", "--replay-check")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "admitted in their team's recorded order: 75.0% of jobs (1 would have to move)")
	assert.Contains(t, out, "utilisation over the record: recorded 93.3%, simulated 97.8%")
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
