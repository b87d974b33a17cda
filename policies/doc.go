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
// # Glossary
//
// The vocabulary is Kueue's where it fits.
//
//   - flavor: an instance type (p5.48xlarge, trn1.32xlarge); its nodes form
//     a pool (pool.go) when the model places jobs on nodes.
//   - queue: a team (Kueue's ClusterQueue); its sub-queues hold its
//     waiting jobs by shape and user; the order they wait in is
//     waitsBefore (queues.go): priority, then arrival.
//   - cohort: a group of queues and cohorts that lend each other idle
//     quota; the quota tree (quota.go) is the cohorts and queues with
//     their usage; a root is a cohort without a parent.
//   - nominal quota: what a queue or cohort owns of a flavor-resource;
//     borrowing is usage above it, within a borrowing limit and what
//     others may lend (lending limit); withinNominal and fitsAt are the
//     tests against it.
//   - podset: a group of identical pods of one job; a shape is an interned
//     request, shared by jobs that ask for the same.
//   - head: the job a queue offers in a cycle; a nomination gives it an
//     entry (assign.go): a flavor assignment per podset and resource
//     group, a mode (fits, preempts, no fit) and, to preempt, its targets.
//   - target (victim): a running job a head would preempt, with the reason
//     (within its queue, reclaiming lent quota, fair sharing);
//     candidates are the running jobs a search may take, in the order of
//     the victim index (victims.go); mayTake (preempt.go) says whether
//     one may be taken at all.
//   - fair sharing: queues' dominant resource shares (drs.go) decide the
//     order of heads (a tournament, tournament.go) and who loses quota.
//   - sticky head: a head that issued preemptions and waits for its
//     victims to stop; it is claimed over its victims meanwhile.
//   - protection: a job that ran less than its minimum runtime may not be
//     preempted (minruntime.go).
//   - engine: how a policy kind queues and decides (engine.go): fifo and
//     priority, fairshare (AWS Batch's shares), quota (Kueue's cycle).
//   - plan: what Schedule returns: admissions, preemptions, when to wake.
//   - state version: a counter that moves with every change the shortcuts
//     read, only through Core.changed (invalidate.go).
//   - shortcut: a way the core answers without computing again (Shortcut,
//     shortcuts.go): each is a memory beside a pure rule, told of changes
//     through Core.changed, switched off by WithShortcutsOff, and recomputed and
//     compared on every answer in the allotcheck build (check.go).
package policies
