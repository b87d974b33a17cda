package live

import (
	"fmt"
	"io"
	"log/slog"
	"math"
	"sync"
	"time"

	"github.com/allot-sim/allot/policies"
)

type rt struct {
	j *Job
	w *policies.Workload
	// held: out of the core's queue until j.RetryAt (a failed start).
	held bool
}

// Controller is the shell around the core for live work. Its methods are
// safe for concurrent use: one mutex orders every change, as the
// simulator's event loop does.
//
// What it holds in memory is what its store holds, and what it does is
// what the store says it decided. A request (submit, cancel, promote) is
// written before it changes anything in memory; a failed write is the
// caller's error and changes nothing. A decision of its own (a plan, a
// run's end, a time limit) changes memory first and is written before it
// is acted on; if the write fails, memory is read back from the store, as
// after a restart, and nothing of it is carried out.
type Controller struct {
	mu       sync.Mutex
	cfg      *Config
	opts     Options
	log      *slog.Logger
	core     *policies.Core
	coreWake float64 // when the core asked to be asked again (+Inf: never)
	store    *Store
	be       Backend
	clock    Clock
	epoch    time.Time // controller time 0: core times are seconds since it
	jobs     []*rt     // by Seq
	byID     map[string]*rt
	byW      map[*policies.Workload]*rt
	byReq    map[string]*rt // by requestKey
	nextSeq  int64
	maxAcc   []int // devices per flavor
	pending  []Event
	dirty    map[*Job]bool
	obs      Observer
	version  uint64  // counts flushes: what was written changes only with it
	pruned   float64 // when retention last ran (controller seconds)
	broken   error   // the store could not be read back: the daemon must stop
	replan   bool    // memory was read back: the next tick asks the core again
}

// Options tune a controller.
type Options struct {
	// Log hears every decision and fault, with job ids (nil: nothing).
	Log *slog.Logger
	// Retention, if positive, is how long a finished job's directory and
	// history are kept.
	Retention time.Duration
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

// New builds a controller with no options (see NewWith).
func New(cfg *Config, store *Store, be Backend, clock Clock) (*Controller, error) {
	return NewWith(cfg, store, be, clock, Options{})
}

// NewWith builds a controller, rebuilding its core from the store: running
// jobs are put back on their nodes and re-adopted through the backend,
// the others queued again in their old order. It fails when the store
// cannot be written: a daemon does not run on a store it cannot write.
func NewWith(cfg *Config, store *Store, be Backend, clock Clock, o Options) (*Controller, error) {
	c := &Controller{cfg: cfg, opts: o, log: o.Log, store: store, be: be, clock: clock}
	if c.log == nil {
		c.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
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
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.load(); err != nil {
		return nil, err
	}
	if err := c.flush(); err != nil {
		return nil, err
	}
	c.schedule()
	if c.broken != nil {
		return nil, c.broken
	}
	return c, nil
}

// load sets memory to what the store holds: every job, the core rebuilt
// around them, running runs re-adopted (or found ended or lost) through
// the backend. What it learns from the backend is written by the next
// flush.
func (c *Controller) load() error {
	core, err := policies.NewCore(c.cfg.Model)
	if err != nil {
		return fmt.Errorf("build core: %w", err)
	}
	hwm, _, err := c.store.Meta(metaSeq)
	if err != nil {
		return err
	}
	jobs, err := c.store.Jobs()
	if err != nil {
		return err
	}
	c.core, c.coreWake = core, math.Inf(1)
	c.jobs, c.byID, c.byW, c.byReq = nil, map[string]*rt{}, map[*policies.Workload]*rt{}, map[string]*rt{}
	c.pending, c.dirty = nil, map[*Job]bool{}
	c.nextSeq = int64(hwm) + 1
	now := c.now()
	for _, j := range jobs {
		r := &rt{j: j}
		c.jobs = append(c.jobs, r)
		c.byID[j.ID] = r
		c.nextSeq = max(c.nextSeq, j.Seq+1)
		if j.RequestID != "" {
			c.byReq[requestKey(j.UID, j.RequestID)] = r
		}
		if j.Final() {
			continue
		}
		if err := c.rebuild(r, now); err != nil {
			return err
		}
	}
	return nil
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
		if j.RetryAt > now {
			r.held = true // after a failed start: Tick queues it when due
			return nil
		}
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
		if j.Stopping != "" {
			// Its stop was recorded, but the signal may never have been
			// sent: send it again, with what is left of the grace period
			// (the shim passes SIGTERM on only once).
			c.signal(j, now >= j.KillAt)
		}
	case RunNeverStarted:
		c.ended(r, &Exit{Lost: true, NeverStarted: true}, now)
	case RunLost:
		c.ended(r, &Exit{Lost: true}, now)
	}
	return nil
}

func (c *Controller) workload(j *Job) (*policies.Workload, error) { return workloadOf(c.cfg, j) }

// workloadOf is a stored job as the core's workload under cfg (the
// adapter both backends share, live/workload.go).
func workloadOf(cfg *Config, j *Job) (*policies.Workload, error) { return cfg.Workload(j.Spec()) }

func (c *Controller) now() float64 { return c.clock.Now().Sub(c.epoch).Seconds() }

func (c *Controller) event(j *Job, kind, detail string) { c.eventAt(j, c.now(), kind, detail) }

// eventAt records an event at controller time t and logs it.
func (c *Controller) eventAt(j *Job, t float64, kind, detail string) {
	c.pending = append(c.pending, Event{Time: t, Job: j.ID, Kind: kind, Detail: detail, Policy: c.cfg.PolicyID})
	c.dirty[j] = true
	c.log.Info(kind, "job", j.ID, "team", j.Team, "uid", j.UID, "state", j.State, "detail", detail)
}

// flush writes what changed since the last flush in one transaction. On
// failure the changes are dropped from the write queue: the caller rolls
// memory back (requests) or reads it back from the store (decisions).
func (c *Controller) flush() error {
	if len(c.dirty) == 0 && len(c.pending) == 0 {
		return nil
	}
	jobs := make([]*Job, 0, len(c.dirty))
	for _, r := range c.jobs { // in submission order: the same history, the same file
		if c.dirty[r.j] {
			jobs = append(jobs, r.j)
			delete(c.dirty, r.j)
		}
	}
	for j := range c.dirty { // not yet listed (a submission)
		jobs = append(jobs, j)
	}
	err := c.store.Save(jobs, c.pending)
	c.version++
	c.pending = c.pending[:0]
	clear(c.dirty)
	if err != nil {
		c.log.Error("store write failed", "err", err)
		return fmt.Errorf("store: %w", err)
	}
	return nil
}

// commit writes the controller's own decisions before they are carried
// out. When the write fails, memory is read back from the store, so that
// nothing undecided on disk is acted on, and false is returned.
func (c *Controller) commit() bool {
	err := c.flush()
	if err == nil {
		return true
	}
	c.log.Warn("reading the store back: what was not written is not carried out", "err", err)
	c.replan = true
	if lerr := c.load(); lerr != nil {
		c.broken = fmt.Errorf("%w; reading the store back: %w", err, lerr)
		c.log.Error("cannot read the store back", "err", c.broken)
	}
	return false
}
