package simrun

import (
	"fmt"
	"io"
	"math"

	"github.com/allot-sim/allot/scenarios"
	"github.com/allot-sim/allot/workload"
)

// CheckRecord says whether a scenario's workload can be checked against a
// record (allot sim --replay-check): it must be a trace with at least one
// recorded start (orig_start_time). It reads the trace up to the first
// such job, so a trace without one is refused before it is simulated.
func CheckRecord(s *scenarios.Scenario) error {
	if s.TracePath == "" {
		return fmt.Errorf("%s: the workload is synthetic: --replay-check compares a replay with a recorded history, and needs a trace with recorded starts (%s)", s.Path, workload.ColOrigStart)
	}
	r, err := workload.OpenTrace(s.TracePath, workload.TraceOptions{SkipInvalid: s.SkipInvalid})
	if err != nil {
		return err
	}
	defer r.Close()
	for {
		j, err := r.Next()
		if err == io.EOF {
			return noRecord(s)
		}
		if err != nil {
			return err
		}
		if !math.IsNaN(j.OrigStart) {
			return nil
		}
	}
}

// noRecord is the error of a trace without a recorded start.
func noRecord(s *scenarios.Scenario) error {
	return fmt.Errorf("%s: the trace has no recorded starts (no job has %s): --replay-check compares a replay with a recorded history, as allot import writes it", s.TracePath, workload.ColOrigStart)
}
