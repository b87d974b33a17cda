package scenarios

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/allot-sim/allot/hardware"
	"github.com/allot-sim/allot/workload"
)

// workload reads the workload section: a trace file, which must exist,
// or a synthetic workload of classes. A file for live serve may leave it
// out.
func (b *builder) workload() error {
	w, s := b.f.Workload, b.s
	if w == nil && b.forLive {
		return nil
	}
	if w == nil {
		return b.errAt("workload", "required (workload.trace or workload.synthetic)")
	}
	if (w.Trace == "") == (w.Synthetic == nil) {
		return b.errAt("workload", "exactly one of trace or synthetic is required")
	}
	s.SkipInvalid = w.SkipInvalid
	if w.Trace != "" {
		p := w.Trace
		if !filepath.IsAbs(p) {
			p = filepath.Join(b.dir, p)
		}
		if _, err := os.Stat(p); err != nil {
			return b.wrapAt("workload.trace", err, "%v%s", err, missingTraceHint(p, err))
		}
		s.TracePath = p
		return nil
	}
	sy := w.Synthetic
	out := &workload.Synthetic{Until: sy.Until.Seconds, Count: sy.Count}
	if sy.Count < 0 {
		return b.errAt("workload.synthetic.count", "must be > 0, got %d", sy.Count)
	}
	if !sy.Until.Set && sy.Count == 0 {
		return b.errAt("workload.synthetic", "one of until or count is required")
	}
	if len(sy.Classes) == 0 {
		return b.errAt("workload.synthetic.classes", "at least one class is required")
	}
	for i, c := range sy.Classes {
		cl, err := b.syntheticClass(item("workload.synthetic.classes", c.Name, i), c)
		if err != nil {
			return err
		}
		out.Classes = append(out.Classes, cl)
	}
	s.Synthetic = out
	return nil
}

// syntheticClass reads one synthetic class: its team and priority
// class, which must exist, its arrivals, its duration and its request.
func (b *builder) syntheticClass(where string, c classYAML) (workload.Class, error) {
	s := b.s
	if c.Name == "" {
		return workload.Class{}, b.errAt(where+".name", "required")
	}
	if c.Team == "" {
		return workload.Class{}, b.errAt(where+".team", "required (teams: %s)", strings.Join(b.teamNames(), ", "))
	}
	if s.TeamIndex(c.Team) < 0 {
		return workload.Class{}, b.errAt(where+".team", "unknown team %q (teams: %s)", c.Team, strings.Join(b.teamNames(), ", "))
	}
	if _, ok := s.PriorityValue(c.PriorityClass); !ok {
		return workload.Class{}, b.errAt(where+".priority_class", "unknown priority class %q", c.PriorityClass)
	}
	arr, err := b.arrival(where, c.Arrival)
	if err != nil {
		return workload.Class{}, err
	}
	if c.Duration == nil {
		return workload.Class{}, b.errAt(where+".duration", "required (e.g. {dist: lognormal, median: 6h, sigma: 1.2})")
	}
	dur, err := b.dist(c.Duration, where+".duration", true)
	if err != nil {
		return workload.Class{}, err
	}
	ch, err := b.request(where, c)
	if err != nil {
		return workload.Class{}, err
	}
	return workload.Class{
		Name: c.Name, Team: c.Team, PriorityClass: c.PriorityClass, User: c.User, Arrival: arr, Duration: dur,
		Accelerators: ch, VCPUs: c.VCPUs, MemoryGiB: c.MemoryGiB, InstanceTypes: c.InstanceTypes,
		CheckpointInterval: c.CheckpointInterval.Seconds, Resource: c.Resource,
	}, nil
}

// arrival reads a class's arrivals: a Poisson rate per hour, shaped by
// hourly and weekly factors when it has a profile.
func (b *builder) arrival(where string, a arrivalYAML) (workload.Arrival, error) {
	if p := a.Process; p != "" && p != "poisson" {
		return workload.Arrival{}, b.errAt(where+".arrival.process", "%q is not supported (poisson)", p)
	}
	if a.RatePerHour == nil {
		return workload.Arrival{}, b.errAt(where+".arrival.rate_per_hour", "required: arrivals per hour, >= 0")
	}
	if r := *a.RatePerHour; !(r >= 0) {
		return workload.Arrival{}, b.errAt(where+".arrival.rate_per_hour", "must be >= 0, got %g", r)
	}
	arr := workload.Arrival{RatePerHour: *a.RatePerHour}
	if pr := a.Profile; pr != nil {
		at := where + ".arrival.profile"
		if pr.Hourly != nil && len(pr.Hourly) != 24 {
			return arr, b.errAt(at+".hourly", "24 factors, got %d", len(pr.Hourly))
		}
		if pr.Weekly != nil && len(pr.Weekly) != 7 {
			return arr, b.errAt(at+".weekly", "7 factors, got %d", len(pr.Weekly))
		}
		for _, fs := range []struct {
			key string
			xs  []float64
		}{{"hourly", pr.Hourly}, {"weekly", pr.Weekly}} {
			for k, x := range fs.xs {
				if x < 0 {
					return arr, b.errAt(at+"."+fs.key+index(k), "factors must be >= 0, got %g", x)
				}
			}
		}
		arr.Hourly, arr.Weekly = pr.Hourly, pr.Weekly
	}
	return arr, nil
}

