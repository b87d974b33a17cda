package export

import (
	"fmt"
	"sort"
	"strings"

	"github.com/allot-sim/allot/scenarios/scenfile"
	"github.com/allot-sim/allot/workload"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/batch/types"
)

// quotaShares reads the quota shares into teams: each capacity limit a
// quota of whole instances, the sharing strategy as lend and borrow, the
// borrow limit, in-share preemption.
func (b *batchImport) quotaShares(paths []string) error {
	var shares []batchQuotaShare
	seen := map[string]bool{}
	for _, p := range paths {
		qs, err := readQuotaShares(p, &b.w)
		if err != nil {
			return err
		}
		for _, q := range qs {
			name := aws.ToString(q.QuotaShareName)
			if seen[name] {
				b.w.add("quotaShares["+name+"]", "", "in more than one file or page: kept once")
				continue
			}
			seen[name] = true
			shares = append(shares, q)
		}
	}
	if len(shares) > 0 && !b.file.Policy.QuotaShares {
		b.w.add("quotaShares", "", "the scheduling policy is not a quota-share policy: the quota shares' capacity limits, sharing and preemption are imported, under policy.kind %s", b.file.Policy.Kind)
	}
	if len(shares) == 0 && b.file.Policy.QuotaShares {
		b.w.add("quotaShares", "", "a quota-share policy and no quota shares (--quota-shares): the teams have no quota")
	}
	for _, q := range shares {
		if err := b.quotaShare(q); err != nil {
			return err
		}
	}
	return nil
}

func (b *batchImport) quotaShare(q batchQuotaShare) error {
	name := aws.ToString(q.QuotaShareName)
	obj := "quotaShares[" + name + "]"
	if q.State == types.QuotaShareStateDisabled {
		b.w.add(obj, "state", "DISABLED: left out")
		return nil
	}
	if qn := aws.ToString(b.queueName()); qn != "" && q.JobQueueArn != nil && !strings.HasSuffix(*q.JobQueueArn, qn) {
		b.w.add(obj, "jobQueue", "%s is not the job queue %s: imported as one of its shares", *q.JobQueueArn, qn)
	}
	t := &b.file.Teams[b.team(name)]
	t.Quota = map[string]scenfile.Quota{}
	for i, c := range q.CapacityLimits {
		unit := aws.ToString(c.CapacityUnit)
		typ, per, ok := b.fleet.resolve(unit)
		if !ok || per == 0 {
			b.w.add(obj, fmt.Sprintf("capacityLimits[%d]", i), "%s: not a GPU type the catalog knows (allot catalog): left out", unit)
			continue
		}
		n := aws.ToInt32(c.MaxCapacity)
		if n < 0 {
			return fmt.Errorf("%s: capacityLimits[%d].maxCapacity: want >= 0 instances, got %d", q.where, i, n)
		}
		t.Quota[typ] = scenfile.Quota{Accelerators: float64(n) * float64(per)}
	}
	rs := q.ResourceSharingConfiguration
	if rs == nil {
		return fmt.Errorf("%s: resourceSharingConfiguration: required", q.where)
	}
	sh, ok := batchStrategies.toAllot(rs.Strategy)
	if !ok {
		return fmt.Errorf("%s: resourceSharingConfiguration.strategy: want %s, got %q", q.where, batchStrategies.engines(), rs.Strategy)
	}
	t.Lend, t.Borrow = scenfile.Ptr(sh.lend), scenfile.Ptr(sh.borrow)
	switch lim := rs.BorrowLimit; {
	case lim != nil && !(sh.lend && sh.borrow):
		b.w.add(obj, "resourceSharingConfiguration.borrowLimit", "%d with strategy %s, which does not borrow: ignored", *lim, rs.Strategy)
	case lim != nil && *lim >= 0:
		t.BorrowLimit = fmt.Sprintf("%d%%", *lim)
	case lim != nil && *lim < -1:
		return fmt.Errorf("%s: resourceSharingConfiguration.borrowLimit: want -1 (unlimited) or a percentage >= 0, got %d", q.where, *lim)
	}
	if q.PreemptionConfiguration == nil {
		b.w.add(obj, "preemptionConfiguration", "not given: in-share preemption assumed (preempt_within_team lower-priority)")
		t.PreemptWithinTeam = "lower-priority"
		return nil
	}
	preempts, ok := batchInShare.toAllot(q.PreemptionConfiguration.InSharePreemption)
	if !ok {
		return fmt.Errorf("%s: preemptionConfiguration.inSharePreemption: want %s, got %q", q.where, batchInShare.engines(), q.PreemptionConfiguration.InSharePreemption)
	}
	t.PreemptWithinTeam = "never"
	if preempts {
		t.PreemptWithinTeam = "lower-priority"
	}
	return nil
}

func (b *batchImport) queueName() *string {
	if b.queue == nil {
		return nil
	}
	return b.queue.JobQueueName
}

// shareDistribution gives the fair-share policy's weights to the teams:
// weight = 1 / weightFactor. An identifier ending in * is a prefix: its
// weight goes to every team that starts with it and has none of its own.
func (b *batchImport) shareDistribution(jobs []workload.Job) {
	if b.policy == nil || b.policy.FairsharePolicy == nil {
		return
	}
	obj := "schedulingPolicies[" + aws.ToString(b.policy.Name) + "]"
	var prefixes []types.ShareAttributes
	for _, sa := range b.policy.FairsharePolicy.ShareDistribution {
		id := aws.ToString(sa.ShareIdentifier)
		if strings.HasSuffix(id, "*") {
			prefixes = append(prefixes, sa)
			continue
		}
		t := &b.file.Teams[b.team(id)]
		t.Weight = b.weight(obj, sa)
	}
	for _, j := range jobs {
		b.team(j.Team)
	}
	for _, sa := range prefixes {
		id := aws.ToString(sa.ShareIdentifier)
		var got []string
		for i := range b.file.Teams {
			t := &b.file.Teams[i]
			if t.Weight == nil && strings.HasPrefix(t.Name, strings.TrimSuffix(id, "*")) {
				t.Weight = b.weight(obj, sa)
				got = append(got, t.Name)
			}
		}
		if len(got) == 0 {
			b.w.add(obj, "fairsharePolicy.shareDistribution["+id+"]", "a prefix no team starts with: left out")
		} else {
			b.w.add(obj, "fairsharePolicy.shareDistribution["+id+"]", "a prefix: its weight given to %s", strings.Join(got, ", "))
		}
	}
}

func (b *batchImport) weight(obj string, sa types.ShareAttributes) *float64 {
	if sa.WeightFactor == nil {
		return nil
	}
	if *sa.WeightFactor <= 0 {
		b.w.add(obj, "fairsharePolicy.shareDistribution["+aws.ToString(sa.ShareIdentifier)+"].weightFactor", "%g: not > 0: weight 1 assumed", *sa.WeightFactor)
		return nil
	}
	return scenfile.Ptr(batchWeight(*sa.WeightFactor))
}

// batchClasses are the priority classes of the jobs' schedulingPriority
// values (by class name), most important first: Batch names none.
func batchClasses(values map[string]int, w *importWarnings) []scenfile.PriorityClass {
	var out []scenfile.PriorityClass
	for name, v := range values {
		out = append(out, scenfile.PriorityClass{Name: name, Value: v})
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Value > out[b].Value })
	if len(out) > 0 {
		var names []string
		for _, c := range out {
			names = append(names, c.Name)
		}
		w.add("jobs", "schedulingPriority", "Batch names no priority classes: one class per value, named after it (%s)", strings.Join(names, ", "))
	}
	return out
}
