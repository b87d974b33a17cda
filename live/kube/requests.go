package kube

import (
	"slices"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	resourcehelpers "k8s.io/component-helpers/resource"
)

// Request is what a Job asks of the quota, all its pods together:
// accelerators (nvidia.com/gpu and aws.amazon.com/neuron), vCPUs and
// memory (GiB).
type Request struct {
	Accelerators int
	VCPUs        float64
	MemoryGiB    float64
}

// JobRequest counts a Job's request as Kueue v0.17 counts a batch/v1
// Job's workload, given the LimitRanges of its namespace: each pod's
// request (PodRequests) times the pods that run at once (Parallelism, at
// most Completions).
func JobRequest(j *batchv1.Job, ranges []corev1.LimitRange) Request {
	per := PodRequests(&j.Spec.Template.Spec, ranges)
	pods := int64(jobPods(j))
	var r Request
	for _, name := range []corev1.ResourceName{ResourceNVIDIA, ResourceNeuron} {
		if q, ok := per[name]; ok {
			r.Accelerators += int(q.Value() * pods)
		}
	}
	if q, ok := per[corev1.ResourceCPU]; ok {
		r.VCPUs = float64(q.MilliValue()*pods) / 1000
	}
	if q, ok := per[corev1.ResourceMemory]; ok {
		r.MemoryGiB = float64(q.Value()*pods) / (1 << 30)
	}
	return r
}

// jobPods is how many pods Kueue counts for a Job: its parallelism (1
// when unset), at most its completions.
func jobPods(j *batchv1.Job) int32 {
	n := int32(1)
	if j.Spec.Parallelism != nil {
		n = *j.Spec.Parallelism
	}
	if c := j.Spec.Completions; c != nil && *c < n {
		n = *c
	}
	return n
}

// PodRequests is one pod's request as Kueue v0.17 adjusts a workload's
// pod template before counting it, in its order:
//
//  1. the LimitRanges' Container defaults: default fills a container's
//     (and an init container's) missing limits, defaultRequest its
//     missing requests; where several LimitRanges give one resource, the
//     first by name does;
//  2. a request still missing is the container's limit;
//  3. the pod's request is that of its containers (with restartable init
//     containers, the sidecars) or of its largest init container, whichever
//     is larger, per resource, plus its overhead (as the template gives
//     it: Kueue also fills it from a named RuntimeClass, allot does not).
//
// Step 3 is Kubernetes' own PodRequests, as Kueue calls it. The template
// is not changed.
func PodRequests(spec *corev1.PodSpec, ranges []corev1.LimitRange) corev1.ResourceList {
	def, defReq := containerDefaults(ranges)
	s := *spec
	s.InitContainers = adjusted(spec.InitContainers, def, defReq)
	s.Containers = adjusted(spec.Containers, def, defReq)
	return resourcehelpers.PodRequests(&corev1.Pod{Spec: s}, resourcehelpers.PodResourcesOptions{})
}

// adjusted is a copy of containers with steps 1 and 2 of PodRequests
// applied; the containers' own resource lists are not written.
func adjusted(cs []corev1.Container, def, defReq corev1.ResourceList) []corev1.Container {
	if cs == nil {
		return nil
	}
	out := slices.Clone(cs)
	for i := range out {
		r := &out[i].Resources
		r.Limits = withMissing(r.Limits, def)
		r.Requests = withMissing(r.Requests, defReq)
		r.Requests = withMissing(r.Requests, r.Limits)
	}
	return out
}

// withMissing is have with each resource of from that have lacks; have
// itself when it lacks none (it is never written).
func withMissing(have, from corev1.ResourceList) corev1.ResourceList {
	var out corev1.ResourceList
	for name, q := range from {
		if _, ok := have[name]; ok {
			continue
		}
		if out == nil {
			out = make(corev1.ResourceList, len(have)+len(from))
			for n, v := range have {
				out[n] = v
			}
		}
		out[name] = q
	}
	if out == nil {
		return have
	}
	return out
}

// containerDefaults are the Container defaults of a namespace's
// LimitRanges (default: limits; defaultRequest: requests), the first by
// name giving each resource.
func containerDefaults(ranges []corev1.LimitRange) (def, defReq corev1.ResourceList) {
	if len(ranges) == 0 {
		return nil, nil
	}
	sorted := slices.Clone(ranges)
	slices.SortFunc(sorted, func(a, b corev1.LimitRange) int { return strings.Compare(a.Name, b.Name) })
	for _, lr := range sorted {
		for _, it := range lr.Spec.Limits {
			if it.Type == corev1.LimitTypeContainer {
				def, defReq = withMissing(def, it.Default), withMissing(defReq, it.DefaultRequest)
			}
		}
	}
	return def, defReq
}

// rangesByNamespace groups LimitRanges by their namespace.
func rangesByNamespace(ranges []corev1.LimitRange) map[string][]corev1.LimitRange {
	out := map[string][]corev1.LimitRange{}
	for _, lr := range ranges {
		out[lr.Namespace] = append(out[lr.Namespace], lr)
	}
	return out
}
