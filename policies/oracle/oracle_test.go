package oracle

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/allot-sim/allot/policies"
)

// randomModel draws a quota model from a realistic space: 1 to 3 GPU
// types, 2 to 20 teams in flat or up to 3-level cohorts (some cohorts with
// quota of their own), borrowing and lending limits, and every
// within-team, reclaim and borrow-within-cohort policy, with and without a
// threshold.
func randomModel(rng *rand.Rand) *policies.Model {
	m := &policies.Model{Kind: policies.KindQuota, Resources: []string{"nvidia.com/gpu"}}
	nF := 1 + rng.IntN(3)
	for f := range nF {
		m.Flavors = append(m.Flavors, policies.FlavorSpec{Name: fmt.Sprintf("type%d", f), Nodes: -1, AccelResource: 0, CPUResource: -1, MemResource: -1, Speed: 1})
	}
	units := func(n int) policies.Qty { return policies.Qty(n) * policies.Milli }
	cohortQuota := func() map[int]map[int]policies.Quota {
		if rng.IntN(5) != 0 {
			return nil
		}
		q := map[int]map[int]policies.Quota{}
		for f := range nF {
			q[f] = map[int]policies.Quota{0: {Nominal: units(rng.IntN(5))}}
		}
		return q
	}
	m.Cohorts = append(m.Cohorts, policies.CohortSpec{Name: "root", Parent: -1, Weight: 1, Quotas: cohortQuota()})
	leaves := []int{0}
	if depth := rng.IntN(3); depth > 0 {
		leaves = nil
		for d := range 2 + rng.IntN(3) {
			m.Cohorts = append(m.Cohorts, policies.CohortSpec{Name: fmt.Sprintf("div%d", d), Parent: 0, Weight: 1, Quotas: cohortQuota()})
			div := len(m.Cohorts) - 1
			if depth == 1 {
				leaves = append(leaves, div)
				continue
			}
			for g := range 1 + rng.IntN(2) {
				m.Cohorts = append(m.Cohorts, policies.CohortSpec{Name: fmt.Sprintf("g%d.%d", d, g), Parent: div, Weight: 1, Quotas: cohortQuota()})
				leaves = append(leaves, len(m.Cohorts)-1)
			}
		}
	}
	policy := []policies.PreemptPolicy{policies.Never, policies.LowerPriority, policies.LowerOrNewerEqualPriority, policies.Any}
	for q := range 2 + rng.IntN(19) {
		g := policies.ResourceGroup{Resources: []int{0}}
		for _, f := range rng.Perm(nF) { // each team's own order of types
			nominal := rng.IntN(9)
			quota := policies.Quota{Nominal: units(nominal)}
			if rng.IntN(3) == 0 {
				quota.HasBorrow, quota.BorrowLimit = true, units(rng.IntN(7))
			}
			if rng.IntN(3) == 0 {
				quota.HasLend, quota.LendLimit = true, units(rng.IntN(nominal+1))
			}
			g.Flavors = append(g.Flavors, policies.FlavorQuotas{Flavor: f, Quotas: map[int]policies.Quota{0: quota}})
		}
		spec := policies.QueueSpec{Name: fmt.Sprintf("t%d", q), Cohort: leaves[rng.IntN(len(leaves))], Weight: 1, MaxPreemptions: -1,
			WithinQueue: policy[rng.IntN(3)], Reclaim: []policies.PreemptPolicy{policies.Never, policies.LowerPriority, policies.Any}[rng.IntN(3)],
			Groups: []policies.ResourceGroup{g}}
		if fb := rng.IntN(3); fb > 0 { // the fallback settings, as the presets name them
			spec.Fungibility = []policies.FlavorFungibility{{}, {WhenCanBorrowTryNext: true},
				{WhenCanBorrowTryNext: true, WhenCanPreemptStop: true, PreemptionOverBorrowing: true}}[fb]
		}
		if spec.Reclaim != policies.Never && rng.IntN(2) == 0 {
			spec.BorrowWithin = policies.LowerPriority
			if rng.IntN(2) == 0 {
				spec.BorrowThreshold, spec.HasBorrowThreshold = int32(rng.IntN(3)), true
			}
		}
		m.Queues = append(m.Queues, spec)
	}
	return m
}

