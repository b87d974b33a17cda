package scenarios

import (
	"strings"

	"github.com/allot-sim/allot/workload"
)

// Policy is the policy section with defaults applied.
type Policy struct {
	Kind             string
	Backfill         bool
	BackfillDepth    int
	EstimateFactor   workload.Dist // runtime estimate = duration × a draw
	Queueing         string        // best-effort-fifo | strict-fifo
	Admission        string        // task-ranking | first-come
	IdleAllocation   string        // fair-share | first-come
	FairStrategies   []string
	Reclaim          string // any | lower-priority | never
	PreemptWhileBorr string // never | lower-priority
	BorrowThreshold  *int
	Fallback         string // try-next-type | borrow-first | preempt-first
	UsageHalfLife    float64
	ShareDecay       float64
	ComputeReserve   float64 // fraction
	QuotaShares      bool
	Reservations     string // fifo, priority: hard (quota is a fixed reservation) | none
	Preemption       PreemptionModel
	// PlacementTimeout (s): on Kubernetes, a job admitted but not running
	// by then is suspended and requeued (Kueue's waitForPodsReady).
	// PlacementTimeoutSet says the file set it (else it is the default).
	PlacementTimeout    float64
	PlacementTimeoutSet bool
}

// PreemptionModel is what stopping a job costs.
type PreemptionModel struct {
	GracePeriod         float64
	CheckpointSave      float64
	Restore             float64
	MaxRetries          int     // -1 = unlimited
	MinRuntime          float64 // s a running job is protected from preemption after each start
	PreferLeastLostWork bool
}

func oneOf(v string, def string, allowed ...string) (string, bool) {
	if v == "" {
		return def, true
	}
	for _, a := range allowed {
		if v == a {
			return v, true
		}
	}
	return v, false
}

func (b *builder) policy() error {
	p := b.f.Policy
	if p == nil {
		return b.errAt("policy", "required (at least policy.kind: fifo | priority | fairshare | quota)")
	}
	pol := Policy{EstimateFactor: workload.Fixed(1), Preemption: PreemptionModel{GracePeriod: 30, CheckpointSave: 120, Restore: 300, MaxRetries: -1},
		PlacementTimeout: 300}
	var ok bool
	checks := []struct {
		dst     *string
		v, def  string
		key     string
		allowed []string
	}{
		{&pol.Kind, p.Kind, "", "kind", []string{"fifo", "priority", "fairshare", "quota"}},
		{&pol.Queueing, p.Queueing, "best-effort-fifo", "queueing", []string{"best-effort-fifo", "strict-fifo"}},
		{&pol.Admission, p.Admission, "task-ranking", "admission", []string{"task-ranking", "first-come"}},
		{&pol.IdleAllocation, p.IdleAllocation, "fair-share", "idle_allocation", []string{"fair-share", "first-come"}},
		{&pol.Reclaim, p.Reclaim, "any", "reclaim", []string{"any", "lower-priority", "never"}},
		{&pol.PreemptWhileBorr, p.PreemptWhileBorrowing, "never", "preempt_while_borrowing", []string{"never", "lower-priority"}},
		{&pol.Fallback, p.Fallback, "try-next-type", "fallback", []string{"try-next-type", "borrow-first", "preempt-first"}},
		{&pol.Reservations, p.Reservations, "hard", "reservations", []string{"hard", "none"}},
	}
	for _, c := range checks {
		if *c.dst, ok = oneOf(c.v, c.def, c.allowed...); !ok || *c.dst == "" {
			if c.v == "" {
				return b.errAt("policy."+c.key, "required: one of %s", strings.Join(c.allowed, ", "))
			}
			return b.errAt("policy."+c.key, "%q is not one of %s", c.v, strings.Join(c.allowed, ", "))
		}
	}
	for i, st := range p.FairSharingStrategies {
		if st != "LessThanOrEqualToFinalShare" && st != "LessThanInitialShare" {
			return b.errAt("policy.fair_sharing_strategies"+index(i), "%q is not LessThanOrEqualToFinalShare or LessThanInitialShare", st)
		}
	}
	pol.FairStrategies = p.FairSharingStrategies
	pol.Backfill = p.Backfill
	pol.BackfillDepth = 1000
	if p.BackfillDepth != nil {
		if *p.BackfillDepth < 0 {
			return b.errAt("policy.backfill_depth", "must be >= 0 (0 = the whole queue), got %d", *p.BackfillDepth)
		}
		pol.BackfillDepth = *p.BackfillDepth
	}
	if re := p.RuntimeEstimate; re != nil {
		if re.Fixed != nil {
			if !(*re.Fixed > 0) {
				return b.errAt("policy.runtime_estimate", "must be > 0, got %g", *re.Fixed)
			}
			pol.EstimateFactor = workload.Fixed(*re.Fixed)
		} else {
			d, err := b.dist(re.Dist, "policy.runtime_estimate", false)
			if err != nil {
				return err
			}
			pol.EstimateFactor = d
		}
	}
	pol.BorrowThreshold = p.BorrowPriorityThreshold
	pol.UsageHalfLife = p.UsageHalfLife.Seconds
	pol.ShareDecay = p.ShareDecay.Seconds
	if cr := p.ComputeReservation; cr.Set {
		if !cr.Percent {
			return b.errAt("policy.compute_reservation", "a percentage from 0%% to 99%%, got the bare number %g", cr.Value)
		}
		if cr.Value >= 1 {
			return b.errAt("policy.compute_reservation", "a percentage from 0%% to 99%%, got %g%%", cr.Value*100)
		}
		pol.ComputeReserve = cr.Value
	}
	pol.QuotaShares = p.QuotaShares
	if pm := p.Preemption; pm != nil {
		if pm.GracePeriod.Set {
			pol.Preemption.GracePeriod = pm.GracePeriod.Seconds
		}
		if pm.CheckpointSave.Set {
			pol.Preemption.CheckpointSave = pm.CheckpointSave.Seconds
		}
		if pm.Restore.Set {
			pol.Preemption.Restore = pm.Restore.Seconds
		}
		if pm.MaxRetries != nil {
			if *pm.MaxRetries < -1 {
				return b.errAt("policy.preemption.max_retries", "-1 (unlimited) or >= 0, got %d", *pm.MaxRetries)
			}
			pol.Preemption.MaxRetries = *pm.MaxRetries
		}
		pol.Preemption.PreferLeastLostWork = pm.PreferLeastLostWork
		if pm.MinRuntime.Set {
			if pm.MinRuntime.Seconds < 0 {
				return b.errAt("policy.preemption.min_runtime", "must not be negative, got %gs", pm.MinRuntime.Seconds)
			}
			pol.Preemption.MinRuntime = pm.MinRuntime.Seconds
		}
	}
	if pt := p.PlacementTimeout; pt.Set {
		if pt.Seconds <= 0 {
			return b.errAt("policy.placement_timeout", "must be positive, got %gs", pt.Seconds)
		}
		pol.PlacementTimeout, pol.PlacementTimeoutSet = pt.Seconds, true
	}
	b.s.Policy = pol
	return nil
}
