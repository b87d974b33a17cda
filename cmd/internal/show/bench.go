package show

import (
	"fmt"
	"io"
	"syscall"

	"github.com/allot-sim/allot/policies"
	"github.com/allot-sim/allot/reports"
)

// Bench writes one BENCH line of a run's speed and this process's peak
// memory, for scripts to read.
func Bench(w io.Writer, name string, s *reports.Summary) {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	jobs := float64(s.Jobs.Submitted)
	fmt.Fprintf(w, "BENCH name=%s policy=%s jobs=%d events=%d cycles=%d wall_s=%.3f jobs_per_s=%.0f events_per_s=%.0f ns_per_cycle=%.0f peak_rss_mb=%.1f\n",
		name, s.Policy, s.Jobs.Submitted, s.Sim.Events, s.Sim.Cycles, s.Sim.WallS, jobs/s.Sim.WallS, float64(s.Sim.Events)/s.Sim.WallS,
		s.Sim.WallS*1e9/float64(max(s.Sim.Cycles, 1)), float64(ru.Maxrss)/1024)
}

// Shortcuts writes each of the core's shortcuts with its hits and
// misses, one SHORTCUT line each, and whether it was switched off; then
// one WORK line of what the quota policy did.
func Shortcuts(w io.Writer, k *policies.ShortcutCounts, off policies.ShortcutSet) {
	for _, s := range policies.Shortcuts() {
		state := "on"
		if off.Has(s) {
			state = "off"
		}
		fmt.Fprintf(w, "SHORTCUT name=%s %s hits=%d misses=%d\n", s, state, k.Hits[s], k.Misses[s])
	}
	fmt.Fprintf(w, "WORK nominations=%d searches=%d victims_tried=%d claimed_before=%d\n",
		k.Work.Nominations, k.Work.Searches, k.Work.Tried, k.Work.Claimed)
}
