package live

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/allot-sim/allot/policies"
)

type fakeClock struct{ t time.Time }

func (c *fakeClock) Now() time.Time { return c.t }

// fakeBackend records what the controller asks and reports exits the
// test sets.
type fakeBackend struct {
	starts  []string // "ID/run devices"
	signals []string // "ID term|kill"
	exits   map[string]*Exit
	recover map[string]RunStatus
	failing map[string]error // Start fails with it
}

func newFake() *fakeBackend {
	return &fakeBackend{exits: map[string]*Exit{}, recover: map[string]RunStatus{}, failing: map[string]error{}}
}

func (b *fakeBackend) Start(j *Job) error {
	if err := b.failing[j.ID]; err != nil {
		return err
	}
	b.starts = append(b.starts, j.ID+"/"+itoa(j.Run)+" "+strings.Join(j.Devices, ","))
	delete(b.exits, j.ID)
	return nil
}

func (b *fakeBackend) Signal(j *Job, kill bool) error {
	s := "term"
	if kill {
		s = "kill"
	}
	b.signals = append(b.signals, j.ID+" "+s)
	return nil
}

func (b *fakeBackend) Exited(j *Job) (*Exit, error) { return b.exits[j.ID], nil }

func (b *fakeBackend) Recover(j *Job) (RunStatus, error) { return b.recover[j.ID], nil }

func itoa(n int) string { return string(rune('0' + n)) }

// twoTeams is one node of 4 devices; teams a and b are guaranteed 2 each
// and lend to each other; class high outranks low.
func twoTeams() *Config {
	quota := func(n int64) []policies.ResourceGroup {
		return []policies.ResourceGroup{{Resources: []int{0}, Flavors: []policies.FlavorQuotas{{Flavor: 0, Quotas: map[int]policies.Quota{0: {Nominal: n * policies.Milli}}}}}}
	}
	m := &policies.Model{Kind: policies.KindQuota, NodesModelled: true, Resources: []string{"nvidia.com/gpu"},
		Flavors: []policies.FlavorSpec{{Name: "dev", NodeAccel: 4 * policies.Milli, Nodes: 1, AccelResource: 0, CPUResource: -1, MemResource: -1, Speed: 1}},
		Cohorts: []policies.CohortSpec{{Name: "default", Parent: -1, Weight: 1}},
		Queues: []policies.QueueSpec{
			{Name: "a", Cohort: 0, Weight: 1, WithinQueue: policies.LowerPriority, Reclaim: policies.Any, Groups: quota(2), MaxPreemptions: -1},
			{Name: "b", Cohort: 0, Weight: 1, WithinQueue: policies.LowerPriority, Reclaim: policies.Any, Groups: quota(2), MaxPreemptions: -1},
		}}
	return &Config{Model: m, Flavors: []FlavorDevices{{Name: "dev", PerNode: 4, Devices: []string{"0", "1", "2", "3"}}},
		Teams: []string{"a", "b"}, Quotas: [][]int{{2}, {2}}, Priorities: map[string]int32{"": 0, "low": 10, "high": 100}, GracePeriod: 10 * time.Second, MaxRetries: -1}
}

type harness struct {
	t     *testing.T
	cfg   func(*Config) // changes to twoTeams, if any
	opts  Options
	path  string
	store *Store
	be    *fakeBackend
	clock *fakeClock
	c     *Controller
}

func newHarness(t *testing.T) *harness {
	h := &harness{t: t, path: filepath.Join(t.TempDir(), "state.db"), be: newFake(), clock: &fakeClock{time.Unix(1_700_000_000, 0)}}
	h.open()
	return h
}

func (h *harness) open() {
	h.t.Helper()
	s, err := OpenStore(h.path)
	if err != nil {
		h.t.Fatal(err)
	}
	h.store = s
	h.t.Cleanup(func() { s.Close() })
	cfg := twoTeams()
	if h.cfg != nil {
		h.cfg(cfg)
	}
	c, err := NewWith(cfg, s, h.be, h.clock, h.opts)
	if err != nil {
		h.t.Fatal(err)
	}
	h.c = c
}

// restart drops the controller as a crash would and builds a new one on
// the same store.
func (h *harness) restart() {
	h.store.Close()
	h.open()
}

func (h *harness) submit(team, class string, acc int) string {
	h.t.Helper()
	j, err := h.c.Submit(&Request{Team: team, PriorityClass: class, Accelerators: acc, Command: []string{"train"}}, 1000)
	if err != nil {
		h.t.Fatal(err)
	}
	return j.ID
}

func (h *harness) advance(d time.Duration) {
	h.t.Helper()
	h.clock.t = h.clock.t.Add(d)
	if _, err := h.c.Tick(); err != nil {
		h.t.Fatal(err)
	}
}

func (h *harness) state(id string) Job {
	j, err := h.c.Job(id)
	if err != nil {
		h.t.Fatal(err)
	}
	return *j
}

