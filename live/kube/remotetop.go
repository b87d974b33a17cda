package kube

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/allot-sim/allot/live"
	"github.com/allot-sim/allot/workload"
	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// SnapshotWriter writes a cluster's state as a snapshot file that allot
// cycle reads: the policy on the cluster's fleet (where says whence it
// came), the managed jobs not yet done, and the time of the look.
type SnapshotWriter func(cfg *Config, jobs []SnapJob, now time.Time, where string) ([]byte, error)

// Top is one look at the cluster for allot top: its fleet, the policy's
// quotas per team (none when the policy cannot be read), and the managed
// jobs.
func (r *Remote) Top() (live.Overview, []live.View, error) {
	cs, err := r.Client()
	if err != nil {
		return live.Overview{}, nil, err
	}
	ctx := context.Background()
	nodes, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return live.Overview{}, nil, err
	}
	fleet, _ := FleetOf(nodes.Items)
	devices := 0
	for _, t := range fleet {
		devices += t.PerNode * len(t.Nodes)
	}
	var teams []live.TeamUsage
	pns, pname := r.PolicyConfigMap()
	if cm, err := cs.CoreV1().ConfigMaps(pns).Get(ctx, pname, metav1.GetOptions{}); err == nil {
		if cfg, err := r.Configure("ConfigMap "+pns+"/"+pname)([]byte(cm.Data[PolicyKey]), fleet); err == nil {
			for i, t := range cfg.Teams {
				u := live.TeamUsage{Team: t}
				for _, q := range cfg.Quotas[i] {
					u.Quota += q
				}
				teams = append(teams, u)
			}
		}
	}
	views, err := r.Jobs(true)
	if err != nil {
		return live.Overview{}, nil, err
	}
	for _, v := range views {
		if !slices.ContainsFunc(teams, func(u live.TeamUsage) bool { return u.Team == v.Team }) {
			teams = append(teams, live.TeamUsage{Team: v.Team})
		}
	}
	return live.Tally(devices, teams, views), live.OpenJobs(views), nil
}

// Snapshot is the cluster's state under the controller's policy.
func (r *Remote) Snapshot() ([]byte, error) { return r.SnapshotUnder("", nil) }

// SnapshotUnder is the cluster's state as a snapshot under a policy file's
// text (where names it), or under the controller's policy ConfigMap's
// when policy is nil: at quota level, as the controller admits.
func (r *Remote) SnapshotUnder(where string, policy []byte) ([]byte, error) {
	cs, err := r.Client()
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	nodes, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	fleet, _ := FleetOf(nodes.Items)
	if policy == nil {
		pns, pname := r.PolicyConfigMap()
		cm, err := cs.CoreV1().ConfigMaps(pns).Get(ctx, pname, metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		where, policy = "ConfigMap "+pns+"/"+pname, []byte(cm.Data[PolicyKey])
	}
	cfg, err := r.Configure(where)(policy, fleet)
	if err != nil {
		return nil, &InputError{err}
	}
	cfg.Model.NodesModelled = false // as the controller admits
	jobs, err := cs.BatchV1().Jobs("").List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	pods, err := cs.CoreV1().Pods("").List(ctx, metav1.ListOptions{LabelSelector: batchv1.ControllerUidLabel})
	if err != nil {
		return nil, err
	}
	ranges, err := cs.CoreV1().LimitRanges("").List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	return r.WriteSnapshot(cfg, Snapshot(cfg, jobs.Items, pods.Items, ranges.Items), time.Now(), where)
}

// DryRun forecasts a job on the cluster without creating it.
func (r *Remote) DryRun(req *live.Request) (*workload.Forecast, error) {
	return nil, errors.New("submit --dry-run: not yet")
}
