package liveconf

import (
	"os"
	"strings"
	"testing"

	"github.com/allot-sim/allot/live/kube"
)

// The cluster's instance types become the policy's fleet: a type the
// catalog knows with its accelerators is the catalog's, another is
// declared from its nodes; the teams' namespaces and the placement
// timeout come from the policy file.
func TestKubernetesPolicyIsReadOnTheClustersFleet(t *testing.T) {
	data, err := os.ReadFile("../../../scenarios/live/kubernetes.yaml")
	if err != nil {
		t.Fatal(err)
	}
	fleet := []kube.FleetType{
		{Name: "p5.48xlarge", Resource: kube.ResourceNVIDIA, PerNode: 8, Nodes: []string{"n1", "n2"}},
		{Name: "trn1.32xlarge", Resource: kube.ResourceNeuron, PerNode: 16, Nodes: []string{"t1"}},
	}
	cfg, err := KubeConfigure("ConfigMap allot-system/allot-policy")(data, fleet)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(cfg.Namespaces, ","); got != "research,prod" {
		t.Errorf("namespaces %s, want research,prod", got)
	}
	if cfg.PlacementTimeout.Minutes() != 2 {
		t.Errorf("placement timeout %v, want 2m", cfg.PlacementTimeout)
	}
	var names []string
	for f, fl := range cfg.Model.Flavors {
		names = append(names, fl.Name)
		if cfg.Types[f].Name != fl.Name {
			t.Errorf("flavor %d is %s, its fleet type %s", f, fl.Name, cfg.Types[f].Name)
		}
	}
	if got := strings.Join(names, ","); got != "p5.48xlarge,trn1.32xlarge" {
		t.Errorf("flavors %s", got)
	}
	if n := cfg.Model.Flavors[0].Nodes; n != 2 {
		t.Errorf("p5.48xlarge has %d nodes, want the cluster's 2", n)
	}
	withFleet := append([]byte("fleet: {nodes: [{type: p5.48xlarge, count: 1}]}\n"), data...)
	if _, err := KubeConfigure("ConfigMap allot-system/allot-policy")(withFleet, fleet); err == nil || !strings.Contains(err.Error(), "ConfigMap allot-system/allot-policy:1: fleet: the fleet comes from the cluster's nodes") {
		t.Errorf("a policy with its own fleet: %v", err)
	}
}
