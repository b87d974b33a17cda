package liveconf

import (
	"fmt"
	"slices"
	"strings"

	"github.com/allot-sim/allot/live"
	"github.com/allot-sim/allot/live/kube"
	"github.com/allot-sim/allot/policies"
	"github.com/allot-sim/allot/scenarios"
)

// PreviewKube is what promoting a policy file's text (path names it) to
// a cluster's controller would change: one scheduling pass on a snapshot
// of the cluster under the controller's current policy and under the new
// one, as a daemon's promotion preview reports it.
func PreviewKube(r *kube.Remote, path string, data []byte) (*live.PolicyResponse, error) {
	pns, pname := r.PolicyConfigMap()
	cur, err := r.SnapshotUnder("", nil)
	if err != nil {
		return nil, err
	}
	next, err := r.SnapshotUnder(path, data)
	if err != nil {
		return nil, err
	}
	dc, err := SnapshotDecisions("the current policy", cur)
	if err != nil {
		return nil, err
	}
	dn, err := SnapshotDecisions(path, next)
	if err != nil {
		return nil, err
	}
	return &live.PolicyResponse{Current: dc, Promoted: dn, CurrentID: "ConfigMap " + pns + "/" + pname, NewID: PolicyID(path, data)}, nil
}

// SnapshotDecisions runs the core once on a snapshot's text (name names
// it in errors): the flavors of each job it admits, and why it preempts
// each job it preempts.
func SnapshotDecisions(name string, data []byte) (live.Decisions, error) {
	sf, err := scenarios.ParseSnapshot(name, data)
	if err != nil {
		return live.Decisions{}, err
	}
	res, err := policies.RunSnapshot(sf.Snapshot)
	if err != nil {
		return live.Decisions{}, fmt.Errorf("%s: %w", name, err)
	}
	d := live.Decisions{Admitted: map[string]string{}, Preempted: map[string]string{}}
	for _, a := range res.Admitted {
		var fl []string
		for _, byRes := range a.Flavors {
			for _, f := range byRes {
				if !slices.Contains(fl, f) {
					fl = append(fl, f)
				}
			}
		}
		slices.Sort(fl)
		d.Admitted[a.Name] = strings.Join(fl, ",")
	}
	for _, p := range res.Preempted {
		d.Preempted[p.Name] = p.Reason
	}
	return d, nil
}
