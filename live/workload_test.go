package live

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/allot-sim/allot/policies"
)

// leftByTheShells are the exported fields of the core's workload (dotted
// below Req) that live mode leaves at their zero value on purpose.
var leftByTheShells = []string{
	"Tag",           // the simulator's own handle for a job (its slot)
	"Estimate",      // a runtime estimate, read only by backfill: live jobs give none
	"ForcedFlavors", // snapshots' preemption_targets only
	"Req.PodSets",   // live jobs ask for a total (the generic form); a gang's pods are placed by the cluster
}

// adapterConfig is one instance type and two teams; class high outranks low.
func adapterConfig() *Config {
	m := &policies.Model{Kind: policies.KindQuota, Resources: []string{"nvidia.com/gpu"},
		Flavors: []policies.FlavorSpec{
			{Name: "p4d.24xlarge", NodeAccel: 8 * policies.Milli, Nodes: 1, AccelResource: 0, CPUResource: -1, MemResource: -1, Speed: 1},
			{Name: "p5.48xlarge", NodeAccel: 8 * policies.Milli, Nodes: 2, AccelResource: 0, CPUResource: -1, MemResource: -1, Speed: 1},
		},
		Cohorts: []policies.CohortSpec{{Name: "default", Parent: -1, Weight: 1}},
		Queues:  []policies.QueueSpec{{Name: "a", Cohort: 0, Weight: 1, MaxPreemptions: -1}, {Name: "b", Cohort: 0, Weight: 1, MaxPreemptions: -1}}}
	return &Config{Model: m, Teams: []string{"a", "b"}, Priorities: map[string]int32{"": 0, "low": 10, "high": 100}}
}

// fullSpec has every field set, none to its zero value.
func fullSpec() WorkloadSpec {
	return WorkloadSpec{ID: "a/train", Seq: 7, Team: "b", PriorityClass: "high", Accelerators: 16, VCPUs: 4.5, MemoryGiB: 18.25,
		InstanceType: "p5.48xlarge", Order: 1200.5, RunStart: 3000.25, CheckpointInterval: 600, User: 3}
}

// exportedFields lists v's exported fields by dotted name, descending into
// the request, with their values.
func exportedFields(v reflect.Value, prefix string, out map[string]reflect.Value) {
	for i := range v.NumField() {
		f := v.Type().Field(i)
		if !f.IsExported() {
			continue
		}
		if f.Type == reflect.TypeFor[policies.Request]() {
			exportedFields(v.Field(i), prefix+f.Name+".", out)
			continue
		}
		out[prefix+f.Name] = v.Field(i)
	}
}

// A field added to the core's workload must be set by live mode's one
// adapter (for both backends), or be listed as left on purpose: every
// exported field is either set from a spec with every field given, or
// in leftByTheShells, not both.
func TestWorkloadAdapterSetsEveryFieldOfTheCoresWorkload(t *testing.T) {
	w, err := adapterConfig().Workload(fullSpec())
	if err != nil {
		t.Fatal(err)
	}
	fields := map[string]reflect.Value{}
	exportedFields(reflect.ValueOf(w).Elem(), "", fields)
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range fields {
			if !yield(n) {
				return
			}
		}
	})
	for _, n := range names {
		left := slices.Contains(leftByTheShells, n)
		switch set := !fields[n].IsZero(); {
		case !set && !left:
			t.Errorf("policies.Workload.%s is not set by the live adapter: set it in live/workload.go (Config.Workload, from WorkloadSpec) for both backends, the local one (Job.Spec) and Kubernetes (live/kube specOf), or list it in leftByTheShells saying why live mode leaves it", n)
		case set && left:
			t.Errorf("policies.Workload.%s is set by the live adapter but listed in leftByTheShells: take it off the list", n)
		}
	}
	for _, n := range leftByTheShells {
		if _, ok := fields[n]; !ok {
			t.Errorf("leftByTheShells names %s, which policies.Workload no longer has", n)
		}
	}
	// The figures, as the core reads them.
	if w.Name != "a/train" || w.Seq != 7 || w.Queue != 1 || w.Priority != 100 || w.Req.Accel != 16*policies.Milli ||
		w.Req.VCPU != 4500 || w.Req.Mem != 18250 ||
		!slices.Equal(w.Req.Compatible, []int{1}) || w.Order != 1200.5 || w.RunStart != 3000.25 || w.CheckpointInterval != 600 || w.User != 3 {
		t.Errorf("workload %+v", *w)
	}
}

// Each field of the spec reaches the workload: with it zeroed, the
// workload differs (or, for the team, is refused).
func TestWorkloadAdapterReadsEveryFieldOfTheSpec(t *testing.T) {
	cfg := adapterConfig()
	full, err := cfg.Workload(fullSpec())
	if err != nil {
		t.Fatal(err)
	}
	st := reflect.TypeFor[WorkloadSpec]()
	for i := range st.NumField() {
		s := fullSpec()
		reflect.ValueOf(&s).Elem().Field(i).SetZero()
		w, err := cfg.Workload(s)
		if err == nil && reflect.DeepEqual(w, full) {
			t.Errorf("WorkloadSpec.%s is not read: the workload is the same without it", st.Field(i).Name)
		}
	}
}

// An unknown team, priority class or instance type is refused, naming it.
func TestWorkloadAdapterNamesWhatIsUnknown(t *testing.T) {
	for _, c := range []struct {
		change func(*WorkloadSpec)
		what   string
		msg    string
	}{
		{func(s *WorkloadSpec) { s.Team = "c" }, UnknownTeam, `unknown team "c"`},
		{func(s *WorkloadSpec) { s.PriorityClass = "urgent" }, UnknownPriorityClass, `unknown priority class "urgent"`},
		{func(s *WorkloadSpec) { s.InstanceType = "p9.huge" }, UnknownInstanceType, `unknown instance type "p9.huge"`},
	} {
		s := fullSpec()
		c.change(&s)
		_, err := adapterConfig().Workload(s)
		var u *UnknownError
		if !errors.As(err, &u) || u.What != c.what || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: error %v, want an UnknownError %q", c.what, err, c.msg)
		}
	}
}
