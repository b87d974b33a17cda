package export

import (
	"context"
	"fmt"
	"io"
	"maps"
	"reflect"
	"slices"
	"sort"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

// kueueResources are where each kind of an export lives.
var kueueResources = map[string]schema.GroupVersionResource{
	"Namespace":             {Version: "v1", Resource: "namespaces"},
	"ResourceFlavor":        {Group: "kueue.x-k8s.io", Version: "v1beta2", Resource: "resourceflavors"},
	"WorkloadPriorityClass": {Group: "kueue.x-k8s.io", Version: "v1beta2", Resource: "workloadpriorityclasses"},
	"Cohort":                {Group: "kueue.x-k8s.io", Version: "v1beta2", Resource: "cohorts"},
	"ClusterQueue":          {Group: "kueue.x-k8s.io", Version: "v1beta2", Resource: "clusterqueues"},
	"LocalQueue":            {Group: "kueue.x-k8s.io", Version: "v1beta2", Resource: "localqueues"},
}

// Apply server-side applies the export (field manager allot) through
// dyn: a dry run of every object first, whose changes it writes to w
// (create, update with the fields that change, same), then, unless
// dryRun, the same apply for real. An object in a namespace the export
// itself creates cannot be dry-run (the namespace is not there yet): it is
// reported as a create. Errors wrap the API server's, naming the object.
func (k *Kueue) Apply(ctx context.Context, dyn dynamic.Interface, w io.Writer, dryRun bool) error {
	type change struct{ verb, what, detail string }
	var changes []change
	var objs []*unstructured.Unstructured
	for _, o := range k.Objects() {
		m, err := Applied(o)
		if err != nil {
			return err
		}
		objs = append(objs, &unstructured.Unstructured{Object: m})
	}
	newNS := map[string]bool{}
	for _, u := range objs {
		gvr := kueueResources[u.GetKind()]
		ri := dyn.Resource(gvr).Namespace(u.GetNamespace())
		what := u.GetKind() + " " + u.GetName()
		if u.GetNamespace() != "" {
			what = u.GetKind() + " " + u.GetNamespace() + "/" + u.GetName()
		}
		cur, err := ri.Get(ctx, u.GetName(), metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			if u.GetKind() == "Namespace" {
				newNS[u.GetName()] = true
			}
			if !newNS[u.GetNamespace()] {
				if _, err := ri.Apply(ctx, u.GetName(), u, metav1.ApplyOptions{FieldManager: "allot", Force: true, DryRun: []string{metav1.DryRunAll}}); err != nil {
					return fmt.Errorf("%s: %w", what, err)
				}
			}
			changes = append(changes, change{"create", what, ""})
			continue
		case err != nil:
			return fmt.Errorf("%s: %w", what, err)
		}
		next, err := ri.Apply(ctx, u.GetName(), u, metav1.ApplyOptions{FieldManager: "allot", Force: true, DryRun: []string{metav1.DryRunAll}})
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		var diffs []string
		for _, key := range []string{"spec", "value", "description"} {
			diffs = append(diffs, diffPaths(key, cur.Object[key], next.Object[key])...)
		}
		if len(diffs) == 0 {
			changes = append(changes, change{"same", what, ""})
			continue
		}
		sort.Strings(diffs)
		for _, d := range diffs {
			changes = append(changes, change{"update", what, d})
		}
	}
	mode := "dry run"
	if !dryRun {
		mode = "dry run, then applied"
	}
	fmt.Fprintf(w, "kueue: server-side apply (field manager allot), %s:\n", mode)
	for _, c := range changes {
		if c.detail != "" {
			fmt.Fprintf(w, "  %-6s  %s: %s\n", c.verb, c.what, c.detail)
		} else if c.verb != "same" {
			fmt.Fprintf(w, "  %-6s  %s\n", c.verb, c.what)
		}
	}
	same := 0
	for _, c := range changes {
		if c.verb == "same" {
			same++
		}
	}
	fmt.Fprintf(w, "  (%d objects unchanged)\n", same)
	if dryRun {
		return nil
	}
	for _, u := range objs {
		ri := dyn.Resource(kueueResources[u.GetKind()]).Namespace(u.GetNamespace())
		if _, err := ri.Apply(ctx, u.GetName(), u, metav1.ApplyOptions{FieldManager: "allot", Force: true}); err != nil {
			return fmt.Errorf("%s %s: %w", u.GetKind(), u.GetName(), err)
		}
	}
	fmt.Fprintf(w, "applied %d objects\n", len(objs))
	return nil
}

// diffPaths lists where two decoded JSON values differ: "path: old → new"
// at the leaves, or the path of a list whose length changed.
func diffPaths(path string, a, b any) []string {
	if reflect.DeepEqual(a, b) {
		return nil
	}
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok && bok {
		var out []string
		keys := map[string]bool{}
		for k := range am {
			keys[k] = true
		}
		for k := range bm {
			keys[k] = true
		}
		for _, k := range slices.Sorted(maps.Keys(keys)) {
			out = append(out, diffPaths(path+"."+k, am[k], bm[k])...)
		}
		return out
	}
	al, aok := a.([]any)
	bl, bok := b.([]any)
	if aok && bok && len(al) == len(bl) {
		var out []string
		for i := range al {
			out = append(out, diffPaths(fmt.Sprintf("%s[%d]", path, i), al[i], bl[i])...)
		}
		return out
	}
	return []string{fmt.Sprintf("%s %v → %v", path, show(a), show(b))}
}

func show(v any) string {
	if v == nil {
		return "(none)"
	}
	return fmt.Sprint(v)
}
