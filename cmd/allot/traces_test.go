package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/allot-sim/allot/reports"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const fixtures = "../../workload/importers/testdata"

func TestTraceImportWritesATraceAndARunnableScenario(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "openb.parquet")
	code, _, errs := cli("trace", "import", "--format", "openb", fixtures+"/openb_pods.csv", fixtures+"/openb_nodes.csv", "-o", out)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, errs, "6 rows read, 5 jobs written")
	assert.Contains(t, errs, "left out:      1  never scheduled (pending)")

	code, stdout, errs := cli("sim", filepath.Join(dir, "openb.yaml"), "--json")
	require.Equal(t, 0, code, errs)
	var s reports.Summary
	require.NoError(t, json.Unmarshal([]byte(stdout), &s))
	assert.Equal(t, 5, s.Jobs.Submitted)
	assert.Equal(t, 5, s.Jobs.Completed)
	require.NotNil(t, s.Fidelity, "the trace has original times: the summary compares with them")
	assert.Equal(t, 5, s.Fidelity.Jobs)
	assert.Equal(t, 0.0, s.Fidelity.Complete.Sim.P50-s.Fidelity.Complete.Sim.P50)

	code, stdout, errs = cli("trace", "stats", out, "--json")
	require.Equal(t, 0, code, errs)
	var st struct {
		Jobs             int     `json:"jobs"`
		AcceleratorHours float64 `json:"accelerator_hours"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &st))
	assert.Equal(t, 5, st.Jobs)
	// 1 GPU x 5000 s + 0.46 x 590 + 8 x 8900 + 2 x 60, in hours.
	assert.InDelta(t, (5000+0.46*590+8*8900+2*60)/3600.0, st.AcceleratorHours, 1e-9)
}

func TestTraceTransformDoublesDemandWithCopies(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "p.parquet")
	code, _, errs := cli("trace", "import", "--format", "gavel-philly", fixtures+"/philly/vc1.trace", fixtures+"/philly/vc2.trace", "-o", in)
	require.Equal(t, 0, code, errs)
	out := filepath.Join(dir, "p2.csv")
	code, _, errs = cli("trace", "transform", in, "--copies", "2", "--window", "0s:100s", "-o", out)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, errs, "wrote 6 jobs", "3 jobs submitted before 100 s, twice each")
	body := mustRead(t, out)
	assert.Contains(t, body, "vc1-2#2")
}

func TestTraceCommandsRejectBadInputWithExitTwo(t *testing.T) {
	dir := t.TempDir()
	bad := writeFile(t, dir, "bad.csv", "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\np,1,1,-2,0,,LS,Running,0,10,0\n")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"trace", "import", "--format", "nope", bad, "-o", dir + "/x.parquet"}, `unknown trace format "nope"`},
		{[]string{"trace", "import", "--format", "openb", bad, "-o", dir + "/x.parquet"}, "bad.csv: line 2: column num_gpu"},
		{[]string{"trace", "import", "--format", "openb", bad}, "-o FILE is required"},
		{[]string{"trace", "transform", bad, "--window", "5d", "-o", dir + "/y.csv"}, "want START:END"},
		{[]string{"trace", "stats", dir + "/missing.parquet"}, "missing.parquet"},
	} {
		code, _, errs := cli(c.args...)
		assert.Equal(t, 2, code, "%v", c.args)
		assert.Contains(t, errs, c.want, "%v", c.args)
	}
}

// The public traces, imported and replayed with the shipped scenarios.
func TestPublicTracesImportAndReplay(t *testing.T) {
	shared := filepath.Join("..", "..", "..", "shared", "traces")
	if _, err := os.Stat(shared); err != nil {
		t.Skipf("no public traces at %s (../shared is not beside the repository)", shared)
	}
	if testing.Short() {
		t.Skip("replays take a few seconds")
	}
	dir := t.TempDir()
	tr := filepath.Join(dir, "traces")
	require.NoError(t, os.MkdirAll(tr, 0o755))
	openb := filepath.Join(shared, "alibaba-gpu-v2023-openb", "csv")
	philly, _ := filepath.Glob(filepath.Join(shared, "gavel-philly-derived", "seed=0", "*.trace"))
	imports := []struct {
		args []string
		want string
	}{
		{[]string{"--format", "openb", openb + "/openb_pod_list_default.csv", openb + "/openb_node_list_all_node.csv", "-o", tr + "/openb.parquet"},
			"8152 rows read, 7255 jobs written"},
		{append(append([]string{"--format", "gavel-philly"}, philly...), "--vc-nodes", filepath.Join(shared, "helios-sensetime", "philly_vc.csv"), "-o", tr+"/philly.parquet"),
			"15264 rows read, 15264 jobs written"},
		{[]string{"--format", "alibaba-dlrm", filepath.Join(shared, "alibaba-gpu-v2025-dlrm", "disaggregated_DLRM_trace.csv"), "-o", tr + "/dlrm.parquet"},
			"23871 rows read, 23871 jobs written"},
	}
	for _, im := range imports {
		code, _, errs := cli(append([]string{"trace", "import"}, im.args...)...)
		require.Equal(t, 0, code, errs)
		assert.Contains(t, errs, im.want)
	}
	code, _, errs := cli("trace", "transform", tr+"/openb.parquet", "--window", "119d:", "-o", tr+"/openb-last30d.parquet")
	require.Equal(t, 0, code, errs)

	shipped, _ := filepath.Glob(filepath.Join("..", "..", "scenarios", "replay", "*.yaml"))
	require.Len(t, shipped, 4)
	got := map[string]*reports.Summary{}
	for _, f := range shipped {
		body, err := os.ReadFile(f)
		require.NoError(t, err)
		p := filepath.Join(dir, filepath.Base(f))
		require.NoError(t, os.WriteFile(p, body, 0o644))
		r := simulate(t, p, "", 0, false) // with the invariant checker
		got[strings.TrimSuffix(filepath.Base(f), ".yaml")] = r.sum
	}
	// On its own fleet openb never queues: every pod starts on arrival and
	// ends as it did, so completions match the original closely.
	o := got["openb"]
	assert.Equal(t, 7255, o.Jobs.Completed)
	require.NotNil(t, o.Fidelity)
	assert.Less(t, o.Fidelity.Complete.KS, 0.1)
	assert.InDelta(t, 0, o.Fidelity.Complete.MeanErr, 0.01)
	assert.InDelta(t, 61.3, o.Fidelity.Wait.Orig.Mean, 0.1, "the original mean queueing delay (published: 61 s)")
	// On 24 GPUs the busy month queues and best-effort pods are preempted.
	b := got["openb-busy"]
	assert.Greater(t, b.Utilization.P95Bucket, 0.9)
	assert.Greater(t, b.Preemptions, 0)
	assert.Less(t, b.ByPriorityClass["latency-sensitive"].WaitS.P95, b.ByPriorityClass["best-effort"].WaitS.P95,
		"priority keeps most latency-sensitive pods' waits short")
	p := got["philly"]
	assert.Equal(t, 15264, p.Jobs.Submitted)
	assert.Len(t, p.ByTeam, 15)
	d := got["dlrm"]
	assert.Equal(t, 23871, d.Jobs.Submitted)
	require.NotNil(t, d.Fidelity)
}
