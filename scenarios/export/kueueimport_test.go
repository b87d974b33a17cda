package export

import (
	"fmt"
	"strings"
	"testing"

	"github.com/allot-sim/allot/scenarios/scenfile"
	"github.com/stretchr/testify/require"
)

// cq is a ClusterQueue in cohort org with one resource group: flavors
// as "NAME: RESOURCE=NOMINAL[/BORROW[/LEND]], ..." lines.
func cq(name string, flavors ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: %s}\nspec:\n  cohortName: org\n"+
		"  namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: %s}}\n  resourceGroups:\n  - flavors:\n", name, name)
	for _, f := range flavors {
		fl, res, _ := strings.Cut(f, ": ")
		fmt.Fprintf(&b, "    - name: %s\n      resources:\n", fl)
		for _, r := range strings.Split(res, ", ") {
			rn, v, _ := strings.Cut(r, "=")
			parts := strings.Split(v, "/")
			fmt.Fprintf(&b, "      - {name: %s, nominalQuota: %q", rn, parts[0])
			if len(parts) > 1 && parts[1] != "" {
				fmt.Fprintf(&b, ", borrowingLimit: %q", parts[1])
			}
			if len(parts) > 2 {
				fmt.Fprintf(&b, ", lendingLimit: %q", parts[2])
			}
			b.WriteString("}\n")
		}
	}
	return b.String()
}

const kueueTwoFlavors = `apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: h100}
spec: {nodeLabels: {node.kubernetes.io/instance-type: p5.48xlarge}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: a100}
spec: {nodeLabels: {node.kubernetes.io/instance-type: p4d.24xlarge}}
`

func importYAML(t *testing.T, body string) *Imported {
	t.Helper()
	o, err := ReadKueueFiles([]string{writeKueue(t, body)})
	require.NoError(t, err)
	imp, err := ImportKueue(o, KueueImportOptions{})
	require.NoError(t, err)
	return imp
}

// One lending_limit and borrow_limit per team: a share of the quota where
// every flavor's limit is that share, a number of accelerators where
// every flavor's is that number; limits neither states are warned of,
// the largest quota's share assumed.
func TestKueuePerFlavorLimitsBecomeOneShareOrNumberPerTeam(t *testing.T) {
	imp := importYAML(t, kueueTwoFlavors+
		cq("share", "h100: nvidia.com/gpu=16/8/12", "a100: nvidia.com/gpu=8/4/6")+
		cq("number", "h100: nvidia.com/gpu=16/4", "a100: nvidia.com/gpu=8/4")+
		cq("closed", "h100: nvidia.com/gpu=16/0/0", "a100: nvidia.com/gpu=8/0/0")+
		cq("uneven", "h100: nvidia.com/gpu=16/8", "a100: nvidia.com/gpu=8/1"))
	byName := map[string]scenfile.Team{}
	for _, tm := range imp.File.Teams {
		byName[tm.Name] = tm
	}
	require.Equal(t, "50%", byName["share"].BorrowLimit)
	require.Equal(t, "75%", byName["share"].LendingLimit)
	require.Equal(t, "4", byName["number"].BorrowLimit)
	require.Equal(t, scenfile.Ptr(false), byName["closed"].Lend)
	require.Equal(t, scenfile.Ptr(false), byName["closed"].Borrow)
	require.Equal(t, "50%", byName["uneven"].BorrowLimit)
	require.Contains(t, imp.Warnings, "ClusterQueue uneven: spec.resourceGroups: limits per flavor that one lending_limit and borrow_limit per team cannot state: p4d.24xlarge nvidia.com/gpu borrowingLimit 1 (allot: 4)")
	for _, tm := range []string{"share", "number", "closed"} {
		for _, w := range imp.Warnings {
			require.NotContains(t, w, "ClusterQueue "+tm+":", "its limits map exactly")
		}
	}
}

