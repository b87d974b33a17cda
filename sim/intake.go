package sim

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/allot-sim/allot/workload"
)

// intake is what taking a job in works out from the job and the scenario
// alone: whether it is valid, its team, priority and class, the types it
// may use, its speed on the first of them, its user's number in its team
// and its runtime-estimate error. None of it reads the simulation's state,
// and earlier jobs matter only through user numbers and estimate draws,
// which follow the jobs' order; so a source that may be read ahead works
// it out on the goroutine that reads it, beside the simulation.
type intake struct {
	team, prio, cls int32
	comp            []int // shared by every job with the same constraint: never written
	user            int
	ref             float64 // speed on its first listed type (1 when it lists none)
	factor          float64
	field, why      string // the column at fault and why, for an invalid job
}

// intaker takes jobs in, in order; it is used by one goroutine.
type intaker struct {
	in       *Input
	teamIdx  map[string]int
	flvIdx   map[string]int
	compat   map[string][]int
	keyBuf   []byte
	users    []map[string]int
	rngEst   *rand.Rand
	accelRes []string // by flavor: the name of its accelerator resource ("" for none)
}

func newIntaker(in *Input) *intaker {
	k := &intaker{in: in, teamIdx: map[string]int{}, flvIdx: map[string]int{}, compat: map[string][]int{},
		rngEst: workload.StreamSeed(in.Seed, "estimates")}
	for i, t := range in.Teams {
		k.teamIdx[t.Name] = i
		k.users = append(k.users, map[string]int{})
	}
	for i, t := range in.Types {
		k.flvIdx[t.Name] = i
	}
	m := in.Model
	for _, fs := range m.Flavors {
		res := ""
		if fs.AccelResource >= 0 {
			res = m.Resources[fs.AccelResource]
		}
		k.accelRes = append(k.accelRes, res)
	}
	return k
}

// take works out j's intake into out. An invalid job draws no estimate
// and numbers no user, as if it had never come.
func (k *intaker) take(j *workload.Job, out *intake) {
	*out = intake{}
	if out.field, out.why = k.check(j, out); out.field != "" {
		return
	}
	out.cls = k.classIndex(j.PriorityClass)
	out.ref = 1
	if len(j.InstanceTypes) > 0 {
		out.ref = k.in.Types[out.comp[0]].SpeedFor(j.Class)
	}
	out.factor = k.in.Estimate.Sample(k.rngEst)
	users := k.users[out.team]
	u, ok := users[j.User]
	if !ok {
		u = len(users)
		users[j.User] = u
	}
	out.user = u
}

// check validates the references a trace row makes to the scenario, and
// fills in the team, priority and compatible types.
func (k *intaker) check(j *workload.Job, out *intake) (field, why string) {
	team, ok := k.teamIdx[j.Team]
	if !ok {
		return workload.ColTeam, fmt.Sprintf("unknown team %q (the scenario's teams: %s)", j.Team, strings.Join(k.teamNames(), ", "))
	}
	prio, ok := k.in.Priorities[j.PriorityClass]
	if !ok {
		return workload.ColPriorityClass, fmt.Sprintf("unknown priority class %q", j.PriorityClass)
	}
	out.team, out.prio = int32(team), prio
	for _, t := range j.InstanceTypes {
		if _, ok := k.flvIdx[t]; ok {
			continue
		}
		if k.in.Catalog == nil {
			return workload.ColInstanceTypes, fmt.Sprintf("instance type %q is not in the fleet", t)
		}
		if _, known := k.in.Catalog.Lookup(t); !known {
			return workload.ColInstanceTypes, fmt.Sprintf("unknown instance type %q (see `allot catalog`, or declare it under fleet.instance_types)", t)
		}
	}
	if out.comp = k.compatible(j); len(out.comp) == 0 {
		if len(j.InstanceTypes) > 0 {
			return workload.ColInstanceTypes, fmt.Sprintf("none of its instance types (%s) has nodes in the fleet", strings.Join(j.InstanceTypes, ", "))
		}
		return workload.ColAccelerators, fmt.Sprintf("no instance type in the fleet offers %s", resourceName(j))
	}
	return "", ""
}

func resourceName(j *workload.Job) string {
	if j.Resource == "" {
		return "nvidia.com/gpu"
	}
	return j.Resource
}

func (k *intaker) teamNames() []string {
	var out []string
	for _, t := range k.in.Teams {
		out = append(out, t.Name)
	}
	return out
}

func (k *intaker) classIndex(name string) int32 {
	for i, n := range k.in.PriorityNames {
		if n == name {
			return int32(i)
		}
	}
	return 0
}

// compatible returns the flavors a job may use, cached by its constraint.
func (k *intaker) compatible(j *workload.Job) []int {
	key := k.keyBuf[:0]
	for _, t := range j.InstanceTypes {
		key = append(append(key, t...), ',')
	}
	key = append(append(key, '|'), j.Resource...)
	if j.Accelerators == 0 {
		key = append(key, "|cpu"...)
	}
	k.keyBuf = key
	if c, ok := k.compat[string(key)]; ok { // no allocation to look up
		return c
	}
	var out []int
	if len(j.InstanceTypes) > 0 {
		for _, t := range j.InstanceTypes {
			if f, ok := k.flvIdx[t]; ok { // known types without nodes are skipped
				out = append(out, f)
			}
		}
	} else {
		res := resourceName(j)
		for f, r := range k.accelRes {
			if j.Accelerators == 0 || (r != "" && r == res) {
				out = append(out, f)
			}
		}
	}
	k.compat[string(key)] = out
	return out
}

// feed hands the simulation its jobs in order, each with its intake: read
// ahead on a goroutine of its own where the input allows, else as asked.
type feed interface {
	next() (*workload.Job, *intake, error)
	stop()
}

func newFeed(in *Input) feed {
	k := newIntaker(in)
	if in.ReadAhead {
		return &aheadFeed{workload.NewPrefetch(in.Source, k.take)}
	}
	return &inlineFeed{src: in.Source, k: k}
}

type aheadFeed struct{ p *workload.Prefetch[intake] }

func (f *aheadFeed) next() (*workload.Job, *intake, error) { return f.p.Next() }
func (f *aheadFeed) stop()                                 { f.p.Stop() }

type inlineFeed struct {
	src workload.Source
	k   *intaker
	job workload.Job
	in  intake
}

func (f *inlineFeed) next() (*workload.Job, *intake, error) {
	j, err := f.src.Next()
	if err != nil {
		return nil, nil, err
	}
	f.job = j
	f.k.take(&f.job, &f.in)
	return &f.job, &f.in, nil
}

func (f *inlineFeed) stop() {}

// JobError is a job the scenario cannot take in (an unknown team, class or
// instance type, or no type of the fleet that can run it). The shell, which
// knows where jobs come from, can place it (workload.RowOf).
type JobError struct {
	ID     string
	Submit float64
	Column string
	Why    string
}

func (e *JobError) Error() string {
	return fmt.Sprintf("job %q (submitted at %gs): column %s: %s", e.ID, e.Submit, e.Column, e.Why)
}
