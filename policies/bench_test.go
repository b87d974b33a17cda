package policies_test

import (
	"fmt"
	"testing"

	"github.com/allot-sim/allot/policies"
)

// cycleSnapshot builds the benchmark state: 100 teams in one cohort
// over 3 instance types, 2,000 running and 10,000 pending jobs.
func cycleSnapshot(fair bool) *policies.Snapshot {
	const teams, flavors = 100, 3
	m := &policies.Model{Kind: policies.KindQuota, Resources: []string{"nvidia.com/gpu"}, FairSharing: policies.FairSharing{Enabled: fair}}
	for f := 0; f < flavors; f++ {
		m.Flavors = append(m.Flavors, policies.FlavorSpec{Name: fmt.Sprintf("type-%d", f), Nodes: -1, AccelResource: 0, CPUResource: -1, MemResource: -1, Speed: 1})
	}
	m.Cohorts = []policies.CohortSpec{{Name: "org", Parent: -1, Weight: 1}}
	for q := 0; q < teams; q++ {
		g := policies.ResourceGroup{Resources: []int{0}}
		for f := 0; f < flavors; f++ {
			g.Flavors = append(g.Flavors, policies.FlavorQuotas{Flavor: f, Quotas: map[int]policies.Quota{0: {Nominal: 160 * policies.Milli}}})
		}
		m.Queues = append(m.Queues, policies.QueueSpec{Name: fmt.Sprintf("team-%03d", q), Cohort: 0, Weight: 1,
			WithinQueue: policies.LowerPriority, Reclaim: policies.Any, Groups: []policies.ResourceGroup{g}, MaxPreemptions: -1,
			Fungibility: policies.FlavorFungibility{WhenCanBorrowTryNext: true}})
	}
	s := &policies.Snapshot{Kind: policies.KindCycle, Model: m, Now: 1e6}
	seq := int64(0)
	mk := func(q int, acc int64, prio int32) *policies.Workload {
		seq++
		return &policies.Workload{Name: fmt.Sprintf("j%d", seq), Seq: seq, Queue: q, Priority: prio, Order: float64(seq),
			Req: policies.Request{PodSets: []policies.PodSet{{Name: "main", Count: 1, PerPod: []policies.Qty{acc * policies.Milli}}}}}
	}
	sizes := []int64{1, 2, 4, 8, 16, 32}
	for i := 0; i < 2000; i++ {
		q := i % teams
		w := mk(q, sizes[i%len(sizes)], int32(i%3))
		s.Running = append(s.Running, policies.RunningJob{W: w, Assignment: [][]int{{(i / teams) % flavors}}, AdmittedAt: float64(i)})
	}
	for i := 0; i < 10000; i++ {
		s.Pending = append(s.Pending, mk((i*7)%teams, sizes[(i*5)%len(sizes)], int32(i%3)))
	}
	return s
}

func benchmarkCycle(b *testing.B, fair bool) {
	for b.Loop() {
		b.StopTimer()
		s := cycleSnapshot(fair)
		c, err := policies.NewCore(s.Model)
		if err != nil {
			b.Fatal(err)
		}
		for _, r := range s.Running {
			c.AddAdmitted(r.W, r.Assignment, r.AdmittedAt, false)
		}
		for _, w := range s.Pending {
			c.Submit(w)
		}
		b.StartTimer()
		c.Cycle(s.Now)
	}
}

// One scheduling cycle on 10,000 pending and 2,000 running jobs of 100 teams.
func BenchmarkCycle10kPending2kRunning100Teams(b *testing.B)     { benchmarkCycle(b, false) }
func BenchmarkCycle10kPending2kRunning100TeamsFair(b *testing.B) { benchmarkCycle(b, true) }
