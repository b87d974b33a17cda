package live

import (
	"os"
	"slices"
	"strings"
	"syscall"
)

// failpoints are the points at which ALLOT_FAILPOINTS (a comma list) makes
// the daemon kill itself with SIGKILL, as a crash there would: the fault
// tests use them to stop it between writing a decision and carrying it out.
//
//	decided        a plan is written, nothing of it carried out
//	stop-decided   the same, for a plan that preempts
//	stop-recorded  a cancel or time limit is written, its SIGTERM not sent
var failpoints = strings.Split(os.Getenv("ALLOT_FAILPOINTS"), ",")

func failpoint(name string) {
	if slices.Contains(failpoints, name) {
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {} // SIGKILL is not delivered synchronously
	}
}
