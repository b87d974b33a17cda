package sim

import (
	"math"

	"github.com/allot-sim/allot/policies"
	"github.com/allot-sim/allot/workload"
)

// start gives a job its nodes: it pays the restore time on every start but
// the first, then makes progress at its speed on that instance type.
func (s *Sim) start(j *job) {
	f := j.w.Flavor()
	t := s.in.Types[f]
	j.flavor = int32(f)
	j.held = float64(j.w.Held()) / float64(policies.Milli)
	j.speed = t.SpeedFor(j.in.Class)
	j.runStart = s.now
	restore := 0.0
	if j.starts > 0 {
		restore = s.in.Preemption.Restore
	}
	j.starts++
	j.progStart = s.now + restore
	j.w.RunStart = j.progStart
	j.wait += s.now - j.pendSince
	if math.IsNaN(j.firstStart) {
		j.firstStart = s.now
	}
	if len(j.types) == 0 || j.types[len(j.types)-1] != t.Name {
		j.types = append(j.types, t.Name)
	}
	j.state = jRunning
	j.gen++
	s.q.push(event{t: j.progStart + (j.work-j.done)/j.speed, kind: evFinish, a: j.slot, gen: j.gen})
	s.emit(workload.Event{Time: s.now, Kind: workload.EvStart, Job: j.seq, Team: j.team, Class: j.cls, Type: int32(f),
		Held: j.held, Requested: j.in.Accelerators})
}

// progress is the wall time of useful work in the current run, up to t.
func (j *job) progress(t float64) float64 { return math.Max(0, t-j.progStart) }

// checkpointed is the part of a run's progress saved by periodic checkpoints.
func (j *job) checkpointed(pw float64) float64 {
	if iv := j.in.CheckpointInterval; iv > 0 {
		return math.Floor(pw/iv) * iv
	}
	return 0
}

// preempt tells a running job to stop. If it can save a checkpoint within
// the grace period it keeps all its progress and holds its nodes while
// saving; otherwise it is killed at the end of the grace period and keeps
// only what its last periodic checkpoint saved.
func (s *Sim) preempt(j *job, reason string) {
	pm := s.in.Preemption
	j.stopAt = s.now
	j.progWall = j.progress(s.now)
	hold := pm.GracePeriod
	if pm.CheckpointSave <= pm.GracePeriod {
		hold = pm.CheckpointSave
		j.keptWall = j.progWall
	} else {
		j.keptWall = j.checkpointed(j.progWall)
	}
	j.state = jStopping
	j.reason = reason
	j.preempts++
	j.gen++
	s.q.push(event{t: s.now + hold, kind: evRelease, a: j.slot, gen: j.gen})
	s.emit(workload.Event{Time: s.now, Kind: workload.EvPreempt, Job: j.seq, Team: j.team, Class: j.cls, Type: j.flavor,
		Held: j.held, Requested: j.in.Accelerators, Reason: reason})
}

// stopped ends a run that was interrupted: progress is settled, the nodes
// are given back, and the job waits again (or fails, out of retries).
func (s *Sim) stopped(j *job, why string) {
	j.done = math.Min(j.work, j.done+j.keptWall*j.speed)
	lost := j.progWall - j.keptWall
	j.keptAccS += j.in.Accelerators * j.keptWall
	j.lostAccS += j.in.Accelerators * lost
	maxRetries := s.in.Preemption.MaxRetries
	gaveUp := why == workload.StopPreempted && maxRetries >= 0 && int(j.preempts) > maxRetries
	s.emit(workload.Event{Time: s.now, Kind: workload.EvStop, Job: j.seq, Team: j.team, Class: j.cls, Type: j.flavor,
		Held: j.held, Requested: j.in.Accelerators, Reason: why, RunStart: j.runStart, ProgressStart: j.progStart,
		ProgressEnd: j.progStart + j.progWall, KeptEnd: j.progStart + j.keptWall, Requeued: !gaveUp,
		Checkpoint: j.in.CheckpointInterval})
	if gaveUp {
		s.core.Finish(&j.w, s.now)
		s.record(j, workload.StateFailed, s.now)
		s.release(j)
		return
	}
	j.state = jPending
	j.pendSince = s.now
	j.w.Estimate = (j.work - j.done) * j.factor
	s.core.Requeue(&j.w, s.now)
}

// complete ends a job that finished its work.
func (s *Sim) complete(j *job) {
	pw := j.progress(s.now)
	j.keptAccS += j.in.Accelerators * pw
	j.done = j.work
	s.emit(workload.Event{Time: s.now, Kind: workload.EvStop, Job: j.seq, Team: j.team, Class: j.cls, Type: j.flavor,
		Held: j.held, Requested: j.in.Accelerators, Reason: workload.StopCompleted, RunStart: j.runStart, ProgressStart: j.progStart,
		ProgressEnd: s.now, KeptEnd: s.now})
	s.core.Finish(&j.w, s.now)
	s.record(j, workload.StateCompleted, s.now)
	s.release(j)
}

// interrupt stops a job at once because its node went away; it keeps only
// its checkpointed progress.
func (s *Sim) interrupt(j *job, why string) {
	switch j.state {
	case jRunning:
		j.progWall = j.progress(s.now)
		j.keptWall = j.checkpointed(j.progWall)
		j.failures++
	case jStopping:
		// Its save is cut short: keep what the last checkpoint saved.
		j.keptWall = j.checkpointed(j.progWall)
	default:
		return
	}
	j.gen++
	s.stopped(j, why)
}

func (s *Sim) record(j *job, state string, end float64) {
	r := &s.rec
	oStart, oEnd, oStatus, extra := j.in.originals()
	*r = workload.JobRecord{Seq: j.seq, ID: j.in.ID, Team: j.team, Class: j.cls, User: j.in.User, JobClass: j.in.Class,
		Submit: j.in.Submit, FirstStart: j.firstStart, End: math.NaN(), Wait: j.wait, Accelerators: j.in.Accelerators,
		Held: j.held, Duration: j.in.Duration, InstanceTypes: j.types, Preemptions: int(j.preempts), Failures: int(j.failures),
		LostAccS: j.lostAccS, KeptAccS: j.keptAccS, State: state, OrigStart: oStart, OrigEnd: oEnd,
		OrigStatus: oStatus, Extra: extra}
	if state == workload.StateCompleted || state == workload.StateFailed {
		r.End = end
	}
	s.sink.Job(r)
}

// finishRun closes the books at the horizon: running jobs keep the progress
// made so far, pending jobs count their wait up to now.
func (s *Sim) finishRun() {
	for _, j := range s.jobs {
		switch j.state {
		case jRunning, jStopping:
			pw := j.progress(s.now)
			if j.state == jStopping {
				pw = j.progWall
			}
			j.keptAccS += j.in.Accelerators * pw
			s.emit(workload.Event{Time: s.now, Kind: workload.EvStop, Job: j.seq, Team: j.team, Class: j.cls, Type: j.flavor,
				Held: j.held, Requested: j.in.Accelerators, Reason: "horizon", RunStart: j.runStart, ProgressStart: j.progStart,
				ProgressEnd: j.progStart + pw, KeptEnd: j.progStart + pw})
			s.record(j, workload.StateRunning, s.now)
		case jPending:
			j.wait += s.now - j.pendSince
			s.record(j, workload.StatePending, s.now)
		}
	}
}
