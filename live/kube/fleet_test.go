package kube

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func node(name, instanceType, res string, accel int64, ready corev1.ConditionStatus, cordoned bool) corev1.Node {
	n := corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{}},
		Spec: corev1.NodeSpec{Unschedulable: cordoned},
		Status: corev1.NodeStatus{Allocatable: corev1.ResourceList{},
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: ready}}}}
	if instanceType != "" {
		n.Labels[InstanceTypeLabel] = instanceType
	}
	if res != "" {
		n.Status.Allocatable[corev1.ResourceName(res)] = *resource.NewQuantity(accel, resource.DecimalSI)
	}
	return n
}

// The fleet is the Ready, schedulable nodes with an instance type and
// accelerators, grouped by type; every node left out says why.
func TestFleetIsTheReadySchedulableAcceleratorNodesByInstanceType(t *testing.T) {
	T, F := corev1.ConditionTrue, corev1.ConditionFalse
	types, left := FleetOf([]corev1.Node{
		node("p5-b", "p5.48xlarge", ResourceNVIDIA, 8, T, false),
		node("p5-a", "p5.48xlarge", ResourceNVIDIA, 8, T, false),
		node("p5-down", "p5.48xlarge", ResourceNVIDIA, 8, F, false),
		node("p5-cordoned", "p5.48xlarge", ResourceNVIDIA, 8, T, true),
		node("p5-odd", "p5.48xlarge", ResourceNVIDIA, 4, T, false),
		node("trn", "trn1.32xlarge", ResourceNeuron, 16, T, false),
		node("cpu", "m7i.48xlarge", "", 0, T, false),
		node("bare", "", ResourceNVIDIA, 8, T, false),
	})
	want := []FleetType{
		{Name: "p5.48xlarge", Resource: ResourceNVIDIA, PerNode: 8, Nodes: []string{"p5-a", "p5-b"}},
		{Name: "trn1.32xlarge", Resource: ResourceNeuron, PerNode: 16, Nodes: []string{"trn"}},
	}
	if !slices.EqualFunc(types, want, func(a, b FleetType) bool {
		return a.Name == b.Name && a.Resource == b.Resource && a.PerNode == b.PerNode && slices.Equal(a.Nodes, b.Nodes)
	}) {
		t.Errorf("fleet %+v, want %+v", types, want)
	}
	wantLeft := []string{
		"bare: no node.kubernetes.io/instance-type label",
		"cpu: no accelerators",
		"p5-cordoned: cordoned",
		"p5-down: not Ready",
		"p5-odd: 4 nvidia.com/gpu, unlike the other p5.48xlarge nodes (8 nvidia.com/gpu)",
	}
	if !slices.Equal(left, wantLeft) {
		t.Errorf("left out:\n%q\nwant\n%q", left, wantLeft)
	}
}
