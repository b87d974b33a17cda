package export

import (
	"math"
	"strings"

	"github.com/allot-sim/allot/scenarios/scenfile"
)

// slurmTeams turns accounts into teams (those holding no other account,
// and any that jobs were charged to) and, where accounts nest, cohorts
// (the accounts holding others, root the top). compound: weights are a
// team's share of the whole tree (a flat policy), else each account's
// own shares against its siblings.
func slurmTeams(a *slurmAccounts, jobs []slurmJob, compound bool, w *importWarnings) ([]scenfile.Team, []scenfile.Cohort) {
	charged := map[string]bool{}
	for _, j := range jobs {
		charged[j.Team] = true
	}
	nested := false
	for _, name := range a.order {
		acc := a.by[name]
		nested = nested || (name != "root" && !acc.leaf())
	}
	var teams []scenfile.Team
	var cohorts []scenfile.Cohort
	var parentShares []string
	for _, name := range a.order {
		acc := a.by[name]
		if acc.sharesParent {
			parentShares = append(parentShares, name)
		}
		if !acc.leaf() && nested {
			c := scenfile.Cohort{Name: name, Weight: weightOf(acc, false, a)}
			if name != "root" {
				c.Parent = acc.parent
			}
			cohorts = append(cohorts, c)
		}
		if (!acc.leaf() || name == "root") && !charged[name] {
			continue
		}
		t := scenfile.Team{Name: name, Weight: weightOf(acc, compound && nested, a)}
		if nested {
			t.Cohort = acc.parent
			if !acc.leaf() {
				t.Cohort = name // its own users beside its sub-accounts
			}
		}
		teams = append(teams, t)
	}
	if len(parentShares) > 0 {
		w.add("assoc", "RawShares", "parent (%s): their usage counts at the parent account in Slurm; here teams of weight 1", nodeList(parentShares))
	}
	return teams, cohorts
}

// weightOf is an account's weight: its shares (nil, 1, when none), or
// with compound its share of the whole tree (the product of its and its
// ancestors' shares among their siblings).
func weightOf(acc *slurmAccount, compound bool, a *slurmAccounts) *float64 {
	if acc.sharesParent || math.IsNaN(acc.shares) {
		return nil
	}
	if !compound {
		return scenfile.Ptr(acc.shares)
	}
	f := 1.0
	for at := acc; at.name != "root" && at.parent != ""; at = a.by[at.parent] {
		sum := 0.0
		for _, s := range a.by[at.parent].children {
			if sib := a.by[s]; !sib.sharesParent && !math.IsNaN(sib.shares) {
				sum += sib.shares
			}
		}
		if sum == 0 || math.IsNaN(at.shares) || at.sharesParent {
			return nil
		}
		f *= at.shares / sum
	}
	return scenfile.Ptr(math.Round(f*1e6) / 1e6)
}

// slurmQuotas gives teams the GPUs of their accounts' GrpTRES as quota
// (borrow off: Slurm's limit is a cap); true when any has one.
func slurmQuotas(a *slurmAccounts, teams []scenfile.Team, f *slurmFleet, w *importWarnings) bool {
	found := false
	isTeam := map[string]int{}
	for i, t := range teams {
		isTeam[t.Name] = i
	}
	for _, name := range a.order {
		acc := a.by[name]
		g := acc.grp
		if !g.set {
			continue
		}
		where := "assoc " + name
		if g.cpus > 0 || g.memGiB > 0 || g.nodes > 0 || len(g.other) > 0 {
			w.add(where, "GrpTRES", "%s: only gres/gpu is mapped (a quota of GPUs)", acc.grpRow.get("GrpTRES"))
		}
		if g.gpus == 0 {
			continue
		}
		i, ok := isTeam[name]
		if !ok || !acc.leaf() {
			w.add(where, "GrpTRES", "gres/gpu=%s caps its sub-accounts together: not expressible (a cohort's quota is capacity it owns, not a cap); left out", scenfile.Num(g.gpus))
			continue
		}
		q := map[string]scenfile.Quota{}
		typed := 0.0
		for _, gt := range g.gpuTypes {
			typed += gt.count
			types := f.byGPU[strings.ToLower(gt.name)]
			if len(types) == 0 {
				w.add(where, "GrpTRES", "gres/gpu:%s: no node has that GPU type; left out", gt.name)
				continue
			}
			capEach(q, gt.count, types, f, where, "gres/gpu:"+gt.name, w)
		}
		rest := g.gpus - typed
		if rest > 0 {
			capEach(q, rest, f.gpuTypes, f, where, "gres/gpu", w)
		}
		if len(q) == 0 {
			continue
		}
		teams[i].Quota = q
		found = true
		// A typed limit leaves the other types free: borrowing stays on
		// unless every GPU type is capped.
		capped := rest > 0
		if !capped {
			capped = true
			for _, typ := range f.gpuTypes {
				_, has := q[typ]
				capped = capped && has
			}
		}
		if capped {
			teams[i].Borrow = scenfile.Ptr(false)
		} else {
			w.add(where, "GrpTRES", "%s limits some GPU types only: quota there, borrowing kept so the others stay open, so the limit is not a cap here", acc.grpRow.get("GrpTRES"))
		}
	}
	return found
}

// capEach gives a quota of n GPUs (at most what the fleet has) on each
// of types: a limit over several types becomes one per type, looser
// than Slurm's, but no job that ran under it is left unable to.
func capEach(q map[string]scenfile.Quota, n float64, types []string, f *slurmFleet, where, what string, w *importWarnings) {
	have := map[string]float64{}
	for _, g := range f.scen.Nodes {
		have[g.Type] += float64(g.Count * f.perNode[g.Type])
	}
	if len(types) > 1 {
		w.add(where, "GrpTRES", "%s caps %s GPUs of %s together: here each has a quota of %s (at most its GPUs), a cap per type, looser than Slurm's", what, scenfile.Num(n), strings.Join(types, ", "), scenfile.Num(n))
	}
	for _, t := range types {
		q[t] = scenfile.Quota{Accelerators: q[t].Accelerators + math.Min(n, have[t])}
	}
}
