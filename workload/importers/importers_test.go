package importers

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/allot-sim/allot/workload"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func ids(jobs []workload.Job) []string {
	var out []string
	for _, j := range jobs {
		out = append(out, j.ID)
	}
	return out
}

func byID(t *testing.T, r *Result, id string) workload.Job {
	t.Helper()
	for _, j := range r.Jobs {
		if j.ID == id {
			return j
		}
	}
	t.Fatalf("job %s not imported", id)
	return workload.Job{}
}

func TestOpenBMapsPodsToJobsAndNodesToTypes(t *testing.T) {
	r, err := importOpenB([]string{"testdata/openb_nodes.csv", "testdata/openb_pods.csv"}, Options{})
	require.NoError(t, err)
	assert.Equal(t, 6, r.Rows)
	assert.Equal(t, map[string]int{"never scheduled (pending)": 1}, r.LeftOut)
	assert.Equal(t, []string{"pod-f", "pod-b", "pod-a", "pod-c", "pod-d"}, ids(r.Jobs), "submit order")

	a := byID(t, r, "pod-a")
	assert.Equal(t, workload.Job{ID: "pod-a", Submit: 100, Team: "openb", PriorityClass: "latency-sensitive", Accelerators: 1,
		VCPUs: 12, MemoryGiB: 16, Duration: 5000, OrigStart: 100, OrigEnd: 5100, OrigStatus: "running"}, a)
	b := byID(t, r, "pod-b")
	assert.Equal(t, 0.46, b.Accelerators, "a pod sharing a GPU asks gpu_milli/1000")
	assert.Equal(t, 590.0, b.Duration, "deletion - scheduled")
	assert.Equal(t, "best-effort", b.PriorityClass)
	c := byID(t, r, "pod-c")
	assert.Equal(t, 0.0, c.Accelerators, "CPU-only pod")
	assert.Equal(t, 4.0, c.VCPUs)
	assert.Equal(t, "failed", c.OrigStatus)
	assert.Equal(t, []string{"openb-cpu-32c-256g", "openb-g2-8gpu-96c-384g", "openb-t4-2gpu-104c-512g"}, c.InstanceTypes,
		"CPU nodes first, then GPU nodes")
	d := byID(t, r, "pod-d")
	assert.Equal(t, []string{"openb-g2-8gpu-96c-384g"}, d.InstanceTypes, "gpu_spec pins the GPU model")
	f := byID(t, r, "pod-f")
	assert.Equal(t, []string{"openb-t4-2gpu-104c-512g", "openb-g2-8gpu-96c-384g"}, f.InstanceTypes)

	require.Len(t, r.Types, 3)
	assert.Equal(t, "openb-g2-8gpu-96c-384g", r.Nodes[0].Type)
	assert.Equal(t, 2, r.Nodes[0].Count)
	assert.Equal(t, "openb-cpu-32c-256g", r.Types[2].Name)
	assert.Equal(t, 0, r.Types[2].Accelerators)
	assert.Equal(t, 9300.0, r.End, "the last original end")
	assert.Equal(t, "openb", r.Teams[0].Name)
	assert.Len(t, r.PriorityClasses, 4)
}

func TestOpenBRejectsBadRowsNamingFileLineAndColumn(t *testing.T) {
	dir := t.TempDir()
	header := "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n"
	cases := []struct{ name, row, want string }{
		{"negative cpu", "p,-1,1,1,1000,,LS,Running,0,10,0", "line 2: column cpu_milli: negative"},
		{"fraction over one", "p,1,1,1,1500,,LS,Running,0,10,0", "column gpu_milli: want 0..1000"},
		{"unknown qos", "p,1,1,1,1000,,Gold,Running,0,10,0", "column qos: unknown QoS class \"Gold\""},
		{"end before start", "p,1,1,1,1000,,LS,Running,0,5,10", "column deletion_time: 5 is before scheduled_time 10"},
		{"not a number", "p,1,x,1,1000,,LS,Running,0,10,0", "column memory_mib: not a number"},
		{"short row", "p,1,1", "line 2: has 3 fields"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".csv")
			require.NoError(t, os.WriteFile(p, []byte(header+c.row+"\n"), 0o644))
			_, err := importOpenB([]string{p}, Options{})
			require.Error(t, err)
			assert.Contains(t, err.Error(), p)
			assert.Contains(t, err.Error(), c.want)
		})
	}
}

