// Package kube is live mode on Kubernetes: the same policies.Core admits,
// places and preempts batch/v1 Jobs the way Kueue does. Jobs are created
// suspended; admission sets the chosen instance type as a node selector
// and un-suspends, preemption suspends (the Job controller deletes the
// pods with their grace period) and the job keeps its place in its queue.
//
// The controller keeps no state of its own: every sync lists Jobs, Pods,
// Nodes and the policy ConfigMap from the API server and rebuilds the core
// from them, so a restarted controller (or a new leader) neither admits
// anything twice nor forgets a preemption in progress. Decisions and
// reasons go back as Job annotations and Events.
package kube
