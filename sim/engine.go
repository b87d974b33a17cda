package sim

import (
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"time"

	"github.com/allot-sim/allot/policies"
	"github.com/allot-sim/allot/workload"
)

type jstate uint8

const (
	jPending jstate = iota
	jRunning
	jStopping // told to stop, saving or within its grace period
	jDone
)

// job is the simulator's view of one live job. What a finish reads comes
// first: a job that ran a long time is cold in the cache when it ends.
type job struct {
	state      jstate
	gen        uint32
	slot       int32
	team, cls  int32
	flavor     int32
	preempts   int32
	failures   int32
	starts     int32
	seq        int64
	work, done float64 // in reference (A100) seconds
	speed      float64
	progStart  float64
	runStart   float64
	held       float64
	keptAccS   float64
	lostAccS   float64
	firstStart float64
	wait       float64
	types      []string
	factor     float64 // runtime-estimate error
	stopAt     float64
	keptWall   float64
	progWall   float64
	pendSince  float64
	reason     string
	w          policies.Workload
	in         arrival
}

// Sim is one simulation run.
type Sim struct {
	in    *Input
	sink  workload.Sink
	core  *policies.Core
	q     eventQueue
	now   float64
	jobs  []*job
	free  []int32
	nodes [][]uint8 // per flavor: 0 healthy, 1 failed, 2 removed

	feed     feed
	next     *workload.Job // the next job to arrive, and its intake: the feed's, valid until it is asked again
	nextIn   *intake
	haveNext bool
	rngFail  *rand.Rand

	seq     int64
	events  int64
	skipped int
	ev      workload.Event
	rec     workload.JobRecord

	wakeAt      float64 // the wake-up the core asked for, while wakePending
	wakePending bool
	captured    int // moments of in.Capture handed over
}

// Run simulates the input and writes its records to the sink.
func Run(in *Input, sink workload.Sink) error {
	s, err := newSim(in, sink)
	if err != nil {
		return err
	}
	s.feed = newFeed(in)
	defer s.feed.stop()
	return s.run()
}

func newSim(in *Input, sink workload.Sink) (*Sim, error) {
	core, err := policies.NewCore(in.Model, policies.WithShortcutsOff(in.Off))
	if err != nil {
		return nil, err
	}
	s := &Sim{in: in, sink: sink, core: core, rngFail: workload.StreamSeed(in.Seed, "failures")}
	for i := range in.Types {
		s.nodes = append(s.nodes, make([]uint8, in.Model.Flavors[i].Nodes))
	}
	return s, nil
}

func (s *Sim) info() *workload.RunInfo {
	in := s.in
	info := &workload.RunInfo{Scenario: in.Scenario, Policy: in.Policy, Seed: in.Seed, Warmup: in.Warmup, Horizon: in.Horizon,
		Bucket: in.Bucket, PriorityClasses: in.PriorityNames, ExtraColumns: in.Source.ExtraColumns()}
	for i, t := range in.Types {
		info.Types = append(info.Types, workload.TypeInfo{Name: t.Name, Accelerators: t.Accelerators, Nodes: in.Model.Flavors[i].Nodes,
			PricePerHour: t.PricePerHour, Priced: t.Priced})
	}
	for _, t := range in.Teams {
		info.Teams = append(info.Teams, workload.TeamInfo{Name: t.Name, Quota: t.Quota, Weight: t.Weight})
	}
	return info
}

func (s *Sim) run() error {
	start := time.Now()
	if err := s.sink.Begin(s.info()); err != nil {
		return err
	}
	if s.in.Start != nil {
		if err := s.startFrom(s.in.Start); err != nil {
			return err
		}
	}
	if err := s.readNext(); err != nil {
		return err
	}
	for f := range s.nodes {
		for n := range s.nodes[f] {
			if m := s.failModel(f, int32(n)); m.Enabled() {
				s.q.push(event{t: m.NextFailure(s.rngFail), kind: evFailure, a: int32(f), b: int32(n)})
			}
		}
	}
	for i, ch := range s.in.Timeline {
		s.q.push(event{t: ch.At, kind: evTimeline, a: int32(i)})
	}
	lastProgress, end := 0.0, s.in.Horizon
	for s.q.len() > 0 {
		t := s.q.peek().t
		if t >= s.in.Horizon {
			break
		}
		s.captureBefore(t)
		s.now = t
		for s.q.len() > 0 && s.q.peek().t == t {
			e := s.q.pop()
			s.events++
			if err := s.handle(e); err != nil {
				return err
			}
		}
		p := s.core.Schedule(t)
		s.apply(p)
		s.wakeWhenAsked(p, t)
		if s.in.Progress != nil && t-lastProgress > s.in.Horizon/200 {
			s.in.Progress(t)
			lastProgress = t
		}
		if s.in.Until != nil && s.in.Until(t) {
			end = t
			break
		}
	}
	s.captureBefore(end)
	s.now = end
	s.finishRun()
	if s.in.ShortcutCounts != nil {
		*s.in.ShortcutCounts = s.core.ShortcutCounts()
	}
	skipped := s.skipped
	if s.in.Skipped != nil {
		skipped += s.in.Skipped()
	}
	return s.sink.End(&workload.RunEnd{EndTime: end, Events: s.events, Cycles: s.core.Cycles(),
		WallSeconds: time.Since(start).Seconds(), SkippedInvalid: skipped})
}

