package liveconf

import (
	"os"
	"testing"
)

// One scheduling pass on a snapshot gives each admitted job its flavors
// and each preempted job the reason.
func TestSnapshotDecisionsNameFlavorsAndReasons(t *testing.T) {
	data, err := os.ReadFile("../../../docs/examples/snapshot.yaml")
	if err != nil {
		t.Fatal(err)
	}
	d, err := SnapshotDecisions("snapshot.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Admitted["sweep-trial-3"]; got != "p4d.24xlarge" || len(d.Admitted) != 1 {
		t.Errorf("admitted %v, want sweep-trial-3 on p4d.24xlarge", d.Admitted)
	}
	if got := d.Preempted["research-pretrain"]; got != "InCohortReclamation" || len(d.Preempted) != 1 {
		t.Errorf("preempted %v, want research-pretrain for InCohortReclamation", d.Preempted)
	}
	if _, err := SnapshotDecisions("bad.yaml", []byte("kind: [")); err == nil {
		t.Error("a snapshot that does not parse gave no error")
	}
}
