package main

import (
	"fmt"
	"math"
	"os"

	"github.com/allot-sim/allot/live"
	"github.com/allot-sim/allot/policies"
	"github.com/spf13/cobra"
	"gopkg.in/yaml.v3"
)

// The snapshot format of spec/snapshot.md, as live state writes it:
// quota level (no nodes), one podset per job.
type snapQuota struct {
	Nominal        float64  `yaml:"nominal"`
	BorrowingLimit *float64 `yaml:"borrowing_limit"`
	LendingLimit   *float64 `yaml:"lending_limit"`
}

type snapFile struct {
	ID       string         `yaml:"id"`
	Title    string         `yaml:"title"`
	Kind     string         `yaml:"kind"`
	Now      float64        `yaml:"now"`
	Settings map[string]any `yaml:"settings,omitempty"`
	Flavors  []string       `yaml:"flavors"`
	Cohorts  []snapCohort   `yaml:"cohorts,omitempty"`
	Queues   []snapQueue    `yaml:"queues"`
	Running  []snapJob      `yaml:"running"`
	Pending  []snapJob      `yaml:"pending"`
	Notes    string         `yaml:"notes"`
}

type snapCohort struct {
	Name   string                          `yaml:"name"`
	Parent *string                         `yaml:"parent"`
	Weight float64                         `yaml:"weight"`
	Quota  map[string]map[string]snapQuota `yaml:"quota,omitempty"`
}

type snapQueue struct {
	Name       string         `yaml:"name"`
	Cohort     *string        `yaml:"cohort"`
	Strategy   string         `yaml:"strategy"`
	Weight     float64        `yaml:"weight"`
	Preemption map[string]any `yaml:"preemption"`
	Fungib     map[string]any `yaml:"fungibility"`
	Groups     []snapGroup    `yaml:"resource_groups"`
}

type snapGroup struct {
	Flavors []snapFlavor `yaml:"flavors"`
}

type snapFlavor struct {
	Flavor    string               `yaml:"flavor"`
	Resources map[string]snapQuota `yaml:"resources"`
}

type snapPodSet struct {
	Name    string             `yaml:"name"`
	Count   int32              `yaml:"count"`
	PerPod  map[string]float64 `yaml:"per_pod"`
	Flavors map[string]string  `yaml:"flavors,omitempty"`
}

type snapJob struct {
	Name     string       `yaml:"name"`
	Queue    string       `yaml:"queue"`
	Priority int32        `yaml:"priority"`
	Created  float64      `yaml:"created"`
	Admitted *float64     `yaml:"admitted,omitempty"`
	Evicting bool         `yaml:"evicting,omitempty"`
	PodSets  []snapPodSet `yaml:"podsets"`
}

func units(q policies.Qty) float64 { return float64(q) / float64(policies.Milli) }

