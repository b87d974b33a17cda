// Package policies is allot's scheduling core: a deterministic state machine
// that holds queues, quotas, nodes and jobs, and answers one question — given
// this state at this instant, which jobs start, on which instance type and
// nodes, and which running jobs are preempted:
//
//	plan := core.Schedule(now)
//
// It does no I/O, reads no clock and starts no goroutine; time is an argument.
// The simulator and live mode are two shells around it: they tell the core
// what happened (a job arrived, finished, was evicted, a node failed) and carry
// out its plans. The same state gives the same plan, byte for byte.
//
// Four policies share the core:
//
//   - fifo: one queue in arrival order; the head blocks everyone (unless
//     backfill lets a later job start without delaying it).
//   - priority: one queue ordered by priority, then arrival ("task ranking").
//   - fairshare: AWS Batch fair share — the next job comes from the share
//     (team) with the lowest decayed usage per weight; never preempts.
//   - quota: Kueue / SageMaker HyperPod task governance — teams are queues
//     with nominal quota per instance type and resource, grouped in cohorts
//     that lend and borrow idle quota; preemption within a team by priority,
//     reclaim of lent quota, fair sharing of idle capacity by dominant
//     resource share, and fallback across compatible instance types.
//
// The vocabulary is Kueue's where it fits: a flavor is an instance type, a
// queue is a team, a podset is a group of identical pods of one job.
package policies
