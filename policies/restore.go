package policies

import "fmt"

// AddPlaced records a job that a shell admitted and placed before it
// restarted (live mode rebuilding its core from its store): its quota usage
// and the very nodes a plan gave it, so that those nodes are not given to
// anyone else. flavor and nodes are what Workload.Flavor and Workload.Nodes
// said when the job was admitted.
func (c *Core) AddPlaced(w *Workload, flavor int, nodes []int32, admittedAt float64, evicting bool) error {
	if w.Queue < 0 || w.Queue >= len(c.queues) {
		return fmt.Errorf("job %s: unknown queue %d", w.Name, w.Queue)
	}
	if flavor < 0 || flavor >= len(c.m.Flavors) {
		return fmt.Errorf("job %s: unknown flavor %d", w.Name, flavor)
	}
	w.shape = c.internShape(&w.Req)
	w.queuePos, w.heapIdx = -1, -1
	asg := [][]int{{flavor}}
	usage, err := c.usageOf(w, asg)
	if err != nil {
		return err
	}
	pl := placement{flavor: -1}
	if p := c.pools[flavor]; p != nil {
		n := c.need(w.shape, flavor)
		if len(nodes) == 0 || (n.place.whole && len(nodes) != n.place.nodes) || (!n.place.whole && len(nodes) != 1) {
			return fmt.Errorf("job %s: %d nodes do not match its request on flavor %s", w.Name, len(nodes), c.m.Flavors[flavor].Name)
		}
		pl = placement{flavor: flavor, whole: n.place.whole, nodes: append(w.place.nodes[:0], nodes...)}
		if n.place.whole {
			pl.a, pl.c, pl.m = p.capA, p.capC, p.capM
			pl.heldA = p.capA * Qty(len(nodes))
		} else {
			pl.a, pl.c, pl.m = n.place.a, n.place.c, n.place.m
			pl.heldA = n.place.a
		}
		for _, i := range nodes {
			if i < 0 || int(i) >= len(p.nodes) {
				return fmt.Errorf("job %s: no node %d of flavor %s", w.Name, i, c.m.Flavors[flavor].Name)
			}
			if nd := &p.nodes[i]; nd.a < pl.a || nd.c < pl.c || nd.m < pl.m {
				return fmt.Errorf("job %s: node %d of flavor %s has no room left for it", w.Name, i, c.m.Flavors[flavor].Name)
			}
		}
	}
	c.commit(w, asg, usage, pl, admittedAt)
	if evicting {
		w.state = stateEvicting
		c.queues[w.Queue].victims.markEvicting(w)
	}
	return nil
}
