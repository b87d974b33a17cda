package scenarios

import (
	"fmt"
	"reflect"

	"go.yaml.in/yaml/v3"
)

// The YAML shapes of a scenario file (spec/scenario.md). Where a value is
// written is kept apart, by key path (see places).

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
	Live            *liveYAML           `yaml:"live"`
}

type fleetYAML struct {
	InstanceTypes []instanceTypeYAML `yaml:"instance_types"`
	Nodes         []nodeGroupYAML    `yaml:"nodes"`
	Failures      *failuresYAML      `yaml:"failures"`
}

type instanceTypeYAML struct {
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

// speedYAML is a number or a map {class: factor}.
type speedYAML struct {
	Default float64
	ByClass map[string]float64
	Set     bool
}

func (speedYAML) shape(n *yaml.Node) (reflect.Type, string) {
	return scalarOr(n, typeOfFloat, reflectType[map[string]float64](), "a number or a map of workload class to number")
}

func (s *speedYAML) UnmarshalYAML(n *yaml.Node) error {
	s.Set = true
	if n.Kind == yaml.ScalarNode {
		return n.Decode(&s.Default)
	}
	return n.Decode(&s.ByClass)
}

type nodeGroupYAML struct {
	Type     string        `yaml:"type"`
	Count    *int          `yaml:"count"`
	Failures *failuresYAML `yaml:"failures"`
}

type failuresYAML struct {
	NodeMTBF   Duration `yaml:"node_mtbf"`
	RepairTime Duration `yaml:"repair_time"`
}

type cohortYAML struct {
	Name   string               `yaml:"name"`
	Parent string               `yaml:"parent"`
	Weight *float64             `yaml:"weight"`
	Quota  map[string]quotaYAML `yaml:"quota"`
}

// quotaYAML is a number of accelerators or {accelerators, vcpus, memory_gib}.
type quotaYAML struct {
	Accelerators *float64 `yaml:"accelerators"`
	VCPUs        *float64 `yaml:"vcpus"`
	MemoryGiB    *float64 `yaml:"memory_gib"`
}

func (quotaYAML) shape(n *yaml.Node) (reflect.Type, string) {
	return scalarOr(n, typeOfFloat, reflectType[quotaFieldsYAML](), "a number of accelerators or a mapping {accelerators, vcpus, memory_gib}")
}

// quotaFieldsYAML is quotaYAML's mapping form.
type quotaFieldsYAML quotaYAML

func (q *quotaYAML) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		var v float64
		if err := n.Decode(&v); err != nil {
			return err
		}
		q.Accelerators = &v
		return nil
	}
	return n.Decode((*quotaFieldsYAML)(q))
}

type teamYAML struct {
	Name              string               `yaml:"name"`
	Cohort            string               `yaml:"cohort"`
	Quota             map[string]quotaYAML `yaml:"quota"`
	Weight            *float64             `yaml:"weight"`
	Lend              *bool                `yaml:"lend"`
	LendingLimit      Amount               `yaml:"lending_limit"`
	Borrow            *bool                `yaml:"borrow"`
	BorrowLimit       Amount               `yaml:"borrow_limit"`
	PreemptWithinTeam string               `yaml:"preempt_within_team"`
	Namespace         string               `yaml:"namespace"`
}

type priorityClassYAML struct {
	Name  string `yaml:"name"`
	Value *int   `yaml:"value"`
}

type policyYAML struct {
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
	PlacementTimeout        Duration        `yaml:"placement_timeout"`
}

type preemptionYAML struct {
	GracePeriod         Duration `yaml:"grace_period"`
	CheckpointSave      Duration `yaml:"checkpoint_save"`
	Restore             Duration `yaml:"restore"`
	MaxRetries          *int     `yaml:"max_retries"`
	PreferLeastLostWork bool     `yaml:"prefer_least_lost_work"`
	MinRuntime          Duration `yaml:"min_runtime"`
}

// factorDistYAML is a number or {dist, median, sigma, ...} of plain numbers.
type factorDistYAML struct {
	Fixed *float64
	Dist  *distYAML
}

