package live

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/allot-sim/allot/policies"
)

// CheckConfig says whether cfg can replace the controller's configuration
// with every job kept as it is: the same instance types and devices (a
// promotion changes the policy, not the fleet), every team that has a job
// and every priority class of a job still waiting or running.
func (c *Controller) CheckConfig(cfg *Config) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.checkConfig(cfg)
}

func (c *Controller) checkConfig(cfg *Config) error {
	if len(cfg.Flavors) != len(c.cfg.Flavors) {
		return &RequestError{fmt.Sprintf("the new policy has %d instance types, the daemon's fleet %d: a promotion changes the policy, not the fleet (restart the daemon with --config for that)", len(cfg.Flavors), len(c.cfg.Flavors))}
	}
	for f, fd := range cfg.Flavors {
		old := c.cfg.Flavors[f]
		if fd.Name != old.Name || fd.PerNode != old.PerNode || !slices.Equal(fd.Devices, old.Devices) {
			return &RequestError{fmt.Sprintf("instance type %d is %s with %d devices in the new policy, %s with %d on the daemon: a promotion changes the policy, not the fleet", f, fd.Name, len(fd.Devices), old.Name, len(old.Devices))}
		}
	}
	var problems []string
	seenTeam, seenClass := map[string]bool{}, map[string]bool{}
	for _, r := range c.jobs {
		j := r.j
		if !seenTeam[j.Team] && !slices.Contains(cfg.Teams, j.Team) {
			seenTeam[j.Team] = true
			problems = append(problems, fmt.Sprintf("team %q has jobs and is not in the new policy", j.Team))
		}
		if j.Final() || seenClass[j.PriorityClass] {
			continue
		}
		if _, ok := cfg.Priorities[j.PriorityClass]; !ok {
			seenClass[j.PriorityClass] = true
			problems = append(problems, fmt.Sprintf("priority class %q has jobs waiting or running and is not in the new policy", j.PriorityClass))
		}
	}
	if len(problems) > 0 {
		return &RequestError{strings.Join(problems, "; ")}
	}
	return nil
}

// SetConfig replaces the policy under the daemon's feet: the core is built
// again from the jobs as they are, running jobs on their nodes and
// devices, waiting ones in their old order, and asked at once what the new
// policy decides. No process is signalled or restarted by the swap itself;
// whatever the new policy decides is carried out and recorded as any
// decision is, under the new policy's id.
func (c *Controller) SetConfig(cfg *Config) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.checkConfig(cfg); err != nil {
		return err
	}
	core, byW, err := coreOf(cfg, c.jobs)
	if err != nil {
		return &RequestError{err.Error()}
	}
	old := c.cfg.PolicyID
	for _, r := range c.jobs {
		if !r.j.Final() {
			c.pending = append(c.pending, Event{Time: c.now(), Job: r.j.ID, Kind: "policy",
				Detail: fmt.Sprintf("the daemon's policy changed from %s to %s", old, cfg.PolicyID), Policy: cfg.PolicyID})
		}
	}
	// Written first: a promotion the store did not take did not happen.
	if err := c.flush(); err != nil {
		return err
	}
	c.log.Info("policy", "from", old, "to", cfg.PolicyID)
	c.cfg, c.core, c.coreWake = cfg, core, math.Inf(1)
	clear(c.byW)
	for w, r := range byW {
		r.w, r.held = w, false
		c.byW[w] = r
	}
	c.schedule()
	return c.broken
}

// coreOf builds a core under cfg holding the jobs as they stand: running
// ones placed where they run, the others queued. It touches no job.
func coreOf(cfg *Config, jobs []*rt) (*policies.Core, map[*policies.Workload]*rt, error) {
	core, err := policies.NewCore(cfg.Model)
	if err != nil {
		return nil, nil, fmt.Errorf("build core: %w", err)
	}
	byW := map[*policies.Workload]*rt{}
	for _, r := range jobs {
		j := r.j
		if j.Final() {
			continue
		}
		w, err := workloadOf(cfg, j)
		if err != nil {
			return nil, nil, fmt.Errorf("job %s: %w", j.ID, err)
		}
		byW[w] = r
		if j.State != StateRunning {
			err = core.Submit(w)
		} else {
			err = core.AddPlaced(w, j.Flavor, j.Nodes, j.AdmittedAt, j.Stopping != "")
		}
		if err != nil {
			return nil, nil, fmt.Errorf("job %s: %w", j.ID, err)
		}
	}
	return core, byW, nil
}

// Decisions is what one scheduling pass would decide: jobs admitted, with
// their instance type, and jobs preempted, with why.
type Decisions struct {
	Admitted  map[string]string `json:"admitted"`
	Preempted map[string]string `json:"preempted"`
}

// Preview runs the core once, on a copy of the jobs as they stand, under
// the current configuration and under cfg, and returns both decisions.
// Nothing is changed or written.
func (c *Controller) Preview(cfg *Config) (now, next Decisions, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.checkConfig(cfg); err != nil {
		return now, next, err
	}
	t := c.now()
	if now, err = decide(c.cfg, c.jobs, t); err != nil {
		return now, next, err
	}
	next, err = decide(cfg, c.jobs, t)
	return now, next, err
}

func decide(cfg *Config, jobs []*rt, t float64) (Decisions, error) {
	core, byW, err := coreOf(cfg, jobs)
	if err != nil {
		return Decisions{}, &RequestError{err.Error()}
	}
	plan := core.Schedule(t)
	d := Decisions{Admitted: map[string]string{}, Preempted: map[string]string{}}
	for _, a := range plan.Admitted {
		d.Admitted[byW[a.W].j.ID] = cfg.Flavors[a.W.Flavor()].Name
	}
	for _, p := range plan.Preempted {
		by := ""
		if r := byW[p.By]; r != nil {
			by = " for job " + r.j.ID
		}
		d.Preempted[byW[p.W].j.ID] = p.Reason + by
	}
	return d, nil
}

// PolicyID names the policy in force.
func (c *Controller) PolicyID() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cfg.PolicyID
}
