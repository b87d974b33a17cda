package live

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/allot-sim/allot/workload"
)

// histJob is a job's state while its history is replayed into records.
type histJob struct {
	j                   *Job
	team, class         int32
	submitted, running  bool
	preempting          bool
	flavor              int32
	held                float64
	runStart, pendSince float64
	firstStart, wait    float64
	submit              float64
	kept, lost          float64
	types               []string
	ranFor              float64
}

// acc is the accelerators the job asked for.
func (hj *histJob) acc() float64 { return float64(hj.j.Accelerators) }

// event is a run-record event of the job at t, as it stands.
func (hj *histJob) event(t float64, kind workload.EventKind) workload.Event {
	return workload.Event{Time: t, Kind: kind, Job: hj.j.Seq, Team: hj.team, Class: hj.class, Type: hj.flavor,
		Held: hj.held, Requested: hj.acc()}
}

// Records writes the history as the run records a simulation writes, so
// that the same sinks make the same report from it. Times are seconds from
// the daemon's first start; the run ends now, with running jobs stopped
// there as a simulation stops them at its horizon.
func (h *History) Records(sink workload.Sink, bucket float64) error {
	if bucket <= 0 {
		bucket = Bucket(h.Now)
	}
	info := &workload.RunInfo{Scenario: cmp.Or(h.Name, "live"), Policy: cmp.Or(h.Policy, "live"), Horizon: h.Now, Bucket: bucket,
		Types: h.Types, Teams: h.Teams, PriorityClasses: h.PriorityClasses, Live: true}
	if err := sink.Begin(info); err != nil {
		return err
	}
	r := newReplay(h, sink)
	for i := range r.evs {
		if err := r.event(i); err != nil {
			return err
		}
	}
	r.horizon()
	return sink.End(&workload.RunEnd{EndTime: h.Now, Events: int64(len(r.evs))})
}

// replay is a history being replayed into run records: each job's state,
// and the events in time order.
type replay struct {
	h     *History
	sink  workload.Sink
	types map[string]int32 // instance type indexes by name
	jobs  map[string]*histJob
	order []*histJob // as the history lists them
	evs   []Event
	// next[i] is the kind of the next event of the same job after evs[i].
	next []string
}

// newReplay is the replay of h into sink, before its first event.
func newReplay(h *History, sink workload.Sink) *replay {
	r := &replay{h: h, sink: sink, types: map[string]int32{}, jobs: map[string]*histJob{}}
	teams := map[string]int32{}
	for i, t := range h.Teams {
		teams[t.Name] = int32(i)
	}
	for i, t := range h.Types {
		r.types[t.Name] = int32(i)
	}
	for i := range h.Jobs {
		j := &h.Jobs[i]
		hj := &histJob{j: j, team: teams[j.Team], class: int32(max(0, slices.Index(h.PriorityClasses, j.PriorityClass))),
			firstStart: math.NaN(), flavor: -1}
		r.jobs[j.ID] = hj
		r.order = append(r.order, hj)
	}
	evs := slices.Clone(h.Events)
	sort.SliceStable(evs, func(a, b int) bool { return evs[a].Time < evs[b].Time })
	next := make([]string, len(evs))
	last := map[string]int{}
	for i := len(evs) - 1; i >= 0; i-- {
		if k, ok := last[evs[i].Job]; ok {
			next[i] = evs[k].Kind
		}
		last[evs[i].Job] = i
	}
	r.evs, r.next = evs, next
	return r
}

// event replays the i-th event; events of jobs the history does not
// list are skipped.
func (r *replay) event(i int) error {
	ev := &r.evs[i]
	hj := r.jobs[ev.Job]
	if hj == nil {
		return nil
	}
	t := ev.Time
	switch ev.Kind {
	case "submitted":
		hj.submitted, hj.pendSince = true, t
		hj.submit = t
		e := hj.event(t, workload.EvSubmit)
		e.Type = -1
		r.sink.Event(&e)
	case "admitted":
		return r.admitted(hj, ev)
	case "preempted":
		hj.preempting = true
		e := hj.event(t, workload.EvPreempt)
		e.Reason = ev.Detail
		if k := strings.IndexByte(ev.Detail, ':'); k >= 0 {
			e.Reason = ev.Detail[:k]
		}
		r.sink.Event(&e)
	case "exited":
		r.exited(hj, ev, r.next[i])
	case "lost":
		r.stop(hj, t, "lost", false, true)
	case "requeued":
		// Decided but never started: the run held its nodes, did nothing.
		if hj.running {
			hj.runStart = math.Min(hj.runStart, t)
			r.stop(hj, t, "never_started", false, true)
		}
	case StateSucceeded, StateFailed, StateCancelled:
		r.finished(hj, ev)
	}
	return nil
}

