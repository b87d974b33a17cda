package export

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/allot-sim/allot/hardware"
	"github.com/allot-sim/allot/scenarios/scenfile"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
)

// KueueImportOptions are the choices of allot import kueue.
type KueueImportOptions struct {
	// Since keeps the Workloads created at most this many seconds before
	// the newest one; 0 keeps them all.
	Since float64
}

// kueueImport is one import under way.
type kueueImport struct {
	o           *KueueObjects
	w           importWarnings
	catalog     *hardware.Catalog
	flavors     map[string]*flavorType
	flavorOrder []string // as read
	// per ClusterQueue, in the order read: its quotas by type, and its
	// flavors in the order it lists them
	cqQuotas      []map[string]*typeQuota
	cqFlavorOrder [][]string
	cohortQuotas  map[string]map[string]*typeQuota
	// cpuModelled says a quota states vCPUs or memory other than its
	// accelerators' share: the scenario then models cpu and memory.
	cpuModelled bool
	file        *scenfile.File
}

// ImportKueue maps Kueue's objects onto a scenario (a policy file when
// no Workloads were read): ResourceFlavors and Nodes are the fleet,
// ClusterQueues the teams, Cohorts the cohort tree, WorkloadPriorityClasses
// (and the PriorityClasses Workloads use) the priority classes, the
// Configuration the policy, and Workloads the trace. What does not map is
// a warning saying what was assumed; input allot cannot read at all (a
// negative quota, a cohort cycle) is an error naming the object.
func ImportKueue(o *KueueObjects, opt KueueImportOptions) (*Imported, error) {
	if len(o.ClusterQueues) == 0 {
		return nil, fmt.Errorf("%s: no ClusterQueue read: nothing to make teams of", o.Source)
	}
	im := &kueueImport{o: o, catalog: hardware.Builtin(), cohortQuotas: map[string]map[string]*typeQuota{}}
	im.w = importWarnings{lines: slices.Clone(o.warns.lines), seen: maps.Clone(o.warns.seen)}
	im.readFlavors()
	for _, cq := range o.ClusterQueues {
		qs, order, err := im.readGroups("ClusterQueue "+cq.Name, cq.Spec.ResourceGroups)
		if err != nil {
			return nil, err
		}
		im.cqQuotas, im.cqFlavorOrder = append(im.cqQuotas, qs), append(im.cqFlavorOrder, order)
	}
	for _, c := range o.Cohorts {
		qs, _, err := im.readGroups("Cohort "+c.Name, c.Spec.ResourceGroups)
		if err != nil {
			return nil, err
		}
		im.cohortQuotas[c.Name] = qs
	}
	tree, err := im.cohortTree()
	if err != nil {
		return nil, err
	}
	im.countNodes()
	im.sizeFromQuotas()
	fleet, err := im.fleet()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", o.Source, err)
	}
	im.checkFlavorOrder(o.ClusterQueues)
	im.file = &scenfile.File{Name: "kueue-import", Fleet: fleet}
	im.poolQuota(tree)
	im.decideCPU(tree)
	if err := im.teams(); err != nil {
		return nil, err
	}
	im.file.Cohorts = im.cohorts(tree)
	im.priorityClasses()
	im.policy()
	imp := &Imported{File: im.file, Source: o.Source}
	if len(o.Workloads) > 0 {
		if err := im.history(imp, opt); err != nil {
			return nil, err
		}
	}
	im.file.Description = fmt.Sprintf("Imported from Kueue (%s): %d ClusterQueues, %d Cohorts, %d ResourceFlavors, %d Nodes, %d Workloads.",
		o.Source, len(o.ClusterQueues), len(o.Cohorts), len(o.Flavors), len(o.Nodes), len(o.Workloads))
	imp.Warnings = im.w.lines
	return imp, nil
}

// origin is where an object was read, "FILE: document N (line L): ",
// for errors ("" when unknown).
func (im *kueueImport) origin(object string) string {
	kind, name, _ := strings.Cut(object, " ")
	ns, n, ok := strings.Cut(name, "/")
	if !ok {
		ns, n = "", name
	}
	if where, ok := im.o.seen[kind+"/"+ns+"/"+n]; ok {
		return where + ": "
	}
	return ""
}

