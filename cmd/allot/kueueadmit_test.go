package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/allot-sim/allot/live/kube"
	"github.com/allot-sim/allot/live/kube/kubetest"
	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic"
	"k8s.io/utils/ptr"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
)

// An ordinary Job requests cpu and memory besides its GPUs, and Kueue
// leaves a workload that requests a resource its ClusterQueue does not
// cover inadmissible ("resource cpu unavailable in ClusterQueue"). The
// export, applied with promote --apply and its kueue-config.yaml merged
// into the manager's, admits such a Job.
func TestPromotedKueueExportAdmitsAJobThatRequestsCPUAndMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane and Kueue")
	}
	t.Parallel() // waits on a control plane: beside the other tests that do
	bin := os.Getenv(KueueBinEnv)
	if bin == "" {
		if os.Getenv(kubetest.RequiredEnv) != "" {
			t.Fatalf("%s is not set: run scripts/k8s/kueue.sh (make test does)", KueueBinEnv)
		}
		t.Skipf("no Kueue manager: %s is not set (scripts/k8s/kueue.sh builds it; make test does)", KueueBinEnv)
	}
	c := kubetest.Start(t)
	c.ApplyCRDs("sigs.k8s.io/kueue", "config/components/crd/bases") // all of Kueue's CRDs
	c.Nodes("p5.48xlarge", kube.ResourceNVIDIA, 8, 2)
	dir := t.TempDir()
	var o, e bytes.Buffer
	code := run([]string{"promote", "../../scenarios/amazon-search.yaml", "--to", "kueue", "-o", dir, "--apply", "--kubeconfig", c.Kubeconfig}, &o, &e)
	require.Equal(t, 0, code, "%s%s", o.String(), e.String())
	conf, err := os.ReadFile(filepath.Join(dir, "kueue-config.yaml"))
	require.NoError(t, err)
	stop := startKueueManager(t, c, bin, conf, 9)
	defer stop()

	req := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("8Gi"),
		kube.ResourceNVIDIA: resource.MustParse("8")}
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "train", Namespace: "ranking-prod", Labels: map[string]string{"kueue.x-k8s.io/queue-name": "ranking-prod"}},
		Spec: batchv1.JobSpec{Suspend: ptr.To(true), BackoffLimit: ptr.To(int32(0)), Template: corev1.PodTemplateSpec{
			Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever,
				Tolerations: []corev1.Toleration{{Key: kubetest.FakeTaint.Key, Operator: corev1.TolerationOpEqual, Value: kubetest.FakeTaint.Value, Effect: kubetest.FakeTaint.Effect}},
				Containers:  []corev1.Container{{Name: "train", Image: "train:latest", Resources: corev1.ResourceRequirements{Requests: req, Limits: req}}}}}},
	}
	ctx := context.Background()
	_, err = c.Client.BatchV1().Jobs(job.Namespace).Create(ctx, job, metav1.CreateOptions{})
	require.NoError(t, err)

	dyn, err := dynamic.NewForConfig(c.AdminConfig())
	require.NoError(t, err)
	var last string
	for deadline := time.Now().Add(90 * time.Second); time.Now().Before(deadline); time.Sleep(250 * time.Millisecond) {
		l, err := dyn.Resource(workloadsGVR).Namespace(job.Namespace).List(ctx, metav1.ListOptions{})
		if err != nil || len(l.Items) == 0 {
			last = fmt.Sprintf("no workload yet (%v)", err)
			continue
		}
		var w kueue.Workload
		require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(l.Items[0].Object, &w))
		last = fmt.Sprintf("workload %s conditions %+v", w.Name, w.Status.Conditions)
		if !isTrue(w.Status.Conditions, kueue.WorkloadAdmitted) {
			continue
		}
		a := w.Status.Admission.PodSetAssignments[0]
		require.Equal(t, kueue.ResourceFlavorReference("p5.48xlarge"), a.Flavors[corev1.ResourceCPU], "cpu is charged to the H100 flavor")
		require.Equal(t, "2", ptr.To(a.ResourceUsage[corev1.ResourceCPU]).String())
		require.Equal(t, "8Gi", ptr.To(a.ResourceUsage[corev1.ResourceMemory]).String())
		for time.Now().Before(deadline) {
			j, err := c.Client.BatchV1().Jobs(job.Namespace).Get(ctx, job.Name, metav1.GetOptions{})
			require.NoError(t, err)
			if !ptr.Deref(j.Spec.Suspend, true) {
				return
			}
			time.Sleep(250 * time.Millisecond)
		}
		t.Fatalf("workload admitted but the Job is still suspended")
	}
	t.Fatalf("the Job was not admitted in 90 s: %s", last)
}
