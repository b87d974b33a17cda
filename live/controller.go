package live

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/allot-sim/allot/policies"
)

// Job states, the closed set of spec/cli.md.
const (
	StatePending   = "pending"
	StateRunning   = "running"
	StatePreempted = "preempted"
	StateSucceeded = "succeeded"
	StateFailed    = "failed"
	StateCancelled = "cancelled"
)

// Why a running job is being stopped.
const (
	stopPreempted = "preempted"
	stopCancelled = "cancelled"
	stopTimeLimit = "time-limit"
)

// Clock is the wall clock; tests inject their own.
type Clock interface{ Now() time.Time }

// SystemClock is the real wall clock.
type SystemClock struct{}

// Now returns the current time.
func (SystemClock) Now() time.Time { return time.Now() }

// FlavorDevices are the devices of one flavor (instance type) of the
// model: node n holds Devices[n*PerNode : (n+1)*PerNode].
type FlavorDevices struct {
	Name    string
	PerNode int
	Devices []string
	// Kind says how a job is shown its devices (see DeviceEnv): KindNVIDIA,
	// KindNeuron, or "" for declared devices.
	Kind string
	// Cores are a Neuron device's NeuronCore ids, by device.
	Cores map[string][]int

	// PricePerHour (USD per node-hour, when Priced) prices the history's
	// report as a simulation's is priced.
	PricePerHour float64
	Priced       bool
}

// Config is what a controller schedules with; cmd/allot builds it from a
// scenario or policy file.
type Config struct {
	Model      *policies.Model
	Flavors    []FlavorDevices // by flavor index of Model
	Teams      []string        // by queue index of Model
	Quotas     [][]int         // by queue index, then flavor: guaranteed accelerators
	Priorities map[string]int32
	// GracePeriod is the time between the stop signal and the kill.
	GracePeriod time.Duration
	MaxRetries  int // preemptions before a job fails; -1 = unlimited

	// Name and Policy name the config and its policy kind in the history.
	Name, Policy string
	// PolicyID names the policy file the decisions come from (its name
	// and a digest of its text): every event records it, so a history
	// says which policy made each decision across promotions.
	PolicyID string
}

// Job is one job, as stored.
type Job struct {
	ID            string   `json:"id"`
	Seq           int64    `json:"seq"`
	Name          string   `json:"name"`
	Team          string   `json:"team"`
	PriorityClass string   `json:"priority_class"`
	Accelerators  int      `json:"accelerators"`
	InstanceType  string   `json:"instance_type"`
	Command       []string `json:"command"`
	Dir           string   `json:"dir"`
	UID           int      `json:"uid"`
	TimeLimit     float64  `json:"time_limit,omitempty"` // seconds; 0 = none
	// CheckpointInterval (s) is how often the job says it checkpoints: the
	// core weighs the work a preemption would lose by it.
	CheckpointInterval float64    `json:"checkpoint_interval,omitempty"`
	State              string     `json:"state"`
	Reason             string     `json:"reason"`
	ExitCode           *int       `json:"exit_code"`
	Submitted          time.Time  `json:"submitted"`
	Started            *time.Time `json:"started"`
	Ended              *time.Time `json:"ended,omitempty"`
	Preemptions        int        `json:"preemptions"`
	// Run numbers the job's runs from 1; the restart count is Run-1.
	Run     int      `json:"run"`
	Order   float64  `json:"order"` // queue position, kept across preemptions
	Flavor  int      `json:"flavor"`
	Nodes   []int32  `json:"nodes,omitempty"`
	Devices []string `json:"devices,omitempty"`
	// DeviceEnv shows the run its devices (CUDA_VISIBLE_DEVICES=...).
	DeviceEnv  []string `json:"device_env,omitempty"`
	AdmittedAt float64  `json:"admitted_at"`
	// RunAdmitted is when the current run was admitted, on the wall clock:
	// the job sees it as ALLOT_ADMITTED_AT.
	RunAdmitted *time.Time `json:"run_admitted,omitempty"`
	RunStart    float64    `json:"run_start"`
	Stopping    string     `json:"stopping,omitempty"`
	KillAt      float64    `json:"kill_at,omitempty"`
	PreemptBy   string     `json:"preempt_by,omitempty"`
	// PendingSince is when it last started waiting (controller seconds).
	PendingSince float64 `json:"pending_since"`
}

