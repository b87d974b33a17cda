package policies

import "math/bits"

// A pool is the nodes of one flavor. Jobs of at least one node's
// accelerators take whole free nodes; smaller jobs go best-fit onto the node
// with the least free room that still holds them, so partly used nodes fill
// up before free ones are broken into. All of a job's nodes are taken at
// once or none (gang). Among equal candidates the lowest-numbered node wins,
// so a placement depends only on the nodes' state, not on its history.

type node struct {
	a, c, m Qty // free
	healthy bool
	bucket  int   // -1 when not linked
	trial   int32 // 1 + its slot in pool.trial; 0: it has no trial room
}

type pool struct {
	capA, capC, capM Qty
	nodes            []node
	buckets          [][]uint64 // healthy nodes by free room (whole units of the main dimension), as bitsets
	inBucket         []int32    // how many nodes each bucket holds: a full pool's empty buckets are passed over unread
	whole            []uint64   // healthy, entirely free nodes
	nWhole           int
	healthy          int
	// trial is the room that victims taken on trial in a preemption search
	// would free, node by node, kept beside the nodes instead of moving
	// them between bitsets; trialWhole counts the nodes it would empty.
	trial      []trialRoom
	trialWhole int
}

type trialRoom struct {
	i       int32
	a, c, m Qty
}

// placement is where an admitted job sits.
type placement struct {
	flavor  int
	whole   bool
	nodes   []int32
	a, c, m Qty // per node taken (whole: the node's capacity)
	heldA   Qty
}

func newPool(capA, capC, capM Qty, n int) *pool {
	p := &pool{capA: capA, capC: capC, capM: capM}
	p.buckets = make([][]uint64, p.key(capA, capC)+1)
	p.inBucket = make([]int32, len(p.buckets))
	p.grow(n)
	return p
}

// key is the bucket of a node with free room (a, c).
func (p *pool) key(a, c Qty) int {
	if p.capA > 0 {
		return int(a / Milli)
	}
	return int(c / Milli)
}

func setBit(b []uint64, i int32) []uint64 {
	w := int(i) >> 6
	for len(b) <= w {
		b = append(b, 0)
	}
	b[w] |= 1 << (uint(i) & 63)
	return b
}

func clearBit(b []uint64, i int32) { b[int(i)>>6] &^= 1 << (uint(i) & 63) }

func (p *pool) grow(n int) {
	for i := 0; i < n; i++ {
		p.nodes = append(p.nodes, node{a: p.capA, c: p.capC, m: p.capM, healthy: true, bucket: -1})
		p.link(int32(len(p.nodes) - 1))
	}
}

func (p *pool) isFree(nd *node) bool { return nd.a == p.capA && nd.c == p.capC && nd.m == p.capM }

func (p *pool) link(i int32) {
	nd := &p.nodes[i]
	p.healthy++
	k := p.key(nd.a, nd.c)
	nd.bucket = k
	p.buckets[k] = setBit(p.buckets[k], i)
	p.inBucket[k]++
	if p.isFree(nd) {
		p.whole = setBit(p.whole, i)
		p.nWhole++
	}
}

func (p *pool) unlink(i int32) {
	nd := &p.nodes[i]
	p.healthy--
	clearBit(p.buckets[nd.bucket], i)
	p.inBucket[nd.bucket]--
	nd.bucket = -1
	if p.isFree(nd) {
		clearBit(p.whole, i)
		p.nWhole--
	}
}

func (p *pool) adjust(i int32, da, dc, dm Qty) {
	nd := &p.nodes[i]
	if !nd.healthy {
		nd.a += da
		nd.c += dc
		nd.m += dm
		return
	}
	// In place of unlink and link: only the bitsets whose answer changes
	// are touched (trial takes in victim searches move nodes constantly).
	wasFree := p.isFree(nd)
	nd.a += da
	nd.c += dc
	nd.m += dm
	if k := p.key(nd.a, nd.c); k != nd.bucket {
		clearBit(p.buckets[nd.bucket], i)
		p.inBucket[nd.bucket]--
		nd.bucket = k
		p.buckets[k] = setBit(p.buckets[k], i)
		p.inBucket[k]++
	}
	if free := p.isFree(nd); free != wasFree {
		if free {
			p.whole = setBit(p.whole, i)
			p.nWhole++
		} else {
			clearBit(p.whole, i)
			p.nWhole--
		}
	}
}

