package scenarios

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/allot-sim/allot/hardware"
	"github.com/allot-sim/allot/workload"
)

func (b *builder) workload() error {
	w, s := b.f.Workload, b.s
	if w == nil {
		return b.errf(1, "workload: required (workload.trace or workload.synthetic)")
	}
	if (w.Trace == "") == (w.Synthetic == nil) {
		return b.errf(w.Line, "workload: exactly one of trace or synthetic is required")
	}
	s.SkipInvalid = w.SkipInvalid
	if w.Trace != "" {
		p := w.Trace
		if !filepath.IsAbs(p) {
			p = filepath.Join(b.dir, p)
		}
		if _, err := os.Stat(p); err != nil {
			return b.errf(w.Line, "workload.trace: %v%s", err, missingTraceHint(p, err))
		}
		s.TracePath = p
		return nil
	}
	sy := w.Synthetic
	out := &workload.Synthetic{Until: sy.Until.Seconds, Count: sy.Count}
	if !sy.Until.Set && sy.Count <= 0 {
		return b.errf(sy.Line, "workload.synthetic: one of until or count is required")
	}
	if sy.Count < 0 {
		return b.errf(sy.Line, "workload.synthetic.count: must be > 0")
	}
	if len(sy.Classes) == 0 {
		return b.errf(sy.Line, "workload.synthetic.classes: at least one class is required")
	}
	names := map[string]bool{}
	for i, c := range sy.Classes {
		where := fmt.Sprintf("workload.synthetic.classes[%d]", i)
		if c.Name == "" {
			return b.errf(c.Line, "%s.name: required", where)
		}
		if names[c.Name] {
			return b.errf(c.Line, "%s.name: %q is used twice", where, c.Name)
		}
		names[c.Name] = true
		where = fmt.Sprintf("workload.synthetic.classes[%s]", c.Name)
		if s.TeamIndex(c.Team) < 0 {
			return b.errf(c.Line, "%s.team: unknown team %q (teams: %s)", where, c.Team, strings.Join(b.teamNames(), ", "))
		}
		if _, ok := s.PriorityValue(c.PriorityClass); !ok {
			return b.errf(c.Line, "%s.priority_class: unknown priority class %q", where, c.PriorityClass)
		}
		if p := c.Arrival.Process; p != "" && p != "poisson" {
			return b.errf(c.Arrival.Line, "%s.arrival.process: %q is not supported (poisson)", where, p)
		}
		if c.Arrival.RatePerHour == nil || *c.Arrival.RatePerHour < 0 {
			return b.errf(c.Arrival.Line, "%s.arrival.rate_per_hour: required, >= 0", where)
		}
		arr := workload.Arrival{RatePerHour: *c.Arrival.RatePerHour}
		if pr := c.Arrival.Profile; pr != nil {
			if pr.Hourly != nil && len(pr.Hourly) != 24 {
				return b.errf(c.Arrival.Line, "%s.arrival.profile.hourly: 24 factors, got %d", where, len(pr.Hourly))
			}
			if pr.Weekly != nil && len(pr.Weekly) != 7 {
				return b.errf(c.Arrival.Line, "%s.arrival.profile.weekly: 7 factors, got %d", where, len(pr.Weekly))
			}
			for _, x := range append(append([]float64{}, pr.Hourly...), pr.Weekly...) {
				if x < 0 {
					return b.errf(c.Arrival.Line, "%s.arrival.profile: factors must be >= 0", where)
				}
			}
			arr.Hourly, arr.Weekly = pr.Hourly, pr.Weekly
		}
		if c.Duration == nil {
			return b.errf(c.Line, "%s.duration: required", where)
		}
		dur, err := b.dist(c.Duration, where+".duration", true)
		if err != nil {
			return err
		}
		if !c.Accelerators.Set && c.VCPUs <= 0 {
			return b.errf(c.Line, "%s.accelerators: required (or vcpus for CPU-only jobs)", where)
		}
		vals := c.Accelerators.Values
		if !c.Accelerators.Set {
			vals = []float64{0}
		}
		for _, v := range vals {
			if v < 0 || (v > 1 && v != math.Trunc(v)) {
				return b.errf(c.Accelerators.Line, "%s.accelerators: %g is not allowed (whole numbers, or a fraction below 1 for GPU sharing)", where, v)
			}
			if v == 0 && c.VCPUs <= 0 {
				return b.errf(c.Accelerators.Line, "%s.accelerators: a job must request accelerators or vcpus", where)
			}
		}
		ch, err := workload.NewChoices(vals, c.Accelerators.Weights)
		if err != nil {
			return b.errf(c.Accelerators.Line, "%s.accelerators: %v", where, err)
		}
		for _, t := range c.InstanceTypes {
			if _, ok := s.Catalog.Lookup(t); !ok {
				return b.errf(c.Line, "%s.instance_types: unknown instance type %q", where, t)
			}
			if s.Fleet.Nodes(t) == 0 && !b.timelineAdds(t) {
				return b.errf(c.Line, "%s.instance_types: %q has no nodes in the fleet", where, t)
			}
		}
		res := c.Resource
		if res == "" {
			res = hardware.ResourceNvidiaGPU
		}
		maxA := 0.0
		for _, v := range vals {
			maxA = math.Max(maxA, v)
		}
		if maxA > 0 {
			if err := b.checkPlaceable(c.Line, where, c.InstanceTypes, res, maxA); err != nil {
				return err
			}
		}
		out.Classes = append(out.Classes, workload.Class{
			Name: c.Name, Team: c.Team, PriorityClass: c.PriorityClass, User: c.User, Arrival: arr, Duration: dur,
			Accelerators: ch, VCPUs: c.VCPUs, MemoryGiB: c.MemoryGiB, InstanceTypes: c.InstanceTypes,
			CheckpointInterval: c.CheckpointInterval.Seconds, Resource: c.Resource,
		})
	}
	s.Synthetic = out
	return nil
}

