package kube

import (
	"testing"

	"github.com/allot-sim/allot/live"
)

// A submission's checkpoint interval (allot submit --backend kubernetes
// --checkpoint-interval) is written where the controller reads it (the
// annotation), and nothing is written when the job does not say.
func TestKubernetesSubmitWritesTheCheckpointInterval(t *testing.T) {
	for _, c := range []struct {
		seconds float64
		want    string
		ok      bool
	}{{600, "10m0s", true}, {5400, "1h30m0s", true}, {0, "", false}} {
		req := &live.Request{Team: "research", PriorityClass: "low", Accelerators: 8, CheckpointInterval: c.seconds}
		s := &JobSpec{Image: "train:1", Resource: "nvidia.com/gpu", Pods: 1}
		j, err := s.Job(req, "research")
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := j.Annotations[AnnCheckpointInterval]; got != c.want || ok != c.ok {
			t.Errorf("checkpoint interval %v s: annotation %q (set %v), want %q (set %v)", c.seconds, got, ok, c.want, c.ok)
		}
	}
}
