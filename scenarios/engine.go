package scenarios

import (
	"fmt"
	"math"
	"slices"
)

// Engines are the managed engines a policy can be simulated under.
var Engines = []string{"kueue", "hyperpod", "aws-batch"}

// AsEngine returns the scenario with its policy as the managed engine
// would run the exported objects: each setting the engine cannot express
// is set to what the engine does instead (docs/export.md), so that a
// what-if predicts the engine, not allot. It says what it changed.
func (s *Scenario) AsEngine(engine string) (*Scenario, []string, error) {
	if !slices.Contains(Engines, engine) {
		return nil, nil, fmt.Errorf("--engine %q: want one of kueue, hyperpod, aws-batch", engine)
	}
	raw := *s.raw
	pol := *raw.Policy
	pre := preemptionYAML{}
	if pol.Preemption != nil {
		pre = *pol.Preemption
	}
	var notes []string
	note := func(format string, args ...any) { notes = append(notes, fmt.Sprintf(format, args...)) }
	unlimited := -1
	common := func() {
		if pre.MinRuntime.Seconds > 0 {
			note("policy.preemption.min_runtime %gs: none (%s has no protection after a start)", pre.MinRuntime.Seconds, engine)
			pre.MinRuntime = Duration{}
		}
		if pre.PreferLeastLostWork {
			note("policy.preemption.prefer_least_lost_work: off")
			pre.PreferLeastLostWork = false
		}
		if pol.Backfill {
			note("policy.backfill: off")
			pol.Backfill = false
		}
	}
	switch engine {
	case "kueue", "hyperpod":
		common()
		if pol.Kind != "quota" {
			note("policy.kind %s: quota (%s queues per team, with quotas)", pol.Kind, engine)
			pol.Kind = "quota"
		}
		if pol.Admission == "first-come" {
			note("policy.admission first-come: task-ranking (priority, then creation)")
			pol.Admission = "task-ranking"
		}
		if pre.MaxRetries != nil && *pre.MaxRetries >= 0 {
			note("policy.preemption.max_retries %d: unlimited", *pre.MaxRetries)
			pre.MaxRetries = &unlimited
		}
	case "aws-batch":
		common()
		switch pol.Kind {
		case "quota":
			note("policy.kind quota: fairshare with quota_shares (Batch quota shares)")
			pol.Kind, pol.QuotaShares = "fairshare", true
		case "priority":
			note("policy.kind priority: fifo (a Batch queue without a scheduling policy)")
			pol.Kind = "fifo"
		}
	}
	if engine == "hyperpod" {
		if len(raw.Cohorts) > 0 {
			note("cohorts: one cohort of every team")
			raw.Cohorts = nil
		}
		raw.Teams = slices.Clone(raw.Teams)
		for i := range raw.Teams {
			t := &raw.Teams[i]
			if t.Cohort != "" {
				t.Cohort = ""
			}
			if t.LendingLimit.Set {
				note("teams[%s].lending_limit: all (HyperPod lends all or none)", t.Name)
				t.LendingLimit = Amount{}
			}
			if !t.BorrowLimit.Set && (t.Borrow == nil || *t.Borrow) {
				note("teams[%s].borrow_limit: 500%% (HyperPod's most)", t.Name)
				t.BorrowLimit = Amount{Value: 5, Percent: true, Set: true}
			}
			if t.Weight != nil && (*t.Weight != math.Round(*t.Weight) || *t.Weight > 100) {
				w := math.Min(math.Round(*t.Weight), 100)
				note("teams[%s].weight %g: %g", t.Name, *t.Weight, w)
				t.Weight = &w
			}
			if t.PreemptWithinTeam == "lower-or-newer-equal" {
				note("teams[%s].preempt_within_team: lower-priority", t.Name)
				t.PreemptWithinTeam = "lower-priority"
			}
		}
		if pol.Reclaim == "lower-priority" {
			note("policy.reclaim lower-priority: any (HyperPod always reclaims)")
			pol.Reclaim = "any"
		}
		if pol.PreemptWhileBorrowing == "lower-priority" {
			note("policy.preempt_while_borrowing: never")
			pol.PreemptWhileBorrowing = "never"
		}
		if pol.Queueing == "strict-fifo" {
			note("policy.queueing strict-fifo: best-effort-fifo")
			pol.Queueing = "best-effort-fifo"
		}
	}
	pol.Preemption = &pre
	raw.Policy = &pol
	out, err := s.rebuild(&raw, s.at)
	return out, notes, err
}
