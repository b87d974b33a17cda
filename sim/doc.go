// Package sim is the discrete-event simulator: a virtual clock, an event
// queue, and the job lifecycle (pending, running, checkpointing on
// preemption, failed on a node failure, done) around the policy core. It
// asks the core for a plan once per distinct timestamp at which something
// happened, carries the plan out by scheduling future events, and emits run
// records to a sink. Same input and seed, same records.
package sim
