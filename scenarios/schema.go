package scenarios

import (
	"fmt"

	"gopkg.in/yaml.v3"
)

// The YAML shapes of a scenario file (spec/scenario.md). Items that later
// checks refer back to record their line.

type fileYAML struct {
	Name            string              `yaml:"name"`
	Description     string              `yaml:"description"`
	Fleet           fleetYAML           `yaml:"fleet"`
	Cohorts         []cohortYAML        `yaml:"cohorts"`
	Teams           []teamYAML          `yaml:"teams"`
	PriorityClasses []priorityClassYAML `yaml:"priority_classes"`
	Policy          *policyYAML         `yaml:"policy"`
	Objectives      []objectiveYAML     `yaml:"objectives"`
	Timeline        []timelineYAML      `yaml:"timeline"`
	Workload        *workloadYAML       `yaml:"workload"`
	Sim             *simYAML            `yaml:"sim"`
}

type fleetYAML struct {
	InstanceTypes []instanceTypeYAML `yaml:"instance_types"`
	Nodes         []nodeGroupYAML    `yaml:"nodes"`
	Failures      *failuresYAML      `yaml:"failures"`
}

type instanceTypeYAML struct {
	Pos            `yaml:",inline"`
	Name           string    `yaml:"name"`
	Accelerator    string    `yaml:"accelerator"`
	Accelerators   *int      `yaml:"accelerators"`
	Resource       string    `yaml:"resource"`
	VCPUs          *float64  `yaml:"vcpus"`
	MemoryGiB      *float64  `yaml:"memory_gib"`
	AccelMemoryGiB *float64  `yaml:"accelerator_memory_gib"`
	PricePerHour   *float64  `yaml:"price_per_hour"`
	Speed          speedYAML `yaml:"speed"`
}

func (x *instanceTypeYAML) UnmarshalYAML(n *yaml.Node) error {
	type plain instanceTypeYAML
	x.Line = n.Line
	return n.Decode((*plain)(x))
}

// speedYAML is a number or a map {class: factor}.
type speedYAML struct {
	Default float64
	ByClass map[string]float64
	Set     bool
	Line    int
}

func (speedYAML) selfChecked() {}

func (s *speedYAML) UnmarshalYAML(n *yaml.Node) error {
	s.Line, s.Set = n.Line, true
	switch n.Kind {
	case yaml.ScalarNode:
		return n.Decode(&s.Default)
	case yaml.MappingNode:
		return n.Decode(&s.ByClass)
	}
	return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: speed must be a number or a map of workload class to number", n.Line)}}
}

type nodeGroupYAML struct {
	Pos   `yaml:",inline"`
	Type  string `yaml:"type"`
	Count *int   `yaml:"count"`
}

func (x *nodeGroupYAML) UnmarshalYAML(n *yaml.Node) error {
	type plain nodeGroupYAML
	x.Line = n.Line
	return n.Decode((*plain)(x))
}

type failuresYAML struct {
	NodeMTBF   Duration `yaml:"node_mtbf"`
	RepairTime Duration `yaml:"repair_time"`
}

type cohortYAML struct {
	Pos    `yaml:",inline"`
	Name   string               `yaml:"name"`
	Parent string               `yaml:"parent"`
	Weight *float64             `yaml:"weight"`
	Quota  map[string]quotaYAML `yaml:"quota"`
}

func (x *cohortYAML) UnmarshalYAML(n *yaml.Node) error {
	type plain cohortYAML
	x.Line = n.Line
	return n.Decode((*plain)(x))
}

// quotaYAML is a number of accelerators or {accelerators, vcpus, memory_gib}.
type quotaYAML struct {
	Accelerators *float64
	VCPUs        *float64
	MemoryGiB    *float64
	Line         int
}

func (quotaYAML) selfChecked() {}

func (q *quotaYAML) UnmarshalYAML(n *yaml.Node) error {
	q.Line = n.Line
	switch n.Kind {
	case yaml.ScalarNode:
		var v float64
		if err := n.Decode(&v); err != nil {
			return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: quota must be a number of accelerators, got %q", n.Line, n.Value)}}
		}
		q.Accelerators = &v
		return nil
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			var x float64
			if err := v.Decode(&x); err != nil {
				return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: quota %s must be a number, got %q", v.Line, k.Value, v.Value)}}
			}
			switch k.Value {
			case "accelerators":
				q.Accelerators = &x
			case "vcpus":
				q.VCPUs = &x
			case "memory_gib":
				q.MemoryGiB = &x
			default:
				return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: unknown key %q in quota (known keys: accelerators, memory_gib, vcpus)", k.Line, k.Value)}}
			}
		}
		return nil
	}
	return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: quota must be a number or a mapping", n.Line)}}
}

