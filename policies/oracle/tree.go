package oracle

import "github.com/allot-sim/allot/policies"

// tree is the quota tree for one flavor-resource: queues and cohorts as
// nodes, with their quotas and the usage of the running jobs (resource
// node arithmetic, kueue-semantics.md §1.2).
type tree struct {
	parent   []int // -1 at a root
	children [][]int
	nominal  []policies.Qty
	borrow   []policies.Qty
	hasB     []bool
	lend     []policies.Qty
	hasL     []bool
	own      []policies.Qty // the jobs' usage, at queue nodes
	nQueues  int            // nodes 0..nQueues-1 are the queues, in model order
}

// newTree builds the tree of fr for model m. Queue q is node q; cohort c
// is node nQueues+c.
func newTree(m *policies.Model, fr int) *tree {
	nR := len(m.Resources)
	f, r := fr/nR, fr%nR
	nQ, nC := len(m.Queues), len(m.Cohorts)
	t := &tree{nQueues: nQ, parent: make([]int, nQ+nC), children: make([][]int, nQ+nC),
		nominal: make([]policies.Qty, nQ+nC), borrow: make([]policies.Qty, nQ+nC), hasB: make([]bool, nQ+nC),
		lend: make([]policies.Qty, nQ+nC), hasL: make([]bool, nQ+nC), own: make([]policies.Qty, nQ+nC)}
	set := func(n int, q policies.Quota) {
		t.nominal[n], t.borrow[n], t.hasB[n], t.lend[n], t.hasL[n] = q.Nominal, q.BorrowLimit, q.HasBorrow, q.LendLimit, q.HasLend
	}
	for qi, q := range m.Queues {
		t.parent[qi] = -1
		if q.Cohort >= 0 {
			t.parent[qi] = nQ + q.Cohort
		}
		for _, g := range q.Groups {
			for _, fq := range g.Flavors {
				if qq, ok := fq.Quotas[r]; ok && fq.Flavor == f {
					set(qi, qq)
				}
			}
		}
	}
	for ci, c := range m.Cohorts {
		t.parent[nQ+ci] = -1
		if c.Parent >= 0 {
			t.parent[nQ+ci] = nQ + c.Parent
		}
		if qq, ok := c.Quotas[f][r]; ok {
			set(nQ+ci, qq)
		}
	}
	for n, p := range t.parent {
		if p >= 0 {
			t.children[p] = append(t.children[p], n)
		}
	}
	return t
}

// subtreeQuota: a node's nominal plus what each child does not keep to
// itself.
func (t *tree) subtreeQuota(n int) policies.Qty {
	s := t.nominal[n]
	for _, ch := range t.children[n] {
		s += t.subtreeQuota(ch) - t.localQuota(ch)
	}
	return s
}

// localQuota is the part of a node's subtree quota its lending limit keeps
// from its parent.
func (t *tree) localQuota(n int) policies.Qty {
	if !t.hasL[n] {
		return 0
	}
	return max(0, t.subtreeQuota(n)-t.lend[n])
}

// usage of a queue is its jobs'; of a cohort, what its children use past
// what they keep to themselves.
func (t *tree) usage(n int) policies.Qty {
	if n < t.nQueues {
		return t.own[n]
	}
	var s policies.Qty
	for _, ch := range t.children[n] {
		s += max(0, t.usage(ch)-t.localQuota(ch))
	}
	return s
}

// available is how much more node n can take now.
func (t *tree) available(n int) policies.Qty {
	sub, local, use := t.subtreeQuota(n), t.localQuota(n), t.usage(n)
	if t.parent[n] < 0 {
		return sub - use
	}
	p := t.available(t.parent[n])
	if t.hasB[n] {
		p = min(p, sub-local-max(0, use-local)+t.borrow[n])
	}
	return max(0, local-use) + p
}

// overQuota says whether node n uses more than its subtree quota.
func (t *tree) overQuota(n int) bool { return t.usage(n) > t.subtreeQuota(n) }
