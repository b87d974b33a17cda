package live

import "time"

// TeamUsage is one team's share of the machine now.
type TeamUsage struct {
	Team      string `json:"team"`
	Quota     int    `json:"quota"`
	Allocated int    `json:"allocated"`
	Borrowed  int    `json:"borrowed"`
	Lent      int    `json:"lent"`
	Pending   int    `json:"pending"`
	Running   int    `json:"running"`
	Preempted int    `json:"preempted"`
}

// Overview is what `allot top` shows.
type Overview struct {
	Devices     int         `json:"devices"`
	InUse       int         `json:"in_use"`
	Utilization float64     `json:"utilization"`
	Teams       []TeamUsage `json:"teams"`
	// Means over jobs that started (wait: submit to first start) and jobs
	// that ended after starting (runtime: first start to end), in seconds.
	MeanWaitS    float64 `json:"mean_wait_s"`
	MeanRuntimeS float64 `json:"mean_runtime_s"`

	// Jobs are the jobs the dashboard lists, metadata only, as of At
	// (Dashboard fills them; the API's overview has neither).
	Jobs []View    `json:"-"`
	At   time.Time `json:"-"`
}

// Overview sums up the machine: devices in use, and per team what it
// holds against its quota and how many jobs wait, run or were preempted.
func (c *Controller) Overview() Overview {
	c.mu.Lock()
	defer c.mu.Unlock()
	devices := 0
	for _, f := range c.cfg.Flavors {
		devices += len(f.Devices)
	}
	var teams []TeamUsage
	for i, t := range c.cfg.Teams {
		u := TeamUsage{Team: t}
		if i < len(c.cfg.Quotas) {
			for _, q := range c.cfg.Quotas[i] {
				u.Quota += q
			}
		}
		teams = append(teams, u)
	}
	views := make([]View, 0, len(c.jobs))
	var runs float64
	var nRun int
	for _, r := range c.jobs {
		j := r.j
		// A running job holds the devices it was given.
		views = append(views, View{Team: j.Team, State: j.State, Accelerators: len(j.Devices), Submitted: j.Submitted, Started: j.Started})
		if j.Started != nil && j.Ended != nil {
			runs += j.Ended.Sub(*j.Started).Seconds()
			nRun++
		}
	}
	o := Tally(devices, teams, views)
	if nRun > 0 {
		o.MeanRuntimeS = runs / float64(nRun)
	}
	return o
}

// FlavorUsage is one instance type's devices, per team.
type FlavorUsage struct {
	InstanceType string
	Devices      int
	InUse        int
	Teams        []TeamUsage // Quota, Allocated, Borrowed and Lent only
}

// Usage is the devices of each instance type, per team: held, held beyond
// quota (borrowed), and idle quota others hold (lent).
func (c *Controller) Usage() []FlavorUsage {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []FlavorUsage
	for f, fd := range c.cfg.Flavors {
		fu := FlavorUsage{InstanceType: fd.Name, Devices: len(fd.Devices)}
		for i, t := range c.cfg.Teams {
			u := TeamUsage{Team: t}
			if i < len(c.cfg.Quotas) && f < len(c.cfg.Quotas[i]) {
				u.Quota = c.cfg.Quotas[i][f]
			}
			for _, r := range c.jobs {
				if r.j.Team == t && r.j.State == StateRunning && r.j.Flavor == f {
					u.Allocated += len(r.j.Devices)
				}
			}
			fu.InUse += u.Allocated
			fu.Teams = append(fu.Teams, u)
		}
		Lend(fu.Teams)
		out = append(out, fu)
	}
	return out
}

// JobCounts counts jobs by team and state.
func (c *Controller) JobCounts() map[string]map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]map[string]int{}
	for _, t := range c.cfg.Teams {
		out[t] = map[string]int{}
	}
	for _, r := range c.jobs {
		if m := out[r.j.Team]; m != nil {
			m[r.j.State]++
		}
	}
	return out
}

// Lend sets Borrowed (held beyond quota) and counts it as Lent by the
// teams below their quota, in order.
func Lend(teams []TeamUsage) {
	borrowed := 0
	for i := range teams {
		u := &teams[i]
		u.Borrowed = max(0, u.Allocated-u.Quota)
		borrowed += u.Borrowed
	}
	for i := range teams {
		u := &teams[i]
		u.Lent = min(borrowed, max(0, u.Quota-u.Allocated))
		borrowed -= u.Lent
	}
}

// Tally sums up jobs from their views: teams carry each team's Quota; a
// running job holds its accelerators; the mean wait is over jobs that
// started (submit to first start). Runtime is not in a view, so
// MeanRuntimeS stays 0.
func Tally(devices int, teams []TeamUsage, jobs []View) Overview {
	o := Overview{Devices: devices, Teams: teams}
	at := map[string]*TeamUsage{}
	for i := range o.Teams {
		at[o.Teams[i].Team] = &o.Teams[i]
	}
	var waits float64
	var n int
	for _, v := range jobs {
		u := at[v.Team]
		if u == nil {
			continue
		}
		switch v.State {
		case StatePending:
			u.Pending++
		case StatePreempted:
			u.Preempted++
		case StateRunning:
			u.Running++
			u.Allocated += v.Accelerators
			o.InUse += v.Accelerators
		}
		if v.Started != nil {
			waits += v.Started.Sub(v.Submitted).Seconds()
			n++
		}
	}
	if n > 0 {
		o.MeanWaitS = waits / float64(n)
	}
	Lend(o.Teams)
	if o.Devices > 0 {
		o.Utilization = float64(o.InUse) / float64(o.Devices)
	}
	return o
}
