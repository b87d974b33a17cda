package kube

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/allot-sim/allot/live"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// AnnCheckpointInterval, set by the submitter, is how often the job
// checkpoints: a duration such as 10m or 1h30m, or seconds. Under
// prefer_least_lost_work the core weighs the work a preemption would lose
// by it, as the simulator does.
const AnnCheckpointInterval = "scheduling.allot.dev/checkpoint-interval"

// specOf is a managed job of team q as the core's workload sees it, its
// request counted under ranges (its namespace's LimitRanges), its times
// in the controller's time base (at): the queue order from its
// submission, the run start from its current (or last) admission, the
// checkpoint interval from its annotation. seq is its place among the
// sync's jobs; us numbers its user under admission fair sharing (nil: off).
// It fails only on a checkpoint interval that does not parse.
func specOf(cfg *Config, j *batchv1.Job, ranges []corev1.LimitRange, q int, seq int64, at func(time.Time) float64, us *users) (live.WorkloadSpec, error) {
	r := JobRequest(j, ranges)
	s := live.WorkloadSpec{ID: ID(j), Seq: seq, Team: cfg.Teams[q], PriorityClass: j.Labels[LabelPriorityClass],
		Accelerators: r.Accelerators, VCPUs: r.VCPUs, MemoryGiB: r.MemoryGiB, InstanceType: j.Annotations[AnnInstanceType], Order: at(submitted(j))}
	if adm, ok := annTime(j, AnnAdmitted); ok {
		s.RunStart = at(adm)
	}
	if us != nil {
		s.User = us.id(q, userOf(j))
	}
	if v, ok := j.Annotations[AnnCheckpointInterval]; ok {
		d, err := checkpointInterval(v)
		if err != nil {
			return s, err
		}
		s.CheckpointInterval = d
	}
	return s, nil
}

// checkpointInterval parses an AnnCheckpointInterval value into seconds.
func checkpointInterval(v string) (float64, error) {
	v = strings.TrimSpace(v)
	d, err := strconv.ParseFloat(v, 64)
	if err != nil {
		var td time.Duration
		td, err = time.ParseDuration(v)
		d = td.Seconds()
	}
	if err != nil || d <= 0 || math.IsInf(d, 0) || math.IsNaN(d) {
		return 0, fmt.Errorf("annotation %s %q: want a duration such as 10m or 1h30m, or seconds, above 0", AnnCheckpointInterval, v)
	}
	return d, nil
}

// FormatCheckpointInterval is seconds as an AnnCheckpointInterval value
// (600 is "10m0s").
func FormatCheckpointInterval(seconds float64) string {
	return time.Duration(seconds * float64(time.Second)).String()
}
