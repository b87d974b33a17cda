package live

import "time"

// Backend carries out a controller's decisions on real work. The local
// backend (package live/local) runs processes on this machine; a
// Kubernetes backend would suspend and un-suspend Jobs.
type Backend interface {
	// Start runs the job's current run (Job.Run) on Job.Devices.
	Start(j *Job) error
	// Signal asks the run to stop (kill false: SIGTERM, it may checkpoint)
	// or ends it at once (kill true).
	Signal(j *Job, kill bool) error
	// Exited reports how the current run ended, or nil while it runs;
	// a run whose supervisor died is reported Lost.
	Exited(j *Job) (*Exit, error)
	// Recover tells, after a controller restart, what became of a run the
	// store says was started: still running (adopted), ended (Exited will
	// say how), never started, or lost with no record of its end.
	Recover(j *Job) (RunStatus, error)
}

// Exit is how a run ended.
type Exit struct {
	Code   int    `json:"code"`
	Signal string `json:"signal,omitempty"`
	// Error says why the job's command could not be started.
	Error string `json:"error,omitempty"`
	// Ended is when the run's end was recorded on the wall clock (zero
	// when the backend does not say): a run that ended while the daemon
	// was down ends then, not when the daemon learnt of it.
	Ended time.Time `json:"ended,omitzero"`
	// Lost: the run's supervisor is gone and left no record of the end;
	// whatever was left of the run was killed. NeverStarted: it went
	// before it started the job.
	Lost         bool `json:"lost,omitempty"`
	NeverStarted bool `json:"never_started,omitempty"`
}

// RunStatus is what Recover found.
type RunStatus int

// Run statuses.
const (
	RunRunning RunStatus = iota
	RunExited
	RunNeverStarted
	RunLost
)