func (b *builder) timelineAdds(typ string) bool {
	for _, t := range b.f.Timeline {
		if t.Nodes != nil && t.Nodes.Type == typ && t.Nodes.Count != nil && *t.Nodes.Count > 0 {
			return true
		}
	}
	return false
}

// checkPlaceable rejects a class whose largest job fits on no compatible type.
func (b *builder) checkPlaceable(line int, where string, types []string, res string, acc float64) error {
	candidates := types
	if len(candidates) == 0 {
		for _, t := range b.s.Fleet.Types() {
			if t.Resource == res {
				candidates = append(candidates, t.Name)
			}
		}
		if len(candidates) == 0 {
			return b.errf(line, "%s: no instance type in the fleet offers %s (set instance_types, or resource: for another accelerator)", where, res)
		}
	}
	best := 0
	for _, name := range candidates {
		t, _ := b.s.Catalog.Lookup(name)
		best = max(best, b.s.Fleet.Nodes(name)*t.Accelerators)
	}
	if float64(best) < acc {
		return b.errf(line, "%s: jobs of %g accelerators can never run: the largest compatible pool has %d", where, acc, best)
	}
	return nil
}

func (b *builder) teamNames() []string {
	var out []string
	for _, t := range b.s.Teams {
		out = append(out, t.Name)
	}
	return out
}

func (b *builder) sim() error {
	sy, s := b.f.Sim, b.s
	if sy == nil {
		return b.errf(1, "sim: required (at least sim.horizon)")
	}
	s.Seed = 1
	if sy.Seed != nil {
		s.Seed = *sy.Seed
	}
	if !sy.Horizon.Set || sy.Horizon.Seconds <= 0 {
		return b.errf(sy.Line, "sim.horizon: required, > 0 (e.g. 60d)")
	}
	s.Horizon = sy.Horizon.Seconds
	s.Warmup = sy.Warmup.Seconds
	if s.Warmup >= s.Horizon {
		return b.errf(sy.Warmup.Line, "sim.warmup (%gs) must be shorter than sim.horizon (%gs)", s.Warmup, s.Horizon)
	}
	s.Bucket = 3600
	if sy.Bucket.Set {
		if sy.Bucket.Seconds <= 0 {
			return b.errf(sy.Bucket.Line, "sim.bucket: must be > 0")
		}
		s.Bucket = sy.Bucket.Seconds
	}
	if (s.Horizon-s.Warmup)/s.Bucket > 5e6 {
		return b.errf(sy.Bucket.Line, "sim.bucket: %gs gives more than 5 million buckets; use a longer bucket", s.Bucket)
	}
	return nil
}