// readNext fetches the next valid job and schedules its arrival.
func (s *Sim) readNext() error {
	for {
		j, k, err := s.feed.next()
		if errors.Is(err, io.EOF) {
			s.haveNext = false
			return nil
		}
		if err != nil {
			return err
		}
		if j.Submit >= s.in.Horizon {
			s.haveNext = false
			return nil
		}
		if k.field != "" {
			if s.in.SkipInvalid {
				s.skipped++
				continue
			}
			return &JobError{ID: j.ID, Submit: j.Submit, Column: k.field, Why: k.why}
		}
		s.next, s.nextIn, s.haveNext = j, k, true
		s.q.push(event{t: j.Submit, kind: evArrival})
		return nil
	}
}

// alloc returns a cleared job in a free slot, with what its slot's last
// workload left for the next (nothing in a new slot).
func (s *Sim) alloc() (*job, policies.Spare) {
	if n := len(s.free); n > 0 {
		slot := s.free[n-1]
		s.free = s.free[:n-1]
		j := s.jobs[slot]
		// gen keeps counting across reuse so stale events of the slot's
		// previous job never match the new one.
		spare := j.w.Spare()
		*j = job{slot: slot, types: j.types[:0], gen: j.gen + 1}
		return j, spare
	}
	j := &job{slot: int32(len(s.jobs))}
	s.jobs = append(s.jobs, j)
	return j, policies.Spare{}
}

func (s *Sim) release(j *job) {
	j.state = jDone
	s.free = append(s.free, j.slot)
}

func (s *Sim) arrive() error {
	in, k := s.next, s.nextIn // k was worked out when the job was read
	j, spare := s.alloc()
	j.in.set(in)
	j.seq = s.seq
	s.seq++
	j.team = k.team
	j.cls = k.cls
	j.firstStart = math.NaN()
	j.pendSince = in.Submit
	j.work = in.Duration * k.ref
	j.factor = k.factor
	j.w = policies.Workload{
		Tag: j.slot, Seq: j.seq, Queue: int(j.team), User: k.user, Priority: k.prio, Order: in.Submit,
		Req:                policies.Request{Accel: policies.ToQty(in.Accelerators), VCPU: policies.ToQty(in.VCPUs), Mem: policies.ToQty(in.MemoryGiB), Compatible: k.comp},
		Estimate:           j.work * j.factor,
		CheckpointInterval: in.CheckpointInterval,
	}
	j.w.Reuse(spare) // the slot's last node list: admission allocates none
	if err := s.core.Submit(&j.w); err != nil {
		return err
	}
	s.emit(workload.Event{Time: s.now, Kind: workload.EvSubmit, Job: j.seq, Team: j.team, Class: j.cls, Type: -1, Requested: in.Accelerators})
	return s.readNext()
}

func (s *Sim) emit(e workload.Event) {
	s.ev = e
	s.sink.Event(&s.ev)
}

func (s *Sim) handle(e event) error {
	switch e.kind {
	case evArrival:
		return s.arrive()
	case evFinish:
		if j := s.jobs[e.a]; j.state == jRunning && j.gen == e.gen {
			s.complete(j)
		}
	case evRelease:
		if j := s.jobs[e.a]; j.state == jStopping && j.gen == e.gen {
			s.stopped(j, workload.StopPreempted)
		}
	case evFailure:
		s.nodeFails(int(e.a), e.b)
	case evRepair:
		s.nodeRepaired(int(e.a), e.b)
	case evTimeline:
		s.change(&s.in.Timeline[e.a])
	case evWake:
		if s.wakeAt == e.t {
			s.wakePending = false
		}
	}
	return nil
}

// wakeWhenAsked schedules the cycle the last plan asked for, unless one is
// already due no later.
func (s *Sim) wakeWhenAsked(p *policies.Plan, now float64) {
	if !p.Wake || p.WakeAt <= now || (s.wakePending && s.wakeAt <= p.WakeAt) {
		return
	}
	s.wakeAt, s.wakePending = p.WakeAt, true
	s.q.push(event{t: p.WakeAt, kind: evWake})
}

// apply carries out a plan: admitted jobs start, preempted jobs are told to stop.
func (s *Sim) apply(p *policies.Plan) {
	for _, a := range p.Admitted {
		s.start(s.jobOf(a.W))
	}
	for _, pr := range p.Preempted {
		s.preempt(s.jobOf(pr.W), pr.Reason)
	}
}

func (s *Sim) jobOf(w *policies.Workload) *job { return s.jobs[w.Tag] }