// cpu and memory that are the accelerators' share of the type's (what an
// export writes) are left to the ratio rule; others are kept, which
// makes the scenario model cpu and memory.
func TestKueueCPUQuotaOtherThanTheAcceleratorsShareIsKept(t *testing.T) {
	imp := importYAML(t, kueueTwoFlavors+
		cq("byratio", "h100: nvidia.com/gpu=8, cpu=192, memory=2Ti")+
		cq("own", "h100: nvidia.com/gpu=16, cpu=100, memory=1Ti"))
	require.Equal(t, map[string]scenfile.Quota{"p5.48xlarge": {Accelerators: 8}}, imp.File.Teams[0].Quota)
	require.Equal(t, map[string]scenfile.Quota{"p5.48xlarge": {Accelerators: 16, VCPUs: scenfile.Ptr(100.0), MemoryGiB: scenfile.Ptr(1024.0)}}, imp.File.Teams[1].Quota)
}

// Nodes make the fleet: counted per flavor by its nodeLabels; a type the
// catalog lacks takes its Nodes' figures; a flavor with a quota and no
// Nodes is sized from the quota, with a warning.
func TestKueueNodesCountPerFlavorAndShapeACustomType(t *testing.T) {
	node := func(name, typ, gpus, product string) string {
		return fmt.Sprintf("---\napiVersion: v1\nkind: Node\nmetadata:\n  name: %s\n  labels: {node.kubernetes.io/instance-type: %s, nvidia.com/gpu.product: %s}\n"+
			"status:\n  capacity: {cpu: \"48\", memory: 192Gi, nvidia.com/gpu: %q}\n  allocatable: {cpu: \"46\", memory: 180Gi, nvidia.com/gpu: %q}\n", name, typ, product, gpus, gpus)
	}
	imp := importYAML(t, kueueTwoFlavors+`---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: a10g}
spec: {nodeLabels: {node.kubernetes.io/instance-type: g5.12xlarge}}
`+node("g5-a", "g5.12xlarge", "4", "NVIDIA-A10G")+node("g5-b", "g5.12xlarge", "4", "NVIDIA-A10G")+node("p5-a", "p5.48xlarge", "4", "NVIDIA-H100")+
		cq("a", "h100: nvidia.com/gpu=8", "a100: nvidia.com/gpu=12", "a10g: nvidia.com/gpu=8"))
	require.Equal(t, []scenfile.InstanceType{{Name: "g5.12xlarge", Accelerator: "nvidia-a10g", Accelerators: 4, Resource: "nvidia.com/gpu",
		VCPUs: scenfile.Ptr(48.0), MemoryGiB: scenfile.Ptr(192.0)}}, imp.File.Fleet.InstanceTypes)
	require.Equal(t, []scenfile.NodeGroup{{Type: "p5.48xlarge", Count: 1}, {Type: "p4d.24xlarge", Count: 2}, {Type: "g5.12xlarge", Count: 2}}, imp.File.Fleet.Nodes)
	require.Contains(t, imp.Warnings, "Node p5-a: status.allocatable: 4 accelerators where the catalog's p5.48xlarge has 8: the catalog's figures kept")
	require.Contains(t, imp.Warnings, "ResourceFlavor a100: no Nodes carry its nodeLabels: 2 nodes of p4d.24xlarge assumed, enough for its quotas")
}

// Two flavors of one instance type (on-demand and spot capacity of
// p5.48xlarge): the second is a custom type named after its flavor, with
// the catalog type's figures.
func TestKueueTwoFlavorsOfOneTypeMakeACopyOfIt(t *testing.T) {
	imp := importYAML(t, kueueTwoFlavors+`---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: h100-spot}
spec: {nodeLabels: {node.kubernetes.io/instance-type: p5.48xlarge, capacity: spot}}
`+cq("a", "h100: nvidia.com/gpu=8", "h100-spot: nvidia.com/gpu=16"))
	require.Equal(t, []scenfile.InstanceType{{Name: "h100-spot", Accelerator: "h100", Accelerators: 8, Resource: "nvidia.com/gpu",
		VCPUs: scenfile.Ptr(192.0), MemoryGiB: scenfile.Ptr(2048.0), PricePerHour: scenfile.Ptr(55.04), Speed: scenfile.Ptr(1.73)}}, imp.File.Fleet.InstanceTypes)
	require.Equal(t, map[string]scenfile.Quota{"p5.48xlarge": {Accelerators: 8}, "h100-spot": {Accelerators: 16}}, imp.File.Teams[0].Quota)
	require.Contains(t, imp.Warnings, "ResourceFlavor h100-spot: instance type p5.48xlarge is another flavor's too: this one is the custom type h100-spot, with the same figures")
}
