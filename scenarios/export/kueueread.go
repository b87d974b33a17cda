package export

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	configv1beta1 "sigs.k8s.io/kueue/apis/config/v1beta1"
	config "sigs.k8s.io/kueue/apis/config/v1beta2"
	kueuev1beta1 "sigs.k8s.io/kueue/apis/kueue/v1beta1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	sigsyaml "sigs.k8s.io/yaml"
)

// KueueObjects are a Kueue cluster's objects and its manager's
// configuration as an import reads them, from files or from the cluster,
// each kind in the order read. v1beta1 objects are converted to v1beta2
// by Kueue's own conversions.
type KueueObjects struct {
	Flavors                 []*kueue.ResourceFlavor
	Cohorts                 []*kueue.Cohort
	ClusterQueues           []*kueue.ClusterQueue
	LocalQueues             []*kueue.LocalQueue
	WorkloadPriorityClasses []*kueue.WorkloadPriorityClass
	PriorityClasses         []*schedulingv1.PriorityClass
	Workloads               []*kueue.Workload
	Nodes                   []*corev1.Node
	// Config is the manager's Configuration; nil when none was read (the
	// import then assumes Kueue's defaults, with a warning).
	Config *config.Configuration
	// Source says what was read, for the scenario's header.
	Source string
	warns  importWarnings
	seen   map[string]string // kind/namespace/name -> where it was read
}

// ManagerConfigMap is where a Kueue installation keeps its manager's
// configuration: namespace, name and the key of the Configuration.
var ManagerConfigMap = struct{ Namespace, Name, Key string }{"kueue-system", "kueue-manager-config", "controller_manager_config.yaml"}

// ReadKueueFiles reads files as kubectl get -o yaml writes them (a List,
// or documents separated by ---, several kinds to a file) and the files
// allot export kueue writes (objects.yaml, and kueue-config.yaml: fields
// of the Configuration without apiVersion and kind). A document that does
// not decode is an error naming the file, the document and its line; a
// kind the import does not read is a warning.
func ReadKueueFiles(paths []string) (*KueueObjects, error) {
	o := &KueueObjects{Source: strings.Join(paths, ", ")}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		docs := splitYAML(data)
		for i, d := range docs {
			where := fmt.Sprintf("%s: document %d (line %d)", p, i+1, d.line)
			var m map[string]any
			if err := sigsyaml.Unmarshal(d.text, &m); err != nil {
				return nil, fmt.Errorf("%s: %s", where, shiftLines(err.Error(), d.line))
			}
			if m == nil {
				continue
			}
			if err := o.add(where, m, len(docs) == 1); err != nil {
				return nil, err
			}
		}
	}
	return o, nil
}

type yamlDoc struct {
	text []byte
	line int // of its first line in the file
}

// splitYAML cuts a file at its --- lines, dropping documents with nothing
// but comments and blank lines.
func splitYAML(data []byte) []yamlDoc {
	var out []yamlDoc
	var cur bytes.Buffer
	start, n, content := 1, 0, false
	flush := func() {
		if content {
			out = append(out, yamlDoc{text: bytes.Clone(cur.Bytes()), line: start})
		}
		cur.Reset()
		content = false
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		n++
		line := sc.Text()
		if line == "---" || strings.HasPrefix(line, "--- ") || strings.HasPrefix(line, "---\t") {
			flush()
			start = n + 1
			continue
		}
		if t := strings.TrimSpace(line); !content && (t == "" || strings.HasPrefix(t, "#")) {
			start = n + 1
			continue
		}
		content = true
		cur.WriteString(line)
		cur.WriteByte('\n')
	}
	flush()
	return out
}

var yamlLine = regexp.MustCompile(`line (\d+)`)

// shiftLines makes a YAML error's line numbers the file's, not the
// document's.
func shiftLines(msg string, first int) string {
	return yamlLine.ReplaceAllStringFunc(msg, func(s string) string {
		n, _ := strconv.Atoi(strings.TrimPrefix(s, "line "))
		return fmt.Sprintf("line %d", n+first-1)
	})
}

// configKeys are the top-level keys of a Configuration: a document of
// nothing else, without kind, is a fragment of one (kueue-config.yaml).
var configKeys = map[string]bool{"namespace": true, "manageJobsWithoutQueueName": true, "managedJobsNamespaceSelector": true,
	"internalCertManagement": true, "waitForPodsReady": true, "clientConnection": true, "integrations": true, "multiKueue": true,
	"fairSharing": true, "admissionFairSharing": true, "resources": true, "featureGates": true, "objectRetentionPolicies": true,
	"visibilityServer": true, "health": true, "metrics": true, "webhook": true, "leaderElection": true, "controller": true, "pprofBindAddress": true}

