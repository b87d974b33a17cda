// Package live runs a policy against real work with the same core as the
// simulator: a Controller owns a policies.Core, tells it what happened
// (submit, finish, evicted, cancelled), asks it for a plan with the wall
// clock, and carries the plan out through a Backend (package live/local:
// processes on this machine). Every job, state change and decision is
// written to a Store before it is acted on, so a restarted controller
// rebuilds its core and loses nothing.
//
// live imports policies, hardware and workload only (never sim, reports
// or scenarios): cmd/allot builds the Config from a scenario.
package live
