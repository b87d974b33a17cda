package policies

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// Candidates of one priority are read latest admitted first, and among jobs
// admitted at one instant lowest sequence first (Kueue's candidate order),
// whatever order the jobs were filed in: a simulation files them as they
// are admitted, a snapshot in the order of its file.
func TestVictimsAreReadLatestAdmittedFirstInWhateverOrderTheyWereFiled(t *testing.T) {
	c := &Core{m: &Model{}}
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		var v victimIndex
		var jobs []*Workload
		for i := range 30 {
			w := &Workload{Seq: int64(i), admittedAt: float64(rng.IntN(8)), usage: []frQty{{0, Milli}}}
			jobs = append(jobs, w)
		}
		filed := slices.Clone(jobs)
		if trial%2 == 1 { // half the trials file in admission order, as a simulation does
			rng.Shuffle(len(filed), func(i, j int) { filed[i], filed[j] = filed[j], filed[i] })
		} else {
			slices.SortStableFunc(filed, func(a, b *Workload) int {
				if a.admittedAt != b.admittedAt {
					return int(a.admittedAt - b.admittedAt)
				}
				return int(b.Seq - a.Seq) // any order within an instant
			})
		}
		for _, w := range filed {
			v.add(w, 1)
		}
		if trial%3 == 0 { // and some leave again
			for _, w := range jobs[:5] {
				v.remove(w)
			}
			jobs = jobs[5:]
		}
		want := slices.Clone(jobs)
		slices.SortFunc(want, func(a, b *Workload) int {
			if a.admittedAt != b.admittedAt {
				return int(b.admittedAt - a.admittedAt)
			}
			return int(a.Seq - b.Seq)
		})
		wk := &walker{c: c, levels: v.levels(0), bound: maxPrio, lvl: -1}
		var got []*Workload
		for wk.advance(); wk.head != nil; wk.advance() {
			got = append(got, wk.head)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d: read %v, want %v", trial, seqs(got), seqs(want))
		}
	}
}

func seqs(ws []*Workload) []int64 {
	var out []int64
	for _, w := range ws {
		out = append(out, w.Seq)
	}
	return out
}

// A preemptor that may take jobs of its own priority only when they were
// queued after it (LowerOrNewerEqualPriority) reads, at that priority, the
// jobs admitted after it was queued and no others: a job queued after it
// was admitted after that. A job queued after its own admission (a
// snapshot's) turns the stop off for its level, and is still read.
func TestAWalkForJobsQueuedAfterThePreemptorStopsAtAdmissionsBeforeIt(t *testing.T) {
	c := &Core{m: &Model{}}
	rng := rand.New(rand.NewPCG(3, 4))
	const prio = 5
	for trial := range 300 {
		var v victimIndex
		late := trial%4 == 3
		for i := range 40 {
			adm := float64(rng.IntN(20))
			order := adm - float64(rng.IntN(10))
			if late && i == 7 {
				order = adm + 3
			}
			p := int32(prio)
			if i%5 == 0 {
				p = prio - 1
			}
			v.add(&Workload{Seq: int64(i), Priority: p, Order: order, admittedAt: adm, usage: []frQty{{0, Milli}}}, 1)
		}
		preemptor := &Workload{Priority: prio, Order: float64(rng.IntN(20))}
		wk := &walker{c: c, levels: v.levels(0), bound: prio + 1, newer: preemptor, lvl: -1}
		read := map[*Workload]bool{}
		for wk.advance(); wk.head != nil; wk.advance() {
			read[wk.head] = true
		}
		lateInLevel := false
		for _, l := range v.levels(0) {
			lateInLevel = lateInLevel || (l.prio == prio && l.queuedLate > 0)
		}
		for _, l := range v.levels(0) {
			for w := l.tail; w != nil; w = w.prev {
				switch {
				case w.Priority < prio && !read[w]:
					t.Fatalf("trial %d: job %d of a lower priority was not read", trial, w.Seq)
				case w.Priority == prio && w.Order > preemptor.Order && !read[w]:
					t.Fatalf("trial %d: job %d, queued after the preemptor, was not read", trial, w.Seq)
				case w.Priority == prio && !lateInLevel && read[w] != (w.admittedAt > preemptor.Order):
					t.Fatalf("trial %d: job %d admitted at %v read=%v, preemptor queued at %v",
						trial, w.Seq, w.admittedAt, read[w], preemptor.Order)
				}
			}
		}
	}
}

// A job being evicted leaves its level for the evicting list, so a pass
// over evicting jobs reads that list alone and a pass over running ones
// the levels alone.
func TestPassesOverEvictingAndRunningJobsReadOneListEach(t *testing.T) {
	c := &Core{m: &Model{Resources: []string{"gpu"}}, queues: []queueState{{}}}
	v := &c.queues[0].victims
	var jobs []*Workload
	for i := range 6 {
		w := &Workload{Seq: int64(i), state: stateAdmitted, admittedAt: float64(i), usage: []frQty{{0, Milli}}}
		v.add(w, 1)
		jobs = append(jobs, w)
	}
	for _, w := range jobs[:2] {
		w.state = stateEvicting
		v.markEvicting(w)
	}
	readAllOf := func(read uint8) []int64 {
		c.arena.reset()
		it := c.newCandIter(0, 0, []int{0}, maxPrio, read, nil)
		var got []*Workload
		for w := it.pop(); w != nil; w = it.pop() {
			got = append(got, w)
		}
		return seqs(got)
	}
	if got, want := readAllOf(readEvicting), []int64{1, 0}; !slices.Equal(got, want) {
		t.Errorf("evicting pass read %v, want %v", got, want)
	}
	if got, want := readAllOf(readRunning), []int64{5, 4, 3, 2}; !slices.Equal(got, want) {
		t.Errorf("running pass read %v, want %v", got, want)
	}
	if got, want := readAllOf(readAll), []int64{1, 0, 5, 4, 3, 2}; !slices.Equal(got, want) {
		t.Errorf("whole walk read %v, want %v", got, want)
	}
}