// add reads one object (or List) read at where. alone says the document
// is its file's only one: an empty one is then kueue-config.yaml's "{}".
func (o *KueueObjects) add(where string, m map[string]any, alone bool) error {
	api, _ := m["apiVersion"].(string)
	kind, _ := m["kind"].(string)
	if kind == "" && api == "" {
		for k := range m {
			if !configKeys[k] {
				return fmt.Errorf("%s: no kind, and %q is not a field of Kueue's Configuration", where, k)
			}
		}
		if len(m) == 0 && !alone {
			return nil
		}
		return o.decodeConfig(where, config.GroupVersion.String(), m)
	}
	if items, ok := m["items"].([]any); ok && strings.HasSuffix(kind, "List") {
		for i, it := range items {
			im, ok := it.(map[string]any)
			if !ok {
				return fmt.Errorf("%s: items[%d]: not an object", where, i)
			}
			if err := o.add(fmt.Sprintf("%s: items[%d]", where, i), im, false); err != nil {
				return err
			}
		}
		return nil
	}
	group, version, _ := strings.Cut(api, "/")
	if version == "" {
		group, version = "", group
	}
	switch {
	case group == kueue.GroupVersion.Group && (version == "v1beta2" || version == "v1beta1"):
		return o.decodeKueue(where, version, kind, m)
	case group == config.GroupVersion.Group && kind == "Configuration":
		return o.decodeConfig(where, api, m)
	case api == "v1" && kind == "Node":
		return decodeInto(where, m, &o.Nodes, o)
	case api == "scheduling.k8s.io/v1" && kind == "PriorityClass":
		return decodeInto(where, m, &o.PriorityClasses, o)
	case api == "v1" && kind == "Namespace":
		return nil // a LocalQueue's namespace says what the import needs
	case api == "v1" && kind == "ConfigMap":
		return o.decodeConfigMap(where, m)
	}
	o.warns.add(where, "", "%s %s: not a kind the import reads; ignored", api, kind)
	return nil
}

// decodeKueue decodes a kueue.x-k8s.io object, converting v1beta1.
func (o *KueueObjects) decodeKueue(where, version, kind string, m map[string]any) error {
	if version == "v1beta2" {
		switch kind {
		case "ResourceFlavor":
			return decodeInto(where, m, &o.Flavors, o)
		case "Cohort":
			return decodeInto(where, m, &o.Cohorts, o)
		case "ClusterQueue":
			return decodeInto(where, m, &o.ClusterQueues, o)
		case "LocalQueue":
			return decodeInto(where, m, &o.LocalQueues, o)
		case "WorkloadPriorityClass":
			return decodeInto(where, m, &o.WorkloadPriorityClasses, o)
		case "Workload":
			return decodeInto(where, m, &o.Workloads, o)
		}
	} else {
		switch kind {
		case "ResourceFlavor":
			return convertInto(where, m, &o.Flavors, o, func(in *kueuev1beta1.ResourceFlavor, out *kueue.ResourceFlavor) error {
				return kueuev1beta1.Convert_v1beta1_ResourceFlavor_To_v1beta2_ResourceFlavor(in, out, nil)
			})
		case "Cohort":
			return convertInto(where, m, &o.Cohorts, o, func(in *kueuev1beta1.Cohort, out *kueue.Cohort) error { return in.ConvertTo(out) })
		case "ClusterQueue":
			return convertInto(where, m, &o.ClusterQueues, o, func(in *kueuev1beta1.ClusterQueue, out *kueue.ClusterQueue) error { return in.ConvertTo(out) })
		case "LocalQueue":
			return convertInto(where, m, &o.LocalQueues, o, func(in *kueuev1beta1.LocalQueue, out *kueue.LocalQueue) error { return in.ConvertTo(out) })
		case "WorkloadPriorityClass":
			return convertInto(where, m, &o.WorkloadPriorityClasses, o, func(in *kueuev1beta1.WorkloadPriorityClass, out *kueue.WorkloadPriorityClass) error {
				return kueuev1beta1.Convert_v1beta1_WorkloadPriorityClass_To_v1beta2_WorkloadPriorityClass(in, out, nil)
			})
		case "Workload":
			return convertInto(where, m, &o.Workloads, o, func(in *kueuev1beta1.Workload, out *kueue.Workload) error { return in.ConvertTo(out) })
		}
	}
	o.warns.add(where, "", "kueue.x-k8s.io/%s %s: not a kind the import reads; ignored", version, kind)
	return nil
}

