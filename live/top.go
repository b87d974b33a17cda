package live

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
}

// Overview sums up the machine: devices in use, and per team what it
// holds against its quota and how many jobs wait, run or were preempted.
func (c *Controller) Overview() Overview {
	c.mu.Lock()
	defer c.mu.Unlock()
	var o Overview
	for _, f := range c.cfg.Flavors {
		o.Devices += len(f.Devices)
	}
	byTeam := map[string]*TeamUsage{}
	for i, t := range c.cfg.Teams {
		u := TeamUsage{Team: t}
		if i < len(c.cfg.Quotas) {
			u.Quota = c.cfg.Quotas[i]
		}
		o.Teams = append(o.Teams, u)
	}
	for i := range o.Teams {
		byTeam[o.Teams[i].Team] = &o.Teams[i]
	}
	var waits, runs float64
	var nWait, nRun int
	for _, r := range c.jobs {
		j := r.j
		u := byTeam[j.Team]
		if u == nil {
			continue
		}
		switch j.State {
		case StatePending:
			u.Pending++
		case StatePreempted:
			u.Preempted++
		case StateRunning:
			u.Running++
			u.Allocated += len(j.Devices)
			o.InUse += len(j.Devices)
		}
		if j.Started != nil {
			waits += j.Started.Sub(j.Submitted).Seconds()
			nWait++
			if j.Ended != nil {
				runs += j.Ended.Sub(*j.Started).Seconds()
				nRun++
			}
		}
	}
	if nWait > 0 {
		o.MeanWaitS = waits / float64(nWait)
	}
	if nRun > 0 {
		o.MeanRuntimeS = runs / float64(nRun)
	}
	// What teams hold beyond their quota came from others' idle quota:
	// count it as lent by the teams below their quota, in order.
	borrowed := 0
	for i := range o.Teams {
		u := &o.Teams[i]
		u.Borrowed = max(0, u.Allocated-u.Quota)
		borrowed += u.Borrowed
	}
	for i := range o.Teams {
		u := &o.Teams[i]
		u.Lent = min(borrowed, max(0, u.Quota-u.Allocated))
		borrowed -= u.Lent
	}
	if o.Devices > 0 {
		o.Utilization = float64(o.InUse) / float64(o.Devices)
	}
	return o
}
