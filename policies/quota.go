package policies

import mbits "math/bits"

// The quota tree: every queue and cohort is a node with, per flavor-resource
// (fr = flavor*R + resource), its quota, the quota of its whole subtree, the
// part of that reserved for the subtree (not lent to the parent), and usage.
// Usage spills to the parent only past the reserved part. The arithmetic is
// Kueue's resource-node model (see ../shared/reference/kueue-semantics.md §1).

type treeNode struct {
	name    string
	parent  int       // node index, -1 = root
	up      *treeNode // the parent node, nil at a root (walks up skip an index check)
	queue   int       // queue index, -1 for cohorts
	cohorts []int
	queues  []int // node indices of child queues
	// queueIDs are the same queues' indices, so that a walk asking which
	// of them borrow reads the over bits, not each node.
	queueIDs []int
	weight   float64
	// cells holds the node's figures by flavor-resource, side by side:
	// the tree's arithmetic reads several of one flavor-resource at once.
	cells    []frCell
	declared []bool
	borrowed []Qty // by resource: usage above subtree quota, summed over flavors
	// lendable is, by resource, what the node's parent could ever lend of
	// it, over all flavors: the denominator of its dominant resource share.
	lendable []Qty
	height   int
	// siblingsOnly: a queue node under a root without child cohorts
	// (amongSiblings).
	siblingsOnly bool
	ver          uint64 // bumped when usage changes
	drsVer       uint64 // ver when drsVal was computed (ver is never 0 once built)
	drsVal       drs
	// The share without the team's smallest job on one flavor-resource
	// (bestCaseShare), kept while usage is unchanged: most searches ask it
	// of teams no earlier search touched.
	bestVer  uint64
	bestFR   int
	bestSize Qty
	bestVal  drs
}

// frCell is one node's figures for one flavor-resource.
type frCell struct {
	usage   Qty
	subtree Qty // the quota of the node's whole subtree
	local   Qty // the part of subtree kept for the subtree (not lent up)
	// potential is the most the node could ever take (potentialAvailable),
	// which moves only with quotas.
	potential Qty
	quota     Quota
	res       int // the resource (fr % nRes), for the node's borrowed sums
}

type quotaTree struct {
	recomputed uint64 // the allotcheck build's count of recomputes (stateDigest)
	nodes      []treeNode
	nRes       int
	nFR        int
	qNode      []int // queue index -> node index
	cNode      []int // cohort index -> node index
	rootOf     []int // node -> root node
	// over[fr] has bit qi set while queue qi uses more of fr than its
	// subtree quota, so a search lists the teams it may reclaim from
	// without looking at every team.
	over [][]uint64
}

func newQuotaTree(m *Model) *quotaTree {
	nR, nF := len(m.Resources), len(m.Flavors)
	t := &quotaTree{nRes: nR, nFR: nR * nF}
	newNode := func(name string, weight float64) int {
		t.nodes = append(t.nodes, treeNode{
			name: name, parent: -1, queue: -1, weight: weight,
			cells: make([]frCell, t.nFR), declared: make([]bool, t.nFR), borrowed: make([]Qty, t.nRes),
		})
		n := len(t.nodes) - 1
		for fr := range t.nodes[n].cells {
			t.nodes[n].cells[fr].res = fr % nR
		}
		return n
	}
	for _, c := range m.Cohorts {
		n := newNode(c.Name, c.Weight)
		t.cNode = append(t.cNode, n)
		for f, byRes := range c.Quotas {
			for r, q := range byRes {
				fr := f*nR + r
				t.nodes[n].cells[fr].quota = q
				t.nodes[n].declared[fr] = true
			}
		}
	}
	for ci, c := range m.Cohorts {
		if c.Parent >= 0 {
			n, p := t.cNode[ci], t.cNode[c.Parent]
			t.nodes[n].parent = p
			t.nodes[p].cohorts = append(t.nodes[p].cohorts, n)
		}
	}
	for qi, q := range m.Queues {
		n := newNode(q.Name, q.Weight)
		t.nodes[n].queue = qi
		t.qNode = append(t.qNode, n)
		for _, g := range q.Groups {
			for _, fq := range g.Flavors {
				for r, qq := range fq.Quotas {
					fr := fq.Flavor*nR + r
					t.nodes[n].cells[fr].quota = qq
					t.nodes[n].declared[fr] = true
				}
			}
		}
		if q.Cohort >= 0 {
			p := t.cNode[q.Cohort]
			t.nodes[n].parent = p
			t.nodes[p].queues = append(t.nodes[p].queues, n)
			t.nodes[p].queueIDs = append(t.nodes[p].queueIDs, qi)
		}
	}
	for i := range t.nodes { // the nodes are all made: pointers into them hold
		if p := t.nodes[i].parent; p >= 0 {
			t.nodes[i].up = &t.nodes[p]
		}
	}
	for i := range t.nodes {
		nd := &t.nodes[i]
		nd.siblingsOnly = nd.queue >= 0 && t.underRoot(i) && len(t.nodes[nd.parent].cohorts) == 0
	}
	t.rootOf = make([]int, len(t.nodes))
	for i := range t.nodes {
		r := i
		for t.nodes[r].parent >= 0 {
			r = t.nodes[r].parent
		}
		t.rootOf[i] = r
	}
	for _, r := range t.roots() {
		t.computeHeight(r)
	}
	t.recompute()
	return t
}

