package export

import (
	"slices"
	"sort"
	"time"
)

// handoff is how long Kueue took, on average, from freeing quota (a
// Workload's Finished) to reserving it for a Workload that was waiting:
// its scheduling cycle and the API round trips around it. The replay
// hands freed capacity over at once, so an import adds this to every
// finished job's duration: capacity then turns over as it did under
// Kueue. Only admissions that waited and follow a Finished within
// handoffAtMost count (a longer gap is an admission for another reason,
// not a turnover), and fewer than handoffSamples of them measure
// nothing: 0. The mean, not the median: times are whole seconds, and
// the mean of truncated gaps is the mean of the true ones, where a
// median of gaps under a second is 0.
const (
	handoffAtMost  = 10 * time.Second
	handoffSamples = 10
)

func handoff(recs []jobRecord) time.Duration {
	var ends []time.Time
	for _, r := range recs {
		if r.job.OrigStatus != "running" {
			ends = append(ends, r.end)
		}
	}
	slices.SortFunc(ends, func(a, b time.Time) int { return a.Compare(b) })
	var gaps []time.Duration
	for _, r := range recs {
		if r.start.Sub(r.created) < time.Second {
			continue // admitted on arrival: no freed quota awaited
		}
		// The last Finished at or before this admission.
		i := sort.Search(len(ends), func(i int) bool { return ends[i].After(r.start) })
		if i == 0 || ends[i-1].Before(r.created) {
			continue
		}
		if gap := r.start.Sub(ends[i-1]); gap <= handoffAtMost {
			gaps = append(gaps, gap)
		}
	}
	if len(gaps) < handoffSamples {
		return 0
	}
	var sum time.Duration
	for _, g := range gaps {
		sum += g
	}
	return sum / time.Duration(len(gaps))
}
