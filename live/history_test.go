package live

import (
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/allot-sim/allot/workload"
)

// traceSink writes each record as one line.
type traceSink struct {
	lines []string
	info  workload.RunInfo
}

func (s *traceSink) Begin(i *workload.RunInfo) error { s.info = *i; return nil }
func (s *traceSink) Event(e *workload.Event) {
	kind := []string{"submit", "start", "preempt", "stop"}[e.Kind]
	l := fmt.Sprintf("%g %s job %d team %d class %d type %d held %g", e.Time, kind, e.Job, e.Team, e.Class, e.Type, e.Held)
	if e.Kind == workload.EvStop {
		l += fmt.Sprintf(" %s run [%g,%g] kept %g requeued %v", e.Reason, e.RunStart, e.ProgressEnd, e.KeptEnd, e.Requeued)
	}
	s.lines = append(s.lines, l)
}
func (s *traceSink) Job(r *workload.JobRecord) {
	s.lines = append(s.lines, fmt.Sprintf("job %d %s submit %g first %g end %g wait %g types %v preemptions %d kept %g lost %g",
		r.Seq, r.State, r.Submit, r.FirstStart, r.End, r.Wait, r.InstanceTypes, r.Preemptions, r.KeptAccS, r.LostAccS))
}
func (s *traceSink) End(e *workload.RunEnd) error {
	s.lines = append(s.lines, fmt.Sprintf("end %g", e.EndTime))
	return nil
}

// The history replays as a simulation's records: a preemption is a
// preempt, then a stop that requeues the job when its run exits; the job
// that took the devices starts then; a job still running is stopped at the
// end of the history (now), as a simulation stops it at its horizon.
func TestHistoryRecordsAPreemptionAsASimulationWould(t *testing.T) {
	h := newHarness(t)
	low := h.submit("a", "low", 4)
	high := h.submit("b", "high", 2)
	h.be.exits[low] = &Exit{Code: 143}
	h.advance(time.Second)
	h.be.exits[high] = &Exit{Code: 0}
	h.advance(time.Second)
	h.clock.t = h.clock.t.Add(3 * time.Second)
	hist, err := h.c.History()
	if err != nil {
		t.Fatal(err)
	}
	var s traceSink
	if err := hist.Records(&s, 0); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"0 submit job 1 team 0 class 1 type -1 held 0",
		"0 start job 1 team 0 class 1 type 0 held 4",
		"0 submit job 2 team 1 class 2 type -1 held 0",
		"0 preempt job 1 team 0 class 1 type 0 held 4",
		"1 stop job 1 team 0 class 1 type 0 held 4 preempted run [0,1] kept 1 requeued true",
		"1 start job 2 team 1 class 2 type 0 held 2",
		"2 stop job 2 team 1 class 2 type 0 held 2 completed run [1,2] kept 2 requeued false",
		"job 2 completed submit 0 first 1 end 2 wait 1 types [dev] preemptions 0 kept 2 lost 0",
		"2 start job 1 team 0 class 1 type 0 held 4",
		"5 stop job 1 team 0 class 1 type 0 held 4 horizon run [2,5] kept 5 requeued false",
		"job 1 running submit 0 first 0 end NaN wait 1 types [dev] preemptions 1 kept 16 lost 0",
		"end 5",
	}
	if !slices.Equal(s.lines, want) {
		t.Errorf("records:\n%s\nwant:\n%s", strings.Join(s.lines, "\n"), strings.Join(want, "\n"))
	}
	i := s.info
	if !i.Live || i.Horizon != 5 || i.Bucket != 1 || len(i.Types) != 1 || i.Types[0] != (workload.TypeInfo{Name: "dev", Accelerators: 4, Nodes: 1}) ||
		len(i.Teams) != 2 || !slices.Equal(i.Teams[1].Quota, []float64{2}) || !slices.Equal(i.PriorityClasses, []string{"", "low", "high"}) {
		t.Errorf("run info %+v", i)
	}
}

// A run killed by a signal (SIGKILL after its grace period) keeps only
// what its periodic checkpoints saved; the rest is lost work.
func TestHistoryKilledRunKeepsOnlyItsPeriodicCheckpoints(t *testing.T) {
	h := newHarness(t)
	j, err := h.c.Submit(&Request{Team: "a", PriorityClass: "low", Accelerators: 2, CheckpointInterval: 2, Command: []string{"x"}}, 1000)
	if err != nil {
		t.Fatal(err)
	}
	h.clock.t = h.clock.t.Add(5 * time.Second)
	h.be.exits[j.ID] = &Exit{Code: 137, Signal: "SIGKILL"}
	h.advance(0)
	hist, err := h.c.History()
	if err != nil {
		t.Fatal(err)
	}
	var s traceSink
	if err := hist.Records(&s, 0); err != nil {
		t.Fatal(err)
	}
	if want := "job 1 failed submit 0 first 0 end 5 wait 0 types [dev] preemptions 0 kept 8 lost 2"; !slices.Contains(s.lines, want) {
		t.Errorf("records:\n%s\nwant the line %q", strings.Join(s.lines, "\n"), want)
	}
}

// The history is the machine's use and every job's metadata, with no
// command line: under the read rule every user the daemon admits reads
// it (a team's member, not only the machine's admins); others do not.
func TestHistoryIsForEveryUserTheDaemonAdmits(t *testing.T) {
	uid := os.Getuid()
	member := serveOn(t, &Access{Self: uid + 1, Rules: []Rule{{UID: uid, GID: -1, Teams: []string{"a"}}}})
	var h History
	if err := member.Do("GET", "/v1/history", nil, &h); err != nil || len(h.Teams) != 2 || math.IsNaN(h.Now) {
		t.Errorf("a team's member: %v, %+v", err, h)
	}
	stranger := serveOn(t, &Access{Self: uid + 1})
	err := stranger.Do("GET", "/v1/history", nil, nil)
	if err == nil || !strings.Contains(err.Error(), "may not use this daemon") {
		t.Errorf("a user no rule names read the history: %v", err)
	}
}