func (t *quotaTree) roots() []int {
	var out []int
	for i := range t.nodes {
		if t.nodes[i].parent < 0 {
			out = append(out, i)
		}
	}
	return out
}

func (t *quotaTree) computeHeight(n int) int {
	nd := &t.nodes[n]
	h := 0
	if len(nd.queues) > 0 {
		h = 1
	}
	for _, c := range nd.cohorts {
		h = max(h, t.computeHeight(c)+1)
	}
	nd.height = h
	return h
}

// recompute rebuilds subtree and reserved quota bottom-up and re-aggregates
// cohort usage from queue usage; used at start and after a quota change.
func (t *quotaTree) recompute() {
	if checking {
		t.recomputed++
	}
	for _, r := range t.roots() {
		t.recomputeNode(r)
	}
	for i := range t.nodes {
		t.nodes[i].ver++
	}
	t.over = make([][]uint64, t.nFR)
	for fr := range t.over {
		t.over[fr] = make([]uint64, (len(t.qNode)+63)/64)
		for qi, n := range t.qNode {
			if c := &t.nodes[n].cells[fr]; c.usage > c.subtree {
				t.over[fr][qi>>6] |= 1 << (uint(qi) & 63)
			}
		}
	}
	for n := range t.nodes {
		nd := &t.nodes[n]
		for fr := range nd.cells {
			nd.cells[fr].potential = t.computePotential(n, fr)
		}
	}
	lendable := make([]Qty, len(t.nodes)*t.nRes)
	for n := range t.nodes {
		p := t.nodes[n].parent
		if p < 0 {
			continue
		}
		for fr := 0; fr < t.nFR; fr++ {
			lendable[n*t.nRes+fr%t.nRes] += t.potentialAvailable(p, fr)
		}
	}
	for n := range t.nodes {
		t.nodes[n].lendable = lendable[n*t.nRes : (n+1)*t.nRes : (n+1)*t.nRes]
	}
}

func (t *quotaTree) recomputeNode(n int) {
	nd := &t.nodes[n]
	isCohort := nd.queue < 0
	for fr := range nd.cells {
		c := &nd.cells[fr]
		c.subtree = c.quota.Nominal
		if isCohort {
			c.usage = 0
		}
	}
	children := append(append([]int(nil), nd.cohorts...), nd.queues...)
	for _, ci := range children {
		t.recomputeNode(ci)
		for fr, ch := range t.nodes[ci].cells {
			c := &nd.cells[fr]
			c.subtree += ch.subtree - ch.local
			if u := ch.usage - ch.local; u > 0 {
				c.usage += u
			}
		}
	}
	for fr := range nd.cells {
		c := &nd.cells[fr]
		c.local = 0
		if c.quota.HasLend {
			c.local = max(0, c.subtree-c.quota.LendLimit)
		}
	}
	clear(nd.borrowed)
	for _, c := range nd.cells {
		nd.borrowed[c.res] += max(0, c.usage-c.subtree)
	}
}

