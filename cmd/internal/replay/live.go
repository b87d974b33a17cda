package replay

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/allot-sim/allot/cmd/internal/liveconf"
	"github.com/allot-sim/allot/hardware"
	"github.com/allot-sim/allot/live"
	"github.com/allot-sim/allot/live/local"
	"github.com/allot-sim/allot/scenarios"
	"github.com/allot-sim/allot/workload"
)

// Options says how to run the live side of a replay.
type Options struct {
	Speedup float64       // K: the run goes K times faster than the workload's times
	Dir     string        // the daemon's state directory; it must hold no jobs ("": Run makes a temporary one)
	Poll    time.Duration // how often the daemon looks for ended runs
}

// BusyDirError is a state directory that already holds jobs: a replay
// needs an empty one.
type BusyDirError struct{ Dir string }

func (e *BusyDirError) Error() string {
	return fmt.Sprintf("--data-dir %s already holds jobs: give an empty one", e.Dir)
}

// liveRun is a controller over the local backend, in this process, and
// the jobs it replays.
type liveRun struct {
	exe   string // this program, which is the shim and the sleep job
	k     float64
	dir   string
	jobs  []workload.Job
	types []*hardware.InstanceType
	store *live.Store
	be    *local.Backend
	c     *live.Controller
}

// seqDecision is a live decision and its place in its job's history,
// which orders decisions taken at the same instant.
type seqDecision struct {
	decision
	seq int
}

// Live runs the jobs through a controller over the local backend in this
// process, K times faster, and reads its decisions back from its store.
// The simulation of the same jobs bounds how long it may take.
func Live(progress io.Writer, s *scenarios.Scenario, jobs []workload.Job, sim *Side, o Options) (*Side, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	store, err := openStore(o.Dir)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	k := o.Speedup
	// The daemon's configuration for the scenario's fleet, as allot live
	// runs it; the sleeping jobs exit at once on SIGTERM, so the grace
	// period, shortened by K, only bounds a stuck one.
	cfg := *liveconf.FromScenario(s, nil)
	cfg.GracePeriod = max(2*time.Second, time.Duration(float64(cfg.GracePeriod)/k))
	r := &liveRun{exe: exe, k: k, dir: o.Dir, jobs: jobs, store: store,
		be: &local.Backend{Dir: o.Dir, Shim: []string{exe, "live", "shim"}}}
	if r.c, err = live.New(&cfg, store, r.be, live.SystemClock{}); err != nil {
		return nil, err
	}
	stop := make(chan struct{})
	loopErr := make(chan error, 1)
	go func() { loopErr <- r.c.Loop(stop, o.Poll) }()
	finished := false
	defer func() {
		close(stop)
		<-loopErr
		if !finished {
			local.KillRuns(o.Dir)
		}
	}()

	r.types = s.Build().Flavors
	fmt.Fprintf(progress, "live replay: %d jobs over %.1fs on a daemon in %s\n", len(jobs), jobs[len(jobs)-1].Submit/k, o.Dir)
	t0 := time.Now()
	base := t0.Sub(r.c.Epoch()).Seconds()
	submitLag, err := r.submit(t0)
	if err != nil {
		return nil, err
	}
	if err := r.wait(t0, t0.Add(time.Duration((sim.end/k*3+30)*float64(time.Second)))); err != nil {
		return nil, err
	}
	finished = true
	d := &Side{cap: fleetAccelerators(s), wall: time.Since(t0).Seconds(), lat: submitLag}
	if err := r.readBack(d, base); err != nil {
		return nil, err
	}
	return d, nil
}

// openStore opens the daemon's store in dir, which must hold no jobs.
func openStore(dir string) (*live.Store, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	store, err := live.OpenStore(filepath.Join(dir, "state.db"))
	if err != nil {
		return nil, err
	}
	if js, err := store.Jobs(); err != nil || len(js) > 0 {
		store.Close()
		return nil, errors.Join(err, &BusyDirError{dir})
	}
	return store, nil
}

