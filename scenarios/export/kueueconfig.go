package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/allot-sim/allot/policies"
	"github.com/allot-sim/allot/scenarios"
	"go.yaml.in/yaml/v3"
	config "sigs.k8s.io/kueue/apis/config/v1beta2"
)

// kueueConfig is the part of Kueue's Configuration the policy needs, and
// no more: a field the scenario does not ask for keeps the manager's own
// value.
func kueueConfig(s *scenarios.Scenario, m *policies.Model) *config.Configuration {
	c := &config.Configuration{TypeMeta: typeMeta(config.GroupVersion.String(), "Configuration")}
	if m.FairSharing.Enabled {
		fs := &config.FairSharing{}
		for _, st := range m.FairSharing.Strategies {
			fs.PreemptionStrategies = append(fs.PreemptionStrategies, fairStrategy(st))
		}
		if len(fs.PreemptionStrategies) == 0 {
			fs.PreemptionStrategies = slices.Clone(kueueDefaultFairStrategies)
		}
		c.FairSharing = fs
	}
	if hl := m.AdmissionFairSharingHalfLife; hl > 0 {
		c.AdmissionFairSharing = &config.AdmissionFairSharing{UsageHalfLifeTime: duration(hl), UsageSamplingInterval: duration(min(hl/10, 300))}
	}
	if s.Policy.PlacementTimeoutSet {
		c.WaitForPodsReady = &config.WaitForPodsReady{Timeout: duration(s.Policy.PlacementTimeout)}
	}
	var excluded []string
	for _, r := range NodeResources {
		if !slices.Contains(m.Resources, r) {
			excluded = append(excluded, r)
		}
	}
	if len(excluded) > 0 {
		c.Resources = &config.Resources{ExcludeResourcePrefixes: excluded}
	}
	return c
}

// configNotes says, for each field kueueConfig may set (its JSON path),
// why: kueue-config.yaml carries them as comments.
var configNotes = map[string]string{
	"fairSharing":                                "fair sharing between the teams' ClusterQueues by weight (policy.idle_allocation fair-share)",
	"fairSharing.preemptionStrategies":           "the order of the rules by which a preemption may even out shares (policy.fair_sharing_strategies)",
	"admissionFairSharing":                       "ordering a team's jobs by its users' recent usage (policy.usage_half_life)",
	"admissionFairSharing.usageHalfLifeTime":     "usage decays by half in this time (policy.usage_half_life)",
	"admissionFairSharing.usageSamplingInterval": "how often usage is sampled: a tenth of the half-life, at most 5m",
	"waitForPodsReady":                           "requeue a job admitted but not running in time (policy.placement_timeout)",
	"waitForPodsReady.timeout":                   "policy.placement_timeout",
	"resources":                                  "resources Kueue leaves out of quota accounting",
	"resources.excludeResourcePrefixes": "requested by Jobs, covered by no ClusterQueue of this export (ephemeral-storage:\n" +
		"the catalog has no figures; cpu and memory with --accelerators-only); keep any\n" +
		"prefixes already set",
}

// ConfigYAML is kueue-config.yaml: the fields of Kueue's Configuration
// the policy sets, each with a comment saying why, to merge into the
// manager's configuration.
func (k *Kueue) ConfigYAML() ([]byte, error) {
	j, err := json.Marshal(k.Config)
	if err != nil {
		return nil, err
	}
	var fields map[string]any
	if err := json.Unmarshal(j, &fields); err != nil {
		return nil, err
	}
	// Only what kueueConfig sets: the type's other fields marshal as
	// empty values that would overwrite the manager's own.
	for key := range fields {
		if configNotes[key] == "" {
			delete(fields, key)
		}
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Fields of Kueue's Configuration (%s) that the policy of\n# %s needs.\n"+
		"# Merge them into the manager's configuration (controller_manager_config.yaml\n"+
		"# in the kueue-manager-config ConfigMap) and restart the manager; every other\n"+
		"# field keeps its value.\n", config.GroupVersion, k.sourceName())
	if len(fields) == 0 {
		b.WriteString("# It needs none.\n{}\n")
		return b.Bytes(), nil
	}
	root, err := commented(fields, "")
	if err != nil {
		return nil, err
	}
	b.WriteString("\n")
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(root); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func (k *Kueue) sourceName() string {
	if k.source == "" {
		return "this export"
	}
	return k.source
}

// commented is v as a YAML node, each mapping key under path carrying its
// configNotes line; keys in sorted order, so the file is the same each time.
func commented(v any, path string) (*yaml.Node, error) {
	m, ok := v.(map[string]any)
	if !ok {
		n := &yaml.Node{}
		if err := n.Encode(v); err != nil {
			return nil, err
		}
		return n, nil
	}
	n := &yaml.Node{Kind: yaml.MappingNode}
	keys := make([]string, 0, len(m))
	for key := range m {
		keys = append(keys, key)
	}
	slices.Sort(keys)
	for _, key := range keys {
		p := key
		if path != "" {
			p = path + "." + key
		}
		val, err := commented(m[key], p)
		if err != nil {
			return nil, err
		}
		kn := &yaml.Node{Kind: yaml.ScalarNode, Value: key}
		kn.HeadComment = configNotes[p]
		n.Content = append(n.Content, kn, val)
	}
	return n, nil
}
