package live

import (
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/allot-sim/allot/workload"
)

// History is everything the store knows, with the fleet it ran on: what
// `allot live export` fetches and the dashboard renders. Commands and
// directories are left out: the history is read by people who may not read
// every job's logs.
type History struct {
	Name   string  `json:"name"`   // the config's
	Policy string  `json:"policy"` // its policy kind
	Now    float64 `json:"now"`    // controller seconds
	// Epoch is controller time 0 on the wall clock: the daemon's first start.
	Epoch           *time.Time          `json:"epoch,omitempty"`
	Types           []workload.TypeInfo `json:"types"`
	Teams           []workload.TeamInfo `json:"teams"`
	PriorityClasses []string            `json:"priority_classes"` // [0] is ""
	Jobs            []Job               `json:"jobs"`
	Events          []Event             `json:"events"`
}

// History reads the store's history as of now. The events are read after
// the controller is let go, so a long history does not hold up scheduling;
// what happened after now is left out.
func (c *Controller) History() (*History, error) {
	h, err := c.historyHead()
	if err != nil {
		return nil, err
	}
	evs, err := c.store.Events("")
	if err != nil {
		return nil, err
	}
	for _, e := range evs {
		if e.Time <= h.Now {
			at := c.wall(e.Time)
			e.At = &at
			h.Events = append(h.Events, e)
		}
	}
	return h, nil
}

// historyHead is the fleet and the jobs as of now, with every event up to
// now in the store.
func (c *Controller) historyHead() (*History, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.commit() {
		return nil, fmt.Errorf("the store cannot be written")
	}
	h := c.cfg.History(c.now())
	ep := c.epoch.UTC()
	h.Epoch = &ep
	for _, r := range c.jobs {
		j := *r.j
		j.Command, j.Dir = nil, ""
		h.Jobs = append(h.Jobs, j)
	}
	return h, nil
}

// History is the head of a history of this configuration at now: its
// name and policy, instance types, teams with their quotas, and priority
// classes; no jobs or events yet.
func (cfg *Config) History(now float64) *History {
	h := &History{Name: cfg.Name, Policy: cfg.Policy, Now: now, PriorityClasses: []string{""}}
	for _, fd := range cfg.Flavors {
		ti := workload.TypeInfo{Name: fd.Name, Accelerators: fd.PerNode, PricePerHour: fd.PricePerHour, Priced: fd.Priced}
		if fd.PerNode > 0 {
			ti.Nodes = len(fd.Devices) / fd.PerNode
		}
		h.Types = append(h.Types, ti)
	}
	for q, name := range cfg.Teams {
		tm := workload.TeamInfo{Name: name, Weight: 1}
		if q < len(cfg.Model.Queues) && cfg.Model.Queues[q].Weight > 0 {
			tm.Weight = cfg.Model.Queues[q].Weight
		}
		for f := range cfg.Flavors {
			v := 0.0
			if q < len(cfg.Quotas) && f < len(cfg.Quotas[q]) {
				v = float64(cfg.Quotas[q][f])
			}
			tm.Quota = append(tm.Quota, v)
		}
		h.Teams = append(h.Teams, tm)
	}
	var classes []string
	for name := range cfg.Priorities {
		if name != "" {
			classes = append(classes, name)
		}
	}
	// By value, then name: the order a report lists them in.
	sort.Slice(classes, func(a, b int) bool {
		pa, pb := cfg.Priorities[classes[a]], cfg.Priorities[classes[b]]
		return pa < pb || pa == pb && classes[a] < classes[b]
	})
	h.PriorityClasses = append(h.PriorityClasses, classes...)
	return h
}

// Bucket is a report bucket for a history of now seconds: a round width
// giving at most about 120 buckets (no less than a second: reports
// write durations in whole seconds).
func Bucket(now float64) float64 {
	for _, b := range []float64{1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 21600, 43200} {
		if now/b <= 120 {
			return b
		}
	}
	return 86400 * math.Ceil(now/86400/120)
}
