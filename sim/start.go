package sim

import (
	"fmt"
	"math"

	"github.com/allot-sim/allot/policies"
	"github.com/allot-sim/allot/workload"
)

// Capture asks a run for its present at given moments (a forecast
// backtest's): what runs and what waits, with the useful work each job has
// done. Seen is left empty: the caller's sink saw the records.
type Capture struct {
	At []float64 // ascending
	Fn func(*workload.Present)
}

// startFrom puts a present's jobs into an empty run at its Now: running
// jobs hold their type (and nodes, where the model places jobs) from the
// start, pending jobs wait in their recorded order. A job's Duration is
// what it has left to run, in seconds on its first listed type, as a
// trace row's.
func (s *Sim) startFrom(p *workload.Present) error {
	s.now = p.Now
	k := newIntaker(s.in)
	var in intake
	for i := range p.Running {
		pj := &p.Running[i]
		j, err := s.takeStart(k, pj, &in)
		if err != nil {
			return err
		}
		f, ok := k.flvIdx[pj.Type]
		if !ok {
			return fmt.Errorf("running job %q: instance type %q is not in the fleet", pj.ID, pj.Type)
		}
		if pj.Nodes != nil {
			err = s.core.AddPlaced(&j.w, f, pj.Nodes, pj.Admitted, pj.Evicting)
		} else {
			err = s.core.AddAdmitted(&j.w, [][]int{{f}}, pj.Admitted, pj.Evicting)
		}
		if err != nil {
			return fmt.Errorf("running job %q: %w", pj.ID, err)
		}
		s.core.SetStarted(&j.w, pj.Started)
		s.emit(workload.Event{Time: s.now, Kind: workload.EvSubmit, Job: j.seq, Team: j.team, Class: j.cls, Type: -1, Requested: pj.Accelerators})
		j.starts = 0 // it is running already: no restore to pay
		s.start(j)
		j.starts += int32(pj.Starts)
		if pj.Evicting {
			s.preempt(j, "evicting")
		}
	}
	for i := range p.Pending {
		pj := &p.Pending[i]
		j, err := s.takeStart(k, pj, &in)
		if err != nil {
			return err
		}
		if err := s.core.Submit(&j.w); err != nil {
			return err
		}
		s.emit(workload.Event{Time: s.now, Kind: workload.EvSubmit, Job: j.seq, Team: j.team, Class: j.cls, Type: -1, Requested: pj.Accelerators})
	}
	s.q.push(event{t: s.now, kind: evWake})
	return nil
}

// takeStart makes a job of the present, as arrive does from a trace row;
// it keeps its recorded submit time as its queue order, and its earlier
// starts (a restart pays the restore time).
func (s *Sim) takeStart(k *intaker, pj *workload.PresentJob, in *intake) (*job, error) {
	k.take(&pj.Job, in)
	if in.field != "" {
		return nil, &JobError{ID: pj.ID, Submit: pj.Submit, Column: in.field, Why: in.why}
	}
	j, spare := s.alloc()
	j.in.set(&pj.Job)
	j.seq = s.seq
	s.seq++
	j.team, j.cls = in.team, in.cls
	j.firstStart = math.NaN()
	j.pendSince = s.now
	j.starts = int32(pj.Starts)
	j.work = pj.Duration * in.ref
	j.factor = in.factor
	j.w = policies.Workload{
		Tag: j.slot, Seq: j.seq, Queue: int(j.team), User: in.user, Priority: pj.Priority, Order: pj.Submit,
		Req:                policies.Request{Accel: policies.ToQty(pj.Accelerators), VCPU: policies.ToQty(pj.VCPUs), Mem: policies.ToQty(pj.MemoryGiB), Compatible: in.comp},
		Estimate:           j.work * j.factor,
		CheckpointInterval: pj.CheckpointInterval,
	}
	j.w.Reuse(spare)
	return j, nil
}

// present is the run's state at time at (no later than the next event):
// running and stopping jobs where they run, pending jobs in their order.
func (s *Sim) present(at float64) *workload.Present {
	p := &workload.Present{Now: at}
	for _, j := range s.jobs {
		if j.state == jDone {
			continue
		}
		pj := s.presentJob(j, at)
		if j.state == jPending {
			p.Pending = append(p.Pending, pj)
		} else {
			p.Running = append(p.Running, pj)
		}
	}
	return p
}

func (s *Sim) presentJob(j *job, at float64) workload.PresentJob {
	in := s.in
	pj := workload.PresentJob{
		Job: workload.Job{ID: j.in.ID, Submit: j.in.Submit, Team: in.Teams[j.team].Name, PriorityClass: in.PriorityNames[j.cls],
			Accelerators: j.in.Accelerators, VCPUs: fromQty(j.w.Req.VCPU), MemoryGiB: fromQty(j.w.Req.Mem), User: j.in.User,
			CheckpointInterval: j.in.CheckpointInterval, Class: j.in.Class, Duration: math.NaN()},
		Key: j.seq, Priority: j.w.Priority, Starts: int(j.starts),
	}
	for _, f := range j.w.Req.Compatible {
		pj.InstanceTypes = append(pj.InstanceTypes, in.Types[f].Name)
	}
	speed := j.speed
	if speed == 0 {
		speed = 1
	}
	pj.Progress = j.done / speed
	if j.state == jRunning || j.state == jStopping {
		pj.Type = in.Types[j.flavor].Name
		if n := j.w.Nodes(); len(n) > 0 {
			pj.Nodes = append([]int32(nil), n...)
		}
		pj.Admitted, pj.Started = j.w.AdmittedAt(), j.runStart
		pj.Evicting = j.state == jStopping
		if j.state == jRunning {
			pj.Progress += j.progress(at)
		}
		pj.Starts--
	}
	return pj
}

func fromQty(q policies.Qty) float64 { return float64(q) / float64(policies.Milli) }

// captureBefore hands the capture every moment before t: the state then is
// the state after the last cycle, as no event came between.
func (s *Sim) captureBefore(t float64) {
	c := s.in.Capture
	for c != nil && s.captured < len(c.At) && c.At[s.captured] < t {
		c.Fn(s.present(c.At[s.captured]))
		s.captured++
	}
}
