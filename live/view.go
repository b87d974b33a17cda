package live

import (
	"errors"
	"math"
	"time"

	"github.com/allot-sim/allot/policies"
	"github.com/allot-sim/allot/workload"
)

// View is a job as clients see it (spec/cli.md's fields and more).
type View struct {
	ID            string     `json:"id"`
	Name          string     `json:"name"`
	Team          string     `json:"team"`
	State         string     `json:"state"`
	Reason        string     `json:"reason"`
	ExitCode      *int       `json:"exit_code"`
	PriorityClass string     `json:"priority_class"`
	Accelerators  int        `json:"accelerators"`
	InstanceType  string     `json:"instance_type"`
	Submitted     time.Time  `json:"submitted"`
	Started       *time.Time `json:"started"`
	Preemptions   int        `json:"preemptions"`
	Restarts      int        `json:"restarts"`
	Devices       []string   `json:"devices"`
	UID           int        `json:"uid"`
	// Ended is when it was done for good (null until then).
	Ended *time.Time `json:"ended"`
	// Command, Dir and Env are shown only to those who may read the
	// job's logs (its owner and its team's and the machine's admins):
	// command lines often carry tokens.
	Command []string `json:"command,omitempty"`
	Dir     string   `json:"dir,omitempty"`
	Env     []string `json:"env,omitempty"`
	// Forecast is when a pending job is expected to start (nil: not
	// pending, or not forecast yet).
	Forecast *workload.Forecast `json:"forecast,omitempty"`
}

func (c *Controller) view(r *rt) View {
	j := r.j
	v := View{ID: j.ID, Name: j.Name, Team: j.Team, State: j.State, Reason: j.Reason, ExitCode: j.ExitCode, PriorityClass: j.PriorityClass,
		Accelerators: j.Accelerators, InstanceType: j.InstanceType, Submitted: j.Submitted, Started: j.Started, Preemptions: j.Preemptions,
		Restarts: max(0, j.Run-1), Devices: j.Devices, UID: j.UID, Ended: j.Ended, Command: j.Command, Dir: j.Dir, Env: j.Env}
	if v.Devices == nil {
		v.Devices = []string{}
	}
	if v.InstanceType == "" && j.Flavor >= 0 && j.State == StateRunning {
		v.InstanceType = c.cfg.Flavors[j.Flavor].Name
	}
	if (j.State == StatePending || j.State == StatePreempted) && r.w != nil {
		if st, why := c.core.Why(r.w); why != "" {
			v.Reason = why
			if j.State == StatePreempted {
				v.Reason = j.Reason + "; " + why
			}
		} else if st != "" && v.Reason == "" {
			v.Reason = st
		}
	}
	return v
}

// Jobs lists jobs in submission order; uid >= 0 keeps that user's only.
func (c *Controller) Jobs(uid int) []View {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := []View{}
	for _, r := range c.jobs {
		if uid < 0 || r.j.UID == uid {
			out = append(out, c.view(r))
		}
	}
	return out
}

// Description is a job with its history.
type Description struct {
	View
	History []Event `json:"history"`
}

// Describe returns a job and its history.
func (c *Controller) Describe(id string) (*Description, error) {
	c.mu.Lock()
	r, ok := c.byID[id]
	if !ok {
		c.mu.Unlock()
		return nil, &NotFoundError{id}
	}
	d := &Description{View: c.view(r)}
	c.mu.Unlock()
	ev, err := c.store.Events(id)
	if err != nil {
		return nil, err
	}
	for i := range ev {
		at := c.wall(ev[i].Time)
		ev[i].At = &at
		ev[i].Time = math.Round(ev[i].Time*1000) / 1000
	}
	d.History = ev
	return d, nil
}

// Epoch is controller time 0.
func (c *Controller) Epoch() time.Time { return c.epoch }

// Job returns a copy of a stored job.
func (c *Controller) Job(id string) (*Job, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.byID[id]
	if !ok {
		return nil, &NotFoundError{id}
	}
	cp := *r.j
	return &cp, nil
}

// IsRequestError says whether err is the caller's fault.
func IsRequestError(err error) bool {
	var re *RequestError
	return errors.As(err, &re)
}

// State is the controller's model, its clock, and a copy of every job
// not yet done (for snapshots).
func (c *Controller) State() (m *policies.Model, now float64, jobs []Job) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, r := range c.jobs {
		if !r.j.Final() {
			jobs = append(jobs, *r.j)
		}
	}
	return c.cfg.Model, c.now(), jobs
}

// Priority is a class's value.
func (c *Controller) Priority(class string) int32 { return c.cfg.Priorities[class] }

// wall is controller time t on the wall clock.
func (c *Controller) wall(t float64) time.Time { return c.epoch.Add(time.Duration(t * 1e9)).UTC() }