// named is what every object has: its kind and name, for errors.
type named interface {
	GetName() string
	GetNamespace() string
}

// decodeInto decodes m as a T and appends it to *dst, once per name.
func decodeInto[T any, P interface {
	*T
	named
}](where string, m map[string]any, dst *[]P, o *KueueObjects) error {
	var obj P = new(T)
	if err := decodeJSON(m, obj); err != nil {
		return fmt.Errorf("%s: %s %s: %w", where, m["kind"], nameOf(m), err)
	}
	o.unknownFields(m, obj)
	if o.once(where, m["kind"], obj) {
		*dst = append(*dst, obj)
	}
	return nil
}

// convertInto decodes m as an older version's V and converts it.
func convertInto[V any, T any, P interface {
	*T
	named
}](where string, m map[string]any, dst *[]P, o *KueueObjects, conv func(*V, P) error) error {
	in := new(V)
	if err := decodeJSON(m, in); err != nil {
		return fmt.Errorf("%s: %s %s: %w", where, m["kind"], nameOf(m), err)
	}
	o.unknownFields(m, in)
	var obj P = new(T)
	if err := conv(in, obj); err != nil {
		return fmt.Errorf("%s: %s %s: converting from v1beta1: %w", where, m["kind"], nameOf(m), err)
	}
	if o.once(where, m["kind"], obj) {
		*dst = append(*dst, obj)
	}
	return nil
}

// once says whether an object is new; one read twice is a warning.
func (o *KueueObjects) once(where string, kind any, obj named) bool {
	key := fmt.Sprintf("%v/%s/%s", kind, obj.GetNamespace(), obj.GetName())
	if o.seen == nil {
		o.seen = map[string]string{}
	}
	if first, ok := o.seen[key]; ok {
		o.warns.add(where, "", "%v %s: read before (%s); the first kept", kind, qualified(obj), first)
		return false
	}
	o.seen[key] = where
	return true
}

func qualified(obj named) string {
	if obj.GetNamespace() != "" {
		return obj.GetNamespace() + "/" + obj.GetName()
	}
	return obj.GetName()
}

func nameOf(m map[string]any) string {
	md, _ := m["metadata"].(map[string]any)
	name, _ := md["name"].(string)
	if ns, _ := md["namespace"].(string); ns != "" {
		return ns + "/" + name
	}
	return name
}

func decodeJSON(m map[string]any, into any) error {
	data, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, into)
}

// decodeConfig reads the manager's Configuration (v1beta1 converted).
func (o *KueueObjects) decodeConfig(where, api string, m map[string]any) error {
	if o.Config != nil {
		o.warns.add(where, "", "a second Kueue Configuration; the first kept")
		return nil
	}
	c := &config.Configuration{}
	if api == configv1beta1.GroupVersion.String() {
		old := &configv1beta1.Configuration{}
		if err := decodeJSON(m, old); err != nil {
			return fmt.Errorf("%s: Configuration: %w", where, err)
		}
		if err := old.ConvertTo(c); err != nil {
			return fmt.Errorf("%s: Configuration: converting from v1beta1: %w", where, err)
		}
	} else if err := decodeJSON(m, c); err != nil {
		return fmt.Errorf("%s: Configuration: %w", where, err)
	}
	o.Config = c
	return nil
}

// decodeConfigMap reads the manager's ConfigMap; any other is a warning.
func (o *KueueObjects) decodeConfigMap(where string, m map[string]any) error {
	cm := &corev1.ConfigMap{}
	if err := decodeJSON(m, cm); err != nil {
		return fmt.Errorf("%s: ConfigMap %s: %w", where, nameOf(m), err)
	}
	if cm.Name != ManagerConfigMap.Name {
		o.warns.add(where, "", "ConfigMap %s: not Kueue's %s; ignored", qualified(cm), ManagerConfigMap.Name)
		return nil
	}
	text, ok := cm.Data[ManagerConfigMap.Key]
	if !ok {
		return fmt.Errorf("%s: ConfigMap %s: no data key %s", where, qualified(cm), ManagerConfigMap.Key)
	}
	where += fmt.Sprintf(": ConfigMap %s: data.%s", qualified(cm), ManagerConfigMap.Key)
	var inner map[string]any
	if err := sigsyaml.Unmarshal([]byte(text), &inner); err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	api, _ := inner["apiVersion"].(string)
	if api == "" {
		api = config.GroupVersion.String()
	}
	return o.decodeConfig(where, api, inner)
}
