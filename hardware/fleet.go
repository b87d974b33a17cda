package hardware

import (
	"math/rand/v2"
)

// NodeGroup is a number of identical nodes.
type NodeGroup struct {
	Type  string
	Count int
	// Failures, when set, is this group's own failure model in place of
	// the fleet's: spot capacity, whose interruptions are failures with
	// their own rate and a time to get the node back.
	Failures *Failures
}

// Failures is the failure model of one node: exponential times between
// failures with mean MTBF, and a fixed repair time (both in seconds).
// A zero MTBF means nodes never fail.
type Failures struct {
	MTBF   float64
	Repair float64
}

// Enabled says whether nodes fail at all.
func (f Failures) Enabled() bool { return f.MTBF > 0 }

// NextFailure draws the time until a healthy node next fails.
func (f Failures) NextFailure(r *rand.Rand) float64 { return r.ExpFloat64() * f.MTBF }

// Fleet is what the nodes of a scenario are, resolved against a catalog.
type Fleet struct {
	Catalog  *Catalog
	Groups   []NodeGroup
	Failures Failures
}

// Types lists the distinct instance types of the fleet, in first-seen order.
func (f *Fleet) Types() []*InstanceType {
	var out []*InstanceType
	seen := map[string]bool{}
	for _, g := range f.Groups {
		if seen[g.Type] {
			continue
		}
		seen[g.Type] = true
		t, _ := f.Catalog.Lookup(g.Type)
		out = append(out, t)
	}
	return out
}

// Nodes returns the number of nodes of one type.
func (f *Fleet) Nodes(typ string) int {
	n := 0
	for _, g := range f.Groups {
		if g.Type == typ {
			n += g.Count
		}
	}
	return n
}

// NodeFailures is the failure model of each node of one type, in node
// order: the type's groups one after the other. Nil when every node of the
// type follows the fleet's model.
func (f *Fleet) NodeFailures(typ string) []Failures {
	own := false
	for _, g := range f.Groups {
		own = own || (g.Type == typ && g.Failures != nil)
	}
	if !own {
		return nil
	}
	var out []Failures
	for _, g := range f.Groups {
		if g.Type != typ {
			continue
		}
		m := f.Failures
		if g.Failures != nil {
			m = *g.Failures
		}
		for range g.Count {
			out = append(out, m)
		}
	}
	return out
}
