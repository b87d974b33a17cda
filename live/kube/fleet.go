package kube

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// Labels and resources the fleet is read from.
const (
	InstanceTypeLabel = "node.kubernetes.io/instance-type"
	ResourceNVIDIA    = "nvidia.com/gpu"
	ResourceNeuron    = "aws.amazon.com/neuron"
)

// FleetType is one instance type of the cluster: its healthy nodes and the
// accelerators each offers.
type FleetType struct {
	Name     string
	Resource string // nvidia.com/gpu or aws.amazon.com/neuron
	PerNode  int
	Nodes    []string // names, sorted
}

// FleetOf reads the fleet from the cluster's nodes: instance type from
// node.kubernetes.io/instance-type, accelerators from the allocatable
// nvidia.com/gpu or aws.amazon.com/neuron. Cordoned and not-Ready nodes
// leave it; left says which nodes were left out and why.
func FleetOf(nodes []corev1.Node) (types []FleetType, left []string) {
	byName := map[string]*FleetType{}
	sorted := slices.Clone(nodes)
	slices.SortFunc(sorted, func(a, b corev1.Node) int { return strings.Compare(a.Name, b.Name) })
	for _, n := range sorted {
		it := n.Labels[InstanceTypeLabel]
		res, count := accelerators(&n)
		switch {
		case it == "":
			left = append(left, n.Name+": no "+InstanceTypeLabel+" label")
			continue
		case count == 0:
			left = append(left, n.Name+": no accelerators")
			continue
		case n.Spec.Unschedulable:
			left = append(left, n.Name+": cordoned")
			continue
		case !ready(&n):
			left = append(left, n.Name+": not Ready")
			continue
		}
		t := byName[it]
		if t == nil {
			t = &FleetType{Name: it, Resource: res, PerNode: count}
			byName[it] = t
		}
		if t.Resource != res || t.PerNode != count {
			left = append(left, fmt.Sprintf("%s: %d %s, unlike the other %s nodes (%d %s)", n.Name, count, res, it, t.PerNode, t.Resource))
			continue
		}
		t.Nodes = append(t.Nodes, n.Name)
	}
	for _, t := range byName {
		if len(t.Nodes) > 0 {
			types = append(types, *t)
		}
	}
	slices.SortFunc(types, func(a, b FleetType) int { return strings.Compare(a.Name, b.Name) })
	return types, left
}

func accelerators(n *corev1.Node) (string, int) {
	for _, r := range []string{ResourceNVIDIA, ResourceNeuron} {
		if q, ok := n.Status.Allocatable[corev1.ResourceName(r)]; ok && q.Value() > 0 {
			return r, int(q.Value())
		}
	}
	return "", 0
}

func ready(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
