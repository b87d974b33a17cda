package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/allot-sim/allot/policies"
	"github.com/allot-sim/allot/scenarios"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	config "sigs.k8s.io/kueue/apis/config/v1beta2"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	sigsyaml "sigs.k8s.io/yaml"
)

// KueueCRDs are the CRD files (in the kueue module's
// config/components/crd/bases) of the kinds an export writes.
var KueueCRDs = []string{"kueue.x-k8s.io_resourceflavors", "kueue.x-k8s.io_workloadpriorityclasses", "kueue.x-k8s.io_cohorts",
	"kueue.x-k8s.io_clusterqueues", "kueue.x-k8s.io_localqueues"}

// InstanceTypeLabel is the node label a ResourceFlavor selects its nodes by.
const InstanceTypeLabel = "node.kubernetes.io/instance-type"

// Kueue is a policy as Kueue v0.17 objects, in the newest API version it
// serves (kueue.x-k8s.io/v1beta2), and the Configuration fields it needs.
type Kueue struct {
	Namespaces      []*corev1.Namespace
	Flavors         []*kueue.ResourceFlavor
	PriorityClasses []*kueue.WorkloadPriorityClass
	Cohorts         []*kueue.Cohort
	ClusterQueues   []*kueue.ClusterQueue
	LocalQueues     []*kueue.LocalQueue
	Config          *config.Configuration
	// Warnings name each setting Kueue cannot express and what allot does
	// that the exported objects will not, one line per kind.
	Warnings []string
	warns    warnings
	// source is the file exported, named in kueue-config.yaml's header.
	source string
}

// KueueOptions are the choices of an export to Kueue.
type KueueOptions struct {
	// AcceleratorsOnly leaves cpu and memory out of the ClusterQueues and
	// has Kueue ignore them (resources.excludeResourcePrefixes) instead
	// of covering them in the accelerators' share.
	AcceleratorsOnly bool
}

// NodeResources are the resources of a Job's pods besides accelerators.
// Kueue leaves a workload that requests a resource its ClusterQueue does
// not cover inadmissible, unless its configuration excludes the resource:
// an export covers or excludes each of them, never neither.
var NodeResources = []string{string(corev1.ResourceCPU), string(corev1.ResourceMemory), string(corev1.ResourceEphemeralStorage)}

