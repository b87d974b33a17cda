package policies

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// The victim searches take shortcuts: a later type that could only tie is
// not searched, sibling teams are read from a list sorted by share, and a
// round stops at the first team whose share is below the preemptor's. Two
// cores, one with the shortcuts and one without, must make the same
// decisions, step by step, over random streams of jobs that arrive, finish
// and are preempted.
func TestSearchShortcutsChangeNoDecision(t *testing.T) {
	preemptions := 0
	for _, deep := range []bool{false, true} {
		for seed := range uint64(40) {
			fast, slow := newTwin(t, deep, false), newTwin(t, deep, true)
			rng := rand.New(rand.NewPCG(seed, 99))
			for step := range 120 {
				now := float64(step)
				w := &Workload{Seq: int64(step), Queue: rng.IntN(4), Priority: int32(rng.IntN(3)), Order: now,
					Req: Request{Accel: Qty(1+rng.IntN(7)) * Milli}}
				// Some jobs name their types: one of them, or both in either order.
				w.Req.Compatible = [][]int{nil, nil, {0}, {1}, {0, 1}, {1, 0}}[rng.IntN(6)]
				fast.submit(w)
				slow.submit(w)
				finish := -1
				if n := len(fast.running); n > 0 && rng.IntN(2) == 0 {
					finish = rng.IntN(n)
				}
				got, want := fast.step(now, finish), slow.step(now, finish)
				if got != want {
					t.Fatalf("deep %v, seed %d, step %d:\nwith shortcuts    %s\nwithout shortcuts %s", deep, seed, step, got, want)
				}
				preemptions += strings.Count(got, "preempt")
			}
		}
	}
	t.Logf("%d preemptions", preemptions)
	if preemptions < 500 {
		t.Fatalf("only %d preemptions: the streams do not exercise the searches", preemptions)
	}
}

// twin is a core driven by a test, with its jobs in a stable order.
type twin struct {
	t       *testing.T
	c       *Core
	running []int64 // sequence numbers of admitted jobs, in admission order
	bySeq   map[int64]*Workload
}

func newTwin(t *testing.T, deep, exhaustive bool) *twin {
	c, err := NewCore(twoTypeModel(deep))
	if err != nil {
		t.Fatal(err)
	}
	c.exhaustive = exhaustive
	return &twin{t: t, c: c, bySeq: map[int64]*Workload{}}
}

func (tw *twin) submit(w *Workload) {
	x := *w
	x.Req.Compatible = slices.Clone(w.Req.Compatible)
	if err := tw.c.Submit(&x); err != nil {
		tw.t.Fatal(err)
	}
	tw.bySeq[x.Seq] = &x
}

// step finishes the running job at index finish (if any), completes the
// evictions under way, schedules, and describes the plan.
func (tw *twin) step(now float64, finish int) string {
	if finish >= 0 {
		seq := tw.running[finish]
		tw.running = slices.Delete(tw.running, finish, finish+1)
		tw.c.Finish(tw.bySeq[seq], now)
	}
	for i := 0; i < len(tw.running); i++ {
		if w := tw.bySeq[tw.running[i]]; w.state == stateEvicting {
			tw.c.Requeue(w, now)
			tw.running = slices.Delete(tw.running, i, i+1)
			i--
		}
	}
	p := tw.c.Schedule(now)
	out := ""
	for _, a := range p.Admitted {
		out += fmt.Sprintf("admit %d on %d; ", a.W.Seq, a.W.Flavor())
		tw.running = append(tw.running, a.W.Seq)
	}
	for _, x := range p.Preempted {
		out += fmt.Sprintf("preempt %d for %d (%s); ", x.W.Seq, x.By.Seq, x.Reason)
	}
	return out
}
