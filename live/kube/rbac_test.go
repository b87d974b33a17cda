package kube

import (
	"context"
	"testing"

	"github.com/allot-sim/allot/live/kube/kubetest"
	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// deploy/rbac.yaml gives the controller's ServiceAccount what it uses and
// nothing more: the other tests run the controller under it (a missing
// permission fails them); this one asks the API server about each action
// the controller must not take.
func TestControllerServiceAccountHasOnlyWhatItNeeds(t *testing.T) {
	c := kubetest.Start(t)
	c.Apply("../../deploy/namespace.yaml", "../../deploy/rbac.yaml", "../../deploy/usage.yaml")
	const sa = "system:serviceaccount:allot-system:allot-controller"
	for _, tc := range []struct {
		verb, group, resource, sub, ns, name string
		allowed                              bool
	}{
		// What it does.
		{"list", "batch", "jobs", "", "", "", true},
		{"watch", "batch", "jobs", "", "", "", true},
		{"patch", "batch", "jobs", "", "research", "train", true},
		{"patch", "batch", "jobs", "status", "research", "train", true},
		{"list", "", "pods", "", "", "", true},
		{"watch", "", "nodes", "", "", "", true},
		{"list", "", "limitranges", "", "", "", true},
		{"watch", "", "limitranges", "", "", "", true},
		{"create", "", "events", "", "research", "", true},
		{"patch", "", "events", "", "research", "x", true},
		{"list", "", "events", "", "", "", true},
		{"create", "coordination.k8s.io", "leases", "", "allot-system", "", true},
		{"update", "coordination.k8s.io", "leases", "", "allot-system", "allot-controller", true},
		{"get", "", "configmaps", "", "allot-system", "allot-policy", true},
		{"watch", "", "configmaps", "", "allot-system", "allot-policy", true},
		{"get", "", "configmaps", "", "allot-system", "allot-usage", true},
		{"update", "", "configmaps", "", "allot-system", "allot-usage", true},
		// What it must not.
		{"create", "batch", "jobs", "", "research", "", false},
		{"delete", "batch", "jobs", "", "research", "train", false},
		{"update", "batch", "jobs", "", "research", "train", false},
		{"create", "", "pods", "", "research", "", false},
		{"delete", "", "pods", "", "research", "p", false},
		{"get", "", "pods", "log", "research", "p", false},
		{"patch", "", "nodes", "", "", "n", false},
		{"create", "", "limitranges", "", "research", "", false},
		{"update", "", "limitranges", "", "research", "defaults", false},
		{"get", "", "secrets", "", "allot-system", "s", false},
		{"list", "", "secrets", "", "", "", false},
		{"update", "", "configmaps", "", "allot-system", "allot-policy", false},
		{"create", "", "configmaps", "", "allot-system", "", false},
		{"delete", "", "configmaps", "", "allot-system", "allot-usage", false},
		{"get", "", "configmaps", "", "allot-system", "other", false},
		{"list", "", "configmaps", "", "research", "", false},
		{"update", "coordination.k8s.io", "leases", "", "allot-system", "other", false},
		{"update", "coordination.k8s.io", "leases", "", "kube-system", "allot-controller", false},
		{"delete", "", "events", "", "research", "x", false},
	} {
		r := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User: sa, Groups: []string{"system:serviceaccounts", "system:serviceaccounts:allot-system", "system:authenticated"},
			ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: tc.verb, Group: tc.group, Resource: tc.resource,
				Subresource: tc.sub, Namespace: tc.ns, Name: tc.name}}}
		got, err := c.Client.AuthorizationV1().SubjectAccessReviews().Create(context.Background(), r, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got.Status.Allowed != tc.allowed {
			t.Errorf("%s %s/%s/%s in %q named %q: allowed %v, want %v", tc.verb, tc.group, tc.resource, tc.sub, tc.ns, tc.name, got.Status.Allowed, tc.allowed)
		}
	}
}
