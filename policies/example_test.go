package policies_test

import (
	"fmt"

	"github.com/allot-sim/allot/policies"
	"github.com/allot-sim/allot/scenarios"
)

// The core is driven by its caller: submit jobs, ask for a plan at an
// instant, carry the plan out, report what finished. Here team research
// borrows team prod's idle GPUs; when prod's job arrives, the borrowed
// capacity is reclaimed by preempting the borrower, and once the shell
// reports the eviction done, prod's job starts.
func ExampleCore_Schedule() {
	s, err := scenarios.Parse("example.yaml", []byte(`
name: example
fleet:
  instance_types: [{name: gpu-node, accelerators: 1, vcpus: 8, memory_gib: 64}]
  nodes: [{type: gpu-node, count: 4}]
teams: [{name: prod, quota: {gpu-node: 2}}, {name: research, quota: {gpu-node: 2}}]
policy: {kind: quota, reclaim: any}
workload: {synthetic: {count: 1, classes: [{name: x, team: prod, arrival: {rate_per_hour: 1}, duration: {dist: fixed, value: 1h}, accelerators: 1}]}}
sim: {horizon: 1d}
`))
	if err != nil {
		panic(err)
	}
	core, err := policies.NewCore(s.Build().Model)
	if err != nil {
		panic(err)
	}
	job := func(name string, team int, gpus float64, at float64) *policies.Workload {
		w := &policies.Workload{Name: name, Seq: int64(at), Queue: team, Order: at, Req: policies.Request{Accel: policies.ToQty(gpus)}}
		if err := core.Submit(w); err != nil {
			panic(err)
		}
		return w
	}
	show := func(now float64) {
		plan := core.Schedule(now)
		for _, a := range plan.Admitted {
			fmt.Printf("t=%v start %s (borrowing: %v)\n", now, a.W.Name, a.Borrowing)
		}
		for _, p := range plan.Preempted {
			fmt.Printf("t=%v preempt %s for %s: %s\n", now, p.W.Name, p.By.Name, p.Reason)
		}
	}
	research := s.TeamIndex("research")
	big := job("research-4gpu", research, 4, 0)
	show(0)
	job("prod-2gpu", s.TeamIndex("prod"), 2, 10)
	show(10)
	core.Requeue(big, 130) // the shell reports the eviction done
	show(130)
	// Output:
	// t=0 start research-4gpu (borrowing: true)
	// t=10 preempt research-4gpu for prod-2gpu: InCohortReclamation
	// t=130 start prod-2gpu (borrowing: false)
}
