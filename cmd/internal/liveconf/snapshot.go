package liveconf

import (
	"github.com/allot-sim/allot/live"
	"github.com/allot-sim/allot/scenarios"
)

// DaemonSnapshot writes a daemon's state as a snapshot that `allot cycle`
// reads: its model's flavors, cohorts and queues, and its jobs (the
// live.Server's Snapshot).
func DaemonSnapshot(c *live.Controller) ([]byte, error) {
	m, now, jobs := c.State()
	var out []scenarios.SnapshotJob
	for _, j := range jobs {
		sj := scenarios.SnapshotJob{Name: "job-" + j.ID, Queue: j.Team, Priority: c.Priority(j.PriorityClass), Created: j.Order,
			Flavor: -1, Want: m.FlavorIndex(j.InstanceType), Accelerators: float64(j.Accelerators)}
		if j.State == live.StateRunning && j.Flavor >= 0 {
			sj.Flavor, sj.Admitted, sj.Evicting = j.Flavor, j.AdmittedAt, j.Stopping != ""
			sj.Started, sj.HasStarted = j.RunStart, true
		}
		out = append(out, sj)
	}
	return scenarios.MarshalSnapshot(m, now, out, "written by allot live snapshot: quota level; times are seconds since the daemon's first start")
}
