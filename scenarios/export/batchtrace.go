package export

import (
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/allot-sim/allot/workload"
)

// batchTraceColumns are the extra trace columns of a Batch import.
var batchTraceColumns = []string{"attempts"}

// batchRecord is the jobs of every --jobs file, merged by job ID, and
// what became of them.
type batchRecord struct {
	jobs   []batchJob
	byID   map[string]int
	kinds  map[string]bool // job ID and whether a detail: the records met
	newest int64           // the newest time any file gives (epoch ms)
	w      *importWarnings
	counts map[string]int // by reason, for the warnings
	// classes are the priority classes the kept jobs name, by value.
	classes map[string]int
}

// readBatchRecord reads the --jobs files: describe-jobs outputs and
// list-jobs pages. A job in several is kept once: describe-jobs' detail
// over a list-jobs summary, else the first.
func readBatchRecord(paths []string, w *importWarnings) (*batchRecord, error) {
	r := &batchRecord{byID: map[string]int{}, kinds: map[string]bool{}, w: w, counts: map[string]int{}, classes: map[string]int{}}
	for _, p := range paths {
		jobs, unknown, err := readBatchJobs(p)
		if err != nil {
			return nil, err
		}
		for _, u := range unknown {
			w.add(filepath.Base(p), u, "not a member the AWS SDK for Go v2 (batch) knows; read past")
		}
		for _, j := range jobs {
			r.note(j.created, j.started, j.stopped)
			for _, a := range j.attempts {
				r.note(a.start, a.stop)
			}
			i, seen := r.byID[j.id]
			kind := j.id + fmt.Sprint(j.detail)
			switch {
			case !seen:
				r.byID[j.id] = len(r.jobs)
				r.jobs = append(r.jobs, j)
			case r.kinds[kind]:
				r.counts["duplicate"]++ // the same kind of record twice
			default:
				if j.detail {
					r.jobs[i] = j
				}
				r.counts["merged"]++
			}
			r.kinds[kind] = true
		}
	}
	return r, nil
}

func (r *batchRecord) note(ts ...int64) {
	for _, t := range ts {
		r.newest = max(r.newest, t)
	}
}

// trace turns the record into trace jobs (submit order, times from the
// earliest creation), the extra columns' values, and the end of the
// record. A job with no queue or share is charged to team fallback.
func (r *batchRecord) trace(fallback string) ([]workload.Job, []string, float64) {
	r.arrays()
	var kept []batchJob
	for _, j := range r.jobs {
		switch {
		case j.arraySize > 0:
			continue // its children are the jobs
		case j.nodeChild:
			r.counts["node child"]++
		case !j.detail:
			r.counts["summary only"]++
		case j.res.gpus <= 0:
			r.counts["no GPU"]++
		case len(j.attempts) == 0 && j.started == 0:
			r.counts["never started: "+string(j.status)]++
		default:
			kept = append(kept, j)
		}
	}
	if len(kept) == 0 {
		r.warn()
		return nil, nil, 0
	}
	t0 := int64(math.MaxInt64)
	for i := range kept {
		if kept[i].created == 0 {
			r.counts["no createdAt"]++
			kept[i].created = kept[i].firstStart()
		}
		t0 = min(t0, kept[i].created)
	}
	sec := func(ms int64) float64 { return float64(ms-t0) / 1000 }
	var out []workload.Job
	for _, j := range kept {
		run, stop, status := j.running(r.newest)
		job := workload.Job{ID: j.id, Submit: sec(j.created), Team: r.team(j, fallback), Accelerators: j.res.gpus, VCPUs: j.res.vcpus,
			MemoryGiB: j.res.memMiB / 1024, Duration: float64(run) / 1000, OrigStart: sec(j.firstStart()), OrigEnd: sec(stop), OrigStatus: status,
			Extra: []string{strconv.Itoa(max(1, len(j.attempts)))}}
		if j.instanceType != "" {
			job.InstanceTypes = []string{j.instanceType} // kept where the fleet has it
		}
		if j.priority != nil {
			job.PriorityClass = batchClassName(int(*j.priority))
			r.classes[job.PriorityClass] = int(*j.priority)
		}
		if len(j.attempts) > 1 {
			r.counts["attempts"]++
		}
		if status == "running" {
			r.counts["running"]++
		}
		if j.dependsOn {
			r.counts["dependsOn"]++
		}
		out = append(out, job)
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Submit < out[b].Submit })
	r.warn()
	return out, batchTraceColumns, sec(r.newest)
}

