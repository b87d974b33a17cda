package export

import (
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/allot-sim/allot/scenarios/scenfile"
)

// slurmQOS is one QOS of `sacctmgr show qos -P`.
type slurmQOS struct {
	row      pipeRow
	name     string
	priority int
	grace    float64  // GraceTime, s
	preempts []string // Preempt: the QOS it may preempt
	exempt   float64  // PreemptExemptTime, s; NaN: not set
	mode     string   // PreemptMode, lower-cased, without gang
}

// slurmQOSLimits are QOS settings allot has no key for.
var slurmQOSLimits = []string{"Flags", "UsageThres", "GrpTRES", "GrpTRESMins", "GrpTRESRunMins", "GrpJobs", "GrpSubmit",
	"GrpWall", "MaxTRES", "MaxTRESPerNode", "MaxTRESMins", "MaxWall", "MaxTRESPU", "MaxJobsPU", "MaxSubmitPU",
	"MaxTRESPA", "MaxJobsPA", "MaxSubmitPA", "MinTRES"}

// readSlurmQOS reads `sacctmgr show qos -P`.
func readSlurmQOS(path string, w *importWarnings) ([]slurmQOS, error) {
	t, err := readPipeTable(path, "sacctmgr show qos -P", "Name", "Priority")
	if err != nil {
		return nil, err
	}
	var out []slurmQOS
	for _, r := range t.rows {
		q := slurmQOS{row: r, name: r.get("Name"), exempt: math.NaN()}
		if q.name == "" {
			return nil, r.errf("Name", "empty")
		}
		p, err := strconv.Atoi(r.get("Priority"))
		if err != nil || p < 0 {
			return nil, r.errf("Priority", "qos %s: %q is not a whole number >= 0", q.name, r.get("Priority"))
		}
		q.priority = p
		if d, ok, err := r.duration("GraceTime"); err != nil {
			return nil, err
		} else if ok {
			q.grace = d
		}
		if d, ok, err := r.duration("PreemptExemptTime"); err != nil {
			return nil, err
		} else if ok {
			q.exempt = d
		}
		if p := r.get("Preempt"); p != "" {
			q.preempts = strings.Split(p, ",")
		}
		for _, m := range strings.Split(strings.ToLower(r.get("PreemptMode")), ",") {
			if m != "" && (q.mode == "" || q.mode == "gang") {
				q.mode = m
			}
		}
		for _, c := range slurmQOSLimits {
			if v := r.get(c); v != "" {
				w.add("qos "+q.name, c, "%s not mapped (allot has no such setting)", v)
			}
		}
		if v := r.get("UsageFactor"); v != "" {
			if f, err := strconv.ParseFloat(v, 64); err != nil || f != 1 {
				w.add("qos "+q.name, "UsageFactor", "%s not mapped: usage is charged at its actual size", v)
			}
		}
		out = append(out, q)
	}
	return out, nil
}

// priorityClasses are the QOS as classes, and the QOS jobs name that
// the file lacks (at 0, warned).
func priorityClasses(qos []slurmQOS, jobs []slurmJob, given bool, w *importWarnings) []scenfile.PriorityClass {
	known := map[string]bool{}
	var out []scenfile.PriorityClass
	for _, q := range qos {
		known[q.name] = true
		out = append(out, scenfile.PriorityClass{Name: q.name, Value: q.priority})
	}
	var missing []string
	for _, j := range jobs {
		if c := j.PriorityClass; c != "" && !known[c] {
			known[c] = true
			missing = append(missing, c)
			out = append(out, scenfile.PriorityClass{Name: c, Value: 0})
		}
	}
	switch {
	case len(missing) > 0 && !given:
		w.add("qos", "Priority", "no --qos: the jobs' QOS (%s) are priority classes of value 0, all equal", strings.Join(missing, ", "))
	case len(missing) > 0:
		w.add("qos", "Name", "jobs name QOS the file lacks (%s): priority classes of value 0", strings.Join(missing, ", "))
	}
	return out
}

// preemption maps the QOS's preemption to allot's: ok false when no QOS
// preempts another. Only policy kind quota preempts; the caller says so.
func qosPreemption(qos []slurmQOS, w *importWarnings) (*scenfile.Preemption, bool) {
	byName := map[string]*slurmQOS{}
	for i := range qos {
		byName[qos[i].name] = &qos[i]
	}
	victims := map[string]bool{}
	for _, q := range qos {
		for _, v := range q.preempts {
			if byName[v] == nil {
				w.add("qos "+q.name, "Preempt", "names QOS %s, which the file lacks: left out", v)
				continue
			}
			victims[v] = true
		}
	}
	if len(victims) == 0 {
		return nil, false
	}
	for _, q := range qos {
		if want, got := lowerThan(qos, q.priority), sortedCopy(q.preempts); strings.Join(want, ",") != strings.Join(got, ",") {
			w.add("qos "+q.name, "Preempt", "preempts [%s]; allot lets a class preempt every class of lower priority: [%s]", strings.Join(got, ", "), strings.Join(want, ", "))
		}
	}
	p := &scenfile.Preemption{}
	var graces, exempts []float64
	retries := map[int]bool{}
	for _, name := range sortedKeys(victims) {
		q := byName[name]
		graces = append(graces, q.grace)
		if !math.IsNaN(q.exempt) {
			exempts = append(exempts, q.exempt)
		}
		mode := q.mode
		if mode == "off" {
			w.add("qos "+name, "PreemptMode", "off: Slurm never preempts its jobs, though other QOS name it in Preempt; allot preempts by priority: requeue assumed")
		}
		if mode == "" || mode == "cluster" {
			w.add("qos "+name, "PreemptMode", "%q: the mode is slurm.conf's PreemptMode, not read: requeue assumed", q.mode)
		}
		if mode == "" || mode == "cluster" || mode == "off" {
			mode = "requeue"
		}
		r, exact, note, ok := slurmPreemptMode(mode)
		if !ok {
			w.add("qos "+name, "PreemptMode", "%q is not a mode allot knows: requeue assumed", q.mode)
			r, exact = -1, true
		}
		if !exact {
			w.add("qos "+name, "PreemptMode", "%s: %s", mode, note)
		}
		retries[r] = true
	}
	g := maxOf(graces)
	if !allEqual(graces) {
		w.add("qos", "GraceTime", "differs between the QOS that may be preempted: the longest, %s, for all", fmtDur(g))
	}
	p.GracePeriod = scenfile.Dur(g)
	if len(exempts) > 0 {
		m := maxOf(exempts)
		if !allEqual(exempts) || len(exempts) < len(victims) {
			w.add("qos", "PreemptExemptTime", "differs between the QOS that may be preempted: the longest, %s, for all", fmtDur(m))
		}
		p.MinRuntime = scenfile.Dur(m)
	}
	if len(retries) > 1 {
		w.add("qos", "PreemptMode", "cancel for some QOS, requeue for others: allot has one mode; requeue for all")
	} else if retries[0] {
		p.MaxRetries = scenfile.Ptr(0)
	}
	return p, true
}

// lowerThan names the QOS of lower priority than p, sorted.
func lowerThan(qos []slurmQOS, p int) []string {
	var out []string
	for _, q := range qos {
		if q.priority < p {
			out = append(out, q.name)
		}
	}
	sort.Strings(out)
	return out
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}

func allEqual(v []float64) bool {
	for _, x := range v {
		if x != v[0] {
			return false
		}
	}
	return true
}

func maxOf(v []float64) float64 {
	m := v[0]
	for _, x := range v {
		m = math.Max(m, x)
	}
	return m
}
