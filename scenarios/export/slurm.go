package export

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"github.com/allot-sim/allot/scenarios/scenfile"
	"github.com/allot-sim/allot/workload"
)

// SlurmFiles are the outputs of Slurm's commands an import reads; ""
// for one not given (all but Sacct may be left out).
type SlurmFiles struct {
	// Sacct is `sacct --parsable2 --allocations --format=JobID,JobName,
	// User,Account,Partition,QOS,Submit,Start,End,Elapsed,State,AllocTRES,
	// ReqTRES,Timelimit,Priority` (add --duplicates for every run of a
	// requeued job).
	Sacct string
	// Nodes is `scontrol show nodes --oneliner`: the fleet. Without it
	// the fleet is sized from the jobs.
	Nodes string
	// Shares is `sshare -P -a` (or `sacctmgr show assoc -P`): accounts,
	// their nesting and shares.
	Shares string
	// Assoc is `sacctmgr show assoc -P` (format=...,ParentName, or tree,
	// for the nesting): GrpTRES limits, besides an sshare Shares.
	Assoc string
	// QOS is `sacctmgr show qos -P`: priority classes and preemption.
	QOS string
}

// slurmShareDecay is Slurm's default PriorityDecayHalfLife (slurm.conf).
const slurmShareDecay = 7 * 86400

// ImportSlurm reads a Slurm cluster's history and configuration as a
// scenario and trace. The policy kind follows what the cluster sets:
// quota where accounts' GrpTRES limit GPUs, fairshare where shares are
// given, else priority (QOS order).
func ImportSlurm(in SlurmFiles) (*Imported, error) {
	if in.Sacct == "" {
		return nil, errors.New("--sacct is required: the jobs to replay")
	}
	var w importWarnings
	recs, err := readSacct(in.Sacct, &w)
	if err != nil {
		return nil, err
	}
	jobs, end, err := buildSlurmJobs(recs, &w)
	if err != nil {
		return nil, err
	}
	if len(jobs) == 0 {
		return nil, fmt.Errorf("%s: no job in it ever started: nothing to replay", in.Sacct)
	}
	sacctColumnNotes(recs[0].row.t, &w)
	var fleet *slurmFleet
	if in.Nodes != "" {
		nodes, err := readSlurmNodes(in.Nodes, &w)
		if err != nil {
			return nil, err
		}
		fleet = fleetFromNodes(nodes, &w)
	} else {
		fleet = fleetFromJobs(jobs, &w)
	}
	fleet.place(jobs, &w)
	accts := newSlurmAccounts()
	for _, f := range []struct {
		path  string
		assoc bool
	}{{in.Shares, false}, {in.Assoc, true}} {
		if f.path != "" {
			if err := accts.read(f.path, f.assoc, &w); err != nil {
				return nil, err
			}
		}
	}
	haveTree := len(accts.order) > 0
	var missing []string
	for _, j := range jobs {
		if _, ok := accts.by[j.Team]; !ok {
			accts.account(j.Team)
			missing = append(missing, j.Team)
		}
	}
	if haveTree && len(missing) > 0 {
		w.add("assoc", "Account", "jobs were charged to accounts the associations lack (%s): teams under root, weight 1", nodeList(missing))
	}
	accts.finish(&w)
	var qos []slurmQOS
	if in.QOS != "" {
		if qos, err = readSlurmQOS(in.QOS, &w); err != nil {
			return nil, err
		}
	}
	file := &scenfile.File{Name: "slurm", Fleet: &fleet.scen, PriorityClasses: priorityClasses(qos, jobs, in.QOS != "", &w)}
	shares := false
	for _, acc := range accts.by {
		shares = shares || !math.IsNaN(acc.shares) || acc.sharesParent
	}
	why := slurmPolicy(file, accts, jobs, fleet, qos, shares, &w)
	file.Description = fmt.Sprintf("Imported from Slurm: %d jobs of %s. Policy %s: %s.", len(jobs), filepath.Base(in.Sacct), file.Policy.Kind, why)
	out := make([]workload.Job, len(jobs))
	for i := range jobs {
		out[i] = jobs[i].Job
	}
	return &Imported{File: file, Jobs: out, Columns: slurmColumns, End: end, Warnings: w.lines, Source: "Slurm (" + sources(in) + ")"}, nil
}

