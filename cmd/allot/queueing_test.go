package main

import (
	"math"
	"testing"
)

// Erlang C for M/M/16 at 12 arrivals/h and 1 h mean service: mean wait
// 184 s, 95th percentile 1,268 s, utilisation 0.75.
const (
	erlangMeanWait = 184.0
	erlangP95Wait  = 1268.0
)

func checkErlang(t *testing.T, r runResult) {
	t.Helper()
	s := r.sum
	if got := s.WaitS.Mean; math.Abs(got-erlangMeanWait)/erlangMeanWait > 0.08 {
		t.Errorf("mean wait %.1fs, want within 8%% of Erlang C's %.0fs", got, erlangMeanWait)
	}
	if got := s.WaitS.P95; math.Abs(got-erlangP95Wait)/erlangP95Wait > 0.06 {
		t.Errorf("p95 wait %.1fs, want within 6%% of %.0fs", got, erlangP95Wait)
	}
	if got := s.Utilization.Mean; math.Abs(got-0.75) > 0.01 {
		t.Errorf("utilisation %.4f, want 0.75 ± 0.01", got)
	}
	// Little's law on the queue: mean number waiting = arrival rate × mean wait.
	lq := s.Extra.MeanPending
	lambdaW := s.Extra.ArrivalRatePerHour / 3600 * s.WaitS.Mean
	if math.Abs(lq-lambdaW)/lambdaW > 0.03 {
		t.Errorf("Little's law: mean queue %.4f vs λW %.4f", lq, lambdaW)
	}
	// And on the servers: mean running = λ × mean service (1 h).
	if l := s.Extra.MeanRunning; math.Abs(l-12)/12 > 0.01 {
		t.Errorf("Little's law: mean running %.3f, want λ × 1h = 12", l)
	}
}

func TestMM16MatchesErlangCAndLittlesLaw(t *testing.T) {
	checkErlang(t, simulate(t, "../../scenarios/mm16.yaml", "", 0, false))
}

func TestMM16OnTwoEightGPUNodesMatchesErlangC(t *testing.T) {
	s, err := loadScenario("../../scenarios/mm16-2x8.yaml", "")
	if err != nil {
		t.Fatal(err)
	}
	checkErlang(t, simulateScenario(t, s, s.Seed, false))
}
