package kube

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/allot-sim/allot/live"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// JobSpec is what a submission to a cluster adds to a live.Request: the
// image that runs its command, the accelerator resource, the pods that
// run together (a gang, the accelerators split evenly) and the taints
// they tolerate (KEY[=VALUE]:EFFECT). Its errors name allot submit's
// flags.
type JobSpec struct {
	Image       string
	Resource    string
	Pods        int
	Tolerations []string
}

// Job is the suspended Job that submits r to namespace ns, for the
// controller to admit.
func (s *JobSpec) Job(r *live.Request, ns string) (*batchv1.Job, error) {
	if s.Image == "" {
		return nil, errors.New("--image is required with --backend kubernetes")
	}
	if s.Pods < 1 || r.Accelerators%s.Pods != 0 {
		return nil, fmt.Errorf("--pods %d: want at least 1, dividing --accelerators %d evenly", s.Pods, r.Accelerators)
	}
	limits := corev1.ResourceList{}
	if r.Accelerators > 0 {
		limits[corev1.ResourceName(s.Resource)] = *resource.NewQuantity(int64(r.Accelerators/s.Pods), resource.DecimalSI)
	}
	var tols []corev1.Toleration
	for _, t := range s.Tolerations {
		kv, effect, ok := strings.Cut(t, ":")
		if !ok {
			return nil, fmt.Errorf("--toleration %q: want KEY[=VALUE]:EFFECT", t)
		}
		key, value, hasValue := strings.Cut(kv, "=")
		tol := corev1.Toleration{Key: key, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffect(effect)}
		if hasValue {
			tol.Operator, tol.Value = corev1.TolerationOpEqual, value
		}
		tols = append(tols, tol)
	}
	j := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns,
			Labels:      map[string]string{LabelTeam: r.Team, LabelPriorityClass: r.PriorityClass},
			Annotations: map[string]string{AnnSubmitted: time.Now().UTC().Format(time.RFC3339Nano)}},
		Spec: batchv1.JobSpec{Suspend: ptrTo(true), BackoffLimit: ptrTo(int32(0)),
			Parallelism: ptrTo(int32(s.Pods)), Completions: ptrTo(int32(s.Pods)), Template: corev1.PodTemplateSpec{
				Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, Tolerations: tols,
					Containers: []corev1.Container{{Name: "job", Image: s.Image, Command: r.Command, Resources: corev1.ResourceRequirements{Limits: limits}}}}}},
	}
	if r.Name != "" {
		j.Name = r.Name
	} else {
		j.GenerateName = "allot-"
	}
	if r.InstanceType != "" {
		j.Annotations[AnnInstanceType] = r.InstanceType
	}
	if r.CheckpointInterval > 0 {
		j.Annotations[AnnCheckpointInterval] = FormatCheckpointInterval(r.CheckpointInterval)
	}
	if r.TimeLimit > 0 {
		j.Spec.ActiveDeadlineSeconds = ptrTo(int64(r.TimeLimit))
	}
	return j, nil
}

func ptrTo[T any](v T) *T { return &v }
