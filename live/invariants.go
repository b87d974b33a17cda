package live

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// lifecycle are the kinds of event that change what a job is doing; the
// others (adopted, preempted, cancel, policy, ...) only say why. A run
// that ended while the daemon was down ends before the restart's adopted.
var lifecycle = map[string]bool{"submitted": true, "admitted": true, "exited": true, "lost": true, "requeued": true,
	StateSucceeded: true, StateFailed: true, StateCancelled: true}

// CheckHistory checks a live history for what every run must keep, as
// sim.Checker does for a simulation: every job submitted once and settled
// at most once, nothing happening to it after; a run admitted only while
// no run of the job is going (no job runs twice at once); no device of
// the fleet held by two runs at once (so capacity is never exceeded); and
// each job's stored state agreeing with its history.
func CheckHistory(h *History) error {
	fleet := map[string]bool{}
	for _, t := range h.Types {
		fleet[t.Name] = true
	}
	type jobState struct {
		submitted, running, final bool
		devices                   []string // "type/device" while running
	}
	jobs := map[string]*jobState{}
	holder := map[string]string{} // "type/device" -> job
	var problems []error
	bad := func(e *Event, f string, a ...any) {
		problems = append(problems, fmt.Errorf("job %s at %.3fs (%s): %s", e.Job, e.Time, e.Kind, fmt.Sprintf(f, a...)))
	}
	stop := func(s *jobState) {
		for _, d := range s.devices {
			delete(holder, d)
		}
		s.running, s.devices = false, nil
	}
	evs := slices.Clone(h.Events)
	sort.SliceStable(evs, func(a, b int) bool { return evs[a].Time < evs[b].Time })
	for i := range evs {
		e := &evs[i]
		s := jobs[e.Job]
		if s == nil {
			s = &jobState{}
			jobs[e.Job] = s
		}
		if s.final && lifecycle[e.Kind] {
			bad(e, "after the job was settled")
			continue
		}
		switch e.Kind {
		case "submitted":
			if s.submitted {
				bad(e, "submitted twice")
			}
			s.submitted = true
		case "admitted":
			if !s.submitted {
				bad(e, "admitted before it was submitted")
			}
			if s.running {
				bad(e, "admitted while a run of it still runs: %s", e.Detail)
			}
			var run int
			var typ string
			if _, err := fmt.Sscanf(e.Detail, "run %d on %s devices", &run, &typ); err != nil || !fleet[typ] {
				bad(e, "unreadable admission %q", e.Detail)
				continue
			}
			s.running = true
			if i, j := strings.IndexByte(e.Detail, '['), strings.IndexByte(e.Detail, ']'); i >= 0 && j > i+1 {
				for _, d := range strings.Split(e.Detail[i+1:j], ",") {
					key := typ + "/" + d
					if other, ok := holder[key]; ok {
						bad(e, "device %s is held by job %s too", key, other)
					}
					holder[key] = e.Job
					s.devices = append(s.devices, key)
				}
			}
		case "exited", "lost":
			if !s.running {
				bad(e, "a run ended that was not running")
			}
			stop(s)
		case "requeued": // after a stop, or a run that never started
			stop(s)
		case StateSucceeded, StateFailed, StateCancelled:
			stop(s)
			s.final = true
		}
	}
	for _, j := range h.Jobs {
		s := jobs[j.ID]
		switch {
		case s == nil || !s.submitted:
			problems = append(problems, fmt.Errorf("job %s (%s) has no submission in the history", j.ID, j.State))
		case s.final != j.Final():
			problems = append(problems, fmt.Errorf("job %s is %s, but its history says settled=%v", j.ID, j.State, s.final))
		case s.running != (j.State == StateRunning):
			problems = append(problems, fmt.Errorf("job %s is %s, but its history says running=%v", j.ID, j.State, s.running))
		}
	}
	return errors.Join(problems...)
}