// ToKueue maps a scenario's (or policy file's) policy onto Kueue objects.
// By default each ClusterQueue covers cpu and memory as well as the
// accelerators, a quota's share of a type's vCPUs and memory following
// its share of the accelerators; that needs each instance type's vCPUs
// and memory, and fails naming the types the catalog lacks them for.
func ToKueue(s *scenarios.Scenario, opt KueueOptions) (*Kueue, error) {
	var built *scenarios.Built
	if opt.AcceleratorsOnly {
		built = s.Build()
	} else {
		if unknown := s.NodeResourcesUnknown(); len(unknown) > 0 {
			return nil, fmt.Errorf("instance types %s: the catalog gives no vCPUs or memory, so the ClusterQueues cannot cover the cpu and memory a Job requests; "+
				"give vcpus and memory_gib for them (fleet.types, or a catalog), or export with --accelerators-only to have Kueue ignore cpu and memory", strings.Join(unknown, ", "))
		}
		built = s.BuildCoveringCPUAndMemory()
	}
	m := built.Model
	k := &Kueue{source: s.Path}
	n := &namer{k: k, used: map[string]string{}}
	ns := make([]string, len(s.Teams))
	for i, t := range s.Teams {
		ns[i] = n.label("teams["+t.Name+"].namespace", t.Namespace)
		k.Namespaces = append(k.Namespaces, &corev1.Namespace{TypeMeta: typeMeta("v1", "Namespace"), ObjectMeta: metav1.ObjectMeta{Name: ns[i]}})
	}
	flavor := make([]string, len(m.Flavors))
	for i, f := range m.Flavors {
		flavor[i] = n.subdomain("instance type "+f.Name, "flavor/"+f.Name, f.Name)
		k.Flavors = append(k.Flavors, &kueue.ResourceFlavor{TypeMeta: kueueType("ResourceFlavor"), ObjectMeta: metav1.ObjectMeta{Name: flavor[i]},
			Spec: kueue.ResourceFlavorSpec{NodeLabels: map[string]string{InstanceTypeLabel: f.Name}}})
	}
	cohort := make([]string, len(m.Cohorts))
	for i, c := range m.Cohorts {
		cohort[i] = n.subdomain("cohort "+c.Name, "cohort/"+c.Name, c.Name)
	}
	for _, p := range s.Priority {
		if p.Value > math.MaxInt32 || p.Value < math.MinInt32 {
			return nil, fmt.Errorf("priority_classes[%s].value: %d does not fit Kueue's 32-bit value", p.Name, p.Value)
		}
		k.PriorityClasses = append(k.PriorityClasses, &kueue.WorkloadPriorityClass{TypeMeta: kueueType("WorkloadPriorityClass"),
			ObjectMeta: metav1.ObjectMeta{Name: n.subdomain("priority class "+p.Name, "priority/"+p.Name, p.Name)}, Value: int32(p.Value)})
	}
	for i, c := range m.Cohorts {
		co := &kueue.Cohort{TypeMeta: kueueType("Cohort"), ObjectMeta: metav1.ObjectMeta{Name: cohort[i]}}
		if c.Parent >= 0 {
			co.Spec.ParentName = kueue.CohortReference(cohort[c.Parent])
		}
		if len(c.Quotas) > 0 {
			co.Spec.ResourceGroups = cohortGroups(m, c.Quotas, flavor)
		}
		if m.FairSharing.Enabled && c.Weight != 1 {
			co.Spec.FairSharing = &kueue.FairSharing{Weight: weight(c.Weight)}
		}
		k.Cohorts = append(k.Cohorts, co)
	}
	for qi, q := range m.Queues {
		t := s.Teams[qi]
		name := n.subdomain("team "+q.Name, "queue/"+q.Name, q.Name)
		cq := &kueue.ClusterQueue{TypeMeta: kueueType("ClusterQueue"), ObjectMeta: metav1.ObjectMeta{Name: name}}
		sp := &cq.Spec
		if q.Cohort >= 0 {
			sp.CohortName = kueue.CohortReference(cohort[q.Cohort])
		}
		sp.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{corev1.LabelMetadataName: ns[qi]}}
		sp.QueueingStrategy = queueingStrategy(q.Strategy)
		for _, g := range q.Groups {
			sp.ResourceGroups = append(sp.ResourceGroups, queueGroup(m, g, flavor))
		}
		sp.Preemption = &kueue.ClusterQueuePreemption{
			WithinClusterQueue:  preemptPolicy(q.WithinQueue),
			ReclaimWithinCohort: preemptPolicy(q.Reclaim),
			BorrowWithinCohort:  &kueue.BorrowWithinCohort{Policy: borrowWithinPolicy(q.BorrowWithin)},
		}
		if q.BorrowWithin != policies.Never {
			if q.HasBorrowThreshold {
				th := q.BorrowThreshold
				sp.Preemption.BorrowWithinCohort.MaxPriorityThreshold = &th
			}
		}
		sp.FlavorFungibility = fungibility(q.Fungibility)
		if q.Fungibility.PreemptionOverBorrowing && sp.FlavorFungibility.Preference == nil {
			k.warns.team(t.Name, ": fallback preempt-first: Kueue takes a preference between preemption and borrowing only when both fungibility policies are TryNextFlavor; it stops at the first flavor where it can preempt")
		}
		if m.FairSharing.Enabled {
			sp.FairSharing = &kueue.FairSharing{Weight: weight(q.Weight)}
		}
		k.ClusterQueues = append(k.ClusterQueues, cq)
		k.LocalQueues = append(k.LocalQueues, &kueue.LocalQueue{TypeMeta: kueueType("LocalQueue"),
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns[qi]},
			Spec:       kueue.LocalQueueSpec{ClusterQueue: kueue.ClusterQueueReference(name)}})
	}
	k.Config = kueueConfig(s, m)
	k.warnDropped(s, m)
	k.Warnings = k.warns.lines()
	return k, nil
}

// namer makes Kubernetes names of allot's: lower case, other characters
// as '-', unique per kind, each change a warning.
type namer struct {
	k    *Kueue
	used map[string]string // kind/name -> the allot name it stands for
}

var notName = regexp.MustCompile(`[^a-z0-9.-]+`)

func (n *namer) subdomain(what, key, name string) string { return n.make(what, key, name, false) }

func (n *namer) label(what, name string) string { return n.make(what, "namespace/"+name, name, true) }

