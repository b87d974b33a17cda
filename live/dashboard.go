package live

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"time"
)

// Page writes the dashboard from the history and the machine's overview
// (with its Jobs and At: the jobs to list, as of when). cmd/allot makes
// it with the reports package, which live may not import.
type Page func(w io.Writer, h *History, o Overview) error

// pageTTL is how long a rendered dashboard is served again while nothing
// was written: the page reloads itself at about this pace, and its charts
// run to "now", so an older one would show a stale right edge.
const pageTTL = 5 * time.Second

// Source is what a dashboard shows: a controller, local or on Kubernetes.
// Version changes whenever what History returns may have.
type Source interface {
	Version() uint64
	History() (*History, error)
	Overview() Overview
	Now() time.Time
}

// Now is the controller's clock.
func (c *Controller) Now() time.Time { return c.clock.Now() }

// Dashboard serves the read-only dashboard: the page at /, and an empty
// answer for the icon browsers ask for, so that they log no error. A page
// is rendered at most once per version of the source and pageTTL, however
// many browsers ask.
func Dashboard(c Source, page Page) http.Handler {
	var mu sync.Mutex
	var cached []byte
	var version uint64
	var at time.Time
	mux := http.NewServeMux()
	mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if v := c.Version(); cached == nil || v != version || c.Now().Sub(at) >= pageTTL {
			h, err := c.History()
			if err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			o := c.Overview()
			o.Jobs, o.At = dashboardJobs(c, h), c.Now()
			var b bytes.Buffer // whole, so a failure is an error page, not half a page
			if err := page(&b, h, o); err != nil {
				http.Error(w, fmt.Sprintf("render dashboard: %v", err), http.StatusInternalServerError)
				return
			}
			cached, version, at = b.Bytes(), v, c.Now()
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(cached)
	})
	return mux
}

// dashboardFinished is how many finished jobs the dashboard lists.
const dashboardFinished = 20

// dashboardJobs is what the dashboard lists, metadata only (it is read by
// anyone on the machine): every job not yet done, running first, then
// preempted, then pending, each in submission order; then the last
// dashboardFinished jobs that finished, the latest first. A source that
// lists its jobs (a local controller) gives each waiting job's reason as
// `allot jobs` does; else they come from the history's jobs.
func dashboardJobs(c Source, h *History) []View {
	var all []View
	if jl, ok := c.(interface{ Jobs(uid int) []View }); ok {
		all = jl.Jobs(-1)
	} else {
		for i := range h.Jobs {
			all = append(all, storedView(&h.Jobs[i]))
		}
	}
	var out, done []View
	for _, st := range []string{StateRunning, StatePreempted, StatePending} {
		for _, v := range all {
			if v.State == st {
				out = append(out, v)
			}
		}
	}
	for _, v := range all {
		if v.State == StateSucceeded || v.State == StateFailed || v.State == StateCancelled {
			done = append(done, v)
		}
	}
	endOf := func(v View) time.Time {
		if v.Ended != nil {
			return *v.Ended
		}
		return v.Submitted
	}
	slices.SortStableFunc(done, func(a, b View) int { return cmp.Compare(endOf(b).UnixNano(), endOf(a).UnixNano()) })
	out = append(out, done[:min(len(done), dashboardFinished)]...)
	for i := range out {
		out[i].Command, out[i].Dir, out[i].Env = nil, "", nil
	}
	return out
}

// storedView is a stored job's metadata as a view.
func storedView(j *Job) View {
	v := View{ID: j.ID, Name: j.Name, Team: j.Team, State: j.State, Reason: j.Reason, ExitCode: j.ExitCode, PriorityClass: j.PriorityClass,
		Accelerators: j.Accelerators, InstanceType: j.InstanceType, Submitted: j.Submitted, Started: j.Started, Preemptions: j.Preemptions,
		Restarts: max(0, j.Run-1), Devices: j.Devices, UID: j.UID, Ended: j.Ended}
	if v.Devices == nil {
		v.Devices = []string{}
	}
	return v
}

// history answers GET /v1/history under the read rule: every user the
// daemon admits reads the whole history (the machine's use, every job's
// metadata and events), and nobody reads a command line, directory or
// environment in it, whoever's job: it is what `allot live export`
// writes for anyone to read (describe shows them to those who may read
// them). A "submitted" event written by an older daemon carried the
// command line: it is cut off.
func (s *Server) history(w http.ResponseWriter, r *http.Request) {
	h, err := s.C.History()
	if err != nil {
		writeErr(w, http.StatusInternalServerError, err)
		return
	}
	var nobody grants // may read no job's details
	for i := range h.Jobs {
		nobody.redactJob(&h.Jobs[i])
	}
	for i := range h.Events {
		nobody.redactEvent(&h.Events[i], -2, "")
	}
	writeJSONResp(w, http.StatusOK, h)
}
