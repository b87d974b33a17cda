package export

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/allot-sim/allot/workload"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
)

// KueueHistoryColumns are the trace columns an import adds to each job:
// how often Kueue evicted it, and how often it requeued it.
var KueueHistoryColumns = []string{"evictions", "requeues"}

// skipped counts the Workloads left out of the trace, by why.
type skipped struct {
	order  []string
	counts map[string]int
}

func (s *skipped) add(why string) {
	if s.counts == nil {
		s.counts = map[string]int{}
	}
	if s.counts[why] == 0 {
		s.order = append(s.order, why)
	}
	s.counts[why]++
}

// history makes the trace of the Workloads: submitted at creation (in
// seconds from the earliest), charged to the team of the ClusterQueue its
// LocalQueue points to, its requests summed over its pod sets, running
// from its last admission (Admitted, else QuotaReserved) to Finished. One
// still running is censored at the newest time any Workload records; one
// never admitted is left out. Each leaving out is counted in a warning.
func (im *kueueImport) history(imp *Imported, opt KueueImportOptions) error {
	wls := im.o.Workloads
	if opt.Since > 0 {
		newest := time.Time{}
		for _, wl := range wls {
			if t := wl.CreationTimestamp.Time; t.After(newest) {
				newest = t
			}
		}
		cut := newest.Add(-time.Duration(opt.Since * float64(time.Second)))
		wls = slices.DeleteFunc(slices.Clone(wls), func(wl *kueue.Workload) bool { return wl.CreationTimestamp.Time.Before(cut) })
	}
	now := time.Time{}
	for _, wl := range wls {
		now = latest(now, wl.CreationTimestamp.Time)
		for _, c := range wl.Status.Conditions {
			now = latest(now, c.LastTransitionTime.Time)
		}
	}
	lqs := map[string]string{} // namespace/name -> ClusterQueue
	for _, lq := range im.o.LocalQueues {
		lqs[lq.Namespace+"/"+lq.Name] = string(lq.Spec.ClusterQueue)
	}
	var skip skipped
	running := 0
	var recs []jobRecord
	for _, wl := range wls {
		r, ok, err := im.job(wl, lqs, now, &skip)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		if r.job.OrigStatus == "running" {
			running++
		}
		recs = append(recs, r)
	}
	if len(recs) == 0 {
		im.w.add("Workloads", "", "none admitted: no trace written")
		im.skipWarnings(&skip)
		return nil
	}
	lag := handoff(recs)
	if lag > 0 {
		im.w.add("Workloads", "", "Kueue reserved freed quota for a waiting Workload %s after the Finished that freed it (the mean): each finished job's duration includes it, as the replay hands capacity over at once",
			lag)
	}
	origin := slices.MinFunc(recs, func(a, b jobRecord) int { return a.created.Compare(b.created) }).created
	secs := func(t time.Time) float64 { return t.Sub(origin).Seconds() }
	jobs := make([]workload.Job, len(recs))
	for i, r := range recs {
		j := r.job
		j.Submit, j.OrigStart, j.OrigEnd = secs(r.created), secs(r.start), secs(r.end)
		if j.OrigStatus != "running" {
			j.Duration += lag.Seconds()
		}
		jobs[i] = j
	}
	// Kubernetes keeps creation to the second, and Kueue's queue keeps
	// Workloads of one second in the order it saw them: that order is
	// lost, so ties go in the order Kueue admitted them.
	slices.SortStableFunc(jobs, func(a, b workload.Job) int {
		return cmp.Or(cmp.Compare(a.Submit, b.Submit), cmp.Compare(a.OrigStart, b.OrigStart))
	})
	if running > 0 {
		im.w.add("Workloads", "", "%d still running at the newest time read (%s): each one's duration is censored there (orig_status running); the replay treats it as running at least that long",
			running, now.UTC().Format(time.RFC3339))
	}
	im.skipWarnings(&skip)
	imp.Jobs, imp.Columns, imp.End = jobs, KueueHistoryColumns, secs(now)
	return nil
}

