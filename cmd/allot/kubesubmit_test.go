package main

import (
	"testing"

	"github.com/allot-sim/allot/live"
	"github.com/allot-sim/allot/live/kube"
)

// allot submit --backend kubernetes --checkpoint-interval writes the
// interval where the controller reads it (the annotation), and writes
// nothing when the job does not say.
func TestKubernetesSubmitWritesTheCheckpointInterval(t *testing.T) {
	for _, c := range []struct {
		seconds float64
		want    string
		ok      bool
	}{{600, "10m0s", true}, {5400, "1h30m0s", true}, {0, "", false}} {
		s := &kubeJob{req: live.Request{Team: "research", PriorityClass: "low", Accelerators: 8, CheckpointInterval: c.seconds}, image: "train:1", resource: "nvidia.com/gpu", pods: 1}
		j, err := s.job("research")
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := j.Annotations[kube.AnnCheckpointInterval]; got != c.want || ok != c.ok {
			t.Errorf("checkpoint interval %v s: annotation %q (set %v), want %q (set %v)", c.seconds, got, ok, c.want, c.ok)
		}
	}
}
