package export

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// unknownFields warns of the fields of m that Kueue v0.17's API type (or
// Kubernetes') decoded into obj does not have: a newer Kueue's, or a
// misspelt one. Workloads and Nodes are warned of by kind, not one by
// one.
func (o *KueueObjects) unknownFields(m map[string]any, obj any) {
	data, err := json.Marshal(obj)
	if err != nil {
		return
	}
	var known map[string]any
	if json.Unmarshal(data, &known) != nil {
		return
	}
	kind, _ := m["kind"].(string)
	object := kind + " " + nameOf(m)
	if kind == "Workload" || kind == "Node" {
		object = kind + "s"
	}
	for k, v := range m {
		if k == "apiVersion" || k == "kind" || k == "metadata" {
			continue
		}
		for _, path := range missing(v, known[k], k, object != kind+" "+nameOf(m)) {
			o.warns.add(object, path, "not a field of Kueue v0.17's API (%s): ignored", m["apiVersion"])
		}
	}
}

// missing lists the paths in in that out lacks (empty values aside);
// byKind writes list indices as [].
func missing(in, out any, path string, byKind bool) []string {
	switch v := in.(type) {
	case map[string]any:
		o, _ := out.(map[string]any)
		var paths []string
		for _, k := range slices.Sorted(maps.Keys(v)) {
			p := path + "." + k
			if _, ok := o[k]; !ok {
				if !empty(v[k]) {
					paths = append(paths, p)
				}
				continue
			}
			paths = append(paths, missing(v[k], o[k], p, byKind)...)
		}
		return paths
	case []any:
		o, _ := out.([]any)
		var paths []string
		for i, x := range v {
			var ox any
			if i < len(o) {
				ox = o[i]
			}
			idx := fmt.Sprintf("[%d]", i)
			if byKind {
				idx = "[]"
			}
			for _, p := range missing(x, ox, path+idx, byKind) {
				if !slices.Contains(paths, p) {
					paths = append(paths, p)
				}
			}
		}
		return paths
	}
	return nil
}

func empty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return strings.TrimSpace(x) == ""
	case bool:
		return !x // false is every Kubernetes flag's default
	case map[string]any:
		return len(x) == 0
	case []any:
		return len(x) == 0
	}
	return false
}
