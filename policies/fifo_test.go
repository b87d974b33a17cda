package policies_test

import "testing"

const fifoFleet = `
name: t
fleet:
  instance_types:
    - {name: eight, accelerators: 8, vcpus: 64, memory_gib: 512, speed: 1}
  nodes: [{type: eight, count: 2}]
teams: [{name: a}]
priority_classes: [{name: high, value: 10}, {name: low, value: 1}]
`

func TestFIFOHeadBlocksLaterJobsThatWouldFit(t *testing.T) {
	f := newFixture(t, fifoFleet+"policy: {kind: fifo}\n")
	f.submit(job{name: "running", team: "a", acc: 8, estimate: 3600})
	f.step(0)
	f.submit(job{name: "big", team: "a", acc: 16, at: 1})  // needs both nodes
	f.submit(job{name: "small", team: "a", acc: 4, at: 2}) // would fit on the free node
	adm, _ := f.step(2)
	eq(t, "admitted behind a blocked head", adm, nil)
}

func TestBackfillStartsAJobThatEndsBeforeTheHeadCanStart(t *testing.T) {
	f := newFixture(t, fifoFleet+"policy: {kind: fifo, backfill: true}\n")
	f.submit(job{name: "running", team: "a", acc: 8, estimate: 3600})
	f.step(0)
	f.submit(job{name: "big", team: "a", acc: 16, at: 1, estimate: 3600})
	f.submit(job{name: "short", team: "a", acc: 4, at: 2, estimate: 1800}) // ends at 1802 < 3600
	f.submit(job{name: "long", team: "a", acc: 4, at: 3, estimate: 7200})  // would delay the head
	adm, _ := f.step(3)
	eq(t, "backfilled", adm, []string{"short@eight"})
}

func TestBackfillUsesCapacityTheHeadWillNotNeed(t *testing.T) {
	f := newFixture(t, `
name: t
fleet:
  instance_types: [{name: eight, accelerators: 8, vcpus: 64, memory_gib: 512}]
  nodes: [{type: eight, count: 3}]
teams: [{name: a}]
policy: {kind: fifo, backfill: true}
`)
	f.submit(job{name: "running", team: "a", acc: 16, estimate: 3600})
	f.step(0)
	// The head needs 16 at t=3600, when 24 will be free: 8 are spare.
	f.submit(job{name: "head", team: "a", acc: 16, at: 1, estimate: 3600})
	f.submit(job{name: "long", team: "a", acc: 8, at: 2, estimate: 99999})
	f.submit(job{name: "long2", team: "a", acc: 8, at: 3, estimate: 99999})
	adm, _ := f.step(3)
	eq(t, "backfilled into spare capacity, once", adm, []string{"long@eight"})
}

func TestPriorityPolicyOrdersByClassThenArrival(t *testing.T) {
	f := newFixture(t, fifoFleet+"policy: {kind: priority}\n")
	f.submit(job{name: "fill", team: "a", acc: 16})
	f.step(0)
	fill := f.core.Pending()
	_ = fill
	f.submit(job{name: "low1", team: "a", class: "low", acc: 8, at: 1})
	f.submit(job{name: "high1", team: "a", class: "high", acc: 8, at: 2})
	f.submit(job{name: "low2", team: "a", class: "low", acc: 8, at: 3})
	f.submit(job{name: "high2", team: "a", class: "high", acc: 8, at: 4})
	f.step(5)
	var order []string
	for i := 0; i < 4; i++ {
		for w, n := range f.names {
			if n == "fill" && w.Admitted() {
				f.core.Finish(w, float64(10+i))
			}
		}
		adm, _ := f.step(float64(10 + i))
		order = append(order, adm...)
		for w, n := range f.names {
			if w.Admitted() && n != "fill" {
				f.core.Finish(w, float64(10+i))
				f.names[w] = "done-" + n
			}
		}
	}
	eq(t, "start order", order, []string{"high1@eight", "high2@eight", "low1@eight", "low2@eight"})
}
