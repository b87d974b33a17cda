package main

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/allot-sim/allot/workload"
)

func TestAmazonSearchFIFOPeaksNear40PercentAndQuotaPolicyAbove80(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		fifo := simulate(t, "../../scenarios/amazon-search.yaml", "fifo", seed, false).sum
		own := simulate(t, "../../scenarios/amazon-search.yaml", "", seed, false).sum
		if p := fifo.Utilization.P95Bucket; p < 0.35 || p > 0.45 {
			t.Errorf("seed %d: fifo peak utilisation %.3f, want 0.35..0.45", seed, p)
		}
		if p := own.Utilization.P95Bucket; p <= 0.80 {
			t.Errorf("seed %d: quota policy peak utilisation %.3f, want > 0.80", seed, p)
		}
		if own.Policy != "quota" {
			t.Errorf("scenario policy is %s, want quota", own.Policy)
		}
	}
}

// step is one expected state change of a walkthrough.
type step struct {
	at     float64
	kind   workload.EventKind
	job    string
	reason string
}

func jobIDs(r *recorder) map[int64]string {
	ids := map[int64]string{}
	for _, j := range r.jobs {
		ids[j.Seq] = j.ID
	}
	return ids
}

// decisions lists starts, preemptions and stops in order as steps.
func decisions(r *recorder) []step {
	ids := jobIDs(r)
	var out []step
	for _, e := range r.events {
		switch e.Kind {
		case workload.EvStart, workload.EvPreempt, workload.EvStop:
			if e.Reason == "horizon" {
				continue
			}
			out = append(out, step{e.Time, e.Kind, ids[e.Job], e.Reason})
		}
	}
	return out
}

func kindName(k workload.EventKind) string {
	return map[workload.EventKind]string{workload.EvStart: "start", workload.EvPreempt: "preempt", workload.EvStop: "stop"}[k]
}

func checkSteps(t *testing.T, got, want []step) {
	t.Helper()
	format := func(ss []step) string {
		var b strings.Builder
		for _, s := range ss {
			fmt.Fprintf(&b, "  t=%gs %s %s %s\n", s.at, kindName(s.kind), s.job, s.reason)
		}
		return b.String()
	}
	if len(got) < len(want) {
		t.Fatalf("got %d decisions, want at least %d:\n%s", len(got), len(want), format(got))
	}
	for i, w := range want {
		g := got[i]
		if g.job != w.job || g.kind != w.kind || g.reason != w.reason || math.Abs(g.at-w.at) > 1e-6 {
			t.Fatalf("decision %d: got t=%gs %s %s %s, want t=%gs %s %s %s\nall:\n%s", i, g.at, kindName(g.kind), g.job, g.reason,
				w.at, kindName(w.kind), w.job, w.reason, format(got))
		}
	}
}

// HyperPod H1: borrow, reclaim, then preemption within a team.
func TestHyperPodH1BorrowReclaimThenPreemptWithinTeam(t *testing.T) {
	r := simulate(t, "../../scenarios/hyperpod-teams.yaml", "", 0, true)
	const save = 20 // checkpoint_save: the victim holds its nodes while saving
	checkSteps(t, decisions(r.rec), []step{
		{0, workload.EvStart, "J1", ""}, // 3 instances: 2 own + 1 borrowed from team B
		{3600, workload.EvPreempt, "J1", "InCohortReclamation"},
		{3600 + save, workload.EvStop, "J1", workload.StopPreempted},
		{3600 + save, workload.EvStart, "J2", ""}, // team B's own two instances
		{7200, workload.EvPreempt, "J2", "InClusterQueue"},
		{7200 + save, workload.EvStop, "J2", workload.StopPreempted},
		{7200 + save, workload.EvStart, "J3", ""},
	})
	// J3 holds team B's quota; J2 may borrow only 1 of team A's idle
	// instances (50% of 2) and J1 only 1 beyond its own 2 while B uses its
	// quota: both stay pending until J3 ends a day later.
	j1, j2 := r.rec.jobs["J1"], r.rec.jobs["J2"]
	if j1.Preemptions != 1 || j2.Preemptions != 1 {
		t.Errorf("preemptions J1 %d, J2 %d; want 1 each", j1.Preemptions, j2.Preemptions)
	}
	for _, e := range r.rec.events {
		if e.Kind == workload.EvStart && e.Time > 7200+save && e.Time < 7200+save+86400 {
			t.Errorf("a job started at t=%gs while J3 ran; want J1 and J2 to wait", e.Time)
		}
	}
}

// HyperPod H2: the same flow with 4-GPU nodes and a 100% borrow limit.
func TestHyperPodH2ReclaimThenHigherPriorityBorrowsIdleNode(t *testing.T) {
	r := simulate(t, "../../scenarios/hyperpod-teams-h2.yaml", "", 0, true)
	checkSteps(t, decisions(r.rec), []step{
		{0, workload.EvStart, "a-train", ""}, // 8 GPUs: 4 own + 4 borrowed
		{3600, workload.EvPreempt, "a-train", "InCohortReclamation"},
		{3620, workload.EvStop, "a-train", workload.StopPreempted},
		{3620, workload.EvStart, "b-train", ""},
		{7200, workload.EvPreempt, "b-train", "InClusterQueue"},
		{7220, workload.EvStop, "b-train", workload.StopPreempted},
		{7220, workload.EvStart, "b-experiment", ""}, // borrows team A's idle node
	})
	for _, e := range r.rec.events {
		if e.Kind == workload.EvStart && e.Time > 7220 && e.Time < 7220+86400 {
			t.Errorf("job started at t=%gs while b-experiment held both nodes", e.Time)
		}
	}
}

func TestSameScenarioAndSeedGiveByteIdenticalSummary(t *testing.T) {
	for _, p := range []string{"fifo", "quota", "fairshare"} {
		_, a, _ := cli("sim", "../../scenarios/amazon-search.yaml", "--policy", p, "--json")
		_, b, _ := cli("sim", "../../scenarios/amazon-search.yaml", "--policy", p, "--json")
		strip := func(s string) string {
			var keep []string
			for _, l := range strings.Split(s, "\n") {
				if !strings.Contains(l, `"wall_s"`) {
					keep = append(keep, l)
				}
			}
			return strings.Join(keep, "\n")
		}
		if strip(a) != strip(b) || len(a) < 100 {
			t.Errorf("policy %s: two runs differ (or are empty)", p)
		}
	}
}

func TestInvariantsHoldOnEveryShippedScenarioUnderEveryPolicy(t *testing.T) {
	files, _ := filepath.Glob("../../scenarios/*.yaml")
	for _, f := range files {
		for _, p := range []string{"", "fifo", "priority", "fairshare", "quota"} {
			s, err := loadScenario(f, p)
			if err != nil {
				t.Fatal(err)
			}
			if s.Horizon > 100*86400 { // the queueing-theory scenarios run long
				s.Horizon = 100 * 86400
			}
			simulateScenario(t, s, s.Seed, false)
		}
	}
}