func TestPhillyDurationsComeFromMeasuredThroughputs(t *testing.T) {
	r, err := importPhilly([]string{"testdata/philly/vc1.trace", "testdata/philly/vc2.trace"},
		Options{VCNodes: "testdata/philly/vc_nodes.csv"})
	require.NoError(t, err)
	assert.Equal(t, []string{"vc1-1", "vc2-1", "vc1-2", "vc1-3"}, ids(r.Jobs))
	j1 := byID(t, r, "vc1-1")
	assert.Equal(t, 100.0, j1.Duration, "3000 steps at 30 steps/s on V100")
	assert.Equal(t, "ResNet-18 (batch size 16)", j1.Class)
	assert.Equal(t, []string{"philly-v100", "philly-p100"}, j1.InstanceTypes)
	assert.Equal(t, 50.0, byID(t, r, "vc1-2").Duration, "measured at scale 2")
	big := byID(t, r, "vc1-3")
	assert.Equal(t, 10.0, big.Duration, "scale 16 from scale 8 (100 steps/s), linearly: 200 steps/s")
	assert.Equal(t, []string{"philly-v100"}, big.InstanceTypes, "P100 measured 0 steps/s at scale 8: it does not run there")
	assert.True(t, math.IsNaN(big.OrigStart))

	require.Len(t, r.Types, 2, "the spec has no K80s")
	assert.Equal(t, 2, r.Nodes[0].Count, "16 V100 in nodes of 8")
	assert.Equal(t, 1, r.Nodes[1].Count)
	p100 := r.Types[1]
	assert.Equal(t, 0.5, p100.SpeedByClass["ResNet-18 (batch size 16)"])
	assert.Equal(t, 0.75, p100.SpeedByClass["LM (batch size 80)"])
	assert.Equal(t, 0.625, p100.Speed, "default: the mean")
	assert.Equal(t, []Team{{Name: "vc1", Quota: map[string]float64{"philly-v100": 16, "philly-p100": 8}}, {Name: "vc2"}}, r.Teams,
		"vc1 is the only listed VC among the inputs: it gets the whole fleet as quota; vc2 only borrows")
}

func TestApportionKeepsWholeUnitsAndTheTotal(t *testing.T) {
	got := apportion(504, []string{"a", "b", "c"}, map[string]float64{"a": 64, "b": 32, "c": 16}, 112)
	assert.Equal(t, map[string]int{"a": 288, "b": 144, "c": 72}, got)
	got = apportion(10, []string{"a", "b", "c"}, map[string]float64{"a": 1, "b": 1, "c": 1}, 3)
	assert.Equal(t, 10, got["a"]+got["b"]+got["c"])
	assert.Equal(t, map[string]int{"a": 4, "b": 3, "c": 3}, got, "ties keep input order")
}

func TestDLRMCensorsInstancesStillRunningAndSizesAFleet(t *testing.T) {
	r, err := importDLRM([]string{"testdata/dlrm.csv"}, Options{})
	require.NoError(t, err)
	assert.Equal(t, map[string]int{"created but never scheduled": 1}, r.LeftOut)
	assert.Equal(t, []string{"i0", "i1", "i2"}, ids(r.Jobs))
	i0 := byID(t, r, "i0")
	assert.Equal(t, 0.0, i0.Submit, "running when the trace began")
	assert.Equal(t, 1100.0, i0.Duration, "until the last time the trace records")
	assert.Equal(t, "running", i0.OrigStatus)
	i1 := byID(t, r, "i1")
	assert.Equal(t, workload.Job{ID: "i1", Submit: 100, Team: "app_1", PriorityClass: "latency-sensitive", VCPUs: 64, MemoryGiB: 320,
		Duration: 990, InstanceTypes: []string{"dlrm-cn"}, Class: "CN", OrigStart: 110, OrigEnd: 1100, OrigStatus: "deleted"}, i1)
	assert.True(t, r.FleetAssumed)
	assert.Equal(t, []string{"dlrm-hn", "dlrm-cn"}, []string{r.Nodes[0].Type, r.Nodes[1].Type})
	assert.Equal(t, 1, r.Nodes[0].Count)
	assert.Equal(t, []Team{{Name: "app_0"}, {Name: "app_1"}}, r.Teams)
}

func TestLookupNamesTheKnownFormats(t *testing.T) {
	_, err := Lookup("philly")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "openb, gavel-philly, alibaba-dlrm")
}

func TestOpenBPodListWithoutTimesIsRefusedWithTheReason(t *testing.T) {
	p := filepath.Join(t.TempDir(), "openb_pod_list_multigpu50.csv")
	require.NoError(t, os.WriteFile(p, []byte("name,cpu_milli,memory_mib,num_gpu,gpu_milli\np,1000,1024,2,1000\n"), 0o644))
	_, err := importOpenB([]string{p}, Options{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "without creation, scheduled and deletion times")
}
