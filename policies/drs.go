package policies

import "math"

// Dominant resource share (Kueue fair sharing): for a node with a parent,
// what it borrows beyond its own subtree quota, per resource summed over
// flavors, as a share of what the parent could lend of that resource; the
// largest share over resources, divided by the node's weight. A node within
// its quota has share 0; a zero-weight node that borrows has +Inf.

type drs struct {
	ratio     float64 // unweighted, per mille
	weight    float64
	borrowing bool
	w         float64 // weighted(), computed once: shares are compared often
}

func (d drs) weighted() float64 {
	if !d.borrowing {
		return 0
	}
	if d.weight == 0 {
		return math.Inf(1)
	}
	return d.ratio / d.weight
}

// cmpDRS orders two shares: negative if a < b.
func cmpDRS(a, b drs) int {
	az := a.borrowing && a.weight == 0
	bz := b.borrowing && b.weight == 0
	switch {
	case az && bz:
		return cmpFloat(a.ratio, b.ratio)
	case az:
		return 1
	case bz:
		return -1
	}
	return cmpFloat(a.w, b.w)
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// shareOf computes a node's dominant resource share from current usage.
// It is small enough to inline: searches ask it at every step, and the
// answer is nearly always cached.
func (c *Core) shareOf(n int) drs {
	nd := &c.tree.nodes[n]
	if nd.drsVer != nd.ver {
		c.refreshShare(nd, n)
	}
	return nd.drsVal
}

//go:noinline (kept out of shareOf, so that shareOf inlines)
func (c *Core) refreshShare(nd *treeNode, n int) {
	nd.drsVal, nd.drsVer = c.computeShare(n), nd.ver
}

func (c *Core) computeShare(n int) drs { return c.shareWith(n, nil, -1) }

// shareIs records d as node n's share as its usage now stands: a search
// that worked out a team's share without a job (shareWithout) and then
// took the job need not work it out again.
func (c *Core) shareIs(n int, d drs) {
	nd := &c.tree.nodes[n]
	nd.drsVal, nd.drsVer = d, nd.ver
	if checking && c.computeShare(n) != d {
		panic("allotcheck: shareIs was given a share that is not the node's")
	}
}

// shareWithout is node n's share as if its usage were lower by without:
// what a share would become if a job of that node left, without touching
// the tree (a node's share reads only its own usage, quota and lendable).
func (c *Core) shareWithout(n int, without []frQty) drs { return c.shareWith(n, without, -1) }

// shareWith is node n's share with its usage changed by sign × delta.
func (c *Core) shareWith(n int, delta []frQty, sign Qty) drs {
	t := c.tree
	nd := &t.nodes[n]
	d := drs{weight: nd.weight}
	if nd.parent < 0 {
		return d
	}
	var best float64 = -1
	lendable := nd.lendable
	for r, b := range nd.borrowed {
		// The change delta makes to what is borrowed of r, read in place:
		// a copy of the node's borrowed list cost more than the loop.
		for _, x := range delta {
			if cell := &nd.cells[x.fr]; cell.res == r {
				u, sub := cell.usage, cell.subtree
				b += max(0, u+sign*x.q-sub) - max(0, u-sub)
			}
		}
		if b <= 0 {
			continue
		}
		d.borrowing = true
		if l := lendable[r]; l > 0 {
			if ratio := float64(b) * 1000 / float64(l); ratio > best {
				best = ratio
			}
		}
	}
	if best > 0 {
		d.ratio = best
	}
	d.w = d.weighted()
	return d
}
