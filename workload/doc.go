// Package workload holds what runs on a fleet: the Job model, the canonical
// trace (Parquet or CSV, one row per job) with its readers and writers,
// synthetic workload generators, and the run records that both the
// simulator and live mode emit (per-job outcomes and state changes) together
// with the Sink interface they are written to.
//
// Job sources are streams: a trace is read row by row and a generator draws
// arrivals lazily, so a ten-million-job run never holds every job at once.
package workload