func snapQuotaOf(q policies.Quota) snapQuota {
	s := snapQuota{Nominal: units(q.Nominal)}
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

// liveSnapshot writes the controller's state as a snapshot that `allot
// cycle` reads: its model's flavors, cohorts and queues, and its jobs.
func liveSnapshot(c *live.Controller) ([]byte, error) {
	m, now, jobs := c.State()
	f := snapFile{ID: "live", Title: "live state", Kind: "cycle", Now: math.Round(now*1000) / 1000,
		Notes: "written by allot live snapshot: quota level; times are seconds since the daemon's first start"}
	if m.FairSharing.Enabled {
		var st []string
		for _, s := range m.FairSharing.Strategies {
			st = append(st, map[policies.FairStrategy]string{policies.LessThanOrEqualToFinalShare: "LessThanOrEqualToFinalShare",
				policies.LessThanInitialShare: "LessThanInitialShare"}[s])
		}
		f.Settings = map[string]any{"fair_sharing": map[string]any{"strategies": st}}
	}
	for _, fl := range m.Flavors {
		f.Flavors = append(f.Flavors, fl.Name)
	}
	for _, co := range m.Cohorts {
		sc := snapCohort{Name: co.Name, Weight: co.Weight}
		if co.Parent >= 0 {
			sc.Parent = &m.Cohorts[co.Parent].Name
		}
		for fi, byRes := range co.Quotas {
			for ri, q := range byRes {
				if sc.Quota == nil {
					sc.Quota = map[string]map[string]snapQuota{}
				}
				fn := m.Flavors[fi].Name
				if sc.Quota[fn] == nil {
					sc.Quota[fn] = map[string]snapQuota{}
				}
				sc.Quota[fn][m.Resources[ri]] = snapQuotaOf(q)
			}
		}
		f.Cohorts = append(f.Cohorts, sc)
	}
	for _, q := range m.Queues {
		sq := snapQueue{Name: q.Name, Strategy: "BestEffortFIFO", Weight: q.Weight}
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
			var sg snapGroup
			for _, fq := range g.Flavors {
				sf := snapFlavor{Flavor: m.Flavors[fq.Flavor].Name, Resources: map[string]snapQuota{}}
				for _, r := range g.Resources {
					sf.Resources[m.Resources[r]] = snapQuotaOf(fq.Quotas[r])
				}
				sg.Flavors = append(sg.Flavors, sf)
			}
			sq.Groups = append(sq.Groups, sg)
		}
		f.Queues = append(f.Queues, sq)
	}
	f.Running, f.Pending = []snapJob{}, []snapJob{}
	for _, j := range jobs {
		sj := snapJob{Name: "job-" + j.ID, Queue: j.Team, Priority: c.Priority(j.PriorityClass), Created: j.Order}
		ps := snapPodSet{Name: "main", Count: 1, PerPod: map[string]float64{}}
		if j.State == live.StateRunning && j.Flavor >= 0 {
			res := m.Resources[m.Flavors[j.Flavor].AccelResource]
			ps.PerPod[res] = float64(j.Accelerators)
			ps.Flavors = map[string]string{res: m.Flavors[j.Flavor].Name}
			adm := j.AdmittedAt
			sj.Admitted, sj.Evicting = &adm, j.Stopping != ""
			sj.PodSets = []snapPodSet{ps}
			f.Running = append(f.Running, sj)
			continue
		}
		res := "nvidia.com/gpu"
		if fi := m.FlavorIndex(j.InstanceType); fi >= 0 && m.Flavors[fi].AccelResource >= 0 {
			res = m.Resources[m.Flavors[fi].AccelResource]
		} else if len(m.Resources) > 0 {
			res = m.Resources[0]
		}
		ps.PerPod[res] = float64(j.Accelerators)
		sj.PodSets = []snapPodSet{ps}
		f.Pending = append(f.Pending, sj)
	}
	return yaml.Marshal(&f)
}

func newLiveSnapshotCmd() *cobra.Command {
	var socket, out string
	cmd := &cobra.Command{
		Use:   "snapshot [-o FILE]",
		Short: "The live state as a snapshot file that allot cycle reads",
		Long: `Write the daemon's state — its policy's flavors, cohorts and teams, running
and pending jobs — as a snapshot (quota level: no nodes), so that
allot cycle can show what the policy would decide and why.`,
		Example: `  allot live snapshot -o now.yaml
  allot cycle now.yaml`,
		Annotations: map[string]string{needsDaemon: "talks to one"},
		Args:        cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var data []byte
			if err := live.NewClient(socketPath(socket)).Do("GET", "/v1/snapshot", nil, &data); err != nil {
				return clientErr(err)
			}
			if out == "" {
				_, err := cmd.OutOrStdout().Write(data)
				return err
			}
			if err := os.WriteFile(out, data, 0o644); err != nil {
				return fmt.Errorf("write snapshot: %w", err)
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "write to FILE (default: standard output)")
	addSocketFlag(cmd, &socket)
	return cmd
}
