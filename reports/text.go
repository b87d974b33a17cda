package reports

import "fmt"

// FidelityText is the replay-fidelity paragraph of the reports, a sentence
// a line, for the text summary.
func FidelityText(f *Fidelity) []string { return fidelityLines(f) }

// UnstartedWarning is the warning a run needs when over UnstartedWarnShare
// of its jobs never started, or "" when it does not.
func UnstartedWarning(s *Summary) string {
	if s.Jobs.UnstartedShare <= UnstartedWarnShare {
		return ""
	}
	return fmt.Sprintf("%s of the window's jobs (%s of %s) never started: wait_s counts only the jobs that started; read the waits over all jobs (wait_all_s)",
		FormatValue("jobs.unstarted_share", s.Jobs.UnstartedShare), Thousands(float64(s.WaitAllS.Unstarted), 0), Thousands(float64(s.Jobs.Submitted), 0))
}