func (n *namer) make(what, key, name string, label bool) string {
	out := notName.ReplaceAllString(strings.ToLower(name), "-")
	if label {
		out = strings.ReplaceAll(out, ".", "-")
	}
	out = strings.Trim(out, "-.")
	if len(out) > 63 {
		out = strings.Trim(out[:63], "-.")
	}
	if out == "" {
		out = "x"
	}
	kind := key[:strings.IndexByte(key, '/')+1]
	base := out
	for i := 2; n.used[kind+out] != "" && n.used[kind+out] != name; i++ {
		out = fmt.Sprintf("%s-%d", base, i)
	}
	n.used[kind+out] = name
	if out != name {
		n.k.warn("%s: %q is not a Kubernetes name; exported as %q", what, name, out)
	}
	return out
}

func typeMeta(api, kind string) metav1.TypeMeta { return metav1.TypeMeta{APIVersion: api, Kind: kind} }

func kueueType(kind string) metav1.TypeMeta { return typeMeta(kueue.GroupVersion.String(), kind) }

func (k *Kueue) warn(format string, args ...any) { k.warns.add(format, args...) }

// queueGroup is a team's resource group: its types in the order tried,
// each with a quota on every covered resource.
func queueGroup(m *policies.Model, g policies.ResourceGroup, flavor []string) kueue.ResourceGroup {
	out := kueue.ResourceGroup{}
	for _, r := range g.Resources {
		out.CoveredResources = append(out.CoveredResources, corev1.ResourceName(m.Resources[r]))
	}
	for _, fq := range g.Flavors {
		f := kueue.FlavorQuotas{Name: kueue.ResourceFlavorReference(flavor[fq.Flavor])}
		for _, r := range g.Resources {
			f.Resources = append(f.Resources, resourceQuota(m.Resources[r], fq.Quotas[r]))
		}
		out.Flavors = append(out.Flavors, f)
	}
	return out
}

// cohortGroups is a cohort's own quota (capacity no team's covers), one
// resource group per set of resources its flavors carry.
func cohortGroups(m *policies.Model, quotas map[int]map[int]policies.Quota, flavor []string) []kueue.ResourceGroup {
	byCover := map[string]*kueue.ResourceGroup{}
	var order []string
	for f := range m.Flavors {
		qs, ok := quotas[f]
		if !ok {
			continue
		}
		var res []int
		for r := range qs {
			res = append(res, r)
		}
		slices.Sort(res)
		key := fmt.Sprint(res)
		g, ok := byCover[key]
		if !ok {
			g = &kueue.ResourceGroup{}
			for _, r := range res {
				g.CoveredResources = append(g.CoveredResources, corev1.ResourceName(m.Resources[r]))
			}
			byCover[key] = g
			order = append(order, key)
		}
		fl := kueue.FlavorQuotas{Name: kueue.ResourceFlavorReference(flavor[f])}
		for _, r := range res {
			fl.Resources = append(fl.Resources, resourceQuota(m.Resources[r], qs[r]))
		}
		g.Flavors = append(g.Flavors, fl)
	}
	var out []kueue.ResourceGroup
	for _, key := range order {
		out = append(out, *byCover[key])
	}
	return out
}

func resourceQuota(name string, q policies.Quota) kueue.ResourceQuota {
	rq := kueue.ResourceQuota{Name: corev1.ResourceName(name), NominalQuota: quantity(name, q.Nominal)}
	if q.HasBorrow {
		b := quantity(name, q.BorrowLimit)
		rq.BorrowingLimit = &b
	}
	if q.HasLend {
		l := quantity(name, q.LendLimit)
		rq.LendingLimit = &l
	}
	return rq
}

func weight(w float64) *resource.Quantity {
	q := resource.MustParse(fmt.Sprintf("%g", w))
	return &q
}

func fungibility(f policies.FlavorFungibility) *kueue.FlavorFungibility {
	out := &kueue.FlavorFungibility{WhenCanBorrow: kueue.MayStopSearch, WhenCanPreempt: kueue.TryNextFlavor}
	if f.WhenCanBorrowTryNext {
		out.WhenCanBorrow = kueue.TryNextFlavor
	}
	if f.WhenCanPreemptStop {
		out.WhenCanPreempt = kueue.MayStopSearch
	}
	if f.PreemptionOverBorrowing && out.WhenCanBorrow == kueue.TryNextFlavor && out.WhenCanPreempt == kueue.TryNextFlavor {
		p := kueue.PreemptionOverBorrowing
		out.Preference = &p
	}
	return out
}

func duration(s float64) metav1.Duration {
	return metav1.Duration{Duration: time.Duration(s * float64(time.Second))}
}