// request reads what a class's jobs ask for: accelerators (whole, or a
// fraction below 1) or vCPUs alone, on instance types the fleet has or
// the timeline adds, and no more accelerators than the largest
// compatible pool holds.
func (b *builder) request(where string, c classYAML) (workload.Choices, error) {
	s := b.s
	if !c.Accelerators.Set && c.VCPUs <= 0 {
		return workload.Choices{}, b.errAt(where+".accelerators", "required (or vcpus for CPU-only jobs)")
	}
	vals := c.Accelerators.Values
	if !c.Accelerators.Set {
		vals = []float64{0}
	}
	for _, v := range vals {
		if v < 0 || (v > 1 && v != math.Trunc(v)) {
			return workload.Choices{}, b.errAt(where+".accelerators", "%g is not allowed (whole numbers, or a fraction below 1 for GPU sharing)", v)
		}
		if v == 0 && c.VCPUs <= 0 {
			return workload.Choices{}, b.errAt(where+".accelerators", "a job must request accelerators or vcpus")
		}
	}
	ch, err := workload.NewChoices(vals, c.Accelerators.Weights)
	if err != nil {
		return ch, b.wrapAt(where+".accelerators", err, "%v", err)
	}
	for k, t := range c.InstanceTypes {
		if _, ok := s.Catalog.Lookup(t); !ok {
			return ch, b.errAt(where+".instance_types"+index(k), "unknown instance type %q", t)
		}
		if s.Fleet.Nodes(t) == 0 && !b.timelineAdds(t) {
			return ch, b.errAt(where+".instance_types"+index(k), "%q has no nodes in the fleet", t)
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
		if err := b.checkPlaceable(where+".accelerators", c.InstanceTypes, res, maxA); err != nil {
			return ch, err
		}
	}
	return ch, nil
}

func (b *builder) timelineAdds(typ string) bool {
	for _, t := range b.f.Timeline {
		if t.Nodes != nil && t.Nodes.Type == typ && t.Nodes.Count != nil && *t.Nodes.Count > 0 {
			return true
		}
	}
	return false
}

// ErrFleetTooSmall is behind an error saying a workload class's jobs could
// never start on the fleet: too few nodes of the types they run on.
var ErrFleetTooSmall = errors.New("the fleet is too small for a workload class")

// checkPlaceable rejects a class whose largest job fits on no compatible type.
func (b *builder) checkPlaceable(where string, types []string, res string, acc float64) error {
	candidates := types
	if len(candidates) == 0 {
		for _, t := range b.s.Fleet.Types() {
			if t.Resource == res {
				candidates = append(candidates, t.Name)
			}
		}
		if len(candidates) == 0 {
			return b.errAt(where, "no instance type in the fleet offers %s (set instance_types, or resource: for another accelerator)", res)
		}
	}
	best := 0
	for _, name := range candidates {
		t, _ := b.s.Catalog.Lookup(name)
		best = max(best, b.s.Fleet.Nodes(name)*t.Accelerators)
	}
	if float64(best) < acc {
		return b.wrapAt(where, ErrFleetTooSmall, "jobs of %g accelerators can never run: the largest compatible pool has %d", acc, best)
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
	if sy == nil && b.forLive {
		return nil
	}
	if sy == nil {
		return b.errAt("sim", "required (at least sim.horizon)")
	}
	s.Seed = 1
	if sy.Seed != nil {
		s.Seed = *sy.Seed
	}
	if !sy.Horizon.Set {
		return b.errAt("sim.horizon", "required (e.g. 60d)")
	}
	if sy.Horizon.Seconds <= 0 {
		return b.errAt("sim.horizon", "must be > 0 (e.g. 60d)")
	}
	s.Horizon = sy.Horizon.Seconds
	s.Warmup = sy.Warmup.Seconds
	if s.Warmup >= s.Horizon {
		return b.errAt("sim.warmup", "%gs must be shorter than sim.horizon (%gs)", s.Warmup, s.Horizon)
	}
	s.Bucket = 3600
	if sy.Bucket.Set {
		if sy.Bucket.Seconds <= 0 {
			return b.errAt("sim.bucket", "must be > 0")
		}
		s.Bucket = sy.Bucket.Seconds
	}
	if (s.Horizon-s.Warmup)/s.Bucket > 5e6 {
		return b.errAt("sim.bucket", "%gs gives more than 5 million buckets; use a longer bucket", s.Bucket)
	}
	return nil
}

func (b *builder) timeline() error {
	s := b.s
	for i, t := range b.f.Timeline {
		where := fmt.Sprintf("timeline[%d]", i)
		if !t.At.Set {
			return b.errAt(where+".at", "required (e.g. 10d)")
		}
		ch := Change{At: t.At.Seconds, Line: b.at.find(where).line}
		if (t.Nodes != nil) == (t.Team != "") {
			return b.errAt(where, "exactly one of nodes or team (with quota) is required")
		}
		if t.Nodes != nil {
			if _, ok := s.Catalog.Lookup(t.Nodes.Type); !ok {
				return b.errAt(where+".nodes.type", "unknown instance type %q", t.Nodes.Type)
			}
			if t.Nodes.Count == nil || *t.Nodes.Count == 0 {
				return b.errAt(where+".nodes.count", "required, non-zero (+N arrive, -N leave)")
			}
			ch.NodeType, ch.NodeDelta = t.Nodes.Type, *t.Nodes.Count
		} else {
			if s.TeamIndex(t.Team) < 0 {
				return b.errAt(where+".team", "unknown team %q (teams: %s)", t.Team, strings.Join(b.teamNames(), ", "))
			}
			if len(t.Quota) == 0 {
				return b.errAt(where+".quota", "required with team")
			}
			q, err := b.quotaMap(where, t.Quota)
			if err != nil {
				return err
			}
			ch.Team, ch.Quota = t.Team, q
		}
		s.Timeline = append(s.Timeline, ch)
	}
	return nil
}

// quotaWarnings notes each quota of more accelerators than the fleet has
// of its type (at the time a timeline change sets it): loadable, since
// the capacity may change, but the quota can never be used in full.
func (b *builder) quotaWarnings() error {
	s := b.s
	capacity := func(typ string, at float64) (nodes, acc int) {
		nodes = s.Fleet.Nodes(typ)
		for _, c := range s.Timeline {
			if c.NodeType == typ && c.At <= at {
				nodes += c.NodeDelta
			}
		}
		t, _ := s.Catalog.Lookup(typ)
		return nodes, max(nodes, 0) * t.Accelerators
	}
	check := func(where, who string, q map[string]Quota, at float64) {
		for _, typ := range slices.Sorted(maps.Keys(q)) {
			nodes, acc := capacity(typ, at)
			if q[typ].Accelerators <= float64(acc) {
				continue
			}
			t, _ := s.Catalog.Lookup(typ)
			noun := "nodes"
			if nodes == 1 {
				noun = "node"
			}
			w := b.errAt(where+".quota."+typ, "%s's quota of %g %s accelerators is more than the fleet's %d (%d %s of %d): it can never be used in full",
				who, q[typ].Accelerators, typ, acc, nodes, noun, t.Accelerators)
			s.Warnings = append(s.Warnings, w.Error())
		}
	}
	for i, t := range b.f.Teams {
		check(item("teams", t.Name, i), "team "+t.Name, s.Teams[i].Quota, 0)
	}
	for i, c := range b.f.Cohorts {
		check(item("cohorts", c.Name, i), "cohort "+c.Name, s.Cohorts[i].Quota, 0)
	}
	for i, c := range s.Timeline {
		if c.Team != "" {
			check(fmt.Sprintf("timeline[%d]", i), "team "+c.Team, c.Quota, c.At)
		}
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

// CheckObjective says whether an objective's path names a number of the
// scenario's run summary (CheckSummaryPath).
func (s *Scenario) CheckObjective(o Objective) error { return s.checkObjective(o, nil) }

func (s *Scenario) checkObjective(o Objective, types []string) error {
	if err := s.checkSummaryPath(o.Path, types); err != nil {
		return fmt.Errorf("objective %q: %w", o.Text, err)
	}
	return nil
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
	for i, oy := range b.f.Objectives {
		where := "objectives" + index(i)
		o, err := ParseObjective(oy.Text)
		if err == nil {
			err = b.s.checkObjective(o, b.formerTypes)
		}
		if err != nil {
			return b.wrapAt(where, err, "%v", err)
		}
		o.Line = b.at.find(where).line
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