// Final says whether the job is done for good.
func (j *Job) Final() bool {
	return j.State == StateSucceeded || j.State == StateFailed || j.State == StateCancelled
}

// Request is a job submission.
type Request struct {
	Name          string  `json:"name"`
	Team          string  `json:"team"`
	PriorityClass string  `json:"priority_class"`
	Accelerators  int     `json:"accelerators"`
	InstanceType  string  `json:"instance_type"`
	TimeLimit     float64 `json:"time_limit"`
	// CheckpointInterval in seconds; 0 = the job does not say.
	CheckpointInterval float64  `json:"checkpoint_interval"`
	Command            []string `json:"command"`
	Dir                string   `json:"dir"`
}

// RequestError is a request the controller refuses: nothing was written.
type RequestError struct{ Msg string }

func (e *RequestError) Error() string { return e.Msg }

// NotFoundError names a job that does not exist.
type NotFoundError struct{ ID string }

func (e *NotFoundError) Error() string { return fmt.Sprintf("no job %q", e.ID) }

type rt struct {
	j *Job
	w *policies.Workload
}

// Controller is the shell around the core for live work. Its methods are
// safe for concurrent use: one mutex orders every change, as the
// simulator's event loop does.
type Controller struct {
	mu       sync.Mutex
	cfg      *Config
	core     *policies.Core
	coreWake float64 // when the core asked to be asked again (+Inf: never)
	store    *Store
	be       Backend
	clock    Clock
	epoch    time.Time // controller time 0: core times are seconds since it
	jobs     []*rt     // by Seq
	byID     map[string]*rt
	byW      map[*policies.Workload]*rt
	maxAcc   []int // devices per flavor
	pending  []Event
	dirty    map[*Job]bool
	obs      Observer
	version  uint64 // counts flushes: what was written changes only with it
}

// Version changes whenever the controller writes to its store.
func (c *Controller) Version() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.version
}

// Observer hears of decisions as they are carried out (metrics).
type Observer interface {
	Admitted(team string, waitS float64)
	Preempted(team, reason string)
}

// SetObserver sets the observer of decisions.
func (c *Controller) SetObserver(o Observer) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.obs = o
}

