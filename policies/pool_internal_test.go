package policies

import (
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
)

// A victim search counts the room its trial victims would free beside the
// nodes instead of releasing them; every fits answer must be the one the
// pool gives after releasing them for real, and putting the victims back,
// in any order, must take off the emptied-node count what trialEmptied
// said and leave no trial room behind.
func TestTrialRoomAnswersFitsAsReleasingTheVictims(t *testing.T) {
	const capA, capC, capM = 8 * Milli, 96 * Milli, 1024 * Milli
	rng := rand.New(rand.NewPCG(3, 5))
	for trial := range 300 {
		p := newPool(capA, capC, capM, 12)
		if trial%3 == 0 {
			p.setHealthy(int32(rng.IntN(12)), false)
		}
		// Fill the pool with whole-node and part-node jobs.
		var running []*placement
		for range 40 {
			if pl := placeRandomJob(p, rng, 16); pl != nil {
				running = append(running, pl)
			}
		}
		rng.Shuffle(len(running), func(i, j int) { running[i], running[j] = running[j], running[i] })
		victims := running[:rng.IntN(len(running)+1)]
		for _, v := range victims {
			p.trialRelease(v)
		}
		real := newPool(capA, capC, capM, 12)
		for i := range p.nodes {
			real.setHealthy(int32(i), p.nodes[i].healthy)
		}
		for _, pl := range running {
			real.occupy(pl)
		}
		for _, v := range victims {
			real.release(v)
		}
		for a := Qty(1); a <= 40; a++ {
			nd, _ := p.need(a*Milli/2, a*Milli*2, a*Milli*16)
			if got, want := p.fits(nd), real.fits(nd); got != want {
				t.Fatalf("trial %d, need %+v: fits with trial room %v, after real release %v", trial, nd, got, want)
			}
		}
		rng.Shuffle(len(victims), func(i, j int) { victims[i], victims[j] = victims[j], victims[i] })
		for _, v := range victims {
			before, emptied := p.trialWhole, p.trialEmptied(v)
			p.trialOccupy(v)
			if before-p.trialWhole != emptied {
				t.Fatalf("trial %d: putting back %+v took %d emptied nodes off the count, trialEmptied said %d", trial, *v, before-p.trialWhole, emptied)
			}
		}
		if len(p.trial) != 0 || p.trialWhole != 0 {
			t.Fatalf("trial %d: %d nodes keep trial room and %d emptied after every victim is back", trial, len(p.trial), p.trialWhole)
		}
		for i := range p.nodes {
			if p.nodes[i].trial != 0 {
				t.Fatalf("trial %d: node %d still names trial slot %d with no trial room left", trial, i, p.nodes[i].trial)
			}
		}
	}
}

// Each bucket's count is the number of nodes filed in it, whatever jobs
// came, went or found their nodes down: find passes over a bucket whose
// count is zero without reading it, so a wrong count would hide a node.
func TestBucketCountsMatchTheNodesFiledThere(t *testing.T) {
	const capA, capC, capM = 8 * Milli, 96 * Milli, 1024 * Milli
	rng := rand.New(rand.NewPCG(7, 11))
	p := newPool(capA, capC, capM, 70) // two words of bits per bucket
	var running []*placement
	for step := range 3000 {
		switch r := rng.IntN(10); {
		case r < 5:
			if pl := placeRandomJob(p, rng, 12); pl != nil {
				running = append(running, pl)
			}
		case r < 9 && len(running) > 0:
			i := rng.IntN(len(running))
			p.release(running[i])
			running = slices.Delete(running, i, i+1)
		default:
			i := int32(rng.IntN(len(p.nodes)))
			p.setHealthy(i, !p.nodes[i].healthy)
		}
		for k, b := range p.buckets {
			n := 0
			for _, word := range b {
				n += bits.OnesCount64(word)
			}
			if int(p.inBucket[k]) != n {
				t.Fatalf("step %d: bucket %d holds %d nodes, its count says %d", step, k, n, p.inBucket[k])
			}
		}
	}
}

// placeRandomJob places and occupies a job of 1 to most accelerators (4
// vCPUs and 32 GiB each), or returns nil when the pool has no room for it.
func placeRandomJob(p *pool, rng *rand.Rand, most int) *placement {
	a := Qty(1+rng.IntN(most)) * Milli
	nd, _ := p.need(a, a*4, a*32)
	pl := &placement{}
	if !p.place(0, nd, pl) {
		return nil
	}
	pl.nodes = slices.Clone(pl.nodes)
	p.occupy(pl)
	return pl
}
