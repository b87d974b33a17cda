package policies_test

import (
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/allot-sim/allot/policies"
	"github.com/allot-sim/allot/scenarios"
)

// fixture is a core built from scenario YAML (fleet, teams, policy), with
// helpers to submit jobs and read plans.
type fixture struct {
	t     *testing.T
	s     *scenarios.Scenario
	b     *scenarios.Built
	core  *policies.Core
	seq   int64
	names map[*policies.Workload]string
}

const boilerplate = `
workload:
  synthetic:
    count: 1
    classes:
      - {name: x, team: %TEAM%, arrival: {rate_per_hour: 1}, duration: {dist: fixed, value: 1h}, accelerators: %ACC%}
sim: {horizon: 1d}
`

// newFixture loads YAML (without workload and sim sections).
func newFixture(t *testing.T, doc string) *fixture {
	t.Helper()
	var head struct {
		Teams []struct {
			Name string `yaml:"name"`
		} `yaml:"teams"`
	}
	if err := yaml.Unmarshal([]byte(doc), &head); err != nil || len(head.Teams) == 0 {
		t.Fatalf("fixture needs teams: %v", err)
	}
	team := head.Teams[0].Name
	full := strings.TrimLeft(doc, "\n") + strings.NewReplacer("%TEAM%", team, "%ACC%", "1").Replace(boilerplate)
	s, err := scenarios.Parse("fixture.yaml", []byte(full))
	if err != nil {
		t.Fatalf("fixture: %v\n%s", err, full)
	}
	b := s.Build()
	c, err := policies.NewCore(b.Model)
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{t: t, s: s, b: b, core: c, names: map[*policies.Workload]string{}}
}

// job describes a job to submit.
type job struct {
	name     string
	team     string
	class    string
	acc      float64
	types    []string
	at       float64
	estimate float64
	ckpt     float64
}

func (f *fixture) submit(j job) *policies.Workload {
	f.t.Helper()
	q := f.s.TeamIndex(j.team)
	if q < 0 {
		f.t.Fatalf("unknown team %s", j.team)
	}
	prio, ok := f.s.PriorityValue(j.class)
	if !ok {
		f.t.Fatalf("unknown class %s", j.class)
	}
	var comp []int
	for _, ty := range j.types {
		comp = append(comp, f.b.FlavorIndex(ty))
	}
	w := &policies.Workload{Name: j.name, Seq: f.seq, Queue: q, Priority: int32(prio), Order: j.at,
		Req: policies.Request{Accel: policies.ToQty(j.acc), Compatible: comp}, Estimate: j.estimate, CheckpointInterval: j.ckpt, RunStart: j.at}
	f.seq++
	if err := f.core.Submit(w); err != nil {
		f.t.Fatal(err)
	}
	f.names[w] = j.name
	return w
}

// step schedules at now and returns names admitted and preempted (with reasons).
func (f *fixture) step(now float64) (admitted []string, preempted []string) {
	p := f.core.Schedule(now)
	for _, a := range p.Admitted {
		admitted = append(admitted, f.names[a.W]+"@"+f.b.Flavors[a.W.Flavor()].Name)
		a.W.RunStart = now
	}
	for _, x := range p.Preempted {
		preempted = append(preempted, f.names[x.W]+":"+x.Reason)
	}
	return
}

func eq(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("%s: got %v, want %v", what, got, want)
	}
}