func (b *builder) timeline() error {
	s := b.s
	for i, t := range b.f.Timeline {
		where := fmt.Sprintf("timeline[%d]", i)
		if !t.At.Set {
			return b.errf(t.Line, "%s.at: required", where)
		}
		ch := Change{At: t.At.Seconds, Line: t.Line}
		if (t.Nodes != nil) == (t.Team != "") {
			return b.errf(t.Line, "%s: exactly one of nodes or team (with quota) is required", where)
		}
		if t.Nodes != nil {
			if _, ok := s.Catalog.Lookup(t.Nodes.Type); !ok {
				return b.errf(t.Line, "%s.nodes.type: unknown instance type %q", where, t.Nodes.Type)
			}
			if t.Nodes.Count == nil || *t.Nodes.Count == 0 {
				return b.errf(t.Line, "%s.nodes.count: required, non-zero (+N arrive, -N leave)", where)
			}
			ch.NodeType, ch.NodeDelta = t.Nodes.Type, *t.Nodes.Count
		} else {
			if s.TeamIndex(t.Team) < 0 {
				return b.errf(t.Line, "%s.team: unknown team %q", where, t.Team)
			}
			if len(t.Quota) == 0 {
				return b.errf(t.Line, "%s.quota: required with team", where)
			}
			q, err := b.quotaMap(t.Line, where, t.Quota)
			if err != nil {
				return err
			}
			ch.Team, ch.Quota = t.Team, q
		}
		s.Timeline = append(s.Timeline, ch)
	}
	return nil
}

// Objective is a condition on a run summary key: PATH OP VALUE.
type Objective struct {
	Text  string
	Path  string
	Op    string
	Value float64
	Line  int
}

// ParseObjective parses "by_priority_class.production.wait_s.p95 <= 1h".
func ParseObjective(text string) (Objective, error) {
	f := strings.Fields(text)
	if len(f) != 3 {
		return Objective{}, fmt.Errorf("objective %q: want PATH OP VALUE, e.g. \"wait_s.p95 <= 1h\"", text)
	}
	o := Objective{Text: text, Path: f[0], Op: f[1]}
	switch o.Op {
	case "<=", ">=", "<", ">":
	default:
		return o, fmt.Errorf("objective %q: operator %q is not one of <=, >=, <, >", text, o.Op)
	}
	v := f[2]
	switch {
	case strings.HasSuffix(v, "%"):
		x, err := strconv.ParseFloat(strings.TrimSuffix(v, "%"), 64)
		if err != nil {
			return o, fmt.Errorf("objective %q: bad percentage %q", text, v)
		}
		o.Value = x / 100
	default:
		if x, err := strconv.ParseFloat(v, 64); err == nil {
			o.Value = x
		} else if d, err := ParseDuration(v); err == nil {
			o.Value = d
		} else {
			return o, fmt.Errorf("objective %q: value %q is not a number, percentage or duration", text, v)
		}
	}
	return o, nil
}

// Holds says whether a measured value meets the objective.
func (o Objective) Holds(v float64) bool {
	switch o.Op {
	case "<=":
		return v <= o.Value
	case ">=":
		return v >= o.Value
	case "<":
		return v < o.Value
	}
	return v > o.Value
}

func (b *builder) objectives() error {
	for _, oy := range b.f.Objectives {
		o, err := ParseObjective(oy.Text)
		if err != nil {
			return b.errf(oy.Line, "objectives: %v", err)
		}
		o.Line = oy.Line
		b.s.Objectives = append(b.s.Objectives, o)
	}
	return nil
}

// missingTraceHint says how to make a trace that is not there: the replay
// scenarios' traces come from `make traces`, any other from an import.
func missingTraceHint(path string, err error) string {
	if !errors.Is(err, fs.ErrNotExist) {
		return ""
	}
	if filepath.Base(filepath.Dir(path)) == "traces" && filepath.Base(filepath.Dir(filepath.Dir(path))) == "replay" {
		return " (the replay scenarios' traces are imported from the public traces by `make traces`: run it first)"
	}
	return " (make one with `allot trace import` or `allot trace gen`)"
}
