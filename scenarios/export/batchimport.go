package export

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/allot-sim/allot/scenarios/scenfile"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/batch/types"
)

// BatchFiles are the AWS Batch files allot import aws-batch reads: each
// as the AWS CLI prints the operation's output (JSON), or, for the
// scheduling policy, job queue and quota shares, as allot export
// aws-batch writes their create inputs.
type BatchFiles struct {
	// Jobs are describe-jobs outputs and list-jobs pages.
	Jobs []string
	// SchedulingPolicy is describe-scheduling-policies output.
	SchedulingPolicy string
	// JobQueue is describe-job-queues output.
	JobQueue string
	// QuotaShares are list-quota-shares pages or describe-quota-share
	// outputs.
	QuotaShares []string
	// ComputeEnvironments are describe-compute-environments pages.
	ComputeEnvironments []string
}

// batchImport is an AWS Batch import under way.
type batchImport struct {
	w      importWarnings
	fleet  *awsFleet
	file   scenfile.File
	teams  map[string]int // index in file.Teams
	queue  *types.JobQueueDetail
	policy *types.SchedulingPolicyDetail
}

// FromBatch reads an AWS Batch job queue's configuration and history
// into a scenario (with jobs) or a policy file (without): the scheduling
// policy (fair share or quota shares), the teams (share identifiers,
// quota shares), the fleet (compute environments; else the quota shares
// or the record, with a warning) and the jobs.
func FromBatch(in BatchFiles) (*Imported, error) {
	b := &batchImport{fleet: newAWSFleet(), teams: map[string]int{}}
	if err := b.readPolicy(in); err != nil {
		return nil, err
	}
	b.policySection()
	if err := b.quotaShares(in.QuotaShares); err != nil {
		return nil, err
	}
	rec, err := readBatchRecord(in.Jobs, &b.w)
	if err != nil {
		return nil, err
	}
	jobs, cols, end := rec.trace(b.name())
	b.shareDistribution(jobs)
	for _, j := range jobs {
		b.team(j.Team)
	}
	if len(b.file.Teams) == 0 {
		b.team(b.name())
	}
	b.file.PriorityClasses = batchClasses(rec.classes, &b.w)
	if err := b.sizeFleet(in, jobs); err != nil {
		return nil, err
	}
	b.pinTypes(jobs)
	b.file.Name = b.name()
	return &Imported{File: &b.file, Jobs: jobs, Columns: cols, End: end, Warnings: b.w.lines, Source: b.source(in)}, nil
}

// name is the queue's name, else the policy's, else "aws-batch".
func (b *batchImport) name() string {
	switch {
	case b.queue != nil && aws.ToString(b.queue.JobQueueName) != "":
		return aws.ToString(b.queue.JobQueueName)
	case b.policy != nil && aws.ToString(b.policy.Name) != "":
		return aws.ToString(b.policy.Name)
	}
	return "aws-batch"
}

// readPolicy reads the job queue and its scheduling policy: where a file
// holds several, the one the other names.
func (b *batchImport) readPolicy(in BatchFiles) error {
	var queues []types.JobQueueDetail
	var policies []types.SchedulingPolicyDetail
	var err error
	if in.JobQueue != "" {
		if queues, err = readJobQueues(in.JobQueue, &b.w); err != nil {
			return err
		}
	}
	if in.SchedulingPolicy != "" {
		if policies, err = readSchedulingPolicies(in.SchedulingPolicy, &b.w); err != nil {
			return err
		}
	}
	switch {
	case len(queues) == 1:
		b.queue = &queues[0]
	case len(queues) > 1:
		for i, q := range queues {
			if slices.ContainsFunc(policies, func(p types.SchedulingPolicyDetail) bool {
				return p.Arn != nil && aws.ToString(p.Arn) == aws.ToString(q.SchedulingPolicyArn)
			}) {
				b.queue = &queues[i]
			}
		}
		if b.queue == nil {
			return fmt.Errorf("%s: jobQueues: %d queues (%s): give a file with the one to import (aws batch describe-job-queues --job-queues NAME)", in.JobQueue, len(queues), batchQueueNames(queues))
		}
	}
	switch {
	case len(policies) == 1:
		b.policy = &policies[0]
	case len(policies) > 1:
		for i, p := range policies {
			if b.queue != nil && p.Arn != nil && *p.Arn == aws.ToString(b.queue.SchedulingPolicyArn) {
				b.policy = &policies[i]
			}
		}
		if b.policy == nil {
			return fmt.Errorf("%s: schedulingPolicies: %d policies and no job queue naming one of them (--job-queue): give a file with the one to import", in.SchedulingPolicy, len(policies))
		}
	}
	return b.checkPair()
}

