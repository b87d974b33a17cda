package sim

import (
	"math"

	"github.com/allot-sim/allot/workload"
)

// arrival is what a job keeps of its trace row once taken in: what its
// running and its record read. The rest (team and priority names, types,
// vCPUs, memory) is worked out at intake, and a pending job holds only
// this: an overloaded run keeps millions of them.
type arrival struct {
	ID, User, Class                                    string
	Submit, Accelerators, Duration, CheckpointInterval float64
	orig                                               *original // nil: no original timing, status or extra columns
}

// original is a replayed trace's own record of a job, passed through to
// its record.
type original struct {
	start, end float64
	status     string
	extra      []string
}

func (a *arrival) set(j *workload.Job) {
	*a = arrival{ID: j.ID, User: j.User, Class: j.Class, Submit: j.Submit, Accelerators: j.Accelerators,
		Duration: j.Duration, CheckpointInterval: j.CheckpointInterval}
	if !math.IsNaN(j.OrigStart) || !math.IsNaN(j.OrigEnd) || j.OrigStatus != "" || j.Extra != nil {
		a.orig = &original{start: j.OrigStart, end: j.OrigEnd, status: j.OrigStatus, extra: j.Extra}
	}
}

// originals returns the original start, end and status, and the extra
// columns: NaN, NaN, "" and nil for a job without them.
func (a *arrival) originals() (start, end float64, status string, extra []string) {
	if a.orig == nil {
		return math.NaN(), math.NaN(), "", nil
	}
	return a.orig.start, a.orig.end, a.orig.status, a.orig.extra
}
