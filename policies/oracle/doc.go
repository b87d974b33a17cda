// Package oracle is a second, independent reading of the quota policy's
// classical preemption (../shared/reference/kueue-semantics.md §1 and §5),
// written to read like Kueue's scheduler: the quota tree computed afresh
// from the running jobs, every candidate listed, classified and sorted in
// full, victims removed from a copy of the usage until the preemptor fits,
// then the set minimised. It keeps no state between questions and calls
// nothing of the core but its model types, so it shares none of the
// core's indexes, bounds or memories: the tests run the core and the
// oracle side by side, cycle by cycle, and any difference names the cycle
// and the job.
package oracle
