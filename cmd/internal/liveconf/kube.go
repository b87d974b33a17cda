package liveconf

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/allot-sim/allot/hardware"
	"github.com/allot-sim/allot/live/kube"
	"github.com/allot-sim/allot/scenarios"
)

// KubeConfigure is the controller's policy on a cluster: a policy file
// (the ConfigMap's policy.yaml, named where in errors) on the cluster's
// fleet, admitting at quota level.
func KubeConfigure(where string) kube.Configure {
	return func(policy []byte, fleet []kube.FleetType) (*kube.Config, error) {
		s, err := scenarios.ParseLiveOnFleet(where, policy, FleetYAML(fleet))
		if err != nil {
			return nil, err
		}
		cfg := &kube.Config{Config: FromScenario(s, nil), PlacementTimeout: time.Duration(s.Policy.PlacementTimeout * float64(time.Second))}
		for _, t := range s.Teams {
			cfg.Namespaces = append(cfg.Namespaces, t.Namespace)
		}
		for _, f := range cfg.Model.Flavors {
			i := slices.IndexFunc(fleet, func(t kube.FleetType) bool { return t.Name == f.Name })
			cfg.Types = append(cfg.Types, fleet[i])
		}
		return cfg, nil
	}
}

// FleetYAML is the fleet section of the cluster's instance types: a type
// the catalog knows with the same accelerators per node is the catalog's
// (its price and speed); another is declared from its nodes.
func FleetYAML(fleet []kube.FleetType) string {
	cat := hardware.Builtin()
	var types, nodes strings.Builder
	for _, t := range fleet {
		if it, ok := cat.Lookup(t.Name); !ok || it.Accelerators != t.PerNode || it.Resource != t.Resource {
			accel := "generic"
			if t.Resource == kube.ResourceNeuron {
				accel = "trainium"
			}
			fmt.Fprintf(&types, "  - {name: %q, accelerator: %s, resource: %q, accelerators: %d}\n", t.Name, accel, t.Resource, t.PerNode)
		}
		fmt.Fprintf(&nodes, "  - {type: %q, count: %d}\n", t.Name, len(t.Nodes))
	}
	out := ""
	if types.Len() > 0 {
		out += "instance_types:\n" + types.String()
	}
	return out + "nodes:\n" + nodes.String()
}

// ClusterSnapshot writes a cluster's state as a snapshot allot cycle reads
// (a kube.SnapshotWriter): the policy on the cluster's fleet and the
// managed jobs; times are seconds from the earliest submission.
func ClusterSnapshot(cfg *kube.Config, held []kube.SnapJob, now time.Time, where string) ([]byte, error) {
	epoch := now
	for _, h := range held {
		if h.Submitted.Before(epoch) {
			epoch = h.Submitted
		}
	}
	var out []scenarios.SnapshotJob
	for _, h := range held {
		sj := scenarios.SnapshotJob{Name: h.ID, Queue: cfg.Teams[h.Team], Priority: h.Priority, Created: h.Submitted.Sub(epoch).Seconds(),
			Flavor: cfg.Model.FlavorIndex(h.Flavor), Want: cfg.Model.FlavorIndex(h.InstanceType), Accelerators: float64(h.Accelerators),
			VCPUs: h.VCPUs, MemoryGiB: h.MemoryGiB, Evicting: h.Evicting}
		if h.Flavor != "" && sj.Flavor < 0 {
			continue // its instance type left the fleet: the controller requeues it
		}
		if sj.Flavor >= 0 {
			sj.Admitted = h.Admitted.Sub(epoch).Seconds()
		}
		out = append(out, sj)
	}
	return scenarios.MarshalSnapshot(cfg.Model, now.Sub(epoch).Seconds(), out,
		"written by allot live snapshot --backend kubernetes from "+where+": quota level; times are seconds from the earliest submission")
}

// Remote is the kube.Remote of a target, reading the controller's policy
// as the controller does.
func Remote(t kube.Target, job kube.JobSpec) *kube.Remote {
	return &kube.Remote{Target: t, Job: job, Configure: KubeConfigure, WriteSnapshot: ClusterSnapshot}
}
