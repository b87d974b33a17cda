package scenarios

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/allot-sim/allot/policies"
	"go.yaml.in/yaml/v3"
)

// The snapshot format of spec/snapshot.md (Kueue vocabulary).

type snapshotYAML struct {
	ID       string                `yaml:"id"`
	Title    string                `yaml:"title"`
	Tests    string                `yaml:"tests"`
	Source   map[string]string     `yaml:"source"`
	Kind     string                `yaml:"kind"`
	Settings *snapSettingsYAML     `yaml:"settings"`
	Flavors  []string              `yaml:"flavors"`
	Cohorts  []snapCohortYAML      `yaml:"cohorts"`
	Queues   []snapQueueYAML       `yaml:"queues"`
	Running  []snapJobYAML         `yaml:"running"`
	Pending  []snapJobYAML         `yaml:"pending"`
	Expected *policies.CycleResult `yaml:"-"`
	ExpRaw   *expectedYAML         `yaml:"expected"`
	Notes    string                `yaml:"notes"`
	Now      *float64              `yaml:"now"`
}

type snapSettingsYAML struct {
	MinRuntime   *float64        `yaml:"min_runtime"`
	FairSharing  fairSharingYAML `yaml:"fair_sharing"`
	FeatureGates map[string]bool `yaml:"feature_gates"`
}

// fairSharingYAML is false, or {strategies: [...]}.
type fairSharingYAML struct {
	Enabled    bool
	Strategies []string
}

// strategiesYAML is fairSharingYAML's mapping form.
type strategiesYAML struct {
	Strategies []string `yaml:"strategies"`
}

func (fairSharingYAML) shape(n *yaml.Node) (reflect.Type, string) {
	return scalarOr(n, reflectType[bool](), reflectType[strategiesYAML](), "false, or {strategies: [...]}")
}

func (f *fairSharingYAML) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		return n.Decode(&f.Enabled)
	}
	var m strategiesYAML
	if err := n.Decode(&m); err != nil {
		return err
	}
	f.Enabled, f.Strategies = true, m.Strategies
	return nil
}

type snapQuotaYAML struct {
	Nominal        quantity  `yaml:"nominal"`
	BorrowingLimit *quantity `yaml:"borrowing_limit"`
	LendingLimit   *quantity `yaml:"lending_limit"`
}

type snapCohortYAML struct {
	Name   string                              `yaml:"name"`
	Parent string                              `yaml:"parent"`
	Weight *float64                            `yaml:"weight"`
	Quota  map[string]map[string]snapQuotaYAML `yaml:"quota"`
}

type snapQueueYAML struct {
	Name       string   `yaml:"name"`
	Cohort     string   `yaml:"cohort"`
	Strategy   string   `yaml:"strategy"`
	Weight     *float64 `yaml:"weight"`
	Preemption struct {
		WithinQueue         string `yaml:"within_queue"`
		ReclaimWithinCohort string `yaml:"reclaim_within_cohort"`
		BorrowWithinCohort  struct {
			Policy               string `yaml:"policy"`
			MaxPriorityThreshold *int32 `yaml:"max_priority_threshold"`
		} `yaml:"borrow_within_cohort"`
	} `yaml:"preemption"`
	Fungibility struct {
		WhenCanBorrow  string `yaml:"when_can_borrow"`
		WhenCanPreempt string `yaml:"when_can_preempt"`
		Preference     string `yaml:"preference"`
	} `yaml:"fungibility"`
	ResourceGroups []struct {
		Flavors []struct {
			Flavor    string                   `yaml:"flavor"`
			Resources map[string]snapQuotaYAML `yaml:"resources"`
		} `yaml:"flavors"`
	} `yaml:"resource_groups"`
}

type snapJobYAML struct {
	Name     string   `yaml:"name"`
	Queue    string   `yaml:"queue"`
	Priority int32    `yaml:"priority"`
	Created  float64  `yaml:"created"`
	Admitted float64  `yaml:"admitted"`
	Started  *float64 `yaml:"started"`
	Evicting bool     `yaml:"evicting"`
	PodSets  []struct {
		Name    string              `yaml:"name"`
		Count   int32               `yaml:"count"`
		PerPod  map[string]quantity `yaml:"per_pod"`
		Flavors map[string]string   `yaml:"flavors"`
	} `yaml:"podsets"`
	Assignment map[string]string `yaml:"assignment"`
	Evicted    *struct {
		Reason string  `yaml:"reason"`
		At     float64 `yaml:"at"`
	} `yaml:"evicted"`
}

type expectedYAML struct {
	Admitted []struct {
		Name    string                       `yaml:"name"`
		Flavors map[string]map[string]string `yaml:"flavors"`
	} `yaml:"admitted"`
	Preempted []struct {
		Name   string `yaml:"name"`
		Reason string `yaml:"reason"`
	} `yaml:"preempted"`
	Pending []struct {
		Name  string `yaml:"name"`
		State string `yaml:"state"`
	} `yaml:"pending"`
	PopOrder []string `yaml:"pop_order"`
}

// quantity is a number or a Kubernetes quantity such as 3Gi or 500m.
type quantity struct {
	Q int64
}

func (quantity) selfChecked() {}

func (q *quantity) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("expected a quantity (a number, or like 500m, 3Gi), got %s", describe(n))
	}
	v, err := ParseQuantity(n.Value)
	if err != nil {
		return err
	}
	q.Q = v
	return nil
}

// ParseQuantity parses a Kubernetes-style quantity into thousandths.
func ParseQuantity(s string) (int64, error) {
	s = strings.TrimSpace(s)
	mult := 1.0
	suffixes := []struct {
		s string
		m float64
	}{{"Ki", 1 << 10}, {"Mi", 1 << 20}, {"Gi", 1 << 30}, {"Ti", 1 << 40}, {"Pi", 1 << 50},
		{"k", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}, {"P", 1e15}, {"m", 1e-3}}
	for _, x := range suffixes {
		if strings.HasSuffix(s, x.s) {
			mult, s = x.m, strings.TrimSuffix(s, x.s)
			break
		}
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || v < 0 {
		return 0, fmt.Errorf("bad quantity %q (a number, or like 500m, 3Gi)", s)
	}
	return int64(math.Round(v * mult * 1000)), nil
}
