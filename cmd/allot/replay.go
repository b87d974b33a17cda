package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/allot-sim/allot/cmd/internal/simrun"
	"github.com/allot-sim/allot/hardware"
	"github.com/allot-sim/allot/live"
	"github.com/allot-sim/allot/live/local"
	"github.com/allot-sim/allot/scenarios"
	"github.com/allot-sim/allot/sim"
	"github.com/allot-sim/allot/workload"
	"github.com/spf13/cobra"
)

// utilGapLimit is the most the two utilisations may differ, in percentage
// points (issue 19).
const utilGapLimit = 2.0

func newReplayCmd() *cobra.Command {
	var policy, dataDir string
	var speedup float64
	var poll time.Duration
	cmd := &cobra.Command{
		Use:   "replay SCENARIO --speedup K [--policy FILE]",
		Short: "Run a scenario's workload through a live daemon and compare it with allot sim",
		Long: `Run a scenario's workload (trace or synthetic) through a live daemon on the
scenario's declared fleet: each job is submitted at its submit time ÷ K as
a process that sleeps for its running time ÷ K, saves its progress at once
on SIGTERM and resumes from it when restarted. Then the same jobs are
simulated with the same policy, and the two are compared: the same
admissions and preemptions of the same jobs in the same order (two events
closer together than the daemon's measured scheduling latency may swap:
they are counted as near-ties) and utilisation within 2 percentage points.
The simulation is run with no restore time and no checkpoint save time, as
the sleeping jobs have; scenarios with node failures, timeline changes,
backfill, several speeds or fractional accelerators are refused. Exit 1
when they disagree.`,
		Example:     `  allot live replay scenarios/live/replay-two-teams.yaml --speedup 600`,
		Annotations: map[string]string{needsDaemon: "starts one and runs for minutes"},
		Args:        cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if speedup <= 0 {
				return &usageError{cmd: cmd.CommandPath(), msg: "--speedup K is required and must be positive"}
			}
			s, err := loadScenario(args[0], policy)
			if err != nil {
				return err
			}
			simrun.Warn(cmd.ErrOrStderr(), s)
			jobs, err := replayJobs(s)
			if err != nil {
				return badInput(err)
			}
			sd, err := simDecisions(s, jobs)
			if err != nil {
				return badInput(err)
			}
			dir := dataDir
			if dir == "" {
				if dir, err = os.MkdirTemp("", "allot-replay"); err != nil {
					return err
				}
				defer os.RemoveAll(dir)
			}
			// Interrupted, it ends the runs it started and leaves no
			// temporary directory behind.
			sigs := make(chan os.Signal, 1)
			signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
			defer signal.Stop(sigs)
			go func() {
				if _, ok := <-sigs; ok {
					local.KillRuns(dir)
					if dataDir == "" {
						os.RemoveAll(dir)
					}
					os.Exit(130)
				}
			}()
			if pm := s.Policy.Preemption; pm.Restore != 0 || pm.CheckpointSave != 0 {
				fmt.Fprintf(cmd.ErrOrStderr(), "note: simulating with policy.preemption restore and checkpoint_save 0s (not %gs and %gs): the replay's jobs save and resume at once\n", pm.Restore, pm.CheckpointSave)
			}
			start := time.Now()
			ld, err := liveDecisions(cmd.ErrOrStderr(), s, jobs, speedup, dir, poll, sd.end)
			if err != nil {
				return err
			}
			r := compareReplay(sd, ld, speedup)
			printReplay(cmd.OutOrStdout(), s, jobs, speedup, sd, ld, r, time.Since(start))
			if !r.agree() {
				return &problemError{"live and sim disagree (see above)"}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&policy, "policy", "", "policy kind or policy file to use instead of the scenario's")
	cmd.Flags().Float64Var(&speedup, "speedup", 0, "run K times faster than the workload's times (required)")
	cmd.Flags().StringVar(&dataDir, "data-dir", "", "the daemon's state directory (default: a temporary one, removed after)")
	cmd.Flags().DurationVar(&poll, "poll", time.Millisecond, "how often the daemon looks for ended runs")
	return cmd
}

// replayJobs reads a scenario's jobs and refuses what a live run cannot
// follow as the simulator would.
func replayJobs(s *scenarios.Scenario) ([]workload.Job, error) {
	switch {
	case s.Fleet.Failures.Enabled():
		return nil, fmt.Errorf("%s: fleet.failures: live replay cannot fail nodes; remove the failure model", s.Name)
	case len(s.Timeline) > 0:
		return nil, fmt.Errorf("%s: timeline: live replay cannot change nodes or quotas while it runs; remove the timeline", s.Name)
	case s.Policy.Backfill:
		return nil, fmt.Errorf("%s: policy.backfill: backfill reads runtime estimates, which live jobs do not give", s.Name)
	}
	in, err := simrun.Input(s, s.Seed)
	if err != nil {
		return nil, err
	}
	defer in.Source.Close()
	all, err := workload.ReadAll(in.Source)
	if err != nil {
		return nil, err
	}
	built := s.Build()
	var jobs []workload.Job
	for _, j := range all {
		if s.Horizon > 0 && j.Submit >= s.Horizon {
			break
		}
		switch {
		case j.Accelerators != math.Trunc(j.Accelerators):
			return nil, fmt.Errorf("job %s: %g accelerators: live jobs take whole devices", j.ID, j.Accelerators)
		case j.VCPUs > 0 || j.MemoryGiB > 0:
			return nil, fmt.Errorf("job %s: asks for vCPUs or memory, which live jobs cannot ask for", j.ID)
		case len(j.InstanceTypes) > 1 && len(built.Flavors) > 1:
			return nil, fmt.Errorf("job %s: several instance types: a live job names one", j.ID)
		}
		if _, err := replaySpeed(built.Flavors, &j); err != nil {
			return nil, err
		}
		j.User = "" // the live core sees no users
		jobs = append(jobs, j)
	}
	if len(jobs) == 0 {
		return nil, fmt.Errorf("%s: no jobs to replay", s.Name)
	}
	return jobs, nil
}

// replaySpeed is how much longer than its duration a job runs in the
// simulator (its speed on its first listed type over its speed where it
// runs); the fleet's types must agree on it, as a sleeping job cannot
// tell where it runs.
func replaySpeed(types []*hardware.InstanceType, j *workload.Job) (float64, error) {
	ref := 1.0
	if len(j.InstanceTypes) > 0 {
		for _, t := range types {
			if t.Name == j.InstanceTypes[0] {
				ref = t.SpeedFor(j.Class)
			}
		}
	}
	f := math.NaN()
	for _, t := range types {
		if len(j.InstanceTypes) > 0 && !slices.Contains(j.InstanceTypes, t.Name) {
			continue
		}
		g := ref / t.SpeedFor(j.Class)
		if !math.IsNaN(f) && math.Abs(g-f) > 1e-9 {
			return 0, fmt.Errorf("job %s: runs at different speeds on %s and others: a sleeping job cannot follow that", j.ID, t.Name)
		}
		f = g
	}
	if math.IsNaN(f) {
		f = 1
	}
	return f, nil
}

// decision is an admission or a preemption of job Job (an index into the
// replayed jobs) at T, in workload seconds.
type decision struct {
	Kind string // "admit" or "preempt"
	Job  int
	T    float64
}

// replaySide is one side of a replay.
type replaySide struct {
	list   []decision // in the order they were taken
	busy   float64    // accelerator-seconds held by runs
	end    float64    // when the last run ended
	cap    float64    // accelerators in the fleet
	wall   float64    // seconds the live run took
	lat    float64    // live: measured scheduling latency, in wall seconds
	lags   []float64  // live: how much longer than planned each run that ran to its end held its devices
	failed []string   // live: jobs that did not succeed
}

func (d *replaySide) count(kind string) int {
	n := 0
	for _, x := range d.list {
		if x.Kind == kind {
			n++
		}
	}
	return n
}

func (d *replaySide) util(window float64) float64 { return 100 * d.busy / (d.cap * window) }

// simDecisions simulates the jobs with no restore and no checkpoint save
// time: a preempted job keeps its progress and gives its nodes back at
// once, as the sleeping jobs do.
func simDecisions(s *scenarios.Scenario, jobs []workload.Job) (*replaySide, error) {
	in, err := simrun.Input(s, s.Seed)
	if err != nil {
		return nil, err
	}
	in.Source.Close()
	in.Source, in.ReadAhead, in.Skipped = workload.NewSliceSource(slices.Clone(jobs), nil), false, nil
	in.Preemption.Restore, in.Preemption.CheckpointSave = 0, 0
	in.Warmup = 0
	in.Horizon = jobs[len(jobs)-1].Submit + 1
	for _, j := range jobs {
		f, _ := replaySpeed(s.Build().Flavors, &j)
		in.Horizon += j.Duration * f
	}
	in.Horizon = max(in.Horizon, s.Horizon)
	col := &simCollector{index: map[string]int{}, seqJob: map[int64]int{}, started: map[int64]float64{}}
	for i, j := range jobs {
		col.index[j.ID] = i
	}
	if err := sim.Run(in, col); err != nil {
		return nil, simrun.PlaceJobError(s, err)
	}
	d := &col.d
	d.cap = fleetAccelerators(s)
	return d, nil
}

func fleetAccelerators(s *scenarios.Scenario) float64 {
	built := s.Build()
	n := 0.0
	for f, t := range built.Flavors {
		n += float64(t.Accelerators * max(0, built.Model.Flavors[f].Nodes))
	}
	return n
}

// simCollector keeps the decisions of a simulation.
type simCollector struct {
	d       replaySide
	index   map[string]int // job id -> index
	seqJob  map[int64]int  // sim seq -> index, learnt from submit order
	started map[int64]float64
	next    int
}

func (c *simCollector) Begin(*workload.RunInfo) error { return nil }
func (c *simCollector) Job(*workload.JobRecord)       {}
func (c *simCollector) End(*workload.RunEnd) error    { return nil }
func (c *simCollector) Event(e *workload.Event) {
	switch e.Kind {
	case workload.EvSubmit:
		// Jobs arrive in the order they were given.
		c.seqJob[e.Job] = c.next
		c.next++
	case workload.EvStart:
		c.d.list = append(c.d.list, decision{"admit", c.seqJob[e.Job], e.Time})
		c.started[e.Job] = e.Time
	case workload.EvPreempt:
		c.d.list = append(c.d.list, decision{"preempt", c.seqJob[e.Job], e.Time})
	case workload.EvStop:
		c.d.busy += e.Requested * (e.Time - c.started[e.Job])
		c.d.end = max(c.d.end, e.Time)
	}
}

// liveDecisions runs the jobs through a controller over the local backend
// in this process, K times faster, and reads its decisions back from its
// store. simEnd bounds how long it may take.
func liveDecisions(progress io.Writer, s *scenarios.Scenario, jobs []workload.Job, k float64, dir string, poll time.Duration, simEnd float64) (*replaySide, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	store, err := live.OpenStore(filepath.Join(dir, "state.db"))
	if err != nil {
		return nil, err
	}
	defer store.Close()
	if js, err := store.Jobs(); err != nil || len(js) > 0 {
		return nil, errors.Join(err, badInput(fmt.Errorf("--data-dir %s already holds jobs: give an empty one", dir)))
	}
	cfg := liveConfigOf(s, nil)
	// The sleeping jobs exit at once on SIGTERM; the grace period only
	// bounds a stuck one.
	cfg.GracePeriod = max(2*time.Second, time.Duration(float64(cfg.GracePeriod)/k))
	be := &local.Backend{Dir: dir, Shim: []string{exe, "live", "shim"}}
	c, err := live.New(cfg, store, be, live.SystemClock{})
	if err != nil {
		return nil, err
	}
	stop := make(chan struct{})
	loopErr := make(chan error, 1)
	go func() { loopErr <- c.Loop(stop, poll) }()
	finished := false
	defer func() {
		close(stop)
		<-loopErr
		if !finished {
			local.KillRuns(dir)
		}
	}()

	built := s.Build()
	fmt.Fprintf(progress, "live replay: %d jobs over %.1fs on a daemon in %s\n", len(jobs), jobs[len(jobs)-1].Submit/k, dir)
	t0 := time.Now()
	base := t0.Sub(c.Epoch()).Seconds()
	submitLag := 0.0
	for i, j := range jobs {
		at := t0.Add(time.Duration(j.Submit / k * float64(time.Second)))
		time.Sleep(time.Until(at))
		submitLag = max(submitLag, time.Since(at).Seconds())
		f, _ := replaySpeed(built.Flavors, &j)
		req := &live.Request{Name: j.ID, Team: j.Team, PriorityClass: j.PriorityClass, Accelerators: int(j.Accelerators),
			CheckpointInterval: j.CheckpointInterval / k, Dir: dir,
			Command: []string{exe, "live", "sleepjob", strconv.FormatFloat(j.Duration*f/k, 'g', -1, 64)}}
		if len(j.InstanceTypes) == 1 && len(built.Flavors) > 1 {
			req.InstanceType = j.InstanceTypes[0]
		}
		lj, err := c.Submit(req, os.Getuid())
		if err != nil {
			return nil, fmt.Errorf("submit job %s: %w", j.ID, err)
		}
		if lj.ID != strconv.Itoa(i+1) {
			return nil, fmt.Errorf("submit job %s: got id %s, want %d", j.ID, lj.ID, i+1)
		}
	}
	deadline := t0.Add(time.Duration((simEnd/k*3 + 30) * float64(time.Second)))
	for {
		left := 0
		for _, v := range c.Jobs(-1) {
			if v.State != live.StateSucceeded && v.State != live.StateFailed && v.State != live.StateCancelled {
				left++
			}
		}
		if left == 0 {
			finished = true
			break
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("live replay: %d jobs still not done after %s", left, time.Since(t0).Round(time.Second))
		}
		time.Sleep(20 * time.Millisecond)
	}
	d := &replaySide{cap: fleetAccelerators(s), wall: time.Since(t0).Seconds(), lat: submitLag}
	type ev struct {
		decision
		seq int
	}
	var evs []ev
	for i := range jobs {
		id := strconv.Itoa(i + 1)
		lj, err := c.Job(id)
		if err != nil {
			return nil, err
		}
		if lj.State != live.StateSucceeded {
			d.failed = append(d.failed, fmt.Sprintf("%s (%s: %s)", jobs[i].ID, lj.State, lj.Reason))
		}
		hist, err := store.Events(id)
		if err != nil {
			return nil, err
		}
		var planned []float64
		if data, err := os.ReadFile(filepath.Join(be.CheckpointDir(id), sleepRunsFile)); err == nil {
			for _, f := range strings.Fields(string(data)) {
				x, _ := strconv.ParseFloat(f, 64)
				planned = append(planned, x)
			}
		}
		admitted, run := math.NaN(), 0
		for n, e := range hist {
			t := (e.Time - base) * k
			switch e.Kind {
			case "admitted":
				evs = append(evs, ev{decision{"admit", i, t}, n})
				admitted = e.Time
			case "preempted":
				evs = append(evs, ev{decision{"preempt", i, t}, n})
			case "exited":
				d.busy += jobs[i].Accelerators * (e.Time - admitted) * k
				d.end = max(d.end, t)
				// A run that ran to its end shows the daemon's lag: it
				// started late, slept its share, and its end was seen late.
				if run < len(planned) && strings.Contains(e.Detail, "exited with code 0") && n+1 < len(hist) && hist[n+1].Kind == live.StateSucceeded {
					d.lags = append(d.lags, e.Time-admitted-planned[run])
				}
				run++
			}
		}
	}
	slices.Sort(d.lags)
	if n := len(d.lags); n > 0 {
		d.lat = max(d.lat, d.lags[n-1])
	}
	slices.SortStableFunc(evs, func(a, b ev) int {
		if a.T != b.T {
			return cmp.Compare(a.T, b.T)
		}
		return a.seq - b.seq
	})
	for _, e := range evs {
		d.list = append(d.list, e.decision)
	}
	return d, nil
}
