package main

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/allot-sim/allot/cmd/internal/simrun"
	"github.com/allot-sim/allot/reports"
	"github.com/allot-sim/allot/scenarios"
	"github.com/allot-sim/allot/sim"
	"github.com/allot-sim/allot/workload"
)

// recorder keeps every event and job record of a run.
type recorder struct {
	events []workload.Event
	jobs   map[string]workload.JobRecord
}

func (r *recorder) Begin(*workload.RunInfo) error { return nil }
func (r *recorder) Event(e *workload.Event)       { r.events = append(r.events, *e) }
func (r *recorder) Job(j *workload.JobRecord) {
	if r.jobs == nil {
		r.jobs = map[string]workload.JobRecord{}
	}
	r.jobs[j.ID] = *j
}
func (r *recorder) End(*workload.RunEnd) error { return nil }

type runResult struct {
	sum     *reports.Summary
	checker *sim.Checker
	rec     *recorder
}

// simulate runs a scenario (with an optional policy override and seed)
// with the invariant checker on, failing the test on any violation.
func simulate(t *testing.T, path, policy string, seed uint64, record bool) runResult {
	t.Helper()
	s, err := loadScenario(path, policy)
	if err != nil {
		t.Fatal(err)
	}
	if seed == 0 {
		seed = s.Seed
	}
	return simulateScenario(t, s, seed, record)
}

func simulateScenario(t *testing.T, s *scenarios.Scenario, seed uint64, record bool) runResult {
	t.Helper()
	in, err := simrun.Input(s, seed)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Source.Close()
	col := reports.NewCollector()
	chk := sim.NewChecker(in)
	sinks := []workload.Sink{col, chk}
	var rec *recorder
	if record {
		rec = &recorder{}
		sinks = append(sinks, rec)
	}
	if err := sim.Run(in, workload.Tee(sinks...)); err != nil {
		t.Fatal(err)
	}
	for _, e := range chk.Errors {
		t.Errorf("invariant violated (%s, policy %s, seed %d): %s", s.Name, s.Policy.Kind, seed, e)
	}
	// Accelerator-seconds add up: what the collector integrated over time
	// equals the sum of held × time over every run segment.
	if a, b := col.AllocatedAccSeconds(), chk.HeldSeconds(); math.Abs(a-b) > 1e-6*math.Max(1, b) {
		t.Errorf("accelerator-seconds: collector %.3f, run segments %.3f", a, b)
	}
	return runResult{sum: col.Summary(), checker: chk, rec: rec}
}

// writeFile writes a fixture into a temporary directory.
func writeFile(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(strings.TrimLeft(body, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// cli runs the allot command line and returns exit code, stdout, stderr.
func cli(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func mustRead(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// sideBySide runs f(t, i) as the subtest names[i] of t, up to limit of
// them at once, starting them in order, and returns when all have ended.
// It is for subtests that mostly wait (on control planes of their own,
// for a system to go quiet): t.Parallel would hold them to -parallel, the
// number of CPUs. t.Run may be called from several goroutines at once.
func sideBySide(t *testing.T, limit int, names []string, f func(t *testing.T, i int)) {
	t.Helper()
	slots := make(chan struct{}, limit)
	var wg sync.WaitGroup
	for i, name := range names {
		slots <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			t.Run(name, func(t *testing.T) { f(t, i) })
		}()
	}
	wg.Wait()
}

// sideBySideLimit is how many subtests sideBySide runs at once: the
// environment variable env when set, else def.
func sideBySideLimit(t *testing.T, env string, def int) int {
	t.Helper()
	v := os.Getenv(env)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("%s=%q: want a whole number, at least 1", env, v)
	}
	return n
}
