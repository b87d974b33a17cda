package kube

import (
	"sync"

	"github.com/allot-sim/allot/live"
	batchv1 "k8s.io/api/batch/v1"
)

// gauges is what the last sync saw, for /metrics.
type gauges struct {
	mu       sync.Mutex
	usage    []live.FlavorUsage
	counts   map[string]map[string]int
	overview live.Overview
	version  uint64 // counts syncs
	obs      live.Observer
}

// Usage is each instance type's accelerators per team, as the last sync
// saw them.
func (c *Controller) Usage() []live.FlavorUsage {
	c.g.mu.Lock()
	defer c.g.mu.Unlock()
	return c.g.usage
}

// JobCounts counts the managed jobs by team and state, as the last sync
// saw them.
func (c *Controller) JobCounts() map[string]map[string]int {
	c.g.mu.Lock()
	defer c.g.mu.Unlock()
	return c.g.counts
}

// SetObserver sets who hears of admissions and preemptions.
func (c *Controller) SetObserver(o live.Observer) {
	c.g.mu.Lock()
	defer c.g.mu.Unlock()
	c.g.obs = o
}

func (c *Controller) observer() live.Observer {
	c.g.mu.Lock()
	defer c.g.mu.Unlock()
	return c.g.obs
}

// tally keeps what a sync saw: the jobs' states and, per instance type,
// what each team holds against its quota.
func (c *Controller) tally(jobs []batchv1.Job, alive map[string]int) {
	counts := map[string]map[string]int{}
	var usage []live.FlavorUsage
	for f, t := range c.cfg.Types {
		fu := live.FlavorUsage{InstanceType: t.Name, Devices: t.PerNode * len(t.Nodes)}
		for q, team := range c.cfg.Teams {
			u := live.TeamUsage{Team: team}
			if q < len(c.cfg.Quotas) && f < len(c.cfg.Quotas[q]) {
				u.Quota = c.cfg.Quotas[q][f]
			}
			fu.Teams = append(fu.Teams, u)
		}
		usage = append(usage, fu)
	}
	for _, team := range c.cfg.Teams {
		counts[team] = map[string]int{}
	}
	var views []live.View
	teams := make([]live.TeamUsage, len(c.cfg.Teams))
	devices := 0
	for f := range usage {
		devices += usage[f].Devices
	}
	for q, team := range c.cfg.Teams {
		teams[q].Team = team
		for f := range usage {
			teams[q].Quota += usage[f].Teams[q].Quota
		}
	}
	for i := range jobs {
		j := &jobs[i]
		q := c.team(j)
		if q < 0 {
			continue
		}
		v := View(j, c.cfg.Teams[q], alive[string(j.UID)])
		views = append(views, v)
		counts[v.Team][v.State]++
		if v.State != live.StateRunning {
			continue
		}
		if f := c.cfg.Model.FlavorIndex(j.Annotations[AnnFlavor]); f >= 0 {
			usage[f].Teams[q].Allocated += v.Accelerators
			usage[f].InUse += v.Accelerators
		}
	}
	for f := range usage {
		live.Lend(usage[f].Teams)
	}
	o := live.Tally(devices, teams, views)
	c.g.mu.Lock()
	c.g.usage, c.g.counts, c.g.overview = usage, counts, o
	c.g.version++
	c.g.mu.Unlock()
}
