package kube

import (
	"context"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	listersbatchv1 "k8s.io/client-go/listers/batch/v1"
	listerscorev1 "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
)

func jobAt(uid, rv string, admitted bool) *batchv1.Job {
	j := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: uid, UID: types.UID(uid), ResourceVersion: rv, Annotations: map[string]string{}}}
	if admitted {
		j.Annotations[AnnAdmitted] = "now"
	}
	return j
}

// A sync reading the informer cache sees the controller's own last write
// of a job until the watch brings that write (or a later one) back; a
// job the cache no longer has is gone, whatever was written.
func TestCachedSyncSeesTheControllersOwnWritesBeforeTheWatchDoes(t *testing.T) {
	jobs := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	empty := func() cache.Indexer { return cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{}) }
	c := &Controller{cache: &cached{jobs: listersbatchv1.NewJobLister(jobs), nodes: listerscorev1.NewNodeLister(empty()),
		pods: listerscorev1.NewPodLister(empty()), wrote: map[types.UID]*batchv1.Job{}}}
	read := func() *batchv1.Job {
		t.Helper()
		_, js, _, err := c.cluster(context.Background())
		if err != nil || len(js) > 1 {
			t.Fatalf("cluster: %v %v", js, err)
		}
		if len(js) == 0 {
			return nil
		}
		return &js[0]
	}
	_ = jobs.Add(jobAt("x", "5", false))
	c.wrote(jobAt("x", "7", true)) // admitted; the watch has not said so yet
	if j := read(); j.ResourceVersion != "7" || j.Annotations[AnnAdmitted] == "" {
		t.Errorf("read %s before the watch caught up, want the write (7, admitted)", j.ResourceVersion)
	}
	c.wrote(jobAt("x", "6", false)) // an older write never replaces a newer one
	if j := read(); j.ResourceVersion != "7" {
		t.Errorf("read %s after an older write, want 7", j.ResourceVersion)
	}
	_ = jobs.Update(jobAt("x", "9", true)) // the watch: the write and more
	if j := read(); j.ResourceVersion != "9" || len(c.cache.wrote) != 0 {
		t.Errorf("read %s with %d writes kept, want the cache's 9 and none kept", j.ResourceVersion, len(c.cache.wrote))
	}
	c.wrote(jobAt("x", "10", true))
	_ = jobs.Delete(jobAt("x", "9", true))
	if j := read(); j != nil || len(c.cache.wrote) != 0 {
		t.Errorf("a deleted job read as %v with %d writes kept", j, len(c.cache.wrote))
	}
}
