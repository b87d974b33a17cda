// Package importers turns public GPU-cluster traces into canonical traces
// (spec/trace.md) and, where a trace describes its machines, into a fleet.
//
// Each format documents its column mapping and the choices it makes (what
// becomes a team, a priority class, a fractional GPU, which rows are left
// out and why) in its Notes, so that a replay can be read against the
// original. Importers never drop a row silently: every row is either a job
// or counted under a reason in Result.LeftOut.
package importers