// A preempted job that ignores SIGTERM is killed when its grace period
// ends, not before; the controller asks to be woken then.
func TestStopEscalatesToSIGKILLWhenTheGracePeriodEnds(t *testing.T) {
	h := newHarness(t)
	low := h.submit("a", "low", 4)
	h.submit("b", "high", 2)
	if want := []string{low + " term"}; !slices.Equal(h.be.signals, want) {
		t.Fatalf("signals %v, want %v", h.be.signals, want)
	}
	next, _ := h.c.Tick()
	if want := h.clock.t.Add(10 * time.Second); !next.Equal(want) {
		t.Errorf("next wake %v, want the end of the grace period %v", next, want)
	}
	h.advance(9 * time.Second)
	if len(h.be.signals) != 1 {
		t.Errorf("signals before the grace period ended: %v", h.be.signals)
	}
	h.advance(time.Second)
	if want := []string{low + " term", low + " kill"}; !slices.Equal(h.be.signals, want) {
		t.Errorf("signals %v, want %v", h.be.signals, want)
	}
}

// A preempted job goes back to its queue keeping its place and runs again
// as run 2 once room returns; the job that preempted it started only when
// the preempted one had let go of its devices.
func TestPreemptedJobIsRequeuedAndRestartedAsItsNextRun(t *testing.T) {
	h := newHarness(t)
	low := h.submit("a", "low", 4)
	high := h.submit("b", "high", 2)
	if want := []string{low + "/1 0,1,2,3"}; !slices.Equal(h.be.starts, want) {
		t.Fatalf("starts %v, want %v (the high job waits for the devices)", h.be.starts, want)
	}
	h.be.exits[low] = &Exit{Code: 143}
	h.advance(time.Second)
	if j := h.state(low); j.State != StatePreempted || j.Preemptions != 1 {
		t.Errorf("low: %s with %d preemptions, want preempted with 1", j.State, j.Preemptions)
	}
	if want := []string{low + "/1 0,1,2,3", high + "/1 0,1"}; !slices.Equal(h.be.starts, want) {
		t.Errorf("starts %v, want %v", h.be.starts, want)
	}
	h.be.exits[high] = &Exit{Code: 0}
	h.advance(time.Second)
	if want := low + "/2 0,1,2,3"; h.be.starts[len(h.be.starts)-1] != want {
		t.Errorf("starts %v, want the low job's run 2 last", h.be.starts)
	}
	if j := h.state(high); j.State != StateSucceeded || j.ExitCode == nil || *j.ExitCode != 0 {
		t.Errorf("high: %s exit %v, want succeeded 0", j.State, j.ExitCode)
	}
}

// A run that exits non-zero is failed with its exit code.
func TestNonZeroExitIsFailedWithItsCode(t *testing.T) {
	h := newHarness(t)
	id := h.submit("a", "low", 1)
	h.be.exits[id] = &Exit{Code: 3}
	h.advance(time.Second)
	if j := h.state(id); j.State != StateFailed || j.ExitCode == nil || *j.ExitCode != 3 {
		t.Errorf("%s exit %v, want failed with 3", j.State, j.ExitCode)
	}
}

// After a restart the core is rebuilt from the store: a running job is
// adopted on its devices (not started again), and a queued one still
// waits for them rather than being put on them.
func TestRestartAdoptsRunningJobsAndKeepsTheirDevicesTaken(t *testing.T) {
	h := newHarness(t)
	full := h.submit("a", "low", 4)
	queued := h.submit("a", "low", 2)
	h.restart()
	if want := []string{full + "/1 0,1,2,3"}; !slices.Equal(h.be.starts, want) {
		t.Fatalf("starts after restart %v, want only the first run %v", h.be.starts, want)
	}
	if j := h.state(queued); j.State != StatePending {
		t.Errorf("queued job is %s after restart, want pending", j.State)
	}
	d, err := h.c.Describe(full)
	if err != nil || !slices.ContainsFunc(d.History, func(e Event) bool { return e.Kind == "adopted" }) {
		t.Errorf("history of the running job has no adoption: %v %v", d, err)
	}
	h.be.exits[full] = &Exit{}
	h.advance(time.Second)
	if want := queued + "/1 0,1"; h.be.starts[len(h.be.starts)-1] != want {
		t.Errorf("starts %v, want %s last", h.be.starts, want)
	}
}

// A run the store says was decided but that never started (the daemon
// died in between) is started again as the same run, once.
func TestRunDecidedButNeverStartedIsStartedOnceAfterRestart(t *testing.T) {
	h := newHarness(t)
	id := h.submit("a", "low", 2)
	h.be.recover[id] = RunNeverStarted
	h.restart()
	if want := []string{id + "/1 0,1", id + "/1 0,1"}; !slices.Equal(h.be.starts, want) {
		t.Errorf("starts %v, want %v (run 1 again, not run 2)", h.be.starts, want)
	}
}