func sources(in SlurmFiles) string {
	var s []string
	for _, f := range []string{in.Sacct, in.Nodes, in.Shares, in.Assoc, in.QOS} {
		if f != "" {
			s = append(s, filepath.Base(f))
		}
	}
	return strings.Join(s, ", ")
}

// sacctColumnNotes says where sacct's columns went that are not a trace
// column of their own, and what a missing one leaves out.
func sacctColumnNotes(t *pipeTable, w *importWarnings) {
	if t.has("Timelimit") {
		w.add("sacct", "Timelimit", "kept in column timelimit_s (empty: UNLIMITED or Partition_Limit); backfill estimates a runtime from the duration (policy.runtime_estimate), not from the limit")
	}
	if t.has("Priority") {
		w.add("sacct", "Priority", "kept in column slurm_priority: the multifactor priority at the end of the job, not replayed; the order comes from the policy and the QOS classes")
	}
	for _, c := range []struct{ col, what string }{{"QOS", "jobs have no priority class"}, {"User", "jobs have no user"},
		{"Partition", "jobs are not narrowed to their partition's nodes"}, {"AllocTRES", "GPUs and CPUs are what jobs asked for (ReqTRES)"}} {
		if !t.has(c.col) {
			w.add("sacct", c.col, "no such column: %s", c.what)
		}
	}
}

// slurmPolicy fills the file's teams, cohorts and policy and says why
// the kind.
func slurmPolicy(file *scenfile.File, a *slurmAccounts, jobs []slurmJob, f *slurmFleet, qos []slurmQOS, shares bool, w *importWarnings) string {
	quota := false
	for _, name := range a.order {
		quota = quota || a.by[name].grp.gpus > 0
	}
	pre, preempts := qosPreemption(qos, w)
	if !shares {
		w.add("assoc", "RawShares", "no shares given (--shares, or Share in --assoc): every team weight 1")
	}
	switch {
	case quota:
		file.Teams, file.Cohorts = slurmTeams(a, jobs, false, w)
		if !slurmQuotas(a, file.Teams, f, w) {
			break
		}
		p := scenfile.Policy{Kind: "quota", Reclaim: "never", IdleAllocation: "first-come"}
		if shares {
			p.IdleAllocation = "fair-share"
		}
		if preempts {
			p.PreemptWhileBorrowing, p.Preemption = "lower-priority", pre
		} else {
			for i := range file.Teams {
				file.Teams[i].PreemptWithinTeam = "never"
			}
		}
		file.Policy = p
		why := "accounts' GrpTRES gres/gpu limits are team quotas that do not borrow (a Slurm limit is a cap) and are never reclaimed; teams without one share the rest"
		w.add("policy", "kind", "quota: %s", why)
		return why
	}
	if shares {
		file.Teams, file.Cohorts = slurmTeams(a, jobs, true, w)
		file.Policy = scenfile.Policy{Kind: "fairshare", ShareDecay: scenfile.Dur(slurmShareDecay)}
		why := "accounts' shares are the teams' weights (nested accounts' compounded), usage decaying by Slurm's default PriorityDecayHalfLife, 7 days (slurm.conf is not read); QOS order jobs within a team"
		w.add("policy", "kind", "fairshare: %s", why)
		w.add("policy", "share_decay", "7d: slurm.conf's PriorityDecayHalfLife is not read; Slurm's default assumed")
		notPreempting(preempts, "fairshare", w)
		return why
	}
	file.Teams, file.Cohorts = slurmTeams(a, jobs, false, w)
	file.Policy = scenfile.Policy{Kind: "priority", Backfill: true}
	why := "one queue in QOS priority order, then submit time, with backfill (sched/backfill, Slurm's default; slurm.conf is not read); no shares or GPU limits were given"
	w.add("policy", "kind", "priority: %s", why)
	notPreempting(preempts, "priority", w)
	return why
}

func notPreempting(preempts bool, kind string, w *importWarnings) {
	if preempts {
		w.add("qos", "Preempt", "QOS preemption is not modelled: policy kind %s never preempts (GraceTime, PreemptExemptTime, PreemptMode unused)", kind)
	}
}
