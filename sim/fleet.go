package sim

import (
	"math"

	"github.com/allot-sim/allot/hardware"
	"github.com/allot-sim/allot/policies"
	"github.com/allot-sim/allot/workload"
)

const (
	nodeHealthy uint8 = iota
	nodeFailed
	nodeRemoved
)

func (s *Sim) nodeFails(f int, n int32) {
	if s.nodes[f][n] != nodeHealthy {
		return
	}
	for _, w := range s.core.JobsOnNode(f, n) {
		s.interrupt(s.jobOf(w), workload.StopFailed)
	}
	s.core.SetNodeHealthy(f, n, false)
	s.nodes[f][n] = nodeFailed
	s.emit(workload.Event{Time: s.now, Kind: workload.EvNodeDown, Job: -1, Team: -1, Type: int32(f), Nodes: 1})
	s.q.push(event{t: s.now + s.failModel(f, n).Repair, kind: evRepair, a: int32(f), b: n})
}

func (s *Sim) nodeRepaired(f int, n int32) {
	if s.nodes[f][n] != nodeFailed {
		return
	}
	s.nodes[f][n] = nodeHealthy
	s.core.SetNodeHealthy(f, n, true)
	s.emit(workload.Event{Time: s.now, Kind: workload.EvNodeUp, Job: -1, Team: -1, Type: int32(f), Nodes: 1})
	s.q.push(event{t: s.now + s.failModel(f, n).NextFailure(s.rngFail), kind: evFailure, a: int32(f), b: n})
}

// failModel is the failure model of one node: its group's own, else the
// fleet's.
func (s *Sim) failModel(f int, n int32) hardware.Failures {
	if f < len(s.in.NodeFailures) && int(n) < len(s.in.NodeFailures[f]) {
		return s.in.NodeFailures[f][n]
	}
	return s.in.Failures
}

// change applies a timeline entry: nodes arrive or leave, or a quota moves.
func (s *Sim) change(ch *Change) {
	m := s.core.Model()
	if ch.Flavor >= 0 {
		f := ch.Flavor
		fs := m.Flavors[f]
		if ch.NodeDelta > 0 {
			first := s.core.AddNodes(f, ch.NodeDelta)
			for i := 0; i < ch.NodeDelta; i++ {
				s.nodes[f] = append(s.nodes[f], nodeHealthy)
				if s.in.Failures.Enabled() {
					s.q.push(event{t: s.now + s.in.Failures.NextFailure(s.rngFail), kind: evFailure, a: int32(f), b: first + int32(i)})
				}
			}
			s.adjustPool(fs, f, ch.NodeDelta)
		} else {
			for _, n := range s.core.PickNodesToRemove(f, -ch.NodeDelta) {
				s.nodes[f][n] = nodeRemoved
				for _, w := range s.core.JobsOnNode(f, n) {
					s.interrupt(s.jobOf(w), workload.StopRemoved)
				}
			}
			s.adjustPool(fs, f, ch.NodeDelta)
		}
		s.emit(workload.Event{Time: s.now, Kind: workload.EvCapacity, Job: -1, Team: -1, Type: int32(f), Nodes: ch.NodeDelta})
		return
	}
	for f := range ch.Accel {
		fs := m.Flavors[f]
		set := func(r int, v float64) {
			if r >= 0 && !math.IsNaN(v) {
				s.core.SetQuota(ch.Team, f, r, policies.ToQty(v))
			}
		}
		if math.IsNaN(ch.Accel[f]) && math.IsNaN(ch.VCPU[f]) && math.IsNaN(ch.Mem[f]) {
			continue
		}
		set(fs.AccelResource, ch.Accel[f])
		set(fs.CPUResource, ch.VCPU[f])
		set(fs.MemResource, ch.Mem[f])
		if !math.IsNaN(ch.Accel[f]) {
			s.emit(workload.Event{Time: s.now, Kind: workload.EvQuota, Job: -1, Team: int32(ch.Team), Type: int32(f), Quota: ch.Accel[f]})
		}
	}
}

// adjustPool keeps the shared pool of unallocated capacity in step with
// nodes arriving or leaving.
func (s *Sim) adjustPool(fs policies.FlavorSpec, f, delta int) {
	if s.in.PoolCohort < 0 || (s.in.Model.Kind != policies.KindQuota && !s.in.Model.Reservations) {
		return
	}
	d := policies.Qty(delta)
	if fs.AccelResource >= 0 {
		s.core.AddCohortQuota(s.in.PoolCohort, f, fs.AccelResource, d*fs.NodeAccel)
	}
	if fs.CPUResource >= 0 {
		s.core.AddCohortQuota(s.in.PoolCohort, f, fs.CPUResource, d*fs.NodeVCPU)
	}
	if fs.MemResource >= 0 {
		s.core.AddCohortQuota(s.in.PoolCohort, f, fs.MemResource, d*fs.NodeMem)
	}
}
