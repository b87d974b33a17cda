package live

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/allot-sim/allot/workload"
)

// History is everything the store knows, with the fleet it ran on: what
// `allot live export` fetches and the dashboard renders. Commands and
// directories are left out: the history is read by people who may not read
// every job's logs.
type History struct {
	Name   string  `json:"name"`   // the config's
	Policy string  `json:"policy"` // its policy kind
	Now    float64 `json:"now"`    // controller seconds
	// Epoch is controller time 0 on the wall clock: the daemon's first start.
	Epoch           *time.Time          `json:"epoch,omitempty"`
	Types           []workload.TypeInfo `json:"types"`
	Teams           []workload.TeamInfo `json:"teams"`
	PriorityClasses []string            `json:"priority_classes"` // [0] is ""
	Jobs            []Job               `json:"jobs"`
	Events          []Event             `json:"events"`
}

// History reads the store's history as of now. The events are read after
// the controller is let go, so a long history does not hold up scheduling;
// what happened after now is left out.
func (c *Controller) History() (*History, error) {
	h, err := c.historyHead()
	if err != nil {
		return nil, err
	}
	evs, err := c.store.Events("")
	if err != nil {
		return nil, err
	}
	for _, e := range evs {
		if e.Time <= h.Now {
			at := c.wall(e.Time)
			e.At = &at
			h.Events = append(h.Events, e)
		}
	}
	return h, nil
}

// historyHead is the fleet and the jobs as of now, with every event up to
// now in the store.
func (c *Controller) historyHead() (*History, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.commit() {
		return nil, fmt.Errorf("the store cannot be written")
	}
	h := c.cfg.History(c.now())
	ep := c.epoch.UTC()
	h.Epoch = &ep
	for _, r := range c.jobs {
		j := *r.j
		j.Command, j.Dir = nil, ""
		h.Jobs = append(h.Jobs, j)
	}
	return h, nil
}

