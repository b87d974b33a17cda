package export

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func writeKueue(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "kueue.yaml")
	require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	return p
}

const kueueFlavor = `apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: h100}
spec:
  nodeLabels: {node.kubernetes.io/instance-type: p5.48xlarge}
`

// Input the import cannot read is an error that names the file, the
// document and its line, the object and the field.
func TestABadKueueDocumentIsAnErrorNamingFileDocumentLineAndField(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"yaml", kueueFlavor + "---\n# a queue\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: a\n",
			"kueue.yaml: document 2 (line 8): error converting YAML to JSON: yaml: line 10: did not find expected ',' or '}'"},
		{"type", kueueFlavor + "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: a}\nspec: {queueingStrategy: [StrictFIFO]}\n",
			"kueue.yaml: document 2 (line 7): ClusterQueue a: json: cannot unmarshal array into Go struct field ClusterQueueSpec.spec.queueingStrategy of type v1beta2.QueueingStrategy"},
		{"negative quota", kueueFlavor + `---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: a}
spec:
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors:
    - name: h100
      resources: [{name: nvidia.com/gpu, nominalQuota: "-8"}]
`, "kueue.yaml: document 2 (line 7): ClusterQueue a: spec.resourceGroups[0].flavors[0].resources[nvidia.com/gpu]: nominalQuota -8 is negative"},
		{"no kind", "fairSharing: {}\nqueues: 3\n", `kueue.yaml: document 1 (line 1): no kind, and "queues" is not a field of Kueue's Configuration`},
		{"cohort cycle", kueueFlavor + `---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Cohort
metadata: {name: left}
spec: {parentName: right}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Cohort
metadata: {name: right}
spec: {parentName: left}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: a}
spec: {cohortName: left}
`, "kueue.yaml: document 2 (line 7): Cohort left: spec.parentName: the parents form a cycle"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeKueue(t, tc.body)
			o, err := ReadKueueFiles([]string{p})
			if err == nil {
				_, err = ImportKueue(o, KueueImportOptions{})
			}
			require.Error(t, err)
			require.Equal(t, filepath.Dir(p)+"/"+tc.want, err.Error())
		})
	}
}

// A file of objects and no ClusterQueue is nothing to import.
func TestKueueFilesWithoutAClusterQueueAreAnError(t *testing.T) {
	o, err := ReadKueueFiles([]string{writeKueue(t, kueueFlavor)})
	require.NoError(t, err)
	_, err = ImportKueue(o, KueueImportOptions{})
	require.ErrorContains(t, err, "no ClusterQueue read: nothing to make teams of")
}

// The same object read twice is kept once, with a warning; an export's
// kueue-config.yaml with no fields is a Configuration (Kueue's defaults,
// but read).
func TestKueueObjectsReadTwiceAndAnEmptyConfigFragment(t *testing.T) {
	cfg := writeKueue(t, "# It needs none.\n{}\n")
	p := writeKueue(t, kueueFlavor+"---\n"+kueueFlavor)
	o, err := ReadKueueFiles([]string{p, cfg})
	require.NoError(t, err)
	require.Len(t, o.Flavors, 1)
	require.NotNil(t, o.Config)
	require.Equal(t, []string{p + ": document 2 (line 7): ResourceFlavor h100: read before (" + p + ": document 1 (line 1)); the first kept"}, o.warns.lines)
}
