package live

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/allot-sim/allot/policies"
	"github.com/allot-sim/allot/workload"
)

// errFull is what a write to a full disk returns.
var errFull = fmt.Errorf("write state.db: %w", syscall.ENOSPC)

// failWrites makes the store's writes fail from the n-th one on (1: the
// next).
func (h *harness) failWrites(n int) {
	h.store.fault = func() error {
		if n--; n <= 0 {
			return errFull
		}
		return nil
	}
}

func (h *harness) writesWork() { h.store.fault = nil }

func (h *harness) storedJobs() map[string]Job {
	h.t.Helper()
	jobs, err := h.store.Jobs()
	if err != nil {
		h.t.Fatal(err)
	}
	m := map[string]Job{}
	for _, j := range jobs {
		m[j.ID] = *j
	}
	return m
}

// A submission whose write fails is refused: it is not queued, not run,
// and not there after a restart.
func TestSubmitWhoseWriteFailsLeavesNoJob(t *testing.T) {
	h := newHarness(t)
	h.failWrites(1)
	_, err := h.c.Submit(&Request{Team: "a", PriorityClass: "low", Accelerators: 1, Command: []string{"x"}}, 1000)
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("submit on a full disk: %v, want ENOSPC", err)
	}
	if n := len(h.c.Jobs(-1)); n != 0 || len(h.be.starts) != 0 {
		t.Errorf("%d jobs in memory and starts %v after a failed submit", n, h.be.starts)
	}
	h.writesWork()
	h.restart()
	if n := len(h.c.Jobs(-1)); n != 0 || len(h.be.starts) != 0 {
		t.Errorf("%d jobs and starts %v after a restart", n, h.be.starts)
	}
	id := h.submit("a", "low", 1)
	if id != "1" {
		t.Errorf("the next job is %s, want 1: the refused one took no id", id)
	}
}

// A cancel whose write fails stops nothing: no signal, the job runs on,
// in memory and after a restart.
func TestCancelWhoseWriteFailsStopsNothing(t *testing.T) {
	h := newHarness(t)
	id := h.submit("a", "low", 1)
	h.failWrites(1)
	if err := h.c.Cancel(id); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("cancel on a full disk: %v, want ENOSPC", err)
	}
	if len(h.be.signals) != 0 {
		t.Errorf("signals %v after a cancel that was not written", h.be.signals)
	}
	h.advance(time.Minute) // past the grace period a cancel would have had
	if j := h.state(id); j.State != StateRunning || j.Stopping != "" || len(h.be.signals) != 0 {
		t.Errorf("job %s stopping %q, signals %v; want running, untouched", j.State, j.Stopping, h.be.signals)
	}
	h.writesWork()
	h.restart()
	if j := h.state(id); j.State != StateRunning || j.Stopping != "" {
		t.Errorf("after restart: %s stopping %q, want running", j.State, j.Stopping)
	}
}

// A plan whose write fails is not carried out, and memory goes back to
// what the store holds; once writes work again it is decided and carried
// out once.
func TestPlanWhoseWriteFailsIsNotCarriedOut(t *testing.T) {
	h := newHarness(t)
	h.failWrites(2) // the submission is written, the plan admitting it is not
	j, err := h.c.Submit(&Request{Team: "a", PriorityClass: "low", Accelerators: 2, Command: []string{"x"}}, 1000)
	if err != nil {
		t.Fatalf("the submission was written, yet: %v", err)
	}
	if got := h.state(j.ID); got.State != StatePending || got.Run != 0 || len(h.be.starts) != 0 {
		t.Fatalf("job %s run %d, starts %v; want pending and not started", got.State, got.Run, h.be.starts)
	}
	if s := h.storedJobs()[j.ID]; s.State != StatePending {
		t.Errorf("stored as %s, want pending", s.State)
	}
	h.writesWork()
	h.advance(time.Second)
	h.advance(time.Second)
	if want := []string{j.ID + "/1 0,1"}; !slices.Equal(h.be.starts, want) {
		t.Errorf("starts %v, want %v", h.be.starts, want)
	}
	if s := h.storedJobs()[j.ID]; s.State != StateRunning || s.Run != 1 {
		t.Errorf("stored as %s run %d, want running run 1", s.State, s.Run)
	}
	h.checkHistory()
}