// History is the head of a history of this configuration at now: its
// name and policy, instance types, teams with their quotas, and priority
// classes; no jobs or events yet.
func (cfg *Config) History(now float64) *History {
	h := &History{Name: cfg.Name, Policy: cfg.Policy, Now: now, PriorityClasses: []string{""}}
	for _, fd := range cfg.Flavors {
		ti := workload.TypeInfo{Name: fd.Name, Accelerators: fd.PerNode, PricePerHour: fd.PricePerHour, Priced: fd.Priced}
		if fd.PerNode > 0 {
			ti.Nodes = len(fd.Devices) / fd.PerNode
		}
		h.Types = append(h.Types, ti)
	}
	for q, name := range cfg.Teams {
		tm := workload.TeamInfo{Name: name, Weight: 1}
		if q < len(cfg.Model.Queues) && cfg.Model.Queues[q].Weight > 0 {
			tm.Weight = cfg.Model.Queues[q].Weight
		}
		for f := range cfg.Flavors {
			v := 0.0
			if q < len(cfg.Quotas) && f < len(cfg.Quotas[q]) {
				v = float64(cfg.Quotas[q][f])
			}
			tm.Quota = append(tm.Quota, v)
		}
		h.Teams = append(h.Teams, tm)
	}
	var classes []string
	for name := range cfg.Priorities {
		if name != "" {
			classes = append(classes, name)
		}
	}
	// By value, then name: the order a report lists them in.
	sort.Slice(classes, func(a, b int) bool {
		pa, pb := cfg.Priorities[classes[a]], cfg.Priorities[classes[b]]
		return pa < pb || pa == pb && classes[a] < classes[b]
	})
	h.PriorityClasses = append(h.PriorityClasses, classes...)
	return h
}

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
	teams := map[string]int32{}
	for i, t := range h.Teams {
		teams[t.Name] = int32(i)
	}
	types := map[string]int32{}
	for i, t := range h.Types {
		types[t.Name] = int32(i)
	}
	jobs := map[string]*histJob{}
	var order []*histJob
	for i := range h.Jobs {
		j := &h.Jobs[i]
		hj := &histJob{j: j, team: teams[j.Team], class: int32(max(0, slices.Index(h.PriorityClasses, j.PriorityClass))),
			firstStart: math.NaN(), flavor: -1}
		jobs[j.ID] = hj
		order = append(order, hj)
	}
	evs := slices.Clone(h.Events)
	sort.SliceStable(evs, func(a, b int) bool { return evs[a].Time < evs[b].Time })
	// next[i] is the kind of the next event of the same job after evs[i].
	next := make([]string, len(evs))
	last := map[string]int{}
	for i := len(evs) - 1; i >= 0; i-- {
		if k, ok := last[evs[i].Job]; ok {
			next[i] = evs[k].Kind
		}
		last[evs[i].Job] = i
	}
	acc := func(hj *histJob) float64 { return float64(hj.j.Accelerators) }
	base := func(hj *histJob, t float64, kind workload.EventKind) workload.Event {
		return workload.Event{Time: t, Kind: kind, Job: hj.j.Seq, Team: hj.team, Class: hj.class, Type: hj.flavor,
			Held: hj.held, Requested: acc(hj)}
	}
	// stop ends the current run at t; keptAll says whether its work was
	// saved (an exit of its own, or a checkpoint on SIGTERM), else only its
	// periodic checkpoints are.
	stop := func(hj *histJob, t float64, reason string, keptAll, requeued bool) {
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
		e := base(hj, t, workload.EvStop)
		e.Reason, e.RunStart, e.ProgressStart, e.ProgressEnd, e.KeptEnd = reason, hj.runStart, hj.runStart, hj.runStart+pw, hj.runStart+kw
		e.Requeued, e.Checkpoint = requeued, hj.j.CheckpointInterval
		sink.Event(&e)
		hj.kept += acc(hj) * kw
		hj.lost += acc(hj) * (pw - kw)
		hj.ranFor += pw
		hj.running, hj.preempting = false, false
		if requeued {
			hj.pendSince = t
		}
	}
	record := func(hj *histJob, state string, end float64) {
		r := workload.JobRecord{Seq: hj.j.Seq, ID: hj.j.ID, Team: hj.team, Class: hj.class, User: strconv.Itoa(hj.j.UID),
			Submit: hj.submit, FirstStart: hj.firstStart, End: end, Wait: hj.wait, Accelerators: acc(hj), Held: hj.held,
			Duration: hj.ranFor, InstanceTypes: hj.types, Preemptions: hj.j.Preemptions, LostAccS: hj.lost, KeptAccS: hj.kept,
			State: state, OrigStart: math.NaN(), OrigEnd: math.NaN()}
		sink.Job(&r)
	}
	for i := range evs {
		ev := &evs[i]
		hj := jobs[ev.Job]
		if hj == nil {
			continue
		}
		t := ev.Time
		switch ev.Kind {
		case "submitted":
			hj.submitted, hj.pendSince = true, t
			hj.submit = t
			e := base(hj, t, workload.EvSubmit)
			e.Type = -1
			sink.Event(&e)
		case "admitted":
			var run int
			var name string
			if _, err := fmt.Sscanf(ev.Detail, "run %d on %s devices", &run, &name); err != nil {
				return fmt.Errorf("job %s: admitted at %.3fs: unreadable detail %q", ev.Job, t, ev.Detail)
			}
			f, ok := types[name]
			if !ok {
				return fmt.Errorf("job %s: admitted on unknown instance type %q", ev.Job, name)
			}
			hj.flavor, hj.held = f, heldOn(hj.j.Accelerators, h.Types[f].Accelerators)
			hj.running, hj.runStart = true, t
			hj.wait += t - hj.pendSince
			if math.IsNaN(hj.firstStart) {
				hj.firstStart = t
			}
			if n := len(hj.types); n == 0 || hj.types[n-1] != name {
				hj.types = append(hj.types, name)
			}
			sink.Event(new(base(hj, t, workload.EvStart)))
		case "preempted":
			hj.preempting = true
			e := base(hj, t, workload.EvPreempt)
			e.Reason = ev.Detail
			if k := strings.IndexByte(ev.Detail, ':'); k >= 0 {
				e.Reason = ev.Detail[:k]
			}
			sink.Event(&e)
		case "exited":
			killed := strings.Contains(ev.Detail, "killed by")
			requeued := next[i] == "requeued"
			reason := workload.StopCompleted
			switch {
			case hj.preempting:
				reason = workload.StopPreempted
			case next[i] != StateSucceeded:
				reason = next[i]
			}
			stop(hj, t, reason, !killed, requeued)
		case "lost":
			stop(hj, t, "lost", false, true)
		case "requeued":
			// Decided but never started: the run held its nodes, did nothing.
			if hj.running {
				hj.runStart = math.Min(hj.runStart, t)
				stop(hj, t, "never_started", false, true)
			}
		case StateSucceeded, StateFailed, StateCancelled:
			stop(hj, t, ev.Kind, false, false)
			state := map[string]string{StateSucceeded: workload.StateCompleted, StateFailed: workload.StateFailed,
				StateCancelled: workload.StateCancelled}[ev.Kind]
			if math.IsNaN(hj.firstStart) {
				hj.wait += t - hj.pendSince
			}
			record(hj, state, t)
			hj.submitted = false // recorded
		}
	}
	for _, hj := range order {
		if !hj.submitted {
			continue
		}
		if hj.running {
			stop(hj, h.Now, "horizon", true, false)
			record(hj, workload.StateRunning, math.NaN())
			continue
		}
		hj.wait += h.Now - hj.pendSince
		record(hj, workload.StatePending, math.NaN())
	}
	return sink.End(&workload.RunEnd{EndTime: h.Now, Events: int64(len(evs))})
}

// heldOn is what a job holds on nodes of perNode accelerators: what it
// asked for on one node, whole nodes beyond that (the core's gang rule).
func heldOn(acc, perNode int) float64 {
	if perNode <= 0 || acc <= perNode {
		return float64(acc)
	}
	return float64((acc + perNode - 1) / perNode * perNode)
}

// Bucket is a report bucket for a history of now seconds: a round width
// giving at most about 120 buckets (no less than a second: reports
// write durations in whole seconds).
func Bucket(now float64) float64 {
	for _, b := range []float64{1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 21600, 43200} {
		if now/b <= 120 {
			return b
		}
	}
	return 86400 * math.Ceil(now/86400/120)
}
