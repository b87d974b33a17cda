package kube

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Events carry whole seconds, and the API server lists them by name: an
// admission and the preemption that ends it in the same second are put
// back in the order they were written (resourceVersion), or the history
// would read the preemption first and miss it.
func TestEventsOfOneSecondAreOrderedAsWritten(t *testing.T) {
	sec := metav1.NewTime(time.Date(2026, 12, 2, 9, 0, 5, 0, time.UTC))
	ev := func(name, rv, reason string, at metav1.Time) corev1.Event {
		return corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: name, ResourceVersion: rv}, Reason: reason, LastTimestamp: at}
	}
	evs := []corev1.Event{
		ev("job.a", "907", "InCohortReclamation", sec),
		ev("job.b", "99", "Pending", metav1.NewTime(sec.Add(time.Second))),
		ev("job.c", "880", "Admitted", sec),
		ev("job.d", "12", "Suspended", metav1.NewTime(sec.Add(-time.Second))),
	}
	SortEvents(evs)
	var got []string
	for _, e := range evs {
		got = append(got, e.Reason)
	}
	want := []string{"Suspended", "Admitted", "InCohortReclamation", "Pending"}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("order %v, want %v", got, want)
		}
	}
}