// checkPair warns where the queue and the policy do not go together.
func (b *batchImport) checkPair() error {
	q, p := b.queue, b.policy
	if p != nil && p.FairsharePolicy != nil && p.QuotaSharePolicy != nil {
		return fmt.Errorf("schedulingPolicies[%s]: both fairsharePolicy and quotaSharePolicy: Batch takes one", aws.ToString(p.Name))
	}
	if q == nil {
		return nil
	}
	obj := "jobQueues[" + aws.ToString(q.JobQueueName) + "]"
	arn := aws.ToString(q.SchedulingPolicyArn)
	switch {
	case arn != "" && p == nil:
		b.w.add(obj, "schedulingPolicyArn", "%s: its scheduling policy was not given (--scheduling-policy): first in, first out assumed", arn)
	case arn == "" && p != nil:
		b.w.add(obj, "schedulingPolicyArn", "none: the queue is first in, first out, yet a scheduling policy was given: the policy is imported")
	case p != nil && p.Arn != nil && *p.Arn != arn && !strings.HasSuffix(arn, "/"+aws.ToString(p.Name)):
		b.w.add(obj, "schedulingPolicyArn", "%s is not the given policy's ARN %s: the given policy is imported", arn, *p.Arn)
	}
	if q.State == types.JQStateDisabled {
		b.w.add(obj, "state", "DISABLED: imported as if enabled")
	}
	if len(q.JobStateTimeLimitActions) > 0 {
		b.w.add(obj, "jobStateTimeLimitActions", "jobs cancelled after waiting too long are not modelled: they wait")
	}
	return nil
}

// policySection is the policy: fair share, quota shares, or FIFO.
func (b *batchImport) policySection() {
	pol := &b.file.Policy
	pol.Kind = "fifo"
	p := b.policy
	switch {
	case p == nil:
		if b.queue == nil {
			b.w.add("policy", "", "no job queue or scheduling policy given: first in, first out (a Batch queue without a scheduling policy)")
		}
	case p.FairsharePolicy != nil:
		fp, obj := p.FairsharePolicy, "schedulingPolicies["+aws.ToString(p.Name)+"]"
		pol.Kind = "fairshare"
		if d := aws.ToInt32(fp.ShareDecaySeconds); d > 0 {
			pol.ShareDecay = scenfile.Dur(float64(d))
			b.w.add(obj, "fairsharePolicy.shareDecaySeconds", "%d: Batch decays usage over a window, allot by a half-life: share_decay %s", d, pol.ShareDecay)
		}
		if r := aws.ToInt32(fp.ComputeReservation); r > 0 {
			pol.ComputeReservation = scenfile.Percent(float64(r) / 100)
		}
	case p.QuotaSharePolicy != nil:
		pol.Kind, pol.QuotaShares = "fairshare", true
		b.w.add("policy", "preemption", "Batch sets no grace period, checkpoint or restore time for a preempted job (what the job does): allot's defaults")
		if s := p.QuotaSharePolicy.IdleResourceAssignmentStrategy; s != "" && s != types.QuotaShareIdleResourceAssignmentStrategyFifo {
			b.w.add("schedulingPolicies["+aws.ToString(p.Name)+"]", "quotaSharePolicy.idleResourceAssignmentStrategy", "%s: allot hands idle capacity out first come (FIFO)", s)
		}
	default:
		b.w.add("schedulingPolicies["+aws.ToString(p.Name)+"]", "", "neither fairsharePolicy nor quotaSharePolicy: first in, first out")
	}
}

// team is the index of a team, added (weight and quota unset) when new.
func (b *batchImport) team(name string) int {
	if i, ok := b.teams[name]; ok {
		return i
	}
	b.teams[name] = len(b.file.Teams)
	b.file.Teams = append(b.file.Teams, scenfile.Team{Name: name})
	return b.teams[name]
}

func (b *batchImport) source(in BatchFiles) string {
	var names []string
	for _, group := range [][]string{{in.JobQueue, in.SchedulingPolicy}, in.QuotaShares, in.ComputeEnvironments, in.Jobs} {
		for _, p := range group {
			if p != "" {
				names = append(names, filepath.Base(p))
			}
		}
	}
	return "AWS Batch (" + sourceList(names) + ")"
}

func batchQueueNames(qs []types.JobQueueDetail) string {
	var names []string
	for _, q := range qs {
		names = append(names, aws.ToString(q.JobQueueName))
	}
	return strings.Join(names, ", ")
}

// sourceList names the files an AWS import read: the first few and how
// many more, for the written file's header.
func sourceList(names []string) string {
	const shown = 4
	if len(names) <= shown {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more files", strings.Join(names[:shown], ", "), len(names)-shown)
}