// arrays hands an array job's share and priority to children that lack
// them, and warns of parents none of whose children are in the files.
func (r *batchRecord) arrays() {
	children := map[string]int{}
	for _, j := range r.jobs {
		if parent, _, ok := strings.Cut(j.id, ":"); ok && j.arrayChild {
			children[parent]++
		}
	}
	for i, j := range r.jobs {
		if j.arraySize > 0 && children[j.id] == 0 {
			r.w.add("jobs["+j.id+"]", "arrayProperties", "an array job of %d children, none of them in the files: left out (describe-jobs of %s:0 to %s:%d gives them)", j.arraySize, j.id, j.id, j.arraySize-1)
		}
		parent, _, _ := strings.Cut(j.id, ":")
		if p, ok := r.byID[parent]; ok && j.arrayChild {
			if j.share == "" {
				r.jobs[i].share = r.jobs[p].share
			}
			if j.priority == nil {
				r.jobs[i].priority = r.jobs[p].priority
			}
		}
	}
}

// firstStart is when the job first ran.
func (j *batchJob) firstStart() int64 {
	if len(j.attempts) > 0 {
		return j.attempts[0].start
	}
	return j.started
}

// running is the job's running time over its attempts (ms), when it
// stopped, and its status for the trace: one still running is censored
// at newest.
func (j *batchJob) running(newest int64) (run, stop int64, status string) {
	spans := j.attempts
	if len(spans) == 0 {
		spans = []batchAttempt{{j.started, j.stopped}}
	}
	for _, a := range spans {
		end := a.stop
		if end == 0 {
			end = newest
		}
		run += end - a.start
		stop = end
	}
	switch j.status {
	case "SUCCEEDED":
		return run, stop, "completed"
	case "FAILED":
		return run, stop, "failed"
	}
	return run, newest, "running"
}

func (r *batchRecord) team(j batchJob, fallback string) string {
	if j.share != "" {
		return j.share
	}
	r.counts["no share"]++
	if _, name, ok := strings.Cut(j.queue, ":job-queue/"); ok {
		return name
	}
	if j.queue != "" {
		return j.queue
	}
	return fallback
}

// batchClassName names the priority class of a schedulingPriority.
func batchClassName(v int) string { return "priority-" + strconv.Itoa(v) }

// warn says what the record's counts mean.
func (r *batchRecord) warn() {
	c, w := r.counts, r.w
	say := func(key, field, format string) {
		if n := c[key]; n > 0 {
			w.add("jobs", field, format, n)
		}
	}
	say("duplicate", "jobId", "%d jobs are in more than one file or page: kept once")
	say("merged", "jobId", "%d jobs are both in list-jobs pages and describe-jobs output: describe-jobs' details kept")
	say("summary only", "jobSummaryList", "%d jobs are only in list-jobs pages, which give no resource requirements: left out (describe-jobs gives them)")
	say("no GPU", "resourceRequirements", "%d jobs request no GPU: left out (allot schedules accelerators)")
	var never []string
	total := 0
	for k, n := range c {
		if status, ok := strings.CutPrefix(k, "never started: "); ok {
			never = append(never, fmt.Sprintf("%s %d", status, n))
			total += n
		}
	}
	if total > 0 {
		sort.Strings(never)
		w.add("jobs", "startedAt", "%d jobs never started (%s): left out", total, strings.Join(never, ", "))
	}
	say("no createdAt", "createdAt", "%d jobs without createdAt: submitted at their first start")
	say("node child", "nodeDetails", "%d nodes of multi-node jobs (JOB#N) are in the files: counted in their parent job, not as jobs")
	if n := c["running"]; n > 0 {
		w.add("jobs", "stoppedAt", "%d jobs had not ended by the newest time in the files: their duration is censored there (orig_status running; they ran at least that long)", n)
	}
	say("attempts", "attempts", "%d jobs ran more than one attempt: each is one job whose duration is the sum of its attempts' running times (the attempts column counts them)")
	say("dependsOn", "dependsOn", "%d jobs depend on others: replayed at their recorded creation, without the dependency")
	say("no share", "shareIdentifier", "%d jobs have no share identifier: charged to a team named after their job queue")
}