// teams makes a team of each ClusterQueue.
func (im *kueueImport) teams() error {
	lqs := map[string][]string{} // ClusterQueue -> namespaces of its LocalQueues
	for _, lq := range im.o.LocalQueues {
		obj := "LocalQueue " + lq.Namespace + "/" + lq.Name
		if cq := string(lq.Spec.ClusterQueue); !slices.Contains(lqs[cq], lq.Namespace) {
			lqs[cq] = append(lqs[cq], lq.Namespace)
		}
		if lq.Spec.StopPolicy != nil && *lq.Spec.StopPolicy != kueue.None {
			im.w.add(obj, "spec.stopPolicy", "%s: the replay takes its jobs as if it were open", *lq.Spec.StopPolicy)
		}
		if fs := lq.Spec.FairSharing; fs != nil && fs.Weight != nil && fs.Weight.AsApproximateFloat64() != 1 {
			im.w.add(obj, "spec.fairSharing.weight", "%s: admission fair sharing weighs every user (LocalQueue) of a team alike in allot; 1 assumed", fs.Weight)
		}
	}
	for i, cq := range im.o.ClusterQueues {
		obj := "ClusterQueue " + cq.Name
		sp := &cq.Spec
		t := scenfile.Team{Name: cq.Name, Quota: im.scenarioQuota(im.cqQuotas[i])}
		if sp.CohortName != "" {
			t.Cohort = string(sp.CohortName)
			if t.Cohort == "default" {
				t.Cohort = ""
			}
			im.sharing(obj, &t, im.cqQuotas[i])
		} else {
			// Without a cohort Kueue shares nothing: a team that neither
			// lends nor borrows.
			t.Lend, t.Borrow = scenfile.Ptr(false), scenfile.Ptr(false)
		}
		if fs := sp.FairSharing; fs != nil && fs.Weight != nil {
			w := fs.Weight.AsApproximateFloat64()
			if w < 0 {
				return fmt.Errorf("%s%s: spec.fairSharing.weight %s is negative", im.origin(obj), obj, fs.Weight)
			}
			if w != 1 {
				t.Weight = scenfile.Ptr(w)
			}
		}
		within := kueue.PreemptionPolicyNever
		if sp.Preemption != nil {
			within = sp.Preemption.WithinClusterQueue
		}
		name, ok := preemptName(within)
		if !ok || name == "any" {
			im.w.add(obj, "spec.preemption.withinClusterQueue", "%s is not a policy within a team: lower-priority assumed", within)
			name = "lower-priority"
		}
		if name != "lower-priority" {
			t.PreemptWithinTeam = name
		}
		if ns := im.namespace(cq, lqs[cq.Name]); ns != cq.Name {
			t.Namespace = ns
		}
		im.otherCQFields(cq)
		im.file.Teams = append(im.file.Teams, t)
	}
	return nil
}

// namespace is a team's namespace: the one its namespaceSelector names
// by kubernetes.io/metadata.name, else its LocalQueues' (warned).
func (im *kueueImport) namespace(cq *kueue.ClusterQueue, lqNamespaces []string) string {
	sel := cq.Spec.NamespaceSelector
	if sel != nil {
		if ns, ok := byMetadataName(sel); ok {
			return ns
		}
	}
	obj := "ClusterQueue " + cq.Name
	switch len(lqNamespaces) {
	case 0:
		im.w.add(obj, "spec.namespaceSelector", "selects no single namespace by %s and no LocalQueue points to it: namespace %s assumed", corev1.LabelMetadataName, cq.Name)
		return cq.Name
	case 1:
		im.w.add(obj, "spec.namespaceSelector", "selects no single namespace by %s: the namespace of its LocalQueue, %s, assumed", corev1.LabelMetadataName, lqNamespaces[0])
	default:
		im.w.add(obj, "spec.namespaceSelector", "selects no single namespace by %s and its LocalQueues are in %s: a team has one namespace in allot; %s assumed",
			corev1.LabelMetadataName, strings.Join(lqNamespaces, ", "), lqNamespaces[0])
	}
	return lqNamespaces[0]
}

func byMetadataName(sel *metav1.LabelSelector) (string, bool) {
	if len(sel.MatchLabels) == 1 && len(sel.MatchExpressions) == 0 {
		ns, ok := sel.MatchLabels[corev1.LabelMetadataName]
		return ns, ok
	}
	if len(sel.MatchLabels) == 0 && len(sel.MatchExpressions) == 1 {
		e := sel.MatchExpressions[0]
		if e.Key == corev1.LabelMetadataName && e.Operator == metav1.LabelSelectorOpIn && len(e.Values) == 1 {
			return e.Values[0], true
		}
	}
	return "", false
}

// otherCQFields warns of a ClusterQueue's fields allot does not model.
func (im *kueueImport) otherCQFields(cq *kueue.ClusterQueue) {
	obj, sp := "ClusterQueue "+cq.Name, &cq.Spec
	if sp.StopPolicy != nil && *sp.StopPolicy != kueue.None {
		im.w.add(obj, "spec.stopPolicy", "%s: the replay admits its jobs as if it were open", *sp.StopPolicy)
	}
	if sp.AdmissionChecksStrategy != nil && len(sp.AdmissionChecksStrategy.AdmissionChecks) > 0 {
		im.w.add(obj, "spec.admissionChecksStrategy", "admission checks are not modelled: a job is admitted once it has quota")
	}
	if len(sp.ResourceGroups) > 1 {
		im.w.add(obj, "spec.resourceGroups", "%d resource groups read as one: allot's team has one group of every instance type", len(sp.ResourceGroups))
	}
	listed := map[string]bool{}
	for _, f := range im.cqFlavorOrder[im.cqIndex(cq)] {
		listed[f] = true
	}
	var missing []string
	for _, ft := range im.types() {
		if !listed[ft.flavor] && ft.nodes > 0 {
			missing = append(missing, ft.flavor)
		}
	}
	if len(missing) > 0 && sp.CohortName != "" {
		im.w.add(obj, "spec.resourceGroups", "does not list %s: Kueue admits none of its jobs there; allot gives it no quota there but lets it borrow there",
			strings.Join(missing, ", "))
	}
}

func (im *kueueImport) cqIndex(cq *kueue.ClusterQueue) int {
	for i, c := range im.o.ClusterQueues {
		if c == cq {
			return i
		}
	}
	return -1
}
