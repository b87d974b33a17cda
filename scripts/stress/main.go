// Command stress writes the stress family of benchmark scenarios
// (scenarios/bench/stress/): workloads that differ from the shipped 1M
// benchmark in the ordinary ways a user's do, so that the core's speed is
// measured on a family, not one workload. Each member's arrival rates are
// set from its target load (offered accelerator-hours over capacity).
//
//	go run ./scripts/stress [-count 1000000] [-o scenarios/bench/stress]
package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/allot-sim/allot/hardware"
)

// member is one scenario of the family.
type member struct {
	name, about  string
	teams        int
	types        []string // instance types, GPU first
	nodes        []int    // per type
	levels       int      // 1: one flat cohort; 3: org, divisions, groups
	load         float64  // offered accelerator-time over capacity
	withinTeam   string   // preempt_within_team
	borrowLimit  string   // "" = unlimited
	lendingLimit string
	fair         bool // idle_allocation fair-share (else first-come)
	sizes        []int
	weights      []int
	median       float64 // hours
	sigma        float64
	mtbf         string // "" = no failures
	trainium     int    // teams whose jobs run only on the last type (Trainium)
}

var family = []member{
	{name: "s1-five-teams-flat", about: "5 teams, one instance type, light load, no within-team preemption",
		teams: 5, types: []string{"p5.48xlarge"}, nodes: []int{250}, levels: 1, load: 0.6, withinTeam: "never",
		sizes: []int{1, 2, 4, 8, 16, 32}, weights: []int{6, 5, 5, 4, 2, 1}, median: 2, sigma: 0.6},
	{name: "s2-200-teams", about: "200 teams, three instance types, fair sharing, within-team preemption",
		teams: 200, types: []string{"p5.48xlarge", "p4d.24xlarge", "g6e.48xlarge"}, nodes: []int{600, 800, 600}, levels: 1, load: 0.9,
		withinTeam: "lower-priority", fair: true, sizes: []int{1, 2, 4, 8, 16, 32, 64}, weights: []int{6, 5, 5, 5, 3, 2, 1}, median: 2, sigma: 0.8},
	{name: "s3-deep-cohorts", about: "40 teams in 3-level cohorts, borrowing and lending limits, four types",
		teams: 40, types: []string{"p5.48xlarge", "p5e.48xlarge", "p4d.24xlarge", "g6e.48xlarge"}, nodes: []int{400, 200, 600, 400}, levels: 3, load: 1.0,
		withinTeam: "lower-priority", borrowLimit: "50%", lendingLimit: "75%", sizes: []int{1, 2, 4, 8, 16, 32, 64}, weights: []int{6, 5, 5, 5, 3, 2, 1}, median: 2, sigma: 0.8},
	{name: "s4-overload-fair", about: "20 teams at 1.3x capacity, fair sharing with within-team preemption, wide durations",
		teams: 20, types: []string{"p5.48xlarge", "p4d.24xlarge"}, nodes: []int{600, 800}, levels: 1, load: 1.3,
		withinTeam: "lower-priority", fair: true, sizes: []int{1, 2, 4, 8, 16, 32, 64}, weights: []int{6, 5, 5, 5, 3, 2, 1}, median: 2, sigma: 1.0},
	{name: "s5-gpu-and-trainium", about: "20 teams near capacity, a Trainium-only class beside GPU ones, 50% borrow limit, fair sharing",
		teams: 20, types: []string{"p5.48xlarge", "p4d.24xlarge", "trn1.32xlarge"}, nodes: []int{600, 800, 300}, levels: 1, load: 0.95,
		withinTeam: "lower-priority", borrowLimit: "50%", fair: true, sizes: []int{1, 2, 4, 8, 16, 32, 64}, weights: []int{6, 5, 5, 5, 3, 2, 1},
		median: 2, sigma: 1.0, trainium: 4},
	{name: "s6-gang-heavy", about: "10 teams of large gangs (32 to 256 GPUs) on two types, classical preemption",
		teams: 10, types: []string{"p5.48xlarge", "p4d.24xlarge"}, nodes: []int{600, 600}, levels: 1, load: 0.9,
		withinTeam: "lower-priority", sizes: []int{32, 64, 128, 256}, weights: []int{4, 3, 2, 1}, median: 6, sigma: 0.8},
	{name: "s7-small-jobs-six-types", about: "50 teams of 1-2 GPU jobs on six types, 1.1x capacity, fair sharing",
		teams: 50, types: []string{"p5.48xlarge", "p5e.48xlarge", "p5en.48xlarge", "p4d.24xlarge", "p4de.24xlarge", "g6e.48xlarge"},
		nodes: []int{100, 100, 100, 200, 100, 200}, levels: 1, load: 1.1, withinTeam: "lower-or-newer-equal", fair: true,
		sizes: []int{1, 2}, weights: []int{3, 1}, median: 1, sigma: 0.8},
	{name: "s8-failures-3-levels", about: "30 teams in 3-level cohorts with node failures, lending limits, classical preemption",
		teams: 30, types: []string{"p5.48xlarge", "p4d.24xlarge", "g6e.48xlarge"}, nodes: []int{500, 700, 500}, levels: 3, load: 0.8,
		withinTeam: "lower-priority", lendingLimit: "50%", sizes: []int{1, 2, 4, 8, 16, 32, 64}, weights: []int{6, 5, 5, 5, 3, 2, 1},
		median: 2, sigma: 0.6, mtbf: "1500h"},
}

