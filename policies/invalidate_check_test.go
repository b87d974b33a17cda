//go:build allotcheck

package policies

import (
	"fmt"
	"strings"
	"testing"
)

// A rule that changes the state without Core.changed leaves the
// shortcuts' memories stale; the allotcheck build must catch it at the
// next answer. Team c's 8-GPU job is released by hand, as a careless rule
// would (the same steps as release, the hook left out): the next cycle's
// settled-cycle answer panics naming the hook. Released through Finish,
// the same cycle admits a's waiting head.
func TestAStateChangeThatBypassesTheHookIsCaughtByTheCheckBuild(t *testing.T) {
	for _, bypass := range []bool{true, false} {
		c, a3, c2 := bypassCase(t)
		msg := func() (msg string) {
			defer func() {
				if r := recover(); r != nil {
					msg = fmt.Sprint(r)
				}
			}()
			if bypass {
				releaseBypassingTheHook(c, c2)
			} else {
				c.Finish(c2, 2)
			}
			if got := c.Schedule(2).Admitted; !bypass && (len(got) != 1 || got[0].W != a3) {
				t.Errorf("released through the hook: admitted %v, want a-3", got)
			}
			return ""
		}()
		switch {
		case bypass && !strings.Contains(msg, "without Core.changed"):
			t.Errorf("a release that bypassed the hook was not caught (panic %q)", msg)
		case !bypass && msg != "":
			t.Errorf("a release through the hook panicked: %s", msg)
		}
	}
}

// bypassCase is teams a (4 GPUs) and c (8) sharing a root: a runs 4, c
// runs 8, and a's 2-GPU head waits for room, its cycle settled.
func bypassCase(t *testing.T) (c *Core, a3, c2 *Workload) {
	t.Helper()
	queue := func(name string, q Qty) QueueSpec {
		return QueueSpec{Name: name, Cohort: 0, Weight: 1, WithinQueue: LowerPriority, Reclaim: Any,
			Groups: []ResourceGroup{{Resources: []int{0}, Flavors: []FlavorQuotas{{Flavor: 0, Quotas: map[int]Quota{0: {Nominal: q * Milli}}}}}}}
	}
	m := &Model{Kind: KindQuota, Resources: []string{"gpu"},
		Flavors: []FlavorSpec{{Name: "x", Nodes: -1, AccelResource: 0, CPUResource: -1, MemResource: -1, Speed: 1}},
		Cohorts: []CohortSpec{{Name: "root", Parent: -1, Weight: 1}},
		Queues:  []QueueSpec{queue("a", 4), queue("c", 8)}}
	c, err := NewCore(m)
	if err != nil {
		t.Fatal(err)
	}
	job := func(seq int64, q int, gpus Qty, now float64) *Workload {
		w := &Workload{Name: fmt.Sprintf("%s-%d", m.Queues[q].Name, seq), Seq: seq, Queue: q, Order: now, Req: Request{Accel: gpus * Milli}}
		if err := c.Submit(w); err != nil {
			t.Fatal(err)
		}
		return w
	}
	job(1, 0, 4, 0)
	c2 = job(2, 1, 8, 0)
	if got := len(c.Schedule(0).Admitted); got != 2 {
		t.Fatalf("admitted %d jobs at 0, want a-1 and c-2", got)
	}
	a3 = job(3, 0, 2, 1)
	if got := len(c.Schedule(1).Admitted); got != 0 {
		t.Fatalf("admitted %d jobs at 1, want a-3 to wait", got)
	}
	return c, a3, c2
}

// releaseBypassingTheHook is release without c.changed: the defect the
// check build must catch.
func releaseBypassingTheHook(c *Core, w *Workload) {
	c.tree.removeAll(c.tree.qNode[w.Queue], w.usage)
	c.queues[w.Queue].removeAdmitted(w)
	c.eng.released(w, c.now)
	w.usage = nil
	w.place = placement{flavor: -1}
	w.state = stateGone
}
