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