// A time limit stops the run with SIGTERM and fails the job.
func TestTimeLimitStopsTheRunAndFailsTheJob(t *testing.T) {
	h := newHarness(t)
	j, err := h.c.Submit(&Request{Team: "a", PriorityClass: "low", Accelerators: 1, Command: []string{"x"}, TimeLimit: 60}, 1)
	if err != nil {
		t.Fatal(err)
	}
	h.advance(59 * time.Second)
	if len(h.be.signals) != 0 {
		t.Fatalf("signalled before its time limit: %v", h.be.signals)
	}
	h.advance(time.Second)
	if want := []string{j.ID + " term"}; !slices.Equal(h.be.signals, want) {
		t.Fatalf("signals %v, want %v", h.be.signals, want)
	}
	h.be.exits[j.ID] = &Exit{Code: 143}
	h.advance(time.Second)
	if got := h.state(j.ID); got.State != StateFailed || !strings.Contains(got.Reason, "time limit") {
		t.Errorf("%s (%s), want failed at its time limit", got.State, got.Reason)
	}
}

// A refused request writes nothing to the store.
func TestRefusedRequestWritesNothing(t *testing.T) {
	h := newHarness(t)
	for _, r := range []Request{
		{Team: "zz", PriorityClass: "low", Accelerators: 1, Command: []string{"x"}},
		{Team: "a", PriorityClass: "urgent", Accelerators: 1, Command: []string{"x"}},
		{Team: "a", PriorityClass: "low", Accelerators: 5, Command: []string{"x"}},
		{Team: "a", PriorityClass: "low", Accelerators: 1},
	} {
		if _, err := h.c.Submit(&r, 1); !IsRequestError(err) {
			t.Errorf("%+v: error %v, want a refusal", r, err)
		}
	}
	jobs, _ := h.store.Jobs()
	events, _ := h.store.Events("")
	if len(jobs) != 0 || len(events) != 0 {
		t.Errorf("refusals wrote %d jobs and %d events", len(jobs), len(events))
	}
}

// Within a team, a high-priority job for which nothing is free (its own
// low-priority job holds every device, two of them borrowed) preempts that
// job (InClusterQueue) with SIGTERM.
// With policy.preemption.min_runtime the low job is protected for its
// first 10 minutes: the high job waits, the controller asks to be woken
// when the protection ends, and then preempts with nothing else to wake
// it.
func TestPreemptorIsAdmittedWhenTheVictimsProtectionEnds(t *testing.T) {
	h := &harness{t: t, path: filepath.Join(t.TempDir(), "state.db"), be: newFake(), clock: &fakeClock{time.Unix(1_700_000_000, 0)},
		cfg: func(c *Config) { c.Model.MinRuntime = 600 }}
	h.open()
	start := h.clock.t
	low := h.submit("a", "low", 4)
	h.advance(100 * time.Second)
	h.submit("a", "high", 2)
	if len(h.be.signals) != 0 {
		t.Fatalf("signals %v at 100 s, want none: low is protected until 600 s", h.be.signals)
	}
	next, err := h.c.Tick()
	if err != nil {
		t.Fatal(err)
	}
	if want := start.Add(600 * time.Second); !next.Equal(want) {
		t.Fatalf("controller wants to be woken at %v, want %v", next.Sub(start), want.Sub(start))
	}
	h.advance(499 * time.Second)
	if len(h.be.signals) != 0 {
		t.Fatalf("signals %v at 599 s, want none", h.be.signals)
	}
	h.advance(time.Second)
	if want := []string{low + " term"}; !slices.Equal(h.be.signals, want) {
		t.Fatalf("signals %v at 600 s, want %v", h.be.signals, want)
	}
}

func TestHighPriorityJobPreemptsItsTeamsLowOne(t *testing.T) {
	h := newHarness(t)
	low := h.submit("a", "low", 4)
	h.submit("a", "high", 2)
	if want := []string{low + " term"}; !slices.Equal(h.be.signals, want) {
		t.Fatalf("signals %v, want %v", h.be.signals, want)
	}
	d, _ := h.c.Describe(low)
	if last := d.History[len(d.History)-1]; last.Kind != "preempted" || !strings.HasPrefix(last.Detail, policies.ReasonInClusterQueue) {
		t.Errorf("last event %+v, want a preemption InClusterQueue", last)
	}
}

// What a team holds beyond its quota is borrowed, and shows as lent by
// the team whose idle quota it is.
func TestOverviewCountsBorrowedAndLentDevices(t *testing.T) {
	h := newHarness(t)
	h.submit("a", "low", 4)
	h.submit("a", "low", 1)
	o := h.c.Overview()
	want := []TeamUsage{
		{Team: "a", Quota: 2, Allocated: 4, Borrowed: 2, Pending: 1, Running: 1},
		{Team: "b", Quota: 2, Lent: 2},
	}
	if o.Devices != 4 || o.InUse != 4 || o.Utilization != 1 || !slices.Equal(o.Teams, want) {
		t.Errorf("overview %+v, want 4 of 4 devices in use and teams %+v", o, want)
	}
}
