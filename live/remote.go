package live

import (
	"io"
	"time"

	"github.com/allot-sim/allot/workload"
)

// Remote is live mode as the command line uses it, wherever it runs: the
// daemon on this machine over its socket (SocketRemote), or a Kubernetes
// cluster's API server (kube.Remote). The CLI picks one and asks it.
//
// Errors come as they are to be printed: what a daemon said is already
// made Printable (it may quote what users named). A request the far side
// refused is an *APIError from the daemon, or what kube.IsInput reports.
type Remote interface {
	// Submit sends a job and returns its id.
	Submit(req *Request) (string, error)
	// Jobs lists the caller's jobs (all: everyone's where that differs).
	Jobs(all bool) ([]View, error)
	// Describe is one job, its history and how to show it.
	Describe(id string) (*Detail, error)
	// Cancel stops a job for good.
	Cancel(id string) error
	// Logs writes a job's output to stdout (and notes to stderr); with
	// follow it keeps writing until the job ends.
	Logs(id string, follow bool, stdout, stderr io.Writer) error
	// Top is one look for allot top: the overview, and the jobs not yet
	// done, running first (OpenJobs).
	Top() (Overview, []View, error)
	// Snapshot is the state as a snapshot file that allot cycle reads.
	Snapshot() ([]byte, error)
	// DryRun checks a job as Submit would and forecasts it against the
	// present, submitting nothing: it starts now (StartsNow, on Type) or
	// waits, with its forecast and the reason.
	DryRun(req *Request) (*workload.Forecast, error)
}

// Detail is a job as allot describe shows it.
type Detail struct {
	Description
	// Raw is the answer as the daemon sent it, which --json prints (nil
	// where there is none: --json prints Description).
	Raw []byte
	// At is each event's wall-clock instant (nil: unknown).
	At []time.Time
	// CommandWithheld says the command was left out: only the job's owner
	// and its team's and the machine's admins see it.
	CommandWithheld bool
}

// OpenJobs are the jobs not yet done, running first, then preempted, then
// pending, each in the order given.
func OpenJobs(all []View) []View {
	var out []View
	for _, st := range []string{StateRunning, StatePreempted, StatePending} {
		for _, v := range all {
			if v.State == st {
				out = append(out, v)
			}
		}
	}
	return out
}