// New builds a controller, rebuilding its core from the store: running
// jobs are put back on their nodes and re-adopted through the backend,
// the others queued again in their old order.
func New(cfg *Config, store *Store, be Backend, clock Clock) (*Controller, error) {
	core, err := policies.NewCore(cfg.Model)
	if err != nil {
		return nil, fmt.Errorf("build core: %w", err)
	}
	c := &Controller{cfg: cfg, core: core, coreWake: math.Inf(1), store: store, be: be, clock: clock,
		byID: map[string]*rt{}, byW: map[*policies.Workload]*rt{}, dirty: map[*Job]bool{}}
	for _, f := range cfg.Flavors {
		c.maxAcc = append(c.maxAcc, len(f.Devices))
	}
	ep, ok, err := store.Meta("epoch")
	if err != nil {
		return nil, err
	}
	if !ok {
		ep = float64(clock.Now().UnixNano()) / 1e9
		if err := store.SetMeta("epoch", ep); err != nil {
			return nil, err
		}
	}
	c.epoch = time.Unix(0, int64(ep*1e9))
	jobs, err := store.Jobs()
	if err != nil {
		return nil, err
	}
	now := c.now()
	for _, j := range jobs {
		r := &rt{j: j}
		c.jobs = append(c.jobs, r)
		c.byID[j.ID] = r
		if j.Final() {
			continue
		}
		if err := c.rebuild(r, now); err != nil {
			return nil, err
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.schedule()
	return c, c.flush()
}

func (c *Controller) rebuild(r *rt, now float64) error {
	j := r.j
	w, err := c.workload(j)
	if err != nil {
		return fmt.Errorf("job %s: %w", j.ID, err)
	}
	r.w = w
	c.byW[w] = r
	if j.State != StateRunning {
		return c.core.Submit(w)
	}
	if err := c.core.AddPlaced(w, j.Flavor, j.Nodes, j.AdmittedAt, j.Stopping != ""); err != nil {
		return fmt.Errorf("job %s: %w", j.ID, err)
	}
	st, err := c.be.Recover(j)
	if err != nil {
		return fmt.Errorf("job %s: %w", j.ID, err)
	}
	switch st {
	case RunRunning:
		c.event(j, "adopted", fmt.Sprintf("run %d still running after the controller restarted", j.Run))
	case RunNeverStarted:
		// Decided but never carried out: start it again as the same run.
		c.event(j, "requeued", fmt.Sprintf("run %d was decided but never started before the controller stopped", j.Run))
		j.Run--
		c.requeue(r, StatePending, "requeued: it had not started when the controller stopped", now)
	case RunLost:
		c.event(j, "lost", fmt.Sprintf("run %d ended with no record of how (its supervisor died)", j.Run))
		c.requeue(r, StatePending, "requeued: its supervisor was lost", now)
	}
	return nil
}

func (c *Controller) workload(j *Job) (*policies.Workload, error) { return workloadOf(c.cfg, j) }

// workloadOf is a stored job as the core's workload under cfg (the
// adapter both backends share, live/workload.go).
func workloadOf(cfg *Config, j *Job) (*policies.Workload, error) { return cfg.Workload(j.Spec()) }

func (c *Controller) now() float64 { return c.clock.Now().Sub(c.epoch).Seconds() }

func (c *Controller) event(j *Job, kind, detail string) {
	c.pending = append(c.pending, Event{Time: c.now(), Job: j.ID, Kind: kind, Detail: detail, Policy: c.cfg.PolicyID})
	c.dirty[j] = true
}

// flush writes what changed since the last flush in one transaction.
func (c *Controller) flush() error {
	if len(c.dirty) == 0 && len(c.pending) == 0 {
		return nil
	}
	jobs := make([]*Job, 0, len(c.dirty))
	for j := range c.dirty {
		jobs = append(jobs, j)
	}
	err := c.store.Save(jobs, c.pending)
	c.version++
	c.pending = c.pending[:0]
	clear(c.dirty)
	return err
}

// Validate checks a request against the configuration.
func (c *Controller) Validate(req *Request) error {
	if !slices.Contains(c.cfg.Teams, req.Team) {
		return &RequestError{fmt.Sprintf("unknown team %q (teams: %s)", req.Team, strings.Join(c.cfg.Teams, ", "))}
	}
	if _, ok := c.cfg.Priorities[req.PriorityClass]; !ok {
		var names []string
		for n := range c.cfg.Priorities {
			if n != "" {
				names = append(names, n)
			}
		}
		slices.Sort(names)
		return &RequestError{fmt.Sprintf("unknown priority class %q (classes: %s)", req.PriorityClass, strings.Join(names, ", "))}
	}
	if len(req.Command) == 0 {
		return &RequestError{"no command to run (give it after --)"}
	}
	if req.Accelerators < 0 {
		return &RequestError{fmt.Sprintf("accelerators %d: must be 0 or more", req.Accelerators)}
	}
	if req.TimeLimit < 0 || req.CheckpointInterval < 0 {
		return &RequestError{"time limit and checkpoint interval must be positive"}
	}
	most := 0
	if req.InstanceType != "" {
		f := c.cfg.Model.FlavorIndex(req.InstanceType)
		if f < 0 {
			var names []string
			for _, fd := range c.cfg.Flavors {
				names = append(names, fd.Name)
			}
			return &RequestError{fmt.Sprintf("unknown instance type %q (this machine has: %s)", req.InstanceType, strings.Join(names, ", "))}
		}
		most = c.maxAcc[f]
	} else {
		for _, n := range c.maxAcc {
			most = max(most, n)
		}
	}
	if req.Accelerators > most {
		return &RequestError{fmt.Sprintf("%d accelerators requested, but this machine has %d", req.Accelerators, most)}
	}
	return nil
}

// Submit validates and queues a job; uid is the submitter's.
func (c *Controller) Submit(req *Request, uid int) (*Job, error) {
	if err := c.Validate(req); err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	seq := int64(len(c.jobs) + 1)
	j := &Job{ID: strconv.FormatInt(seq, 10), Seq: seq, Name: req.Name, Team: req.Team, PriorityClass: req.PriorityClass,
		Accelerators: req.Accelerators, InstanceType: req.InstanceType, Command: req.Command, Dir: req.Dir, UID: uid,
		TimeLimit: req.TimeLimit, CheckpointInterval: req.CheckpointInterval, State: StatePending, PendingSince: now, Submitted: c.clock.Now().UTC(), Order: now, Flavor: -1}
	if j.Name == "" {
		j.Name = "job-" + j.ID
	}
	w, err := c.workload(j)
	if err != nil {
		return nil, &RequestError{err.Error()}
	}
	r := &rt{j: j, w: w}
	c.event(j, "submitted", fmt.Sprintf("team %s, class %q, %d accelerators: %s", j.Team, j.PriorityClass, j.Accelerators, strings.Join(j.Command, " ")))
	if err := c.flush(); err != nil {
		return nil, err
	}
	c.jobs = append(c.jobs, r)
	c.byID[j.ID] = r
	c.byW[w] = r
	if err := c.core.Submit(w); err != nil {
		return nil, err
	}
	c.schedule()
	cp := *j
	return &cp, c.flush()
}

// Cancel ends a job: a queued one at once, a running one through its
// grace period.
func (c *Controller) Cancel(id string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.byID[id]
	if !ok {
		return &NotFoundError{id}
	}
	j := r.j
	switch {
	case j.Final():
		return &RequestError{fmt.Sprintf("job %s already %s", id, j.State)}
	case j.State == StateRunning:
		if j.Stopping == stopCancelled {
			return nil
		}
		j.Stopping = stopCancelled
		j.KillAt = c.now() + c.cfg.GracePeriod.Seconds()
		c.event(j, "cancel", "stopping: SIGTERM, then SIGKILL after the grace period")
		if err := c.flush(); err != nil {
			return err
		}
		return c.be.Signal(j, false)
	default:
		c.core.Finish(r.w, c.now())
		c.finish(r, StateCancelled, "cancelled while "+j.State, nil)
		c.schedule()
		return c.flush()
	}
}

func (c *Controller) finish(r *rt, state, reason string, code *int) {
	j := r.j
	j.State, j.Reason, j.ExitCode = state, reason, code
	t := c.clock.Now().UTC()
	j.Ended = &t
	j.Devices, j.DeviceEnv, j.Nodes, j.Stopping, j.KillAt = nil, nil, nil, "", 0
	c.event(j, state, reason)
	delete(c.byW, r.w)
	r.w = nil
}

func (c *Controller) requeue(r *rt, state, reason string, now float64) {
	j := r.j
	c.core.Requeue(r.w, now)
	j.State, j.Reason, j.PendingSince = state, reason, now
	j.Devices, j.DeviceEnv, j.Nodes, j.Stopping, j.KillAt, j.Flavor = nil, nil, nil, "", 0, -1
	c.dirty[j] = true
}

// schedule asks the core for a plan at the wall clock and carries it out:
// decisions are stored first, then acted on.
func (c *Controller) schedule() {
	now := c.now()
	plan := c.core.Schedule(now)
	c.coreWake = math.Inf(1)
	if plan.Wake { // a running job's protection from preemption ends then
		c.coreWake = plan.WakeAt
	}
	var starts []*rt
	var stops []*rt
	for _, a := range plan.Admitted {
		r := c.byW[a.W]
		j := r.j
		j.Flavor = a.W.Flavor()
		j.Nodes = append([]int32(nil), a.W.Nodes()...)
		j.Devices = c.devicesFor(j, a.W)
		j.DeviceEnv = c.cfg.Flavors[j.Flavor].DeviceEnv(j.Devices)
		j.AdmittedAt, j.RunStart = now, now
		a.W.RunStart = now
		j.Run++
		j.State, j.Reason, j.Stopping = StateRunning, "", ""
		t := c.epoch.Add(time.Duration(now * 1e9)).UTC()
		j.RunAdmitted = &t
		if j.Started == nil {
			j.Started = &t
		}
		how := fmt.Sprintf("run %d on %s devices [%s]", j.Run, c.cfg.Flavors[j.Flavor].Name, strings.Join(j.Devices, ","))
		if a.Borrowing {
			how += ", borrowing idle quota"
		}
		c.event(j, "admitted", how)
		if c.obs != nil {
			c.obs.Admitted(j.Team, now-j.PendingSince)
		}
		starts = append(starts, r)
	}
	for _, p := range plan.Preempted {
		r := c.byW[p.W]
		j := r.j
		by := ""
		if br := c.byW[p.By]; br != nil {
			by = br.j.ID
		}
		j.Stopping, j.PreemptBy = stopPreempted, by
		j.KillAt = now + c.cfg.GracePeriod.Seconds()
		j.Reason = fmt.Sprintf("preempting (%s) for job %s", p.Reason, by)
		c.event(j, "preempted", fmt.Sprintf("%s: for job %s; SIGTERM, SIGKILL after %s", p.Reason, by, c.cfg.GracePeriod))
		if c.obs != nil {
			c.obs.Preempted(j.Team, p.Reason)
		}
		stops = append(stops, r)
	}
	if len(starts) == 0 && len(stops) == 0 {
		return
	}
	if err := c.flush(); err != nil {
		// Not written, so not acted on: the plan is retried on the next tick.
		c.failAll(starts, fmt.Errorf("store: %w", err))
		return
	}
	var failed bool
	for _, r := range starts {
		if err := c.be.Start(r.j); err != nil {
			c.core.Finish(r.w, now)
			c.finish(r, StateFailed, "could not start: "+err.Error(), nil)
			failed = true
		}
	}
	for _, r := range stops {
		if err := c.be.Signal(r.j, false); err != nil {
			c.event(r.j, "signal-error", err.Error())
		}
	}
	if failed {
		c.schedule()
	}
}

func (c *Controller) failAll(starts []*rt, err error) {
	for _, r := range starts {
		c.core.Finish(r.w, c.now())
		c.finish(r, StateFailed, err.Error(), nil)
	}
}

// devicesFor picks a job's devices on the nodes the core gave it: all of a
// whole node's, else the lowest free ones of its node.
func (c *Controller) devicesFor(j *Job, w *policies.Workload) []string {
	fd := c.cfg.Flavors[j.Flavor]
	if j.Accelerators == 0 || fd.PerNode == 0 {
		return nil
	}
	var out []string
	if w.Held() >= policies.Qty(fd.PerNode)*policies.Milli && j.Accelerators >= fd.PerNode {
		for _, n := range j.Nodes {
			out = append(out, fd.Devices[int(n)*fd.PerNode:(int(n)+1)*fd.PerNode]...)
		}
		return out
	}
	used := map[string]bool{}
	for _, o := range c.jobs {
		if o.j != j && o.j.State == StateRunning && o.j.Flavor == j.Flavor {
			for _, d := range o.j.Devices {
				used[d] = true
			}
		}
	}
	n := int(j.Nodes[0])
	for _, d := range fd.Devices[n*fd.PerNode : (n+1)*fd.PerNode] {
		if len(out) == j.Accelerators {
			break
		}
		if !used[d] {
			out = append(out, d)
		}
	}
	return out
}

// Tick learns which runs ended, kills runs past their grace period or
// time limit, and schedules again if anything changed. It returns when it
// next wants to be called at the latest.
func (c *Controller) Tick() (time.Time, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	changed := false
	wake := math.Inf(1)
	for _, r := range c.jobs {
		j := r.j
		if j.State != StateRunning {
			continue
		}
		ex, err := c.be.Exited(j)
		if err != nil {
			return time.Time{}, fmt.Errorf("job %s: %w", j.ID, err)
		}
		if ex != nil {
			c.ended(r, ex, now)
			changed = true
			continue
		}
		if j.Stopping == "" && j.TimeLimit > 0 {
			if end := j.RunStart + j.TimeLimit; now >= end {
				j.Stopping = stopTimeLimit
				j.KillAt = now + c.cfg.GracePeriod.Seconds()
				c.event(j, "time-limit", fmt.Sprintf("ran past its time limit of %gs: SIGTERM", j.TimeLimit))
				if err := c.flush(); err != nil {
					return time.Time{}, err
				}
				_ = c.be.Signal(j, false)
			} else {
				wake = min(wake, end)
			}
		}
		if j.Stopping != "" {
			if now >= j.KillAt {
				_ = c.be.Signal(j, true)
			} else {
				wake = min(wake, j.KillAt)
			}
		}
	}
	if now >= c.coreWake {
		changed = true // the core asked to be asked again now
	}
	if changed {
		c.schedule()
	}
	wake = min(wake, c.coreWake)
	next := time.Time{}
	if !math.IsInf(wake, 1) {
		next = c.epoch.Add(time.Duration(wake * 1e9))
	}
	return next, c.flush()
}

// ended settles a run that exited.
func (c *Controller) ended(r *rt, ex *Exit, now float64) {
	j := r.j
	code := ex.Code
	how := fmt.Sprintf("run %d exited with code %d", j.Run, code)
	if ex.Signal != "" {
		how = fmt.Sprintf("run %d killed by %s", j.Run, ex.Signal)
	}
	c.event(j, "exited", how)
	switch j.Stopping {
	case stopPreempted:
		j.Preemptions++
		if mr := c.cfg.MaxRetries; mr >= 0 && j.Preemptions > mr {
			c.core.Finish(r.w, now)
			c.finish(r, StateFailed, fmt.Sprintf("preempted %d times (max_retries %d)", j.Preemptions, mr), &code)
			return
		}
		c.requeue(r, StatePreempted, fmt.Sprintf("preempted for job %s; waits to be restarted from its checkpoint", j.PreemptBy), now)
		c.event(j, "requeued", "back in its queue at its old place")
	case stopCancelled:
		c.core.Finish(r.w, now)
		c.finish(r, StateCancelled, "cancelled while running", &code)
	case stopTimeLimit:
		c.core.Finish(r.w, now)
		c.finish(r, StateFailed, fmt.Sprintf("killed at its time limit (%gs)", j.TimeLimit), &code)
	default:
		c.core.Finish(r.w, now)
		if code == 0 && ex.Signal == "" {
			c.finish(r, StateSucceeded, "", &code)
		} else {
			c.finish(r, StateFailed, how, &code)
		}
	}
}

// Loop calls Tick until stop is closed, every poll interval or sooner when
// a deadline falls due.
func (c *Controller) Loop(stop <-chan struct{}, poll time.Duration) error {
	for {
		next, err := c.Tick()
		if err != nil {
			return err
		}
		d := poll
		if !next.IsZero() {
			d = min(d, max(time.Until(next), time.Millisecond))
		}
		select {
		case <-stop:
			return nil
		case <-time.After(d):
		}
	}
}

// View is a job as clients see it (spec/cli.md's fields and more).
type View struct {
	ID            string     `json:"id"`
	Name          string     `json:"name"`
	Team          string     `json:"team"`
	State         string     `json:"state"`
	Reason        string     `json:"reason"`
	ExitCode      *int       `json:"exit_code"`
	PriorityClass string     `json:"priority_class"`
	Accelerators  int        `json:"accelerators"`
	InstanceType  string     `json:"instance_type"`
	Submitted     time.Time  `json:"submitted"`
	Started       *time.Time `json:"started"`
	Preemptions   int        `json:"preemptions"`
	Restarts      int        `json:"restarts"`
	Devices       []string   `json:"devices"`
	UID           int        `json:"uid"`
	Command       []string   `json:"command"`
}

func (c *Controller) view(r *rt) View {
	j := r.j
	v := View{ID: j.ID, Name: j.Name, Team: j.Team, State: j.State, Reason: j.Reason, ExitCode: j.ExitCode, PriorityClass: j.PriorityClass,
		Accelerators: j.Accelerators, InstanceType: j.InstanceType, Submitted: j.Submitted, Started: j.Started, Preemptions: j.Preemptions,
		Restarts: max(0, j.Run-1), Devices: j.Devices, UID: j.UID, Command: j.Command}
	if v.Devices == nil {
		v.Devices = []string{}
	}
	if v.InstanceType == "" && j.Flavor >= 0 && j.State == StateRunning {
		v.InstanceType = c.cfg.Flavors[j.Flavor].Name
	}
	if (j.State == StatePending || j.State == StatePreempted) && r.w != nil {
		if st, why := c.core.Why(r.w); why != "" {
			v.Reason = why
			if j.State == StatePreempted {
				v.Reason = j.Reason + "; " + why
			}
		} else if st != "" && v.Reason == "" {
			v.Reason = st
		}
	}
	return v
}

// Jobs lists jobs in submission order; uid >= 0 keeps that user's only.
func (c *Controller) Jobs(uid int) []View {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := []View{}
	for _, r := range c.jobs {
		if uid < 0 || r.j.UID == uid {
			out = append(out, c.view(r))
		}
	}
	return out
}

// Description is a job with its history.
type Description struct {
	View
	History []Event `json:"history"`
}

// Describe returns a job and its history.
func (c *Controller) Describe(id string) (*Description, error) {
	c.mu.Lock()
	r, ok := c.byID[id]
	if !ok {
		c.mu.Unlock()
		return nil, &NotFoundError{id}
	}
	d := &Description{View: c.view(r)}
	c.mu.Unlock()
	ev, err := c.store.Events(id)
	if err != nil {
		return nil, err
	}
	for i := range ev {
		ev[i].Time = math.Round(ev[i].Time*1000) / 1000
	}
	d.History = ev
	return d, nil
}

// Epoch is controller time 0.
func (c *Controller) Epoch() time.Time { return c.epoch }

// Job returns a copy of a stored job.
func (c *Controller) Job(id string) (*Job, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.byID[id]
	if !ok {
		return nil, &NotFoundError{id}
	}
	cp := *r.j
	return &cp, nil
}

// IsRequestError says whether err is the caller's fault.
func IsRequestError(err error) bool {
	var re *RequestError
	return errors.As(err, &re)
}

// State is the controller's model, its clock, and a copy of every job
// not yet done (for snapshots).
func (c *Controller) State() (m *policies.Model, now float64, jobs []Job) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, r := range c.jobs {
		if !r.j.Final() {
			jobs = append(jobs, *r.j)
		}
	}
	return c.cfg.Model, c.now(), jobs
}

// Priority is a class's value.
func (c *Controller) Priority(class string) int32 { return c.cfg.Priorities[class] }