func latest(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

func (im *kueueImport) skipWarnings(s *skipped) {
	for _, why := range s.order {
		im.w.add("Workloads", "", "%d %s: left out of the trace", s.counts[why], why)
	}
}

// jobRecord is a Workload as a job, with its times: history makes them
// seconds from the earliest creation.
type jobRecord struct {
	job                 workload.Job
	created, start, end time.Time
}

// job is one Workload as a trace job; ok is false for one left out.
func (im *kueueImport) job(wl *kueue.Workload, lqs map[string]string, now time.Time, skip *skipped) (jobRecord, bool, error) {
	obj := "Workload " + wl.Namespace + "/" + wl.Name
	r := jobRecord{created: wl.CreationTimestamp.Time}
	j := &r.job
	*j = workload.Job{ID: wl.Namespace + "/" + wl.Name, User: wl.Namespace + "/" + string(wl.Spec.QueueName)}
	cq, ok := lqs[wl.Namespace+"/"+string(wl.Spec.QueueName)]
	if !ok && wl.Status.Admission != nil {
		cq = string(wl.Status.Admission.ClusterQueue)
	}
	if cq == "" || !slices.ContainsFunc(im.o.ClusterQueues, func(c *kueue.ClusterQueue) bool { return c.Name == cq }) {
		skip.add("with no LocalQueue or ClusterQueue read")
		return r, false, nil
	}
	j.Team = cq
	// A Workload holds its quota from the reservation (Admitted follows
	// it, after any admission checks).
	admitted := condTime(wl, kueue.WorkloadQuotaReserved)
	if admitted == nil {
		admitted = condTime(wl, kueue.WorkloadAdmitted)
	}
	finished := apimeta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadFinished)
	if finished != nil && finished.Status != metav1.ConditionTrue {
		finished = nil
	}
	switch {
	case admitted == nil && finished != nil:
		skip.add("finished without an admission on record")
		return r, false, nil
	case admitted == nil:
		skip.add("pending (never admitted), so with no duration")
		return r, false, nil
	}
	end, status := now, "running"
	if finished != nil {
		end = finished.LastTransitionTime.Time
		status = map[string]string{kueue.WorkloadFinishedReasonSucceeded: "completed", kueue.WorkloadFinishedReasonFailed: "failed"}[finished.Reason]
		if status == "" {
			status = "finished"
		}
	}
	if end.Before(*admitted) {
		return r, false, fmt.Errorf("%s%s: status.conditions: Finished at %s, before its admission at %s", im.origin(obj), obj,
			end.UTC().Format(time.RFC3339), admitted.UTC().Format(time.RFC3339))
	}
	r.start, r.end, j.OrigStatus = *admitted, end, status
	j.Duration = end.Sub(*admitted).Seconds()
	im.requests(wl, j)
	if j.Accelerators == 0 && j.VCPUs == 0 {
		skip.add("requesting neither accelerators nor cpu")
		return r, false, nil
	}
	j.PriorityClass = im.jobClass(wl)
	j.InstanceTypes = im.jobTypes(wl, cq, j.Resource, j.Accelerators > 0)
	evictions, requeues := 0, 0
	if st := wl.Status.SchedulingStats; st != nil {
		for _, e := range st.Evictions {
			evictions += int(e.Count)
		}
	}
	if evictions == 0 && apimeta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadEvicted) != nil {
		evictions = 1
	}
	if rs := wl.Status.RequeueState; rs != nil && rs.Count != nil {
		requeues = int(*rs.Count)
	}
	if requeues == 0 && apimeta.IsStatusConditionTrue(wl.Status.Conditions, kueue.WorkloadRequeued) {
		requeues = 1
	}
	j.Extra = []string{strconv.Itoa(evictions), strconv.Itoa(requeues)}
	return r, true, nil
}

// condTime is when a condition last turned true; nil if it is not true.
func condTime(wl *kueue.Workload, typ string) *time.Time {
	c := apimeta.FindStatusCondition(wl.Status.Conditions, typ)
	if c == nil || c.Status != metav1.ConditionTrue {
		return nil
	}
	return &c.LastTransitionTime.Time
}
