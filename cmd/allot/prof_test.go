package main

import (
	"os"
	"runtime/pprof"
	"testing"
)

func TestProfileQuota(t *testing.T) {
	if os.Getenv("ALLOT_PROFILE") == "" {
		t.Skip("set ALLOT_PROFILE=scenario.yaml to profile")
	}
	f, _ := os.Create("/tmp/cpu.prof")
	pprof.StartCPUProfile(f)
	defer pprof.StopCPUProfile()
	r := simulate(t, os.Getenv("ALLOT_PROFILE"), os.Getenv("ALLOT_PROFILE_POLICY"), 0, false)
	t.Logf("wall %.2fs events %d cycles %d util %.3f", r.sum.Sim.WallS, r.sum.Sim.Events, r.sum.Sim.Cycles, r.sum.Utilization.Mean)
}