// need computes what a generic request takes on this pool's nodes.
func (p *pool) need(a, c, m Qty) (placeNeed, bool) {
	n := 1
	whole := false
	if p.capA > 0 && a >= p.capA {
		whole = true
		n = int((a + p.capA - 1) / p.capA)
	}
	if c > p.capC && p.capC > 0 {
		whole = true
		n = max(n, int((c+p.capC-1)/p.capC))
	}
	if m > p.capM && p.capM > 0 {
		whole = true
		n = max(n, int((m+p.capM-1)/p.capM))
	}
	if (a > 0 && p.capA == 0) || (c > p.capC && p.capC == 0) {
		return placeNeed{}, false
	}
	if whole {
		return placeNeed{whole: true, nodes: n}, true
	}
	return placeNeed{a: a, c: c, m: m}, true
}

// find returns nodes for a need without taking them (nil if none).
func (p *pool) find(nd placeNeed, buf []int32) []int32 {
	if nd.whole {
		if p.nWhole < nd.nodes {
			return nil
		}
		if cap(buf) < nd.nodes {
			buf = make([]int32, 0, nd.nodes) // once, not by doubling
		}
		buf = buf[:0]
		for w, word := range p.whole {
			for word != 0 && len(buf) < nd.nodes {
				b := bits.TrailingZeros64(word)
				buf = append(buf, int32(w<<6|b))
				word &^= 1 << uint(b)
			}
			if len(buf) == nd.nodes {
				break
			}
		}
		return buf
	}
	for k := p.key(nd.a, nd.c); k < len(p.buckets); k++ {
		if p.inBucket[k] == 0 {
			continue
		}
		for w, word := range p.buckets[k] {
			for word != 0 {
				b := bits.TrailingZeros64(word)
				i := int32(w<<6 | b)
				if x := &p.nodes[i]; x.a >= nd.a && x.c >= nd.c && x.m >= nd.m {
					return append(buf[:0], i)
				}
				word &^= 1 << uint(b)
			}
		}
	}
	return nil
}

// fits says whether a need can be placed now, counting the room that
// victims taken on trial would free.
func (p *pool) fits(nd placeNeed) bool {
	if nd.whole {
		return p.nWhole+p.trialWhole >= nd.nodes
	}
	if p.trialWhole > 0 {
		return true // an emptied node holds any need short of a whole node
	}
	for _, t := range p.trial {
		if x := &p.nodes[t.i]; x.a+t.a >= nd.a && x.c+t.c >= nd.c && x.m+t.m >= nd.m {
			return true
		}
	}
	var one [1]int32
	return p.find(nd, one[:0]) != nil
}

// trialRelease counts a placement's room as free for fits without moving
// the nodes between bitsets; trialOccupy takes it back. A search only
// takes back room it released, so the trial room of every node stays >= 0
// and is gone once the search has put its victims back. Nodes that are
// down take no work and are left out, as link leaves them out.
func (p *pool) trialRelease(pl *placement) {
	if pl.whole { // the nodes were the job's alone: they empty
		for _, i := range pl.nodes {
			if p.nodes[i].healthy {
				p.trialWhole++
			}
		}
		return
	}
	if pl.holdsNone() {
		return
	}
	for _, i := range pl.nodes {
		if x := &p.nodes[i]; x.healthy {
			t := p.trialRoom(i)
			t.a += pl.a
			t.c += pl.c
			t.m += pl.m
			if p.isFreeWith(x, t) {
				p.trialWhole++
			}
		}
	}
}

func (p *pool) trialOccupy(pl *placement) {
	p.trialWhole -= p.trialEmptied(pl)
	if pl.whole || pl.holdsNone() {
		return
	}
	for _, i := range pl.nodes {
		if x := &p.nodes[i]; x.healthy {
			t := p.trialRoom(i)
			t.a -= pl.a
			t.c -= pl.c
			t.m -= pl.m
			if t.a == 0 && t.c == 0 && t.m == 0 {
				p.dropTrialRoom(t)
			}
		}
	}
}