func main() {
	count := flag.Int("count", 1000000, "jobs per scenario")
	out := flag.String("o", "scenarios/bench/stress", "folder to write into")
	flag.Parse()
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fail(err)
	}
	cat := hardware.Builtin()
	for _, m := range family {
		data, err := m.yaml(cat, *count)
		if err != nil {
			fail(fmt.Errorf("%s: %w", m.name, err))
		}
		path := filepath.Join(*out, m.name+".yaml")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			fail(err)
		}
		fmt.Println(path)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "stress:", err)
	os.Exit(1)
}

var classes = []string{"production", "research", "sweep"}

func (m member) yaml(cat *hardware.Catalog, count int) ([]byte, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "# Written by scripts/stress (go run ./scripts/stress); edit the generator, not this file.\n")
	fmt.Fprintf(&b, "name: stress-%s\ndescription: >\n  Stress family: %s; load %.2f of capacity.\n", m.name, m.about, m.load)
	// Capacity and quotas, per type.
	per := make([]int, len(m.types))
	capacity := 0
	b.WriteString("fleet:\n  nodes:\n")
	for i, t := range m.types {
		it, ok := cat.Lookup(t)
		if !ok {
			return nil, fmt.Errorf("no instance type %s in the catalog", t)
		}
		per[i] = it.Accelerators
		capacity += it.Accelerators * m.nodes[i]
		fmt.Fprintf(&b, "    - {type: %s, count: %d}\n", t, m.nodes[i])
	}
	if m.mtbf != "" {
		fmt.Fprintf(&b, "  failures: {node_mtbf: %s, repair_time: 6h}\n", m.mtbf)
	}
	if m.levels == 3 {
		b.WriteString("cohorts:\n  - {name: org}\n")
		for d := range 4 {
			fmt.Fprintf(&b, "  - {name: div-%d, parent: org}\n", d+1)
		}
		for g := range groups(m.teams) {
			fmt.Fprintf(&b, "  - {name: group-%02d, parent: div-%d}\n", g+1, g%4+1)
		}
	}
	b.WriteString("teams:\n")
	gpuTypes := len(m.types)
	if m.trainium > 0 {
		gpuTypes--
	}
	for i := range m.teams {
		var q []string
		for j, t := range m.types {
			if n := per[j] * m.nodes[j] / m.teams; n > 0 {
				q = append(q, fmt.Sprintf("%s: %d", t, n))
			}
		}
		fmt.Fprintf(&b, "  - {name: team-%03d, quota: {%s}, weight: %d", i+1, strings.Join(q, ", "), i%3+1)
		if m.levels == 3 {
			fmt.Fprintf(&b, ", cohort: group-%02d", i%groups(m.teams)+1)
		}
		if m.borrowLimit != "" {
			fmt.Fprintf(&b, ", borrow_limit: %q", m.borrowLimit)
		}
		if m.lendingLimit != "" {
			fmt.Fprintf(&b, ", lending_limit: %q", m.lendingLimit)
		}
		fmt.Fprintf(&b, ", preempt_within_team: %s}\n", m.withinTeam)
	}
	b.WriteString("priority_classes:\n  - {name: production, value: 100}\n  - {name: research, value: 50}\n  - {name: sweep, value: 10}\n")
	idle := "first-come"
	if m.fair {
		idle = "fair-share"
	}
	fmt.Fprintf(&b, "policy:\n  kind: quota\n  idle_allocation: %s\n  reclaim: any\n  fallback: try-next-type\n", idle)
	b.WriteString("  preemption: {grace_period: 2m, checkpoint_save: 90s, restore: 5m}\n")

	// Arrival rate per team from the load: offered accelerator-hours per
	// hour over capacity, whole nodes counted for jobs of a node or more.
	held, w := 0.0, 0
	for i, s := range m.sizes {
		h := s
		if s >= 8 {
			h = (s + 7) / 8 * 8
		}
		held += float64(h * m.weights[i])
		w += m.weights[i]
	}
	meanHeld := held / float64(w)
	meanHours := m.median * math.Exp(m.sigma*m.sigma/2)
	rate := m.load * float64(capacity) / (float64(m.teams) * meanHours * meanHeld)
	arrivals := float64(count) / (rate * float64(m.teams)) / 24 // days
	days := arrivals + 2
	// Warm-up: two days, but at most a tenth of the arrivals, so that a
	// short cut of a busy member still has jobs to measure.
	warmup := "2d"
	if h := int(math.Ceil(arrivals * 24 / 10)); h < 48 {
		warmup = fmt.Sprintf("%dh", h)
	}
	sizes, weights := ints(m.sizes), ints(m.weights)
	fmt.Fprintf(&b, "workload:\n  synthetic:\n    count: %d\n    classes:\n", count)
	for i := range m.teams {
		fmt.Fprintf(&b, "      - name: team-%03d-jobs\n        team: team-%03d\n        priority_class: %s\n", i+1, i+1, classes[i%3])
		fmt.Fprintf(&b, "        arrival: {process: poisson, rate_per_hour: %.4g}\n", rate)
		fmt.Fprintf(&b, "        duration: {dist: lognormal, median: %gh, sigma: %g}\n", m.median, m.sigma)
		fmt.Fprintf(&b, "        accelerators: {choices: [%s], weights: [%s]}\n        checkpoint_interval: 30m\n", sizes, weights)
		if i < m.trainium {
			fmt.Fprintf(&b, "        instance_types: [%s]\n", m.types[len(m.types)-1])
			continue
		}
		// Preferred types rotate; every GPU type is compatible.
		var ts []string
		for k := range gpuTypes {
			ts = append(ts, m.types[(i+k)%gpuTypes])
		}
		fmt.Fprintf(&b, "        instance_types: [%s]\n", strings.Join(ts, ", "))
	}
	fmt.Fprintf(&b, "sim:\n  seed: 1\n  horizon: %dd\n  warmup: %s\n  bucket: 1h\n", int(math.Ceil(days)), warmup)
	return []byte(b.String()), nil
}

// groups is how many third-level cohorts the teams fall into.
func groups(teams int) int { return max(4, teams/5) }

func ints(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ", ")
}
