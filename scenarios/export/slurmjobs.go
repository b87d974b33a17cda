package export

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/allot-sim/allot/workload"
)

// slurmColumns are the trace columns an import of sacct adds.
var slurmColumns = []string{"partition", "requeues", "job_name", "timelimit_s", "slurm_priority"}

// slurmJob is a recorded job before the fleet gives its instance types.
type slurmJob struct {
	workload.Job
	gpuTypes   []string // the Slurm GPU types it ran on, most first
	partitions []string
	nodes      float64 // node= of its TRES (0: not given)
}

// jobTally counts what the records held, for the warnings.
type jobTally struct {
	neverStarted  map[string]int // by the last record's state
	censored      int
	requeued      int // jobs with a run cut short
	cutRuns       int
	lostSeconds   float64
	pendingAgain  int
	preempted     int
	manyTypes     int
	manyTypesID   string
	hetIDs        []string
	noAccount     int
	otherTRES     []string
	dump          time.Time
	firstPreempt  string
	firstRequeued string
}

// buildSlurmJobs turns records into jobs: the runs of one JobID are one
// job, submitted at its first Submit, running its last run's length.
func buildSlurmJobs(recs []sacctRecord, w *importWarnings) ([]slurmJob, float64, error) {
	groups := map[string][]*sacctRecord{}
	var order []string
	tl := jobTally{neverStarted: map[string]int{}}
	for i := range recs {
		r := &recs[i]
		if _, seen := groups[r.id]; !seen {
			order = append(order, r.id)
		}
		groups[r.id] = append(groups[r.id], r)
		tl.later(r.submit)
		if r.ran() {
			tl.later(r.start)
			if r.ended {
				tl.later(r.end)
			} else if !math.IsNaN(r.elapsed) {
				// sacct's "now": a running job's Elapsed runs to it.
				tl.later(r.start.Add(time.Duration(r.elapsed * float64(time.Second))))
			}
		}
	}
	var jobs []slurmJob
	var t0 time.Time
	for _, id := range order {
		g := groups[id]
		sort.SliceStable(g, func(a, b int) bool { return g[a].submit.Before(g[b].submit) })
		j, ok, err := tl.job(g)
		if err != nil {
			return nil, 0, err
		}
		if !ok {
			continue
		}
		if len(jobs) == 0 || g[0].submit.Before(t0) {
			t0 = g[0].submit
		}
		jobs = append(jobs, j)
	}
	end := 0.0
	for i := range jobs {
		j := &jobs[i]
		j.Submit -= float64(t0.Unix())
		j.OrigStart -= float64(t0.Unix())
		j.OrigEnd -= float64(t0.Unix())
		end = math.Max(end, j.OrigEnd)
	}
	sort.SliceStable(jobs, func(a, b int) bool { return jobs[a].Submit < jobs[b].Submit })
	tl.warn(w)
	return jobs, end, nil
}

// later moves the newest time the records hold to t if it is later.
func (tl *jobTally) later(t time.Time) {
	if t.After(tl.dump) {
		tl.dump = t
	}
}