// trialEmptied is how many of trialWhole's nodes a placement released on
// trial empties: what taking it back (trialOccupy) takes off trialWhole.
func (p *pool) trialEmptied(pl *placement) int {
	n := 0
	if pl.whole {
		for _, i := range pl.nodes {
			if p.nodes[i].healthy {
				n++
			}
		}
		return n
	}
	if pl.holdsNone() {
		return 0
	}
	for _, i := range pl.nodes {
		if x := &p.nodes[i]; x.healthy && x.trial > 0 && p.isFreeWith(x, &p.trial[x.trial-1]) {
			n++
		}
	}
	return n
}

// holdsNone says whether a placement holds no room on its nodes (a job
// whose podsets name no node need): releasing it on trial frees nothing,
// and counting it would count a node it shares as emptied once more when
// it is taken back than when it was released.
func (pl *placement) holdsNone() bool { return pl.a == 0 && pl.c == 0 && pl.m == 0 }

// trialRoom is node i's trial room, added (empty) if it has none. Each
// node knows its slot: a search taking many victims would otherwise scan
// the list once per victim.
func (p *pool) trialRoom(i int32) *trialRoom {
	if k := p.nodes[i].trial; k > 0 {
		return &p.trial[k-1]
	}
	p.trial = append(p.trial, trialRoom{i: i})
	p.nodes[i].trial = int32(len(p.trial))
	return &p.trial[len(p.trial)-1]
}

// dropTrialRoom removes an emptied trial room, moving the last into its slot.
func (p *pool) dropTrialRoom(t *trialRoom) {
	k := p.nodes[t.i].trial
	p.nodes[t.i].trial = 0
	last := p.trial[len(p.trial)-1]
	p.trial = p.trial[:len(p.trial)-1]
	if int(k) <= len(p.trial) {
		p.trial[k-1] = last
		p.nodes[last.i].trial = k
	}
}

// isFreeWith says whether a node with trial room t would be empty; a node
// empty already has no trial room (nothing of it was taken on trial).
func (p *pool) isFreeWith(x *node, t *trialRoom) bool {
	return x.a+t.a == p.capA && x.c+t.c == p.capC && x.m+t.m == p.capM
}

// occupy takes the nodes of a placement.
func (p *pool) occupy(pl *placement) {
	for _, i := range pl.nodes {
		p.adjust(i, -pl.a, -pl.c, -pl.m)
	}
}

// release gives the nodes of a placement back.
func (p *pool) release(pl *placement) {
	for _, i := range pl.nodes {
		p.adjust(i, pl.a, pl.c, pl.m)
	}
}

// place finds nodes for a need and fills a placement (not yet occupied).
func (p *pool) place(flavor int, nd placeNeed, pl *placement) bool {
	nodes := p.find(nd, pl.nodes[:0])
	if nodes == nil {
		return false
	}
	pl.flavor, pl.nodes, pl.whole = flavor, nodes, nd.whole
	if nd.whole {
		pl.a, pl.c, pl.m = p.capA, p.capC, p.capM
		pl.heldA = p.capA * Qty(nd.nodes)
	} else {
		pl.a, pl.c, pl.m = nd.a, nd.c, nd.m
		pl.heldA = nd.a
	}
	return true
}

// setHealthy marks a node up or down; a down node takes no new work.
func (p *pool) setHealthy(i int32, up bool) {
	nd := &p.nodes[i]
	if nd.healthy == up {
		return
	}
	if up {
		nd.healthy = true
		p.link(i)
		return
	}
	p.unlink(i)
	nd.healthy = false
}

// freeAccel sums the free accelerators on healthy nodes.
func (p *pool) freeAccel() Qty {
	var s Qty
	for i := range p.nodes {
		if p.nodes[i].healthy {
			s += p.nodes[i].a
		}
	}
	return s
}

// highestFree returns a free healthy node, the highest-numbered (-1 if none).
func (p *pool) highestFree() int32 {
	for w := len(p.whole) - 1; w >= 0; w-- {
		if word := p.whole[w]; word != 0 {
			return int32(w<<6 | (63 - bits.LeadingZeros64(word)))
		}
	}
	return -1
}