// A run's end that cannot be written is learnt again on the next tick: the
// job is settled once, its devices given to the next job only then.
func TestRunEndWhoseWriteFailsIsSettledOnceWritesWork(t *testing.T) {
	h := newHarness(t)
	first := h.submit("a", "low", 4)
	next := h.submit("a", "low", 4)
	h.be.exits[first] = &Exit{Code: 0}
	h.failWrites(1)
	h.advance(time.Second)
	if j := h.state(first); j.State != StateRunning {
		t.Errorf("first is %s while its end is not written, want running", j.State)
	}
	if len(h.be.starts) != 1 {
		t.Errorf("starts %v: the next job got devices whose release was not written", h.be.starts)
	}
	h.writesWork()
	h.advance(time.Second)
	if j := h.state(first); j.State != StateSucceeded {
		t.Errorf("first is %s, want succeeded", j.State)
	}
	if want := []string{first + "/1 0,1,2,3", next + "/1 0,1,2,3"}; !slices.Equal(h.be.starts, want) {
		t.Errorf("starts %v, want %v", h.be.starts, want)
	}
	d, _ := h.c.Describe(first)
	n := 0
	for _, e := range d.History {
		if e.Kind == StateSucceeded {
			n++
		}
	}
	if n != 1 {
		t.Errorf("first settled %d times, want once", n)
	}
	h.checkHistory()
}

// A run whose supervisor died is requeued and started again as its next
// run; one that died before it started the job is started again as the
// same run.
func TestLostRunIsRequeuedAndStartedAgain(t *testing.T) {
	h := newHarness(t)
	lost := h.submit("a", "low", 2)
	never := h.submit("b", "low", 2)
	h.be.exits[lost] = &Exit{Lost: true}
	h.be.exits[never] = &Exit{Lost: true, NeverStarted: true}
	h.advance(time.Second)
	want := []string{lost + "/1 0,1", never + "/1 2,3", lost + "/2 0,1", never + "/1 2,3"}
	if !slices.Equal(h.be.starts, want) {
		t.Errorf("starts %v, want %v", h.be.starts, want)
	}
	d, _ := h.c.Describe(lost)
	if !slices.ContainsFunc(d.History, func(e Event) bool { return e.Kind == "lost" }) {
		t.Errorf("lost job's history has no loss: %+v", d.History)
	}
	h.checkHistory()
}

// A run lost while it was being preempted or cancelled ends as that stop
// would have: requeued as preempted, or cancelled.
func TestRunLostWhileStoppingEndsAsItsStop(t *testing.T) {
	h := newHarness(t)
	low := h.submit("a", "low", 4)
	h.submit("b", "high", 2)
	h.be.exits[low] = &Exit{Lost: true}
	h.advance(time.Second)
	if j := h.state(low); j.State != StatePreempted || j.Preemptions != 1 {
		t.Errorf("low: %s with %d preemptions, want preempted once", j.State, j.Preemptions)
	}
	h2 := newHarness(t)
	id := h2.submit("a", "low", 1)
	if err := h2.c.Cancel(id); err != nil {
		t.Fatal(err)
	}
	h2.be.exits[id] = &Exit{Lost: true}
	h2.advance(time.Second)
	if j := h2.state(id); j.State != StateCancelled || j.ExitCode != nil {
		t.Errorf("%s exit %v, want cancelled with no exit code", j.State, j.ExitCode)
	}
	h.checkHistory()
}

// A daemon that died after writing a stop and before signalling it sends
// SIGTERM again when it restarts, within the grace period, and SIGKILL
// once the grace period is over.
func TestStopWrittenBeforeACrashIsSignalledAgainAfterRestart(t *testing.T) {
	h := newHarness(t)
	id := h.submit("a", "low", 1)
	if err := h.c.Cancel(id); err != nil {
		t.Fatal(err)
	}
	h.be.signals = nil // as if the crash came before the signal
	h.clock.t = h.clock.t.Add(4 * time.Second)
	h.restart()
	if want := []string{id + " term"}; !slices.Equal(h.be.signals, want) {
		t.Errorf("signals after restart %v, want %v", h.be.signals, want)
	}
	next, _ := h.c.Tick()
	if want := h.clock.t.Add(6 * time.Second); !next.Equal(want) {
		t.Errorf("wake %v, want what is left of the grace period", next.Sub(h.clock.t))
	}
	h.be.signals = nil
	h.clock.t = h.clock.t.Add(20 * time.Second)
	h.restart()
	if want := []string{id + " kill"}; !slices.Equal(h.be.signals, want) {
		t.Errorf("signals after a restart past the grace period %v, want %v", h.be.signals, want)
	}
	h.checkHistory()
}

