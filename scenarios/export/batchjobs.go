package export

import (
	"fmt"
	"os"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/batch"
	"github.com/aws/aws-sdk-go-v2/service/batch/types"
)

// batchJob is one job of a Batch record, from describe-jobs (detail) or
// a list-jobs page (a summary, which gives no resource requirements).
type batchJob struct {
	id, queue, share string
	status           types.JobStatus
	priority         *int32
	// Epoch milliseconds; 0 = not given.
	created, started, stopped int64
	attempts                  []batchAttempt
	res                       batchRes
	instanceType              string
	detail                    bool
	arraySize                 int  // > 0: an array job's parent, not a job itself
	arrayChild, nodeChild     bool // a child of an array job, a node of a multi-node job
	dependsOn                 bool
	where                     string // file: path, for warnings
}

// batchAttempt is one run of a job; stop 0 = still running.
type batchAttempt struct{ start, stop int64 }

// readBatchJobs reads describe-jobs output ({"jobs": [...]}) or a
// list-jobs page ({"jobSummaryList": [...], "nextToken": ...}) and the
// members it reads past.
func readBatchJobs(path string) ([]batchJob, []string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	d, err := readAWSDoc(path, data)
	if err != nil {
		return nil, nil, err
	}
	var out []batchJob
	switch {
	case d.has("jobs"):
		var resp batch.DescribeJobsOutput
		if err := d.decode(&resp); err != nil {
			return nil, nil, err
		}
		for i := range resp.Jobs {
			j, err := d.batchDetail(&resp.Jobs[i], fmt.Sprintf("jobs[%d]", i))
			if err != nil {
				return nil, nil, err
			}
			out = append(out, j)
		}
	case d.has("jobSummaryList"):
		var resp batch.ListJobsOutput
		if err := d.decode(&resp); err != nil {
			return nil, nil, err
		}
		for i, s := range resp.JobSummaryList {
			at := fmt.Sprintf("jobSummaryList[%d]", i)
			if s.JobId == nil {
				return nil, nil, &awsPathError{path, at + ".jobId", "required"}
			}
			j := batchJob{id: *s.JobId, share: aws.ToString(s.ShareIdentifier), status: s.Status, created: aws.ToInt64(s.CreatedAt),
				started: aws.ToInt64(s.StartedAt), stopped: aws.ToInt64(s.StoppedAt), where: path + ": " + at}
			if a := s.ArrayProperties; a != nil {
				j.arraySize, j.arrayChild = int(aws.ToInt32(a.Size)), a.Index != nil
				if j.arrayChild {
					j.arraySize = 0
				}
			}
			j.nodeChild = s.NodeProperties != nil && s.NodeProperties.NodeIndex != nil
			out = append(out, j)
		}
	default:
		return nil, nil, fmt.Errorf("%s: neither describe-jobs output ({\"jobs\": [...]}) nor a list-jobs page ({\"jobSummaryList\": [...]}); it has %s",
			path, strings.Join(sortedKeys(d.root), ", "))
	}
	return out, d.unknownMembers(), nil
}

// batchDetail is a job of describe-jobs.
func (d *awsDoc) batchDetail(jd *types.JobDetail, at string) (batchJob, error) {
	if jd.JobId == nil {
		return batchJob{}, &awsPathError{d.file, at + ".jobId", "required"}
	}
	j := batchJob{id: *jd.JobId, queue: aws.ToString(jd.JobQueue), share: aws.ToString(jd.ShareIdentifier), status: jd.Status,
		priority: jd.SchedulingPriority, created: aws.ToInt64(jd.CreatedAt), started: aws.ToInt64(jd.StartedAt),
		stopped: aws.ToInt64(jd.StoppedAt), detail: true, dependsOn: len(jd.DependsOn) > 0, where: d.file + ": " + at}
	if j.started > 0 && j.stopped > 0 && j.stopped < j.started {
		return j, &awsPathError{d.file, at + ".stoppedAt", fmt.Sprintf("%d is before its startedAt %d", j.stopped, j.started)}
	}
	for i, a := range jd.Attempts {
		if a.StartedAt == nil {
			continue // an attempt that never ran (its container failed to start)
		}
		if a.StoppedAt != nil && *a.StoppedAt < *a.StartedAt {
			return j, &awsPathError{d.file, fmt.Sprintf("%s.attempts[%d].stoppedAt", at, i), fmt.Sprintf("%d is before its startedAt %d", *a.StoppedAt, *a.StartedAt)}
		}
		j.attempts = append(j.attempts, batchAttempt{*a.StartedAt, aws.ToInt64(a.StoppedAt)})
	}
	if a := jd.ArrayProperties; a != nil {
		j.arrayChild = a.Index != nil
		if !j.arrayChild {
			j.arraySize = int(aws.ToInt32(a.Size))
		}
	}
	j.nodeChild = jd.NodeDetails != nil && jd.NodeDetails.NodeIndex != nil
	if jd.Container != nil {
		j.instanceType = aws.ToString(jd.Container.InstanceType)
	}
	if np := jd.NodeProperties; np != nil && j.instanceType == "" {
		for _, nr := range np.NodeRangeProperties {
			if len(nr.InstanceTypes) == 1 {
				j.instanceType = nr.InstanceTypes[0]
			} else if nr.Container != nil && nr.Container.InstanceType != nil {
				j.instanceType = *nr.Container.InstanceType
			}
		}
	}
	var err error
	j.res, err = d.batchJobResources(jd, at)
	return j, err
}