// runSideBySide drives the core over a random stream of jobs that arrive,
// finish and are preempted, one cycle at a time; before each cycle it reads
// the running jobs, and for every preemptor of the cycle's plan asks the
// oracle which victims the same state gives. It returns the preemptions
// compared, and fails naming the scenario, step, cycle and job at the
// first difference.
func runSideBySide(t *testing.T, seed uint64, jobs int) int {
	rng := rand.New(rand.NewPCG(seed, 2026))
	m := randomModel(rng)
	c, err := policies.NewCore(m)
	if err != nil {
		t.Fatal(err)
	}
	var admitted []*policies.Workload
	compared := 0
	for step := range jobs {
		now := float64(step)
		w := &policies.Workload{Seq: int64(step), Queue: rng.IntN(len(m.Queues)), Priority: int32(rng.IntN(4)), Order: now,
			Req: policies.Request{Accel: policies.Qty(1+rng.IntN(5)) * policies.Milli}}
		if nF := len(m.Flavors); nF > 1 && rng.IntN(2) == 0 { // some jobs name their types, in their order
			w.Req.Compatible = rng.Perm(nF)[:1+rng.IntN(nF)]
		}
		if err := c.Submit(w); err != nil {
			t.Fatal(err)
		}
		if len(admitted) > 0 && rng.IntN(5) < 2 {
			i := rng.IntN(len(admitted))
			if !admitted[i].Evicting() {
				c.Finish(admitted[i], now)
				admitted = slices.Delete(admitted, i, i+1)
			}
		}
		admitted = slices.DeleteFunc(admitted, func(w *policies.Workload) bool {
			if w.Evicting() {
				c.Requeue(w, now)
				return true
			}
			return false
		})
		for cycle := range 100 {
			before := readJobs(admitted)
			p := c.Cycle(now)
			byPreemptor := map[*policies.Workload][]string{}
			flavor := map[*policies.Workload]int{} // the type it preempts on: its victims'
			for _, x := range p.Preempted {
				byPreemptor[x.By] = append(byPreemptor[x.By], fmt.Sprintf("#%d %s", x.W.Seq, x.Reason))
				flavor[x.By] = x.W.Flavor()
			}
			for by, got := range byPreemptor {
				var want []string
				for _, tg := range Targets(m, before, asking(by, flavor[by])) {
					if !evicting(before, tg.ID) {
						want = append(want, fmt.Sprintf("#%d %s", tg.ID, tg.Reason))
					}
				}
				slices.Sort(got)
				slices.Sort(want)
				if !slices.Equal(got, want) {
					t.Fatalf("scenario %d, step %d, cycle %d: for job #%d (team %d, priority %d) the core preempts %v, the oracle %v\nrunning: %s",
						seed, step, cycle, by.Seq, by.Queue, by.Priority, got, want, describe(before))
				}
				compared += len(got)
			}
			for _, a := range p.Admitted {
				admitted = append(admitted, a.W)
			}
			if len(p.Admitted) == 0 && len(p.Preempted) == 0 {
				break
			}
		}
	}
	return compared
}

// running reads a running workload as the oracle's Job: the GPUs it holds
// on its type (one resource: fr = flavor).
func running(w *policies.Workload) Job {
	f := w.Flavor()
	return Job{ID: w.Seq, Queue: w.Queue, Priority: w.Priority, Order: w.Order, Admitted: w.AdmittedAt(), Evicting: w.Evicting(),
		Usage: map[int]policies.Qty{f: w.QuotaOf(f)}}
}

// asking reads a pending preemptor as the oracle's Job: its GPUs on type f.
func asking(w *policies.Workload, f int) Job {
	return Job{ID: w.Seq, Queue: w.Queue, Priority: w.Priority, Order: w.Order, Usage: map[int]policies.Qty{f: w.Req.Accel}}
}

func readJobs(ws []*policies.Workload) []Job {
	out := make([]Job, 0, len(ws))
	for _, w := range ws {
		out = append(out, running(w))
	}
	return out
}

func evicting(js []Job, id int64) bool {
	for _, j := range js {
		if j.ID == id {
			return j.Evicting
		}
	}
	return false
}

func describe(js []Job) string {
	var b strings.Builder
	for _, j := range js {
		for f, q := range j.Usage {
			fmt.Fprintf(&b, "#%d t%d p%d %gu of type%d at %g evicting=%v; ", j.ID, j.Queue, j.Priority, float64(q)/1000, f, j.Admitted, j.Evicting)
		}
	}
	return b.String()
}

// The fast core and the oracle take the same victims for the same reasons,
// on the type the core chose, in every cycle of 1,000 random scenarios of
// 300 jobs.
func TestCoreAndOracleTakeTheSameVictimsCycleByCycle(t *testing.T) {
	n := 1000
	if testing.Short() {
		n = 100
	}
	compared := 0
	for seed := range uint64(n) {
		compared += runSideBySide(t, seed, 300)
	}
	t.Logf("%d scenarios, %d preemptions compared", n, compared)
	if compared < 10*n {
		t.Fatalf("only %d preemptions in %d scenarios: the streams do not exercise preemption", compared, n)
	}
}

// The long run (make oracle): ORACLE_SCENARIOS scenarios of ORACLE_JOBS
// jobs each, drawn after the 1,000 of the test above.
func TestCoreAndOracleLongRun(t *testing.T) {
	n, err := strconv.Atoi(os.Getenv("ORACLE_SCENARIOS"))
	if err != nil || n <= 0 {
		t.Skip("set ORACLE_SCENARIOS (make oracle) for the long run")
	}
	jobs, err := strconv.Atoi(os.Getenv("ORACLE_JOBS"))
	if err != nil || jobs <= 0 {
		jobs = 1000
	}
	compared := 0
	for seed := range uint64(n) {
		compared += runSideBySide(t, 1_000_000+seed, jobs)
	}
	t.Logf("%d scenarios of %d jobs, %d preemptions compared, no difference", n, jobs, compared)
}