// A run that ended while the daemon was down ends, in the books, when its
// supervisor recorded its end, not when the daemon came back.
func TestRunThatEndedWhileTheDaemonWasDownEndsWhenItsShimRecordedIt(t *testing.T) {
	h := newHarness(t)
	start := h.clock.t
	id := h.submit("a", "low", 1)
	h.be.exits[id] = &Exit{Code: 0, Ended: start.Add(15 * time.Second)}
	h.clock.t = start.Add(26 * time.Second)
	h.restart()
	h.advance(0)
	j := h.state(id)
	if j.State != StateSucceeded || j.Ended == nil || !j.Ended.Equal(start.Add(15*time.Second)) {
		t.Fatalf("%s ended %v, want succeeded at 15 s", j.State, j.Ended)
	}
	d, _ := h.c.Describe(id)
	for _, e := range d.History {
		if e.Kind == "exited" && (e.Time != 15 || !e.At.Equal(start.Add(15*time.Second))) {
			t.Errorf("exit at %v s (%v), want 15 s", e.Time, e.At)
		}
	}
	h.checkHistory()
}

// A start that fails for a reason a retry may cure holds the job back and
// tries again later, as the same run; one that cannot succeed fails it.
func TestFailedStartIsRetriedLaterUnlessItCannotRun(t *testing.T) {
	h := newHarness(t)
	h.be.failing["1"] = fmt.Errorf("start job 1: %w", syscall.ENOSPC)
	id := h.submit("a", "low", 2)
	j := h.state(id)
	if j.State != StatePending || j.StartFailures != 1 || !strings.Contains(j.Reason, "could not start") {
		t.Fatalf("%s (%s) after a failed start, want pending and saying why", j.State, j.Reason)
	}
	delete(h.be.failing, id)
	h.advance(4 * time.Second)
	if len(h.be.starts) != 0 {
		t.Errorf("started %v before its retry time", h.be.starts)
	}
	h.advance(time.Second)
	if want := []string{id + "/1 0,1"}; !slices.Equal(h.be.starts, want) {
		t.Errorf("starts %v, want %v", h.be.starts, want)
	}
	h.be.failing["2"] = fmt.Errorf("start job 2: %w: uid 1000 has no account", ErrCannotRun)
	bad := h.submit("b", "low", 1)
	if j := h.state(bad); j.State != StateFailed || !strings.Contains(j.Reason, "no account") {
		t.Errorf("%s (%s), want failed for good", j.State, j.Reason)
	}
	h.checkHistory()
}

// A submission retried with the same request id (its answer was lost)
// returns the first job, also after a restart; another user's same id is
// another job.
func TestRetriedSubmissionReturnsTheFirstJob(t *testing.T) {
	h := newHarness(t)
	req := Request{Team: "a", PriorityClass: "low", Accelerators: 1, Command: []string{"x"}, RequestID: "r1"}
	first, err := h.c.Submit(&req, 1000)
	if err != nil {
		t.Fatal(err)
	}
	h.restart()
	again, err := h.c.Submit(&req, 1000)
	if err != nil || again.ID != first.ID {
		t.Fatalf("retry: %v %v, want job %s", again, err, first.ID)
	}
	other, err := h.c.Submit(&req, 1001)
	if err != nil || other.ID == first.ID {
		t.Errorf("another user's request: %v %v, want a job of its own", other, err)
	}
	if n := len(h.c.Jobs(-1)); n != 2 {
		t.Errorf("%d jobs, want 2", n)
	}
}

// Retention deletes finished jobs' history and files; their ids are not
// given again, even after a restart.
func TestRetentionDeletesOldJobsAndNeverReusesTheirIds(t *testing.T) {
	h := newHarness(t)
	h.opts = Options{Retention: time.Hour}
	h.restart()
	a := h.submit("a", "low", 1)
	b := h.submit("a", "low", 1)
	h.be.exits[a], h.be.exits[b] = &Exit{}, &Exit{}
	h.advance(time.Second)
	h.advance(2 * time.Hour)
	if n := len(h.c.Jobs(-1)); n != 0 {
		t.Fatalf("%d jobs left after retention, want 0", n)
	}
	if evs, _ := h.store.Events(""); len(evs) != 0 {
		t.Errorf("%d events left after retention", len(evs))
	}
	h.restart()
	if id := h.submit("a", "low", 1); id != "3" {
		t.Errorf("the next job is %s, want 3", id)
	}
}