// warnDropped names the settings the objects do not carry.
func (k *Kueue) warnDropped(s *scenarios.Scenario, m *policies.Model) {
	p := &s.Policy
	switch p.Kind {
	case "fifo":
		k.warn("policy.kind fifo: Kueue has no single queue across teams; each team's ClusterQueue is StrictFIFO on its own quota")
	case "priority":
		k.warn("policy.kind priority: Kueue has no single queue across teams ordered by priority; each team's ClusterQueue orders its own jobs by priority")
	case "fairshare":
		k.warn("policy.kind fairshare: AWS Batch fair share has no Kueue equivalent (usage decay across share identifiers); the teams' quotas are exported, and fair sharing by weight")
	}
	if p.Admission == "first-come" {
		k.warn("policy.admission first-come: Kueue orders a ClusterQueue's jobs by priority, then creation; it cannot ignore priority")
	}
	if m.MinRuntime > 0 {
		k.warn("policy.preemption.min_runtime %s: Kueue has no protection from preemption after a start (Slurm's PreemptExemptTime); jobs may be preempted at once", fmtDur(m.MinRuntime))
	}
	if m.PreferLeastLostWork {
		k.warn("policy.preemption.prefer_least_lost_work: Kueue's candidate order does not look at checkpoints")
	}
	if p.Preemption.MaxRetries >= 0 {
		k.warn("policy.preemption.max_retries %d: Kueue requeues a preempted job without limit", p.Preemption.MaxRetries)
	}
	// A pod's own default grace is 30 s: only another value needs saying.
	if g := p.Preemption.GracePeriod; g != podDefaultGrace {
		k.warn("policy.preemption.grace_period %s: set the Jobs' pod terminationGracePeriodSeconds (Kubernetes' default is 30s); Kueue does not carry it", fmtDur(g))
	}
	if p.Backfill {
		k.warn("policy.backfill: Kueue does not backfill around a blocked head")
	}
	if m.Batch.DecayHalfLife > 0 || m.Batch.ComputeReservation > 0 {
		k.warn("policy.share_decay / compute_reservation: AWS Batch settings with no Kueue equivalent")
	}
	if p.Reservations == "hard" && (p.Kind == "fifo" || p.Kind == "priority") {
		k.warn("policy.reservations hard: exported as ClusterQueues that neither lend nor borrow only where the team says so; set lend and borrow false to keep reservations in Kueue")
	}
}

// podDefaultGrace is Kubernetes' terminationGracePeriodSeconds default (s).
const podDefaultGrace = 30

func fmtDur(s float64) string { return (time.Duration(s) * time.Second).String() }

// ObjectsYAML is every object as multi-document YAML, in the order kubectl
// apply needs: namespaces, flavors, priority classes, cohorts (parents
// first), cluster queues, local queues.
func (k *Kueue) ObjectsYAML() ([]byte, error) { return docs(k.Objects()) }

// Objects is every object in the order kubectl apply needs.
func (k *Kueue) Objects() []any {
	var objs []any
	for _, o := range k.Namespaces {
		objs = append(objs, o)
	}
	for _, o := range k.Flavors {
		objs = append(objs, o)
	}
	for _, o := range k.PriorityClasses {
		objs = append(objs, o)
	}
	for _, o := range k.cohortsParentsFirst() {
		objs = append(objs, o)
	}
	for _, o := range k.ClusterQueues {
		objs = append(objs, o)
	}
	for _, o := range k.LocalQueues {
		objs = append(objs, o)
	}
	return objs
}

func (k *Kueue) cohortsParentsFirst() []*kueue.Cohort {
	var out []*kueue.Cohort
	done := map[string]bool{}
	for len(out) < len(k.Cohorts) {
		for _, c := range k.Cohorts {
			if !done[c.Name] && (c.Spec.ParentName == "" || done[string(c.Spec.ParentName)]) {
				done[c.Name] = true
				out = append(out, c)
			}
		}
	}
	return out
}

// Applied is an object as a map to apply: through JSON, without the empty
// status and creation timestamp the API types marshal.
func Applied(o any) (map[string]any, error) {
	j, err := json.Marshal(o)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(j, &m); err != nil {
		return nil, err
	}
	delete(m, "status")
	if md, ok := m["metadata"].(map[string]any); ok {
		delete(md, "creationTimestamp")
	}
	return m, nil
}

func docs(objs []any) ([]byte, error) {
	var b bytes.Buffer
	for i, o := range objs {
		m, err := Applied(o)
		if err != nil {
			return nil, err
		}
		data, err := sigsyaml.Marshal(m)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			b.WriteString("---\n")
		}
		b.Write(data)
	}
	return b.Bytes(), nil
}