type teamYAML struct {
	Pos               `yaml:",inline"`
	Name              string               `yaml:"name"`
	Cohort            string               `yaml:"cohort"`
	Quota             map[string]quotaYAML `yaml:"quota"`
	Weight            *float64             `yaml:"weight"`
	Lend              *bool                `yaml:"lend"`
	LendingLimit      Amount               `yaml:"lending_limit"`
	Borrow            *bool                `yaml:"borrow"`
	BorrowLimit       Amount               `yaml:"borrow_limit"`
	PreemptWithinTeam string               `yaml:"preempt_within_team"`
}

func (x *teamYAML) UnmarshalYAML(n *yaml.Node) error {
	type plain teamYAML
	x.Line = n.Line
	return n.Decode((*plain)(x))
}

type priorityClassYAML struct {
	Pos   `yaml:",inline"`
	Name  string `yaml:"name"`
	Value *int   `yaml:"value"`
}

func (x *priorityClassYAML) UnmarshalYAML(n *yaml.Node) error {
	type plain priorityClassYAML
	x.Line = n.Line
	return n.Decode((*plain)(x))
}

type policyYAML struct {
	Pos                     `yaml:",inline"`
	Kind                    string          `yaml:"kind"`
	Backfill                bool            `yaml:"backfill"`
	BackfillDepth           *int            `yaml:"backfill_depth"`
	RuntimeEstimate         *factorDistYAML `yaml:"runtime_estimate"`
	Queueing                string          `yaml:"queueing"`
	Admission               string          `yaml:"admission"`
	IdleAllocation          string          `yaml:"idle_allocation"`
	FairSharingStrategies   []string        `yaml:"fair_sharing_strategies"`
	Reclaim                 string          `yaml:"reclaim"`
	PreemptWhileBorrowing   string          `yaml:"preempt_while_borrowing"`
	BorrowPriorityThreshold *int            `yaml:"borrow_priority_threshold"`
	Fallback                string          `yaml:"fallback"`
	UsageHalfLife           Duration        `yaml:"usage_half_life"`
	ShareDecay              Duration        `yaml:"share_decay"`
	ComputeReservation      Amount          `yaml:"compute_reservation"`
	QuotaShares             bool            `yaml:"quota_shares"`
	Reservations            string          `yaml:"reservations"`
	Preemption              *preemptionYAML `yaml:"preemption"`
}

func (x *policyYAML) UnmarshalYAML(n *yaml.Node) error {
	type plain policyYAML
	x.Line = n.Line
	return n.Decode((*plain)(x))
}

type preemptionYAML struct {
	GracePeriod         Duration `yaml:"grace_period"`
	CheckpointSave      Duration `yaml:"checkpoint_save"`
	Restore             Duration `yaml:"restore"`
	MaxRetries          *int     `yaml:"max_retries"`
	PreferLeastLostWork bool     `yaml:"prefer_least_lost_work"`
}

// factorDistYAML is a number or {dist, median, sigma, ...} of plain numbers.
type factorDistYAML struct {
	Fixed *float64
	Dist  *distYAML
	Line  int
}

func (factorDistYAML) selfChecked() {}

func (f *factorDistYAML) UnmarshalYAML(n *yaml.Node) error {
	f.Line = n.Line
	if n.Kind == yaml.ScalarNode {
		var v float64
		if err := n.Decode(&v); err != nil {
			return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: runtime_estimate must be a number or a distribution, got %q", n.Line, n.Value)}}
		}
		f.Fixed = &v
		return nil
	}
	var d distYAML
	if err := checkKnown("", n, typeOfDist, "runtime_estimate"); err != nil {
		fe := err.(*FileError)
		return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: %s", fe.Line, fe.Msg)}}
	}
	if err := n.Decode(&d); err != nil {
		return err
	}
	f.Dist = &d
	return nil
}

// distYAML is a distribution; its values are numbers or durations as the
// field that holds it says.
type distYAML struct {
	Pos    `yaml:",inline"`
	Dist   string   `yaml:"dist"`
	Median numOrDur `yaml:"median"`
	Mean   numOrDur `yaml:"mean"`
	Value  numOrDur `yaml:"value"`
	Sigma  float64  `yaml:"sigma"`
	Min    numOrDur `yaml:"min"`
	Max    numOrDur `yaml:"max"`
}

func (x *distYAML) UnmarshalYAML(n *yaml.Node) error {
	type plain distYAML
	x.Line = n.Line
	return n.Decode((*plain)(x))
}

// numOrDur keeps the raw scalar; the caller decides whether a unit is needed.
type numOrDur struct {
	Raw  string
	Line int
	Set  bool
}

func (numOrDur) selfChecked() {}

func (v *numOrDur) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: expected a value, got %s", n.Line, describe(n))}}
	}
	v.Raw, v.Line, v.Set = n.Value, n.Line, true
	return nil
}

type objectiveYAML struct {
	Text string
	Line int
}

