package live

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/allot-sim/allot/workload"
)

// SocketRemote is the Remote of the daemon on this machine, reached over
// its Unix socket with a Client.
type SocketRemote struct{ c *Client }

// NewSocketRemote is the Remote of the daemon listening on socket.
func NewSocketRemote(socket string) *SocketRemote { return &SocketRemote{NewClient(socket)} }

// shown is a client's error as the command line prints it: what the
// daemon said, made Printable (it may quote what users named); a refusal
// stays an *APIError.
func shown(err error) error {
	if err == nil {
		return nil
	}
	var ae *APIError
	if errors.As(err, &ae) {
		return &APIError{Status: ae.Status, Msg: Printable(ae.Msg)}
	}
	return errors.New(Printable(err.Error()))
}

// Submit sends req to run in this process's working directory, with a
// new request id, so that a retry after a lost answer returns the first
// job instead of making a second (Client.Submit).
func (r *SocketRemote) Submit(req *Request) (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	req.Dir = dir
	req.RequestID = NewRequestID()
	id, err := r.c.Submit(req)
	return id, shown(err)
}

// Jobs lists the caller's jobs, or with all everyone's.
func (r *SocketRemote) Jobs(all bool) ([]View, error) {
	path := "/v1/jobs"
	if all {
		path += "?all=1"
	}
	var jobs []View
	if err := r.c.Do("GET", path, nil, &jobs); err != nil {
		return nil, shown(err)
	}
	return jobs, nil
}

// Describe is a job as the daemon describes it, with the answer as sent.
func (r *SocketRemote) Describe(id string) (*Detail, error) {
	var raw []byte
	if err := r.c.Do("GET", "/v1/jobs/"+id, nil, &raw); err != nil {
		return nil, shown(err)
	}
	d := &Detail{Raw: raw}
	if err := json.Unmarshal(raw, &d.Description); err != nil {
		return nil, err
	}
	d.At = eventTimes(raw, d.History)
	d.CommandWithheld = len(d.Command) == 0
	return d, nil
}

// eventTimes is the wall-clock instant of each event of a describe answer:
// its "at" when the daemon gives one, else the daemon's epoch plus its
// time in seconds; nil when neither is known.
func eventTimes(raw []byte, events []Event) []time.Time {
	var a struct {
		Epoch   *time.Time `json:"epoch"`
		History []struct {
			At *time.Time `json:"at"`
		} `json:"history"`
	}
	if raw == nil || json.Unmarshal(raw, &a) != nil {
		return nil
	}
	out := make([]time.Time, len(events))
	for i, e := range events {
		switch {
		case i < len(a.History) && a.History[i].At != nil && !a.History[i].At.IsZero():
			out[i] = *a.History[i].At
		case a.Epoch != nil && !a.Epoch.IsZero():
			out[i] = a.Epoch.Add(time.Duration(e.Time * float64(time.Second)))
		default:
			return nil
		}
	}
	return out
}

// Cancel cancels a job: a running one gets SIGTERM and its grace period.
func (r *SocketRemote) Cancel(id string) error {
	return shown(r.c.Do("POST", "/v1/jobs/"+id+"/cancel", nil, nil))
}

// Logs writes a job's stdout, then its stderr, of every run; with follow,
// its stdout as it grows until the job is done for good, then its stderr.
func (r *SocketRemote) Logs(id string, follow bool, stdout, _ io.Writer) error {
	base := "/v1/jobs/" + id + "/logs"
	if !follow {
		var data []byte
		if err := r.c.Do("GET", base, nil, &data); err != nil {
			return shown(err)
		}
		_, err := stdout.Write(data)
		return err
	}
	var offset int
	for {
		var d Description
		if err := r.c.Do("GET", "/v1/jobs/"+id, nil, &d); err != nil {
			return shown(err)
		}
		var data []byte
		if err := r.c.Do("GET", base+"?stream=stdout&offset="+strconv.Itoa(offset), nil, &data); err != nil {
			return shown(err)
		}
		if _, err := stdout.Write(data); err != nil {
			return err
		}
		offset += len(data)
		if d.State == StateSucceeded || d.State == StateFailed || d.State == StateCancelled {
			if err := r.c.Do("GET", base+"?stream=stderr", nil, &data); err != nil {
				return shown(err)
			}
			_, err := stdout.Write(data)
			return err
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// Top is the daemon's overview and everyone's jobs not yet done.
func (r *SocketRemote) Top() (Overview, []View, error) {
	var o Overview
	if err := r.c.Do("GET", "/v1/overview", nil, &o); err != nil {
		return o, nil, shown(err)
	}
	var all []View
	if err := r.c.Do("GET", "/v1/jobs?all=1", nil, &all); err != nil {
		return o, nil, shown(err)
	}
	return o, OpenJobs(all), nil
}

// Snapshot is the daemon's state as a snapshot file.
func (r *SocketRemote) Snapshot() ([]byte, error) {
	var data []byte
	if err := r.c.Do("GET", "/v1/snapshot", nil, &data); err != nil {
		return nil, shown(err)
	}
	return data, nil
}

// History is the daemon's history: every job's events since it first
// started, and no command line.
func (r *SocketRemote) History() (*History, error) {
	var h History
	if err := r.c.Do("GET", "/v1/history", nil, &h); err != nil {
		return nil, shown(err)
	}
	return &h, nil
}

// Backup is a consistent copy of the daemon's store (its admins only).
func (r *SocketRemote) Backup() ([]byte, error) {
	var data []byte
	if err := r.c.Do("GET", "/v1/backup", nil, &data); err != nil {
		return nil, shown(err)
	}
	return data, nil
}

// Promote sends a policy file to the daemon: with req.Apply it puts the
// policy in place, else the daemon only says how one scheduling pass
// would decide under each policy.
func (r *SocketRemote) Promote(req PolicyRequest) (*PolicyResponse, error) {
	var resp PolicyResponse
	if err := r.c.Do("POST", "/v1/policy", req, &resp); err != nil {
		return nil, shown(err)
	}
	return &resp, nil
}

// DryRun asks the daemon to forecast a job it does not submit.
func (r *SocketRemote) DryRun(req *Request) (*workload.Forecast, error) {
	return nil, errors.New("submit --dry-run: not yet")
}
