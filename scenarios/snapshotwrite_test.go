package scenarios

import (
	"slices"
	"strings"
	"testing"

	"github.com/allot-sim/allot/policies"
)

// A snapshot written from a model and its jobs reads back as the same
// quotas, the same running job on the same flavor (evicting kept) and the
// same pending job, so allot cycle decides on what live state held.
func TestMarshalSnapshotReadsBackAsTheSameState(t *testing.T) {
	s, err := Load("live/two-teams.yaml")
	if err != nil {
		t.Fatal(err)
	}
	m := s.Build().Model
	jobs := []SnapshotJob{
		{Name: "job-1", Queue: "research", Priority: 10, Created: 1.5, Admitted: 2, Evicting: true, Flavor: 0, Want: -1, Accelerators: 3},
		{Name: "job-2", Queue: "prod", Priority: 100, Created: 4, Flavor: -1, Want: -1, Accelerators: 2},
	}
	data, err := MarshalSnapshot(m, 10.25, jobs, "test")
	if err != nil {
		t.Fatal(err)
	}
	f, err := ParseSnapshot("written.yaml", data)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	snap := f.Snapshot
	if snap.Now != 10.25 || len(snap.Running) != 1 || len(snap.Pending) != 1 {
		t.Fatalf("now %g, %d running, %d pending; want 10.25, 1, 1\n%s", snap.Now, len(snap.Running), len(snap.Pending), data)
	}
	r := snap.Running[0]
	perPod := func(w *policies.Workload) []policies.Qty { return w.Req.PodSets[0].PerPod }
	if r.W.Name != "job-1" || r.AdmittedAt != 2 || !r.Evicting || r.W.Priority != 10 || r.W.Order != 1.5 ||
		len(r.Assignment) != 1 || r.Assignment[0][0] != 0 || perPod(r.W)[0] != 3*policies.Milli {
		t.Errorf("running job read back as %s priority %d order %g on %v asking %v (admitted %g, evicting %v)",
			r.W.Name, r.W.Priority, r.W.Order, r.Assignment, perPod(r.W), r.AdmittedAt, r.Evicting)
	}
	if p := snap.Pending[0]; p.Name != "job-2" || p.Priority != 100 || p.Order != 4 || perPod(p)[0] != 2*policies.Milli {
		t.Errorf("pending job read back as %s priority %d order %g asking %v", p.Name, p.Priority, p.Order, perPod(p))
	}
	got, want := snap.Model.Queues, m.Queues
	if len(got) != len(want) {
		t.Fatalf("%d queues read back, want %d", len(got), len(want))
	}
	for i := range want {
		gq, wq := got[i].Groups[0].Flavors[0].Quotas, want[i].Groups[0].Flavors[0].Quotas
		if got[i].Name != want[i].Name || got[i].Reclaim != want[i].Reclaim || gq[0].Nominal != wq[0].Nominal {
			t.Errorf("queue %d read back as %s reclaim %v nominal %d, want %s %v %d", i, got[i].Name, got[i].Reclaim, gq[0].Nominal, want[i].Name, want[i].Reclaim, wq[0].Nominal)
		}
	}
}

// A job's vCPUs and memory are written where the model counts cpu and
// memory (a quota names them), and read back as the same figures; a
// model of accelerators alone is written without them.
func TestMarshalSnapshotWritesCPUAndMemoryWhereTheModelCountsThem(t *testing.T) {
	s, err := Load("live/two-teams.yaml")
	if err != nil {
		t.Fatal(err)
	}
	jobs := []SnapshotJob{
		{Name: "job-1", Queue: "research", Priority: 10, Created: 1.5, Admitted: 2, Flavor: 0, Want: -1, Accelerators: 4, VCPUs: 16.5, MemoryGiB: 9},
		{Name: "job-2", Queue: "prod", Priority: 100, Created: 4, Flavor: -1, Want: -1, Accelerators: 4, VCPUs: 2.5, MemoryGiB: 9.25},
	}
	data, err := MarshalSnapshot(s.BuildCoveringCPUAndMemory().Model, 10, jobs, "test")
	if err != nil {
		t.Fatal(err)
	}
	f, err := ParseSnapshot("written.yaml", data)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	res := f.Snapshot.Model.Resources
	cpuR, memR, gpuR := slices.Index(res, "cpu"), slices.Index(res, "memory"), slices.Index(res, "nvidia.com/gpu")
	for _, c := range []struct {
		w               *policies.Workload
		cpu, mem, accel policies.Qty
		whichName       string
	}{{f.Snapshot.Running[0].W, 16500, 9000, 4000, "job-1"}, {f.Snapshot.Pending[0], 2500, 9250, 4000, "job-2"}} {
		pp := c.w.Req.PodSets[0].PerPod
		if c.w.Name != c.whichName || pp[cpuR] != c.cpu || pp[memR] != c.mem || pp[gpuR] != c.accel {
			t.Errorf("%s read back asking %v, want accelerators %d, cpu %d, memory %d (thousandths)\n%s", c.w.Name, pp, c.accel, c.cpu, c.mem, data)
		}
	}
	data, err = MarshalSnapshot(s.Build().Model, 10, jobs, "test")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "cpu") || strings.Contains(string(data), "memory") {
		t.Errorf("a model of accelerators alone written with cpu or memory:\n%s", data)
	}
}
