// Package scenfile writes scenario and policy files (docs/scenario.md):
// what an import builds and a user edits. It holds the keys of the file,
// not their meaning; scenarios.Parse checks what is written.
package scenfile

import (
	"bytes"
	"fmt"
	"math"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// File is a scenario, or a policy file when Workload and Sim are nil.
// A nil pointer or empty value leaves its key out (the default applies).
type File struct {
	Name            string          `yaml:"name"`
	Description     string          `yaml:"description,omitempty"`
	Fleet           *Fleet          `yaml:"fleet,omitempty"`
	Cohorts         []Cohort        `yaml:"cohorts,omitempty"`
	Teams           []Team          `yaml:"teams"`
	PriorityClasses []PriorityClass `yaml:"priority_classes,omitempty"`
	Policy          Policy          `yaml:"policy"`
	Workload        *Workload       `yaml:"workload,omitempty"`
	Sim             *Sim            `yaml:"sim,omitempty"`
}

// Fleet is the fleet section.
type Fleet struct {
	InstanceTypes []InstanceType `yaml:"instance_types,omitempty"`
	Nodes         []NodeGroup    `yaml:"nodes"`
}

// InstanceType is a custom type beside the catalog.
type InstanceType struct {
	Name         string   `yaml:"name"`
	Accelerator  string   `yaml:"accelerator"`
	Accelerators int      `yaml:"accelerators"`
	Resource     string   `yaml:"resource,omitempty"`
	VCPUs        *float64 `yaml:"vcpus,omitempty"`
	MemoryGiB    *float64 `yaml:"memory_gib,omitempty"`
	PricePerHour *float64 `yaml:"price_per_hour,omitempty"`
	Speed        *float64 `yaml:"speed,omitempty"`
}

// NodeGroup is count nodes of a type.
type NodeGroup struct {
	Type  string `yaml:"type"`
	Count int    `yaml:"count"`
}

// Cohort is a sharing group; Weight nil is 1.
type Cohort struct {
	Name   string           `yaml:"name"`
	Parent string           `yaml:"parent,omitempty"`
	Weight *float64         `yaml:"weight,omitempty"`
	Quota  map[string]Quota `yaml:"quota,omitempty"`
}

// Team is a team; nil pointers and empty strings keep the defaults.
type Team struct {
	Name              string           `yaml:"name"`
	Cohort            string           `yaml:"cohort,omitempty"`
	Quota             map[string]Quota `yaml:"quota,omitempty"`
	Weight            *float64         `yaml:"weight,omitempty"`
	Lend              *bool            `yaml:"lend,omitempty"`
	LendingLimit      string           `yaml:"lending_limit,omitempty"` // "40%" or Num(accelerators)
	Borrow            *bool            `yaml:"borrow,omitempty"`
	BorrowLimit       string           `yaml:"borrow_limit,omitempty"`
	Namespace         string           `yaml:"namespace,omitempty"`
	PreemptWithinTeam string           `yaml:"preempt_within_team,omitempty"`
}

// Quota is a team's or cohort's quota of one type: accelerators alone
// are written as a number, else as {accelerators, vcpus, memory_gib}.
type Quota struct {
	Accelerators float64
	VCPUs        *float64
	MemoryGiB    *float64
}

// MarshalYAML writes the short form where it says everything.
func (q Quota) MarshalYAML() (any, error) {
	if q.VCPUs == nil && q.MemoryGiB == nil {
		return q.Accelerators, nil
	}
	return struct {
		Accelerators float64  `yaml:"accelerators"`
		VCPUs        *float64 `yaml:"vcpus,omitempty"`
		MemoryGiB    *float64 `yaml:"memory_gib,omitempty"`
	}{q.Accelerators, q.VCPUs, q.MemoryGiB}, nil
}

// PriorityClass is a name and its value.
type PriorityClass struct {
	Name  string `yaml:"name"`
	Value int    `yaml:"value"`
}

// Policy is the policy section; durations are written with Dur.
type Policy struct {
	Kind                    string      `yaml:"kind"`
	Backfill                bool        `yaml:"backfill,omitempty"`
	Queueing                string      `yaml:"queueing,omitempty"`
	Admission               string      `yaml:"admission,omitempty"`
	IdleAllocation          string      `yaml:"idle_allocation,omitempty"`
	FairSharingStrategies   []string    `yaml:"fair_sharing_strategies,omitempty"`
	Reclaim                 string      `yaml:"reclaim,omitempty"`
	PreemptWhileBorrowing   string      `yaml:"preempt_while_borrowing,omitempty"`
	BorrowPriorityThreshold *int        `yaml:"borrow_priority_threshold,omitempty"`
	Fallback                string      `yaml:"fallback,omitempty"`
	UsageHalfLife           string      `yaml:"usage_half_life,omitempty"`
	ShareDecay              string      `yaml:"share_decay,omitempty"`
	ComputeReservation      string      `yaml:"compute_reservation,omitempty"`
	QuotaShares             bool        `yaml:"quota_shares,omitempty"`
	Reservations            string      `yaml:"reservations,omitempty"`
	Preemption              *Preemption `yaml:"preemption,omitempty"`
	PlacementTimeout        string      `yaml:"placement_timeout,omitempty"`
}

// Preemption is the preemption model.
type Preemption struct {
	GracePeriod         string `yaml:"grace_period,omitempty"`
	CheckpointSave      string `yaml:"checkpoint_save,omitempty"`
	Restore             string `yaml:"restore,omitempty"`
	MaxRetries          *int   `yaml:"max_retries,omitempty"`
	PreferLeastLostWork bool   `yaml:"prefer_least_lost_work,omitempty"`
	MinRuntime          string `yaml:"min_runtime,omitempty"`
}

// Workload names the trace, relative to the scenario file.
type Workload struct {
	Trace string `yaml:"trace"`
}

// Sim is the sim section.
type Sim struct {
	Seed    uint64 `yaml:"seed"`
	Horizon string `yaml:"horizon"`
	Warmup  string `yaml:"warmup,omitempty"`
	Bucket  string `yaml:"bucket,omitempty"`
}

// Marshal writes f as YAML, header (if any) as its leading comment.
func Marshal(f *File, header string) ([]byte, error) {
	var n yaml.Node
	if err := n.Encode(f); err != nil {
		return nil, err
	}
	n.HeadComment = header
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&n); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Dur writes seconds in the largest unit that states them exactly
// (d, h, m, s), as a scenario file takes them.
func Dur(s float64) string {
	if s == 0 {
		return "0s"
	}
	for _, u := range []struct {
		sec  float64
		unit string
	}{{86400, "d"}, {3600, "h"}, {60, "m"}} {
		if v := s / u.sec; v == math.Trunc(v) {
			return strconv.FormatFloat(v, 'f', -1, 64) + u.unit
		}
	}
	return strconv.FormatFloat(s, 'f', -1, 64) + "s"
}

// Percent writes a fraction as a percentage ("50%").
func Percent(f float64) string { return strconv.FormatFloat(f*100, 'f', -1, 64) + "%" }

// Num writes a number as the file takes it.
func Num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// Ptr is a pointer to v, for the optional keys.
func Ptr[T any](v T) *T { return &v }

// String is a short form of a quota, for warnings.
func (q Quota) String() string {
	s := Num(q.Accelerators) + " accelerators"
	if q.VCPUs != nil {
		s += fmt.Sprintf(", %s vCPUs", Num(*q.VCPUs))
	}
	if q.MemoryGiB != nil {
		s += fmt.Sprintf(", %s GiB", Num(*q.MemoryGiB))
	}
	return s
}
