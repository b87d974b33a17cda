// Package submit reads allot submit's flags into a live job request (its
// time limit, checkpoint interval and environment) and submits it. What
// it refuses is a usage error (errtext.UsageError), which the command
// line reports as cobra's own.
package submit

import (
	"os"
	"strings"

	"github.com/allot-sim/allot/cmd/internal/errtext"
	"github.com/allot-sim/allot/live"
	"github.com/allot-sim/allot/live/kube"
	"github.com/allot-sim/allot/scenarios"
)

// Flags are allot submit's flags that Fill reads.
type Flags struct {
	TimeLimit          string   // --time-limit, e.g. 2h
	CheckpointInterval string   // --checkpoint-interval, e.g. 10m
	Env                []string // --env: NAME=VALUE, or NAME for this process's value
}

// Fill completes req, whose team the flags set, with the command to run
// and f: the durations in seconds, the environment as NAME=VALUE. A
// NAME alone takes this process's value, so that a secret need not be on
// the command line; what it names is printed through live.Printable, as
// it may hold anything.
func Fill(req *live.Request, f Flags, command []string) error {
	if req.Team == "" {
		return errtext.Usagef("--team is required")
	}
	if f.TimeLimit != "" {
		d, ok := duration(f.TimeLimit)
		if !ok {
			return errtext.Usagef("--time-limit %q: want a duration such as 90m or 2h", f.TimeLimit)
		}
		req.TimeLimit = d
	}
	if f.CheckpointInterval != "" {
		d, ok := duration(f.CheckpointInterval)
		if !ok {
			return errtext.Usagef("--checkpoint-interval %q: want a duration such as 10m", f.CheckpointInterval)
		}
		req.CheckpointInterval = d
	}
	req.Command = command
	for _, e := range f.Env {
		name, value, ok := strings.Cut(e, "=")
		if !ok {
			if value, ok = os.LookupEnv(name); !ok {
				n := live.Printable(name)
				return errtext.Usagef("--env %s: %s is not set here; give --env %s=VALUE", n, n, n)
			}
		}
		if err := live.CheckEnv(name + "=" + value); err != nil {
			return errtext.Usagef("--env: %s", live.Printable(err.Error()))
		}
		req.Env = append(req.Env, name+"="+value)
	}
	return nil
}

// duration reads a positive duration such as 90m, in seconds.
func duration(s string) (float64, bool) {
	d, err := scenarios.ParseDuration(s)
	return d, err == nil && d > 0
}

// Submit submits req through r and returns the job's id. On Kubernetes
// the image sets the environment, so --env is refused there.
func Submit(r live.Remote, req *live.Request) (string, error) {
	if _, ok := r.(*kube.Remote); ok && len(req.Env) > 0 {
		return "", errtext.Usagef("--env is for the local daemon; on Kubernetes the image sets the environment")
	}
	return r.Submit(req)
}