func (objectiveYAML) selfChecked() {}

func (o *objectiveYAML) UnmarshalYAML(n *yaml.Node) error {
	o.Line = n.Line
	if n.Kind != yaml.ScalarNode {
		return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: an objective is a string like \"wait_s.p95 <= 1h\"", n.Line)}}
	}
	o.Text = n.Value
	return nil
}

type timelineYAML struct {
	Pos   `yaml:",inline"`
	At    Duration             `yaml:"at"`
	Nodes *nodeGroupYAML       `yaml:"nodes"`
	Team  string               `yaml:"team"`
	Quota map[string]quotaYAML `yaml:"quota"`
}

func (x *timelineYAML) UnmarshalYAML(n *yaml.Node) error {
	type plain timelineYAML
	x.Line = n.Line
	return n.Decode((*plain)(x))
}

type workloadYAML struct {
	Pos         `yaml:",inline"`
	Trace       string         `yaml:"trace"`
	SkipInvalid bool           `yaml:"skip_invalid"`
	Synthetic   *syntheticYAML `yaml:"synthetic"`
}

func (x *workloadYAML) UnmarshalYAML(n *yaml.Node) error {
	type plain workloadYAML
	x.Line = n.Line
	return n.Decode((*plain)(x))
}

type syntheticYAML struct {
	Pos     `yaml:",inline"`
	Until   Duration    `yaml:"until"`
	Count   int         `yaml:"count"`
	Classes []classYAML `yaml:"classes"`
}

func (x *syntheticYAML) UnmarshalYAML(n *yaml.Node) error {
	type plain syntheticYAML
	x.Line = n.Line
	return n.Decode((*plain)(x))
}

type classYAML struct {
	Pos                `yaml:",inline"`
	Name               string      `yaml:"name"`
	Team               string      `yaml:"team"`
	PriorityClass      string      `yaml:"priority_class"`
	User               string      `yaml:"user"`
	Arrival            arrivalYAML `yaml:"arrival"`
	Duration           *distYAML   `yaml:"duration"`
	Accelerators       accelYAML   `yaml:"accelerators"`
	VCPUs              float64     `yaml:"vcpus"`
	MemoryGiB          float64     `yaml:"memory_gib"`
	InstanceTypes      []string    `yaml:"instance_types"`
	Resource           string      `yaml:"resource"`
	CheckpointInterval Duration    `yaml:"checkpoint_interval"`
}

func (x *classYAML) UnmarshalYAML(n *yaml.Node) error {
	type plain classYAML
	x.Line = n.Line
	return n.Decode((*plain)(x))
}

type arrivalYAML struct {
	Pos         `yaml:",inline"`
	Process     string       `yaml:"process"`
	RatePerHour *float64     `yaml:"rate_per_hour"`
	Profile     *profileYAML `yaml:"profile"`
}

func (x *arrivalYAML) UnmarshalYAML(n *yaml.Node) error {
	type plain arrivalYAML
	x.Line = n.Line
	return n.Decode((*plain)(x))
}

type profileYAML struct {
	Hourly []float64 `yaml:"hourly"`
	Weekly []float64 `yaml:"weekly"`
}

// accelYAML is a number or {choices: [...], weights: [...]}.
type accelYAML struct {
	Values  []float64
	Weights []float64
	Line    int
	Set     bool
}

func (accelYAML) selfChecked() {}

func (a *accelYAML) UnmarshalYAML(n *yaml.Node) error {
	a.Line, a.Set = n.Line, true
	if n.Kind == yaml.ScalarNode {
		var v float64
		if err := n.Decode(&v); err != nil {
			return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: accelerators must be a number or {choices, weights}, got %q", n.Line, n.Value)}}
		}
		a.Values = []float64{v}
		return nil
	}
	var m struct {
		Choices []float64 `yaml:"choices"`
		Weights []float64 `yaml:"weights"`
	}
	if err := checkKnown("", n, typeOfChoices, "accelerators"); err != nil {
		fe := err.(*FileError)
		return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: %s", fe.Line, fe.Msg)}}
	}
	if err := n.Decode(&m); err != nil {
		return err
	}
	a.Values, a.Weights = m.Choices, m.Weights
	return nil
}

type simYAML struct {
	Pos     `yaml:",inline"`
	Seed    *uint64  `yaml:"seed"`
	Horizon Duration `yaml:"horizon"`
	Warmup  Duration `yaml:"warmup"`
	Bucket  Duration `yaml:"bucket"`
}

func (x *simYAML) UnmarshalYAML(n *yaml.Node) error {
	type plain simYAML
	x.Line = n.Line
	return n.Decode((*plain)(x))
}

var (
	typeOfDist    = reflectType[distYAML]()
	typeOfChoices = reflectType[struct {
		Choices []float64 `yaml:"choices"`
		Weights []float64 `yaml:"weights"`
	}]()
)
