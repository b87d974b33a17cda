package main

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/allot-sim/allot/live/kube/kubetest"
	"github.com/allot-sim/allot/scripts/k8s/kueuehistory"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
)

// runKueueHistory records scripts/k8s/kueuehistory's history under the
// real Kueue v0.17: a control plane with its nodes, its policy exported
// and applied, and its 217 Jobs submitted in real time and run to
// completion (about four minutes). The cluster, Kueue included, runs
// until the test ends: h.Cluster.Kubeconfig is where allot import kueue
// reads it. It skips, as the differential test does, without the
// control plane's and Kueue's binaries.
func runKueueHistory(t *testing.T) *kueuehistory.History {
	t.Helper()
	bin := os.Getenv(KueueBinEnv)
	if bin == "" {
		if os.Getenv(kubetest.RequiredEnv) != "" {
			t.Fatalf("%s is not set: run scripts/k8s/kueue.sh (make test does)", KueueBinEnv)
		}
		t.Skipf("no Kueue manager: %s is not set (scripts/k8s/kueue.sh builds it; make test does)", KueueBinEnv)
	}
	h := kueuehistory.Start(t, bin)
	if err := h.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Logf("Kueue ran %d Jobs in %v", len(h.Jobs), h.Took.Round(time.Second))
	return h
}

// Every Job of the history completes under Kueue, and its Workload
// records the whole of it: QuotaReserved, Admitted and Finished, in that
// order, after it was created; and queues formed (the history is not
// one of jobs admitted at once).
// (TestAnImportedKueueHistoryReplaysKueuesOrderAndWaits checks it on the
// history it records: one history, minutes of Kueue, serves both.)
func checkKueueRecordedTheHistory(t *testing.T, h *kueuehistory.History) {
	t.Helper()
	dyn, err := dynamic.NewForConfig(h.Cluster.AdminConfig())
	if err != nil {
		t.Fatal(err)
	}
	ws, err := kueuehistory.Workloads(context.Background(), dyn)
	if err != nil {
		t.Fatal(err)
	}
	if len(ws) != len(h.Jobs) || len(h.Jobs) < 200 {
		t.Fatalf("%d Workloads for %d Jobs, want one each and at least 200", len(ws), len(h.Jobs))
	}
	waited, waits := 0, 0.0
	for _, w := range ws {
		at := w.CreationTimestamp.Time
		for _, typ := range []string{kueue.WorkloadQuotaReserved, kueue.WorkloadAdmitted, kueue.WorkloadFinished} {
			c := findCond(w.Status.Conditions, typ)
			if c == nil || c.Status != metav1.ConditionTrue || c.LastTransitionTime.Time.Before(at) {
				t.Errorf("workload %s/%s: %s is %+v, want true at or after %v", w.Namespace, w.Name, typ, c, at)
				break
			}
			if typ == kueue.WorkloadQuotaReserved {
				wait := c.LastTransitionTime.Sub(w.CreationTimestamp.Time).Seconds()
				waits += wait
				if wait >= 10 {
					waited++
				}
			}
			at = c.LastTransitionTime.Time
		}
	}
	t.Logf("mean wait %.1f s; %d of %d Workloads waited 10 s or more", waits/float64(len(ws)), waited, len(ws))
	if waited < len(ws)/4 {
		t.Errorf("%d of %d Workloads waited 10 s or more for quota, want a quarter at least: no queues formed", waited, len(ws))
	}
}
