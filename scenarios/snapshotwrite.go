package scenarios

import (
	"math"

	"github.com/allot-sim/allot/policies"
	"go.yaml.in/yaml/v3"
)

// The snapshot format of spec/snapshot.md as MarshalSnapshot writes it:
// quota level (no nodes), one podset per job. ParseSnapshot reads it back
// (TestMarshalSnapshotReadsBackAsTheSameState).
type outQuota struct {
	Nominal        float64  `yaml:"nominal"`
	BorrowingLimit *float64 `yaml:"borrowing_limit"`
	LendingLimit   *float64 `yaml:"lending_limit"`
}

type outFile struct {
	ID       string         `yaml:"id"`
	Title    string         `yaml:"title"`
	Kind     string         `yaml:"kind"`
	Now      float64        `yaml:"now"`
	Settings map[string]any `yaml:"settings,omitempty"`
	Flavors  []string       `yaml:"flavors"`
	Cohorts  []outCohort    `yaml:"cohorts,omitempty"`
	Queues   []outQueue     `yaml:"queues"`
	Running  []outJob       `yaml:"running"`
	Pending  []outJob       `yaml:"pending"`
	Notes    string         `yaml:"notes"`
}

type outCohort struct {
	Name   string                         `yaml:"name"`
	Parent *string                        `yaml:"parent"`
	Weight float64                        `yaml:"weight"`
	Quota  map[string]map[string]outQuota `yaml:"quota,omitempty"`
}

type outQueue struct {
	Name       string         `yaml:"name"`
	Cohort     *string        `yaml:"cohort"`
	Strategy   string         `yaml:"strategy"`
	Weight     float64        `yaml:"weight"`
	Preemption map[string]any `yaml:"preemption"`
	Fungib     map[string]any `yaml:"fungibility"`
	Groups     []outGroup     `yaml:"resource_groups"`
}

type outGroup struct {
	Flavors []outFlavor `yaml:"flavors"`
}

type outFlavor struct {
	Flavor    string              `yaml:"flavor"`
	Resources map[string]outQuota `yaml:"resources"`
}

type outPodSet struct {
	Name    string             `yaml:"name"`
	Count   int32              `yaml:"count"`
	PerPod  map[string]float64 `yaml:"per_pod"`
	Flavors map[string]string  `yaml:"flavors,omitempty"`
}

type outJob struct {
	Name     string      `yaml:"name"`
	Queue    string      `yaml:"queue"`
	Priority int32       `yaml:"priority"`
	Created  float64     `yaml:"created"`
	Admitted *float64    `yaml:"admitted,omitempty"`
	Started  *float64    `yaml:"started,omitempty"`
	Evicting bool        `yaml:"evicting,omitempty"`
	PodSets  []outPodSet `yaml:"podsets"`
}

func units(q policies.Qty) float64 { return float64(q) / float64(policies.Milli) }

func outQuotaOf(q policies.Quota) outQuota {
	s := outQuota{Nominal: units(q.Nominal)}
	if q.HasBorrow {
		v := units(q.BorrowLimit)
		s.BorrowingLimit = &v
	}
	if q.HasLend {
		v := units(q.LendLimit)
		s.LendingLimit = &v
	}
	return s
}

// SnapshotJob is a job as MarshalSnapshot writes it: running on Flavor
// (admitted at Admitted, maybe evicting) or, with Flavor -1, pending,
// asking for Accelerators of Want's instance type (-1: any), and VCPUs
// and MemoryGiB, written where the model counts cpu and memory.
type SnapshotJob struct {
	Name         string
	Queue        string
	Priority     int32
	Created      float64
	Admitted     float64
	Started      float64 // last (re)start, when HasStarted (else Admitted)
	HasStarted   bool
	Evicting     bool
	Flavor       int
	Want         int
	Accelerators float64
	VCPUs        float64
	MemoryGiB    float64
}