// setUsage changes one usage, cell c of node nd, and keeps the node's
// borrowed sums.
func (t *quotaTree) setUsage(nd *treeNode, c *frCell, fr int, u Qty) {
	sub, was := c.subtree, c.usage
	c.usage = u
	nd.ver++
	if was <= sub && u <= sub { // within quota before and after: nothing borrowed changes
		return
	}
	nd.borrowed[c.res] += max(0, u-sub) - max(0, was-sub)
	if (was > sub) != (u > sub) && nd.queue >= 0 {
		t.over[fr][nd.queue>>6] ^= 1 << (uint(nd.queue) & 63)
	}
}

func (t *quotaTree) localAvailable(n, fr int) Qty {
	c := &t.nodes[n].cells[fr]
	return max(0, c.local-c.usage)
}

func (t *quotaTree) addUsage(n, fr int, v Qty) {
	for nd := &t.nodes[n]; v != 0; nd = nd.up {
		c := &nd.cells[fr]
		la := max(0, c.local-c.usage)
		t.setUsage(nd, c, fr, c.usage+v)
		if nd.up == nil {
			return
		}
		v -= la
		if v <= 0 {
			return
		}
	}
}

func (t *quotaTree) removeUsage(n, fr int, v Qty) {
	for nd := &t.nodes[n]; v > 0; nd = nd.up {
		c := &nd.cells[fr]
		stored := c.usage - c.local
		t.setUsage(nd, c, fr, c.usage-v)
		if stored <= 0 || nd.up == nil {
			return
		}
		v = min(v, stored)
	}
}

// available is how much more of fr node n can take now.
func (t *quotaTree) available(n, fr int) Qty { return availableAt(&t.nodes[n], fr) }

func availableAt(nd *treeNode, fr int) Qty {
	c := &nd.cells[fr]
	if nd.up == nil {
		return c.subtree - c.usage
	}
	pa := availableAt(nd.up, fr)
	if c.quota.HasBorrow {
		stored := max(0, c.usage-c.local)
		pa = min(pa, c.subtree-c.local-stored+c.quota.BorrowLimit)
	}
	return max(0, c.local-c.usage) + pa
}

// availableLess is available(n, fr) as if d of fr were removed from n
// (passed up the tree as removeUsage would), without touching the tree: a
// victim search asks it after every trial take, and moving the preemptor's
// own usage out and back would invalidate its cached share each time.
func (t *quotaTree) availableLess(n, fr int, d Qty) Qty {
	return availableLessAt(&t.nodes[n], fr, d)
}

func availableLessAt(nd *treeNode, fr int, d Qty) Qty {
	c := &nd.cells[fr]
	u := c.usage - d
	if nd.up == nil {
		return c.subtree - u
	}
	var dp Qty
	if stored := c.usage - c.local; stored > 0 {
		dp = min(d, stored)
	}
	pa := availableLessAt(nd.up, fr, dp)
	if c.quota.HasBorrow {
		stored := max(0, u-c.local)
		pa = min(pa, c.subtree-c.local-stored+c.quota.BorrowLimit)
	}
	return max(0, c.local-u) + pa
}

// ownLimit is the most of fr node n could take whatever the rest of the
// tree uses: its unused reserved part plus what its borrowing limit
// leaves (available never exceeds it).
func (t *quotaTree) ownLimit(n, fr int) Qty {
	nd := &t.nodes[n]
	return ownLimitWith(nd, &nd.cells[fr], nd.cells[fr].usage)
}

// ownLimitWith is ownLimit with the node's usage of the cell's
// flavor-resource at usage: it reads the node alone.
func ownLimitWith(nd *treeNode, c *frCell, usage Qty) Qty {
	if nd.up == nil {
		return c.subtree - usage
	}
	if !c.quota.HasBorrow {
		return maxQty
	}
	stored := max(0, usage-c.local)
	return max(0, c.local-usage) + c.subtree - c.local - stored + c.quota.BorrowLimit
}

// underRoot says whether queue node qn hangs directly from a root cohort.
func (t *quotaTree) underRoot(qn int) bool {
	p := t.nodes[qn].parent
	return p >= 0 && t.nodes[p].parent < 0
}

// amongSiblings says whether queue node qn hangs from a root without child
// cohorts, so that every queue of its root is its sibling (worked out once:
// the tree's shape never changes, and memories ask it at every check).
func (t *quotaTree) amongSiblings(qn int) bool { return t.nodes[qn].siblingsOnly }