func (factorDistYAML) shape(n *yaml.Node) (reflect.Type, string) {
	return scalarOr(n, typeOfFloat, reflectType[distYAML](), "a number or a distribution like {dist: lognormal, median: 1.0, sigma: 0.5}")
}

func (f *factorDistYAML) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		var v float64
		if err := n.Decode(&v); err != nil {
			return err
		}
		f.Fixed = &v
		return nil
	}
	f.Dist = &distYAML{}
	return n.Decode(f.Dist)
}

// distYAML is a distribution; its values are numbers or durations as the
// field that holds it says.
type distYAML struct {
	Dist   string   `yaml:"dist"`
	Median numOrDur `yaml:"median"`
	Mean   numOrDur `yaml:"mean"`
	Value  numOrDur `yaml:"value"`
	Sigma  float64  `yaml:"sigma"`
	Min    numOrDur `yaml:"min"`
	Max    numOrDur `yaml:"max"`
}

// numOrDur keeps the raw scalar; the caller decides whether a unit is needed.
type numOrDur struct {
	Raw string
	Set bool
}

func (numOrDur) selfChecked() {}

func (v *numOrDur) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("expected a number or a duration, got %s", describe(n))
	}
	v.Raw, v.Set = n.Value, true
	return nil
}

// objectiveYAML is one objective's text, parsed after loading.
type objectiveYAML struct {
	Text string
}

func (objectiveYAML) selfChecked() {}

func (o *objectiveYAML) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("an objective is a string like \"wait_s.p95 <= 1h\", got %s", describe(n))
	}
	o.Text = n.Value
	return nil
}

type timelineYAML struct {
	At    Duration             `yaml:"at"`
	Nodes *nodeGroupYAML       `yaml:"nodes"`
	Team  string               `yaml:"team"`
	Quota map[string]quotaYAML `yaml:"quota"`
}

type workloadYAML struct {
	Trace       string         `yaml:"trace"`
	SkipInvalid bool           `yaml:"skip_invalid"`
	Synthetic   *syntheticYAML `yaml:"synthetic"`
}

type syntheticYAML struct {
	Until   Duration    `yaml:"until"`
	Count   int         `yaml:"count"`
	Classes []classYAML `yaml:"classes"`
}

type classYAML struct {
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

type arrivalYAML struct {
	Process     string       `yaml:"process"`
	RatePerHour *float64     `yaml:"rate_per_hour"`
	Profile     *profileYAML `yaml:"profile"`
}

type profileYAML struct {
	Hourly []float64 `yaml:"hourly"`
	Weekly []float64 `yaml:"weekly"`
}

// accelYAML is a number or {choices: [...], weights: [...]}.
type accelYAML struct {
	Values  []float64
	Weights []float64
	Set     bool
}

// choicesYAML is accelYAML's mapping form.
type choicesYAML struct {
	Choices []float64 `yaml:"choices"`
	Weights []float64 `yaml:"weights"`
}

func (accelYAML) shape(n *yaml.Node) (reflect.Type, string) {
	return scalarOr(n, typeOfFloat, reflectType[choicesYAML](), "a number or {choices: [...], weights: [...]}")
}

func (a *accelYAML) UnmarshalYAML(n *yaml.Node) error {
	a.Set = true
	if n.Kind == yaml.ScalarNode {
		var v float64
		if err := n.Decode(&v); err != nil {
			return err
		}
		a.Values = []float64{v}
		return nil
	}
	var m choicesYAML
	if err := n.Decode(&m); err != nil {
		return err
	}
	a.Values, a.Weights = m.Choices, m.Weights
	return nil
}

type simYAML struct {
	Seed    *uint64  `yaml:"seed"`
	Horizon Duration `yaml:"horizon"`
	Warmup  Duration `yaml:"warmup"`
	Bucket  Duration `yaml:"bucket"`
}

var typeOfFloat = reflectType[float64]()

// scalarOr is a union's shape: scalar for a scalar, mapping for a mapping.
func scalarOr(n *yaml.Node, scalar, mapping reflect.Type, expected string) (reflect.Type, string) {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	switch n.Kind {
	case yaml.ScalarNode:
		return scalar, expected
	case yaml.MappingNode:
		return mapping, expected
	}
	return nil, expected
}