// admitted starts a run on the instance type the event's detail names
// ("run N on TYPE devices").
func (r *replay) admitted(hj *histJob, ev *Event) error {
	t := ev.Time
	var run int
	var name string
	if _, err := fmt.Sscanf(ev.Detail, "run %d on %s devices", &run, &name); err != nil {
		return fmt.Errorf("job %s: admitted at %.3fs: unreadable detail %q", ev.Job, t, ev.Detail)
	}
	f, ok := r.types[name]
	if !ok {
		return fmt.Errorf("job %s: admitted on unknown instance type %q", ev.Job, name)
	}
	hj.flavor, hj.held = f, heldOn(hj.j.Accelerators, r.h.Types[f].Accelerators)
	hj.running, hj.runStart = true, t
	hj.wait += t - hj.pendSince
	if math.IsNaN(hj.firstStart) {
		hj.firstStart = t
	}
	if n := len(hj.types); n == 0 || hj.types[n-1] != name {
		hj.types = append(hj.types, name)
	}
	r.sink.Event(new(hj.event(t, workload.EvStart)))
	return nil
}

// exited ends a run whose process exited: the stop's reason is the
// preemption that asked it to, else what came of it (next, the job's
// next event); a process killed kept only its periodic checkpoints.
func (r *replay) exited(hj *histJob, ev *Event, next string) {
	killed := strings.Contains(ev.Detail, "killed by")
	requeued := next == "requeued"
	reason := workload.StopCompleted
	switch {
	case hj.preempting:
		reason = workload.StopPreempted
	case next != StateSucceeded:
		reason = next
	}
	r.stop(hj, ev.Time, reason, !killed, requeued)
}

// finished ends a job that succeeded, failed or was cancelled, and
// records it.
func (r *replay) finished(hj *histJob, ev *Event) {
	t := ev.Time
	r.stop(hj, t, ev.Kind, false, false)
	state := map[string]string{StateSucceeded: workload.StateCompleted, StateFailed: workload.StateFailed,
		StateCancelled: workload.StateCancelled}[ev.Kind]
	if math.IsNaN(hj.firstStart) {
		hj.wait += t - hj.pendSince
	}
	r.record(hj, state, t)
	hj.submitted = false // recorded
}

// horizon records the jobs still in the system now: running ones
// stopped there as a simulation stops them at its horizon, their work
// kept; pending ones waiting till then.
func (r *replay) horizon() {
	for _, hj := range r.order {
		if !hj.submitted {
			continue
		}
		if hj.running {
			r.stop(hj, r.h.Now, "horizon", true, false)
			r.record(hj, workload.StateRunning, math.NaN())
			continue
		}
		hj.wait += r.h.Now - hj.pendSince
		r.record(hj, workload.StatePending, math.NaN())
	}
}

// stop ends the current run at t; keptAll says whether its work was
// saved (an exit of its own, or a checkpoint on SIGTERM), else only its
// periodic checkpoints are.
func (r *replay) stop(hj *histJob, t float64, reason string, keptAll, requeued bool) {
	if !hj.running {
		return
	}
	pw := math.Max(0, t-hj.runStart)
	kw := pw
	if !keptAll {
		kw = 0
		if iv := hj.j.CheckpointInterval; iv > 0 {
			kw = math.Floor(pw/iv) * iv
		}
	}
	e := hj.event(t, workload.EvStop)
	e.Reason, e.RunStart, e.ProgressStart, e.ProgressEnd, e.KeptEnd = reason, hj.runStart, hj.runStart, hj.runStart+pw, hj.runStart+kw
	e.Requeued, e.Checkpoint = requeued, hj.j.CheckpointInterval
	r.sink.Event(&e)
	hj.kept += hj.acc() * kw
	hj.lost += hj.acc() * (pw - kw)
	hj.ranFor += pw
	hj.running, hj.preempting = false, false
	if requeued {
		hj.pendSince = t
	}
}

// record writes the job's record, in state, ending at end (NaN while it
// has not).
func (r *replay) record(hj *histJob, state string, end float64) {
	rec := workload.JobRecord{Seq: hj.j.Seq, ID: hj.j.ID, Team: hj.team, Class: hj.class, User: strconv.Itoa(hj.j.UID),
		Submit: hj.submit, FirstStart: hj.firstStart, End: end, Wait: hj.wait, Accelerators: hj.acc(), Held: hj.held,
		Duration: hj.ranFor, InstanceTypes: hj.types, Preemptions: hj.j.Preemptions, LostAccS: hj.lost, KeptAccS: hj.kept,
		State: state, OrigStart: math.NaN(), OrigEnd: math.NaN()}
	r.sink.Job(&rec)
}

// heldOn is what a job holds on nodes of perNode accelerators: what it
// asked for on one node, whole nodes beyond that (the core's gang rule).
func heldOn(acc, perNode int) float64 {
	if perNode <= 0 || acc <= perNode {
		return float64(acc)
	}
	return float64((acc + perNode - 1) / perNode * perNode)
}