// A job larger than a node would take whole nodes and be charged for all
// their devices: a size that does not fill them is refused, naming the
// sizes that fit; one that fills them gets exactly what it asked for.
func TestRequestThatFitsOnlyByTakingWholeNodesIsRefused(t *testing.T) {
	h := &harness{t: t, path: t.TempDir() + "/state.db", be: newFake(), clock: &fakeClock{time.Unix(1_700_000_000, 0)},
		cfg: func(c *Config) {
			c.Model.Flavors[0].Nodes = 2
			c.Flavors[0].Devices = []string{"0", "1", "2", "3", "4", "5", "6", "7"}
			c.Model.Queues[0].Groups[0].Flavors[0].Quotas[0] = policies.Quota{Nominal: 8 * policies.Milli}
		}}
	h.open()
	_, err := h.c.Submit(&Request{Team: "a", PriorityClass: "low", Accelerators: 5, Command: []string{"x"}}, 1)
	if !IsRequestError(err) || !strings.Contains(err.Error(), "5 accelerators span nodes") || !strings.Contains(err.Error(), "a multiple of 4 up to 8") {
		t.Errorf("5 of 2×4: %v, want a refusal naming the sizes", err)
	}
	id := h.submit("a", "low", 8)
	if j := h.state(id); len(j.Devices) != 8 {
		t.Errorf("8 of 2×4 got devices %v", j.Devices)
	}
}

// Requests are checked like files: no priority class where classes exist,
// control characters in a name, and environment variables the daemon sets
// are refused.
func TestRequestsAreRefusedWithTheirReason(t *testing.T) {
	h := newHarness(t)
	for _, c := range []struct {
		req  Request
		want string
	}{
		{Request{Team: "a", Accelerators: 1, Command: []string{"x"}}, "no priority class given (classes: high, low)"},
		{Request{Team: "a", PriorityClass: "low", Name: "x\x1b[2J", Command: []string{"x"}}, `has a control character (\x1b)`},
		{Request{Team: "a", PriorityClass: "low", Env: []string{"CUDA_VISIBLE_DEVICES=0,1,2,3"}, Command: []string{"x"}}, "CUDA_VISIBLE_DEVICES is set by the daemon"},
		{Request{Team: "a", PriorityClass: "low", Env: []string{"ALLOT_JOB_ID=9"}, Command: []string{"x"}}, "ALLOT_JOB_ID is set by the daemon"},
		{Request{Team: "a", PriorityClass: "low", Env: []string{"NOVALUE"}, Command: []string{"x"}}, `environment entry "NOVALUE": want NAME=VALUE`},
	} {
		if _, err := h.c.Submit(&c.req, 1); !IsRequestError(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.req, err, c.want)
		}
	}
}

// checkHistory asserts the history's invariants (CheckHistory).
func (h *harness) checkHistory() {
	h.t.Helper()
	hist, err := h.c.History()
	if err != nil {
		h.t.Fatal(err)
	}
	if err := CheckHistory(hist); err != nil {
		h.t.Errorf("history breaks an invariant: %v", err)
	}
}

// The checker finds what a broken history does: a job run twice at once,
// a device held by two jobs, a job settled twice.
func TestHistoryCheckerFindsRunsTwiceAtOnceSharedDevicesAndDoubleSettles(t *testing.T) {
	h := &History{Types: []workload.TypeInfo{{Name: "dev", Accelerators: 4, Nodes: 1}}, Jobs: []Job{{ID: "1", State: StateSucceeded}, {ID: "2", State: StateRunning}}}
	h.Events = []Event{
		{Time: 0, Job: "1", Kind: "submitted"}, {Time: 0, Job: "2", Kind: "submitted"},
		{Time: 1, Job: "1", Kind: "admitted", Detail: "run 1 on dev devices [0,1]"},
		{Time: 2, Job: "1", Kind: "admitted", Detail: "run 2 on dev devices [2]"},
		{Time: 3, Job: "2", Kind: "admitted", Detail: "run 1 on dev devices [1]"},
		{Time: 4, Job: "1", Kind: "exited"},
		{Time: 4, Job: "1", Kind: StateSucceeded},
		{Time: 5, Job: "1", Kind: StateFailed},
	}
	err := CheckHistory(h)
	for _, want := range []string{
		"job 1 at 2.000s (admitted): admitted while a run of it still runs",
		"job 2 at 3.000s (admitted): device dev/1 is held by job 1 too",
		"job 1 at 5.000s (failed): after the job was settled",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("checker said %v, want %q", err, want)
		}
	}
}