// overOnAny says whether queue q uses more than its quota of any of frs.
func (t *quotaTree) overOnAny(q int, frs []int) bool {
	for _, fr := range frs {
		if t.over[fr][q>>6]&(1<<(uint(q)&63)) != 0 {
			return true
		}
	}
	return false
}

// overOnTypes says whether queue q uses more than its quota of any
// resource on the flavors in the set types (as bits).
func (t *quotaTree) overOnTypes(q int, types uint64) bool {
	for b := types; b != 0; b &= b - 1 {
		f := mbits.TrailingZeros64(b)
		for fr := f * t.nRes; fr < (f+1)*t.nRes; fr++ {
			if t.over[fr][q>>6]&(1<<(uint(q)&63)) != 0 {
				return true
			}
		}
	}
	return false
}

// queueAvailable clamps a queue's availability at zero.
func (t *quotaTree) queueAvailable(n, fr int) Qty { return max(0, t.available(n, fr)) }

// potentialAvailable is the most node n could ever take of fr.
func (t *quotaTree) potentialAvailable(n, fr int) Qty { return t.nodes[n].cells[fr].potential }

func (t *quotaTree) computePotential(n, fr int) Qty {
	nd := &t.nodes[n]
	c := &nd.cells[fr]
	if nd.parent < 0 {
		return c.subtree
	}
	a := c.local + t.computePotential(nd.parent, fr)
	if c.quota.HasBorrow {
		a = min(a, c.subtree+c.quota.BorrowLimit)
	}
	return a
}

// borrowingWith says whether node n would be over its subtree quota with v more.
func (t *quotaTree) borrowingWith(n, fr int, v Qty) bool {
	c := &t.nodes[n].cells[fr]
	return c.usage+v > c.subtree
}

// fitsAt is the walk up the cohort tree for taking v of fr in queue node
// n: n itself when that is within its quota (or n is a root), else the
// first ancestor not over quota with what the nodes below it cannot hold
// themselves; -1 when none is.
func (t *quotaTree) fitsAt(n, fr int, v Qty) int {
	if !t.borrowingWith(n, fr, v) || t.nodes[n].parent < 0 {
		return n
	}
	remaining := v - t.localAvailable(n, fr)
	for p := t.nodes[n].parent; p >= 0; p = t.nodes[p].parent {
		if !t.borrowingWith(p, fr, remaining) {
			return p
		}
		remaining -= t.localAvailable(p, fr)
	}
	return -1
}

// lowestSubtreeHeightThatFits is the borrowing level of taking v of fr in
// queue node n: 0 within its own quota, else the height of the first
// ancestor that is not over quota with it (the root's when none is).
func (t *quotaTree) lowestSubtreeHeightThatFits(n, fr int, v Qty) int {
	switch p := t.fitsAt(n, fr, v); {
	case p == n:
		return 0
	case p >= 0:
		return t.nodes[p].height
	}
	for t.nodes[n].parent >= 0 {
		n = t.nodes[n].parent
	}
	return t.nodes[n].height
}

// fitsInQuota reports whether usage+req stays within n's subtree quota for
// every fr of req, and the part of req beyond n's reserved quota.
func (t *quotaTree) fitsInQuota(n int, req []frQty, remaining []frQty) (bool, []frQty) {
	fits := true
	remaining = remaining[:0]
	for _, x := range req {
		nd := &t.nodes[n]
		if c := &nd.cells[x.fr]; c.usage+x.q > c.subtree {
			fits = false
		}
		remaining = append(remaining, frQty{x.fr, max(0, x.q-t.localAvailable(n, x.fr))})
	}
	return fits, remaining
}

// withinNominal says n uses no more than its subtree quota on any of frs.
func (t *quotaTree) withinNominal(n int, frs []int) bool {
	nd := &t.nodes[n]
	for _, fr := range frs {
		if c := &nd.cells[fr]; c.usage > c.subtree {
			return false
		}
	}
	return true
}

// frQty is an amount of one flavor-resource.
type frQty struct {
	fr int
	q  Qty
}

func (t *quotaTree) addAll(n int, u []frQty) {
	for _, x := range u {
		t.addUsage(n, x.fr, x.q)
	}
}

func (t *quotaTree) removeAll(n int, u []frQty) {
	for _, x := range u {
		t.removeUsage(n, x.fr, x.q)
	}
}