// MarshalSnapshot writes a model's flavors, cohorts and queues and the
// jobs at now as a snapshot file that allot cycle reads; notes says where
// it came from.
func MarshalSnapshot(m *policies.Model, now float64, jobs []SnapshotJob, notes string) ([]byte, error) {
	f := outFile{ID: "live", Title: "live state", Kind: "cycle", Now: math.Round(now*1000) / 1000, Notes: notes}
	if m.FairSharing.Enabled {
		var st []string
		for _, s := range m.FairSharing.Strategies {
			st = append(st, map[policies.FairStrategy]string{policies.LessThanOrEqualToFinalShare: "LessThanOrEqualToFinalShare",
				policies.LessThanInitialShare: "LessThanInitialShare"}[s])
		}
		f.Settings = map[string]any{"fair_sharing": map[string]any{"strategies": st}}
	}
	if m.MinRuntime > 0 {
		if f.Settings == nil {
			f.Settings = map[string]any{}
		}
		f.Settings["min_runtime"] = m.MinRuntime
	}
	for _, fl := range m.Flavors {
		f.Flavors = append(f.Flavors, fl.Name)
	}
	for _, co := range m.Cohorts {
		sc := outCohort{Name: co.Name, Weight: co.Weight}
		if co.Parent >= 0 {
			sc.Parent = &m.Cohorts[co.Parent].Name
		}
		for fi, byRes := range co.Quotas {
			for ri, q := range byRes {
				if sc.Quota == nil {
					sc.Quota = map[string]map[string]outQuota{}
				}
				fn := m.Flavors[fi].Name
				if sc.Quota[fn] == nil {
					sc.Quota[fn] = map[string]outQuota{}
				}
				sc.Quota[fn][m.Resources[ri]] = outQuotaOf(q)
			}
		}
		f.Cohorts = append(f.Cohorts, sc)
	}
	for _, q := range m.Queues {
		sq := outQueue{Name: q.Name, Strategy: "BestEffortFIFO", Weight: q.Weight}
		if q.Strategy == policies.StrictFIFO {
			sq.Strategy = "StrictFIFO"
		}
		if q.Cohort >= 0 {
			sq.Cohort = &m.Cohorts[q.Cohort].Name
		}
		bw := map[string]any{"policy": q.BorrowWithin.String()}
		if q.HasBorrowThreshold {
			bw["max_priority_threshold"] = q.BorrowThreshold
		}
		sq.Preemption = map[string]any{"within_queue": q.WithinQueue.String(), "reclaim_within_cohort": q.Reclaim.String(), "borrow_within_cohort": bw}
		sq.Fungib = map[string]any{"when_can_borrow": "MayStopSearch", "when_can_preempt": "TryNextFlavor", "preference": nil}
		if q.Fungibility.WhenCanBorrowTryNext {
			sq.Fungib["when_can_borrow"] = "TryNextFlavor"
		}
		if q.Fungibility.WhenCanPreemptStop {
			sq.Fungib["when_can_preempt"] = "MayStopSearch"
		}
		if q.Fungibility.PreemptionOverBorrowing {
			sq.Fungib["preference"] = "PreemptionOverBorrowing"
		}
		for _, g := range q.Groups {
			var sg outGroup
			for _, fq := range g.Flavors {
				sf := outFlavor{Flavor: m.Flavors[fq.Flavor].Name, Resources: map[string]outQuota{}}
				for _, r := range g.Resources {
					sf.Resources[m.Resources[r]] = outQuotaOf(fq.Quotas[r])
				}
				sg.Flavors = append(sg.Flavors, sf)
			}
			sq.Groups = append(sq.Groups, sg)
		}
		f.Queues = append(f.Queues, sq)
	}
	cpuR, memR := -1, -1 // the model's cpu and memory, where it counts them
	for _, fl := range m.Flavors {
		cpuR, memR = max(cpuR, fl.CPUResource), max(memR, fl.MemResource)
	}
	f.Running, f.Pending = []outJob{}, []outJob{}
	for _, j := range jobs {
		oj := outJob{Name: j.Name, Queue: j.Queue, Priority: j.Priority, Created: j.Created}
		ps := outPodSet{Name: "main", Count: 1, PerPod: map[string]float64{}}
		if cpuR >= 0 && j.VCPUs > 0 {
			ps.PerPod[m.Resources[cpuR]] = j.VCPUs
		}
		if memR >= 0 && j.MemoryGiB > 0 {
			ps.PerPod[m.Resources[memR]] = j.MemoryGiB
		}
		if j.Flavor >= 0 {
			res := m.Resources[m.Flavors[j.Flavor].AccelResource]
			ps.PerPod[res] = j.Accelerators
			ps.Flavors = map[string]string{res: m.Flavors[j.Flavor].Name}
			adm := j.Admitted
			oj.Admitted, oj.Evicting = &adm, j.Evicting
			if j.HasStarted && j.Started != j.Admitted {
				st := j.Started
				oj.Started = &st
			}
			oj.PodSets = []outPodSet{ps}
			f.Running = append(f.Running, oj)
			continue
		}
		res := "nvidia.com/gpu"
		if j.Want >= 0 && m.Flavors[j.Want].AccelResource >= 0 {
			res = m.Resources[m.Flavors[j.Want].AccelResource]
		} else if len(m.Resources) > 0 {
			res = m.Resources[0]
		}
		ps.PerPod[res] = j.Accelerators
		oj.PodSets = []outPodSet{ps}
		f.Pending = append(f.Pending, oj)
	}
	return yaml.Marshal(&f)
}