// job is the job of one JobID's records; ok false when it never ran.
func (tl *jobTally) job(g []*sacctRecord) (slurmJob, bool, error) {
	var runs []*sacctRecord
	for _, r := range g {
		if r.ran() {
			runs = append(runs, r)
		}
	}
	final := g[len(g)-1]
	if len(runs) == 0 {
		tl.neverStarted[final.state]++
		return slurmJob{}, false, nil
	}
	last := runs[len(runs)-1]
	pendingAgain := final != last || final.state == "REQUEUED"
	j := slurmJob{Job: workload.Job{ID: final.id, Team: last.account, User: last.user, PriorityClass: last.qos,
		Submit: float64(g[0].submit.Unix()), OrigStart: float64(runs[0].start.Unix())}}
	d, ok := last.ranFor()
	j.OrigStatus = sacctStates[last.state]
	switch {
	case pendingAgain:
		j.OrigStatus = "requeued"
		tl.pendingAgain++
	case !last.ended && (last.state == "RUNNING" || last.state == "SUSPENDED" || last.state == "RESIZING"):
		if !ok {
			d = tl.dump.Sub(last.start).Seconds()
		}
		j.OrigStatus = "running"
		tl.censored++
	case last.state == "PREEMPTED":
		tl.preempted++
		if tl.firstPreempt == "" {
			tl.firstPreempt = final.id
		}
	}
	if !ok && j.OrigStatus != "running" {
		return j, false, last.row.errf("Elapsed", "job %s ran (State %s) but has neither Elapsed nor an End", final.id, last.state)
	}
	j.Duration = d
	j.OrigEnd = float64(last.start.Unix()) + d
	requeues := len(runs) - 1 // runs cut short, by a requeue or a preemption
	if pendingAgain {
		requeues++
	}
	if requeues > 0 {
		tl.requeued++
		tl.cutRuns += requeues
		if tl.firstRequeued == "" {
			tl.firstRequeued = final.id
		}
		for _, r := range runs[:len(runs)-1] {
			e, _ := r.ranFor()
			tl.lostSeconds += e
		}
	}
	res, col := last.resources()
	if !res.set {
		return j, false, last.row.errf("AllocTRES", "job %s ran but its AllocTRES and ReqTRES are empty", final.id)
	}
	if res.gpus == 0 && res.cpus == 0 {
		return j, false, last.row.errf(col, "job %s asks for neither GPUs nor CPUs (%s)", final.id, last.row.get(col))
	}
	j.Accelerators, j.VCPUs, j.MemoryGiB, j.nodes = res.gpus, res.cpus, res.memGiB, res.nodes
	for _, t := range res.gpuTypes {
		j.gpuTypes = append(j.gpuTypes, t.name)
	}
	if len(j.gpuTypes) > 1 {
		if tl.manyTypes++; tl.manyTypesID == "" {
			tl.manyTypesID = fmt.Sprintf("%s: %s", final.id, last.row.get(col))
		}
	}
	tl.otherTRES = appendNew(tl.otherTRES, res.other...)
	if last.partition != "" {
		j.partitions = strings.Split(last.partition, ",")
	}
	if j.Team == "" {
		j.Team = "no-account"
		tl.noAccount++
	}
	if last.hetComponent {
		tl.hetIDs = append(tl.hetIDs, final.id)
	}
	j.Extra = []string{last.partition, strconv.Itoa(requeues), last.name, last.timelimit, last.priority}
	return j, true, nil
}

func appendNew(list []string, items ...string) []string {
	for _, it := range items {
		found := false
		for _, l := range list {
			found = found || l == it
		}
		if !found {
			list = append(list, it)
		}
	}
	return list
}

// warn says what the records held that the trace does not, counted.
func (tl *jobTally) warn(w *importWarnings) {
	if n := sumCounts(tl.neverStarted); n > 0 {
		w.add("sacct", "Start", "%s never started (Start Unknown; last state %s): left out, a job that never ran has no duration", count(n, "job"), countList(tl.neverStarted))
	}
	if tl.censored > 0 {
		w.add("sacct", "State", "%s still RUNNING (or SUSPENDED) when sacct ran, at %s: orig_status running, the duration censored at the Elapsed so far (a lower bound)", count(tl.censored, "job"), tl.dump.Format(slurmTimeLayout))
	}
	if tl.requeued > 0 {
		w.add("sacct", "State", "%s requeued (%s first; %s cut short by a requeue or preemption, %s of running in them): each is one job from its first Submit, lasting its last run's Elapsed; column requeues counts its cut runs, and the replay preempts by its own policy", count(tl.requeued, "job"), tl.firstRequeued, count(tl.cutRuns, "run"), fmtDur(tl.lostSeconds))
	}
	if tl.pendingAgain > 0 {
		w.add("sacct", "State", "%s waiting again after a requeue when sacct ran: orig_status requeued, the duration the last run's Elapsed (a lower bound)", count(tl.pendingAgain, "job"))
	}
	if tl.preempted > 0 {
		w.add("sacct", "State", "%s ended PREEMPTED (%s first; preempted and not requeued): the duration is how long it ran until then, a lower bound of what it needed", count(tl.preempted, "job"), tl.firstPreempt)
	}
	if tl.manyTypes > 0 {
		w.add("sacct", "AllocTRES", "%s ran on several GPU types at once (%s): allot runs a job on one type; it may use any of them, the most used first", count(tl.manyTypes, "job"), tl.manyTypesID)
	}
	if len(tl.hetIDs) > 0 {
		w.add("sacct", "JobID", "%s of heterogeneous jobs (%s first): each is a job of its own; the replay does not start a job's components together", count(len(tl.hetIDs), "component"), tl.hetIDs[0])
	}
	if tl.noAccount > 0 {
		w.add("sacct", "Account", "%s without an account: charged to a team no-account", count(tl.noAccount, "job"))
	}
	if len(tl.otherTRES) > 0 {
		w.add("sacct", "AllocTRES", "%s not mapped: a trace job has accelerators (gres/gpu), vcpus (cpu) and memory_gib (mem) only", strings.Join(tl.otherTRES, ", "))
	}
}

// count is "1 job", "2 jobs".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func sumCounts(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// countList is "CANCELLED 2, PENDING 3", by name.
func countList(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}
