package kube

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/allot-sim/allot/live"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// AnnCancelledAt is when allot cancel stopped the job.
const AnnCancelledAt = "scheduling.allot.dev/cancelled-at"

// History is the managed jobs as a live.History, for the dashboard: times
// are seconds from the earliest submission still in the cluster. Runs come
// from allot's Events, which the API server keeps for its event TTL (an
// hour by default): an older run of a job still listed is not shown.
func (c *Controller) History() (*live.History, error) {
	cfg := c.config()
	if cfg == nil {
		return nil, fmt.Errorf("no policy yet")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	jobs, err := c.Client.BatchV1().Jobs("").List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	evs, err := c.Client.CoreV1().Events("").List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.kind=Job,source=allot"})
	if err != nil {
		return nil, err
	}
	sortJobs(jobs.Items)
	now := c.Clock.Now()
	epoch := now
	var managed []*batchv1.Job
	for i := range jobs.Items {
		j := &jobs.Items[i]
		if teamOf(cfg, j) < 0 {
			continue
		}
		managed = append(managed, j)
		epoch = minTime(epoch, submitted(j))
	}
	h := cfg.Config.History(now.Sub(epoch).Seconds())
	byUID := map[string][]corev1.Event{}
	for _, e := range evs.Items {
		byUID[string(e.InvolvedObject.UID)] = append(byUID[string(e.InvolvedObject.UID)], e)
	}
	at := func(t time.Time) float64 { return t.Sub(epoch).Seconds() }
	for i, j := range managed {
		v := View(j, cfg.Teams[teamOf(cfg, j)], 0)
		id := ID(j)
		h.Jobs = append(h.Jobs, live.Job{ID: id, Seq: int64(i + 1), Name: j.Name, Team: v.Team, PriorityClass: v.PriorityClass,
			Accelerators: v.Accelerators, State: v.State, Preemptions: v.Preemptions, Flavor: -1})
		add := func(t time.Time, kind, detail string) {
			h.Events = append(h.Events, live.Event{Time: at(t), Job: id, Kind: kind, Detail: detail})
		}
		add(submitted(j), "submitted", "")
		mine := byUID[string(j.UID)]
		SortEvents(mine)
		run := 0
		running := false
		last := submitted(j)
		for _, e := range mine {
			// An Event's time is cut to the second: never before the
			// submission (exact) or the Event before it.
			t := EventTime(&e)
			if t.Before(last) {
				t = last
			}
			last = t
			switch {
			case e.Reason == "Admitted":
				flavor := strings.TrimSuffix(strings.Fields(e.Message + " ? ?")[2], ",")
				run++
				running = true
				add(t, "admitted", fmt.Sprintf("run %d on %s devices []", run, flavor))
			case running && strings.HasPrefix(e.Message, "preempted ("):
				add(t, "preempted", e.Reason+": "+e.Message)
				add(t, "exited", fmt.Sprintf("run %d exited with code 0", run))
				add(t, "requeued", "back in its queue at its old place")
				running = false
			case running && strings.HasPrefix(e.Message, "requeued"):
				add(t, "exited", fmt.Sprintf("run %d killed by SIGKILL", run))
				add(t, "requeued", e.Message)
				running = false
			}
		}
		switch st := v.State; st {
		case live.StateSucceeded, live.StateFailed:
			end := now
			for _, cd := range j.Status.Conditions {
				if (cd.Type == batchv1.JobComplete || cd.Type == batchv1.JobFailed) && cd.Status == corev1.ConditionTrue {
					end = cd.LastTransitionTime.Time
				}
			}
			if running {
				add(end, "exited", fmt.Sprintf("run %d exited with code 0", run))
			}
			add(end, st, "")
		case live.StateCancelled:
			end, ok := annTime(j, AnnCancelledAt)
			if !ok {
				end = now
			}
			if running {
				add(end, "exited", fmt.Sprintf("run %d killed by SIGTERM", run))
			}
			add(end, st, "")
		}
	}
	slices.SortStableFunc(h.Events, func(a, b live.Event) int {
		switch {
		case a.Time < b.Time:
			return -1
		case a.Time > b.Time:
			return 1
		}
		return 0
	})
	return h, nil
}

// Overview is the cluster as the last sync saw it, for the dashboard and
// allot top.
func (c *Controller) Overview() live.Overview {
	c.g.mu.Lock()
	defer c.g.mu.Unlock()
	return c.g.overview
}

// Version counts syncs: what History returns may change with each.
func (c *Controller) Version() uint64 {
	c.g.mu.Lock()
	defer c.g.mu.Unlock()
	return c.g.version
}

// Now is the controller's clock.
func (c *Controller) Now() time.Time { return c.Clock.Now() }

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// SortEvents orders Events as they happened. Their times are whole
// seconds, and an admission and the preemption that ends it often share
// one; within a second the API server's order of writing them (their
// resourceVersions) decides, not the list's order, which is by name.
func SortEvents(evs []corev1.Event) {
	slices.SortStableFunc(evs, func(a, b corev1.Event) int {
		if c := EventTime(&a).Compare(EventTime(&b)); c != 0 {
			return c
		}
		ra, _ := strconv.ParseUint(a.ResourceVersion, 10, 64)
		rb, _ := strconv.ParseUint(b.ResourceVersion, 10, 64)
		return cmp.Compare(ra, rb)
	})
}

// EventTime is when an Event happened (its last occurrence).
func EventTime(e *corev1.Event) time.Time {
	if !e.EventTime.IsZero() {
		return e.EventTime.Time
	}
	if !e.LastTimestamp.IsZero() {
		return e.LastTimestamp.Time
	}
	return e.FirstTimestamp.Time
}