// submit submits each job at its submit time ÷ K after t0, as a sleep job
// of its running time ÷ K, and returns how late the latest submission was
// (wall seconds).
func (r *liveRun) submit(t0 time.Time) (float64, error) {
	lag := 0.0
	for i, j := range r.jobs {
		at := t0.Add(time.Duration(j.Submit / r.k * float64(time.Second)))
		time.Sleep(time.Until(at))
		lag = max(lag, time.Since(at).Seconds())
		f, _ := speed(r.types, &j)
		req := &live.Request{Name: j.ID, Team: j.Team, PriorityClass: j.PriorityClass, Accelerators: int(j.Accelerators),
			CheckpointInterval: j.CheckpointInterval / r.k, Dir: r.dir,
			Command: []string{r.exe, "live", "sleepjob", strconv.FormatFloat(j.Duration*f/r.k, 'g', -1, 64)}}
		if len(j.InstanceTypes) == 1 && len(r.types) > 1 {
			req.InstanceType = j.InstanceTypes[0]
		}
		lj, err := r.c.Submit(req, os.Getuid())
		if err != nil {
			return 0, fmt.Errorf("submit job %s: %w", j.ID, err)
		}
		if lj.ID != strconv.Itoa(i+1) {
			return 0, fmt.Errorf("submit job %s: got id %s, want %d", j.ID, lj.ID, i+1)
		}
	}
	return lag, nil
}

// wait waits until every job has ended, or fails at the deadline.
func (r *liveRun) wait(t0, deadline time.Time) error {
	for {
		left := 0
		for _, v := range r.c.Jobs(-1) {
			if v.State != live.StateSucceeded && v.State != live.StateFailed && v.State != live.StateCancelled {
				left++
			}
		}
		if left == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("live replay: %d jobs still not done after %s", left, time.Since(t0).Round(time.Second))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// readBack fills d from the store: the decisions in the order they were
// taken, the devices' busy time, the jobs that failed, the runs' lags and
// the latency. base is the run's start in the controller's clock.
func (r *liveRun) readBack(d *Side, base float64) error {
	var evs []seqDecision
	for i := range r.jobs {
		got, err := r.jobDecisions(d, i, base)
		if err != nil {
			return err
		}
		evs = append(evs, got...)
	}
	slices.Sort(d.lags)
	if n := len(d.lags); n > 0 {
		d.lat = max(d.lat, d.lags[n-1])
	}
	slices.SortStableFunc(evs, func(a, b seqDecision) int {
		if a.T != b.T {
			return cmp.Compare(a.T, b.T)
		}
		return a.seq - b.seq
	})
	for _, e := range evs {
		d.list = append(d.list, e.decision)
	}
	return nil
}

// jobDecisions reads job i's history: its decisions, and into d its busy
// time, its end, whether it failed, and the lag of each run that ran to
// its end.
func (r *liveRun) jobDecisions(d *Side, i int, base float64) ([]seqDecision, error) {
	id := strconv.Itoa(i + 1)
	lj, err := r.c.Job(id)
	if err != nil {
		return nil, err
	}
	if lj.State != live.StateSucceeded {
		d.failed = append(d.failed, fmt.Sprintf("%s (%s: %s)", r.jobs[i].ID, lj.State, lj.Reason))
	}
	hist, err := r.store.Events(id)
	if err != nil {
		return nil, err
	}
	planned := plannedRuns(r.be.CheckpointDir(id))
	var evs []seqDecision
	admitted, run := math.NaN(), 0
	for n, e := range hist {
		t := (e.Time - base) * r.k
		switch e.Kind {
		case "admitted":
			evs = append(evs, seqDecision{decision{"admit", i, t}, n})
			admitted = e.Time
		case "preempted":
			evs = append(evs, seqDecision{decision{"preempt", i, t}, n})
		case "exited":
			d.busy += r.jobs[i].Accelerators * (e.Time - admitted) * r.k
			d.end = max(d.end, t)
			// A run that ran to its end shows the daemon's lag: it
			// started late, slept its share, and its end was seen late.
			if run < len(planned) && strings.Contains(e.Detail, "exited with code 0") && n+1 < len(hist) && hist[n+1].Kind == live.StateSucceeded {
				d.lags = append(d.lags, e.Time-admitted-planned[run])
			}
			run++
		}
	}
	return evs, nil
}
