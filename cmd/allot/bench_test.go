package main

import (
	"testing"

	"github.com/allot-sim/allot/cmd/internal/simrun"
	"github.com/allot-sim/allot/reports"
	"github.com/allot-sim/allot/sim"
)

// benchmarkSim runs the 1M-job benchmark scenario cut to n jobs.
func benchmarkSim(b *testing.B, policy string, n int) {
	s, err := loadScenario("../../scenarios/bench/1m-jobs.yaml", policy)
	if err != nil {
		b.Fatal(err)
	}
	s.Synthetic.Count = n
	s.Horizon = float64(n)/680*3600 + 2*86400
	var jobs float64
	for b.Loop() {
		in, err := simrun.Input(s, 1)
		if err != nil {
			b.Fatal(err)
		}
		col := reports.NewCollector()
		if err := sim.Run(in, col); err != nil {
			b.Fatal(err)
		}
		jobs += float64(col.Summary().Jobs.Submitted)
	}
	b.ReportMetric(jobs/b.Elapsed().Seconds(), "jobs/s")
}

func BenchmarkSimFIFO100k(b *testing.B)     { benchmarkSim(b, "fifo", 100000) }
func BenchmarkSimPriority100k(b *testing.B) { benchmarkSim(b, "priority", 100000) }
func BenchmarkSimQuota100k(b *testing.B)    { benchmarkSim(b, "quota", 100000) }
