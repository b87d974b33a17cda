package export

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/allot-sim/allot/live/kube"
)

// kueueListed are the kinds an import lists from a cluster, in the order
// of the files kubectl get writes; versions are tried newest first.
var kueueListed = []struct {
	group, resource string
	versions        []string
}{
	{"kueue.x-k8s.io", "resourceflavors", []string{"v1beta2", "v1beta1"}},
	{"kueue.x-k8s.io", "cohorts", []string{"v1beta2", "v1beta1"}},
	{"kueue.x-k8s.io", "clusterqueues", []string{"v1beta2", "v1beta1"}},
	{"kueue.x-k8s.io", "localqueues", []string{"v1beta2", "v1beta1"}},
	{"kueue.x-k8s.io", "workloadpriorityclasses", []string{"v1beta2", "v1beta1"}},
	{"scheduling.k8s.io", "priorityclasses", []string{"v1"}},
	{"kueue.x-k8s.io", "workloads", []string{"v1beta2", "v1beta1"}},
	{"", "nodes", []string{"v1"}},
}

// ReadKueueKubeconfig reads the cluster of a kubeconfig (loaded as
// kubectl loads it) with ReadKueueCluster, at 100 requests a second
// rather than client-go's 5: a history is thousands of objects.
func ReadKueueKubeconfig(ctx context.Context, kubeconfig string) (*KueueObjects, error) {
	cfg, err := (&kube.Target{Kubeconfig: kubeconfig}).Loader().ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("--kubeconfig %s: %w", kubeconfig, err)
	}
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = 100, 200
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return ReadKueueCluster(ctx, dyn, "the cluster of "+kubeconfig)
}

// ReadKueueCluster reads what ReadKueueFiles reads from a cluster,
// through dyn, only getting and listing: the kinds of kueueListed in
// every namespace, and the manager's Configuration from its ConfigMap
// (ManagerConfigMap) where the caller may read it, else a warning that
// Kueue's defaults were assumed. A kind the cluster does not serve is a
// warning; any other failure an error naming the resource.
func ReadKueueCluster(ctx context.Context, dyn dynamic.Interface, source string) (*KueueObjects, error) {
	o := &KueueObjects{Source: source}
	for _, k := range kueueListed {
		served := false
		for _, v := range k.versions {
			gvr := schema.GroupVersionResource{Group: k.group, Version: v, Resource: k.resource}
			ok, err := o.list(ctx, dyn, gvr)
			if err != nil {
				return nil, err
			}
			if ok {
				served = true
				break
			}
		}
		if !served {
			o.warns.add("cluster", k.resource, "not served (%s %v): none read", k.group, k.versions)
		}
	}
	gvr := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	cm, err := dyn.Resource(gvr).Namespace(ManagerConfigMap.Namespace).Get(ctx, ManagerConfigMap.Name, metav1.GetOptions{})
	where := fmt.Sprintf("cluster: configmap %s/%s", ManagerConfigMap.Namespace, ManagerConfigMap.Name)
	switch {
	case apierrors.IsNotFound(err) || apierrors.IsForbidden(err):
		o.warns.add(where, "", "not readable (%v): Kueue's default Configuration assumed", err)
	case err != nil:
		return nil, fmt.Errorf("%s: %w", where, err)
	default:
		if err := o.decodeConfigMap(where, cm.Object); err != nil {
			return nil, err
		}
	}
	return o, nil
}

// list reads every object of one resource, page by page; false when the
// cluster does not serve it.
func (o *KueueObjects) list(ctx context.Context, dyn dynamic.Interface, gvr schema.GroupVersionResource) (bool, error) {
	opts := metav1.ListOptions{Limit: 500}
	for {
		l, err := dyn.Resource(gvr).List(ctx, opts)
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		if err != nil {
			return false, fmt.Errorf("cluster: listing %s: %w", gvr.GroupResource(), err)
		}
		for i := range l.Items {
			where := "cluster: " + gvr.GroupResource().String()
			if err := o.add(where, l.Items[i].Object, false); err != nil {
				return false, err
			}
		}
		if opts.Continue = l.GetContinue(); opts.Continue == "" {
			return true, nil
		}
	}
}
