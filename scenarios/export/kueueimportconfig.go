package export

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/allot-sim/allot/scenarios/scenfile"
	config "sigs.k8s.io/kueue/apis/config/v1beta2"
)

// config maps the manager's Configuration onto the policy: fairSharing
// is idle_allocation fair-share with its strategies, admissionFairSharing
// usage_half_life, waitForPodsReady placement_timeout. The fields that
// shape scheduling otherwise are warnings; the manager's own plumbing
// (webhooks, metrics, integrations, certificates) is not read.
func (im *kueueImport) config(p *scenfile.Policy) {
	c := im.o.Config
	const obj = "Configuration"
	if c == nil {
		im.w.add(obj, "", "not read: Kueue's defaults assumed (no fair sharing: idle_allocation first-come; no admission fair sharing; no waitForPodsReady)")
		p.IdleAllocation = "first-come"
		return
	}
	p.IdleAllocation = "first-come"
	if fs := c.FairSharing; fs != nil {
		p.IdleAllocation = "fair-share"
		var names []string
		for _, st := range fs.PreemptionStrategies {
			if n, ok := fairStrategyName(st); ok {
				names = append(names, n)
			} else {
				im.w.add(obj, "fairSharing.preemptionStrategies", "%s is not a Kueue strategy: left out", st)
			}
		}
		if !slices.Equal(fs.PreemptionStrategies, kueueDefaultFairStrategies) && len(names) > 0 {
			p.FairSharingStrategies = names
		}
	}
	if afs := c.AdmissionFairSharing; afs != nil {
		hl := afs.UsageHalfLifeTime.Seconds()
		if hl > 0 {
			p.UsageHalfLife = scenfile.Dur(hl)
			if si := afs.UsageSamplingInterval.Seconds(); si != math.Min(hl/10, 300) && si != 0 {
				im.w.add(obj, "admissionFairSharing.usageSamplingInterval", "%s: allot decays usage continuously by the half-life", afs.UsageSamplingInterval.Duration)
			}
		} else {
			im.w.add(obj, "admissionFairSharing.usageHalfLifeTime", "0: usage never remembered; admission fair sharing left off")
		}
		if len(afs.ResourceWeights) > 0 {
			im.w.add(obj, "admissionFairSharing.resourceWeights", "not modelled: usage counts accelerators")
		}
	}
	if wr := c.WaitForPodsReady; wr != nil {
		if t := wr.Timeout.Seconds(); t > 0 {
			p.PlacementTimeout = scenfile.Dur(t)
		}
		if wr.BlockAdmission != nil && *wr.BlockAdmission {
			im.w.add(obj, "waitForPodsReady.blockAdmission", "not modelled: a placed job's pods start at once in the simulator")
		}
		if wr.RequeuingStrategy != nil {
			im.w.add(obj, "waitForPodsReady.requeuingStrategy", "allot requeues after the timeout, doubling up to an hour")
		}
		if wr.RecoveryTimeout != nil {
			im.w.add(obj, "waitForPodsReady.recoveryTimeout", "not modelled")
		}
	}
	im.configResources(c)
	if c.ManageJobsWithoutQueueName {
		im.w.add(obj, "manageJobsWithoutQueueName", "jobs with no queue are Kueue's too; only Workloads with a LocalQueue are in the trace")
	}
	if len(c.FeatureGates) > 0 {
		var gates []string
		for _, g := range slices.Sorted(maps.Keys(c.FeatureGates)) {
			gates = append(gates, fmt.Sprintf("%s=%t", g, c.FeatureGates[g]))
		}
		im.w.add(obj, "featureGates", "%s: allot models Kueue v0.17's scheduling as docs/export.md describes; these gates are not read", strings.Join(gates, ", "))
	}
	if r := c.ObjectRetentionPolicies; r != nil && r.Workloads != nil && r.Workloads.AfterFinished != nil {
		im.w.add(obj, "objectRetentionPolicies.workloads.afterFinished", "%s: finished Workloads are deleted after that: the history read may lack them", r.Workloads.AfterFinished.Duration)
	}
	if c.MultiKueue != nil {
		im.w.add(obj, "multiKueue", "not modelled: every Workload runs on this cluster")
	}
}

// configResources warns of resource settings beyond leaving cpu and
// memory out (which an accelerators-only import does anyway).
func (im *kueueImport) configResources(c *config.Configuration) {
	r := c.Resources
	if r == nil {
		return
	}
	for _, prefix := range r.ExcludeResourcePrefixes {
		for _, a := range acceleratorResources {
			if strings.HasPrefix(a, prefix) {
				im.w.add("Configuration", "resources.excludeResourcePrefixes", "%s: Kueue leaves %s out of its quotas; allot counts it", prefix, a)
			}
		}
	}
	if len(r.Transformations) > 0 {
		im.w.add("Configuration", "resources.transformations", "not modelled: quotas count the resources as requested")
	}
	if len(r.DeviceClassMappings) > 0 {
		im.w.add("Configuration", "resources.deviceClassMappings", "dynamic resource allocation is not modelled")
	}
}
