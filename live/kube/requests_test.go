package kube

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/allot-sim/allot/live/kube/kubetest"
	"github.com/allot-sim/allot/policies"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// rl is a resource list of "name", "quantity" pairs.
func rl(kv ...string) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i := 0; i < len(kv); i += 2 {
		out[corev1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
	}
	return out
}

func ctr(name string, requests, limits corev1.ResourceList) corev1.Container {
	return corev1.Container{Name: name, Resources: corev1.ResourceRequirements{Requests: requests, Limits: limits}}
}

// jobOf is a Job of parallelism pods (completions: nil when 0) of spec.
func jobOf(spec corev1.PodSpec, parallelism, completions int32) *batchv1.Job {
	j := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "j"}, Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: spec}}}
	if parallelism > 0 {
		j.Spec.Parallelism = ptr.To(parallelism)
	}
	if completions > 0 {
		j.Spec.Completions = ptr.To(completions)
	}
	return j
}

// containerRange is a LimitRange of one Container item.
func containerRange(name string, def, defReq corev1.ResourceList) corev1.LimitRange {
	return corev1.LimitRange{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: name}, Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{
		{Type: corev1.LimitTypePod, Max: rl("cpu", "1000")},
		{Type: corev1.LimitTypeContainer, Default: def, DefaultRequest: defReq},
	}}}
}

// A pod asks for its containers' sum or its largest init container,
// whichever is larger, resource by resource, plus its overhead: two
// containers of 2 + 1 vCPUs, 8 + 1 GiB and 8 GPUs beside an init
// container of 4 vCPUs, 2 GiB and 1 GPU ask for 4 vCPUs (the init
// container), 9 GiB and 8 GPUs (the sum), and 250m and 512 MiB more of
// overhead.
func TestAPodAsksForTheLargerOfItsContainersSumAndItsLargestInitContainer(t *testing.T) {
	spec := corev1.PodSpec{
		InitContainers: []corev1.Container{ctr("fetch", rl("cpu", "4", "memory", "2Gi", ResourceNVIDIA, "1"), rl(ResourceNVIDIA, "1"))},
		Containers: []corev1.Container{
			ctr("train", rl("cpu", "2", "memory", "8Gi", ResourceNVIDIA, "8"), rl(ResourceNVIDIA, "8")),
			ctr("sidecar", rl("cpu", "1", "memory", "1Gi"), nil),
		},
	}
	if got, want := JobRequest(jobOf(spec, 0, 0), nil), (Request{Accelerators: 8, VCPUs: 4, MemoryGiB: 9}); got != want {
		t.Errorf("request %+v, want %+v", got, want)
	}
	spec.Overhead = rl("cpu", "250m", "memory", "512Mi")
	if got, want := JobRequest(jobOf(spec, 0, 0), nil), (Request{Accelerators: 8, VCPUs: 4.25, MemoryGiB: 9.5}); got != want {
		t.Errorf("with overhead: request %+v, want %+v", got, want)
	}
}

// A restartable init container (a sidecar) runs beside the containers:
// it counts with them, and with every init container after it. A sidecar
// of 1 vCPU, then an init container of 4, beside a container of 2: the
// init phase asks 5, the run 3; the pod asks 5.
func TestASidecarInitContainerCountsWithTheContainersAndTheLaterInitContainers(t *testing.T) {
	side := ctr("proxy", rl("cpu", "1"), nil)
	side.RestartPolicy = ptr.To(corev1.ContainerRestartPolicyAlways)
	spec := corev1.PodSpec{InitContainers: []corev1.Container{side, ctr("fetch", rl("cpu", "4"), nil)},
		Containers: []corev1.Container{ctr("train", rl("cpu", "2"), nil)}}
	if got := JobRequest(jobOf(spec, 0, 0), nil).VCPUs; got != 5 {
		t.Errorf("%v vCPUs, want 5", got)
	}
	spec.InitContainers = spec.InitContainers[:1]
	if got := JobRequest(jobOf(spec, 0, 0), nil).VCPUs; got != 3 {
		t.Errorf("without the init container: %v vCPUs, want 3 (sidecar and container)", got)
	}
}

// A container that gives a limit and no request asks for its limit:
// 3 vCPUs, 4 GiB and 8 GPUs.
func TestAContainerWithOnlyALimitAsksForItsLimit(t *testing.T) {
	spec := corev1.PodSpec{Containers: []corev1.Container{ctr("train", nil, rl("cpu", "3", "memory", "4Gi", ResourceNVIDIA, "8"))}}
	if got, want := JobRequest(jobOf(spec, 0, 0), nil), (Request{Accelerators: 8, VCPUs: 3, MemoryGiB: 4}); got != want {
		t.Errorf("request %+v, want %+v", got, want)
	}
}

// The namespace's LimitRange fills what a container does not say, before
// a missing request is taken from the limit (Kueue's order): under
// defaultRequest 500m and 1 GiB, default 2 and 4 GiB, a container with no
// resources asks 500m and 1 GiB; one with only a limit of 3 vCPUs asks
// 500m of cpu (the defaultRequest, not its limit) and 1 GiB; one with a
// request of 2 vCPUs asks its 2. A second LimitRange, later by name,
// changes nothing the first gives (only the memory the first leaves
// out), and a Pod-type item gives no container defaults.
func TestLimitRangeDefaultsFillWhatAContainerDoesNotSay(t *testing.T) {
	lr := containerRange("defaults", rl("cpu", "2", "memory", "4Gi"), rl("cpu", "500m", "memory", "1Gi"))
	for _, c := range []struct {
		name   string
		c      corev1.Container
		ranges []corev1.LimitRange
		want   Request
	}{
		{"no resources", ctr("sidecar", nil, nil), []corev1.LimitRange{lr}, Request{VCPUs: 0.5, MemoryGiB: 1}},
		{"no resources, no LimitRange", ctr("sidecar", nil, nil), nil, Request{}},
		{"only a limit", ctr("sidecar", nil, rl("cpu", "3")), []corev1.LimitRange{lr}, Request{VCPUs: 0.5, MemoryGiB: 1}},
		{"only a limit, no LimitRange", ctr("sidecar", nil, rl("cpu", "3")), nil, Request{VCPUs: 3}},
		{"a request", ctr("train", rl("cpu", "2"), nil), []corev1.LimitRange{lr}, Request{VCPUs: 2, MemoryGiB: 1}},
		{"a later LimitRange", ctr("sidecar", nil, nil), []corev1.LimitRange{
			containerRange("z-more", rl("cpu", "8", "memory", "8Gi"), rl("cpu", "6", "memory", "3Gi")),
			containerRange("defaults", rl("cpu", "2"), rl("cpu", "500m")),
		}, Request{VCPUs: 0.5, MemoryGiB: 3}},
	} {
		if got := JobRequest(jobOf(corev1.PodSpec{Containers: []corev1.Container{c.c}}, 0, 0), c.ranges); got != c.want {
			t.Errorf("%s: request %+v, want %+v", c.name, got, c.want)
		}
	}
	// Init containers take the defaults too: an empty one beside an
	// empty container asks max(500m, 500m).
	spec := corev1.PodSpec{InitContainers: []corev1.Container{ctr("fetch", nil, nil)}, Containers: []corev1.Container{ctr("train", nil, nil)}}
	if got := JobRequest(jobOf(spec, 0, 0), []corev1.LimitRange{lr}).VCPUs; got != 0.5 {
		t.Errorf("empty init container and container: %v vCPUs, want 0.5", got)
	}
}

// A Job asks for its pod's request times the pods that run at once: its
// parallelism (1 unset), at most its completions.
func TestAJobAsksForItsPodTimesItsParallelismAtMostItsCompletions(t *testing.T) {
	spec := corev1.PodSpec{Containers: []corev1.Container{ctr("train", rl("cpu", "2500m", "memory", "9Gi", ResourceNVIDIA, "4"), rl(ResourceNVIDIA, "4"))}}
	for _, c := range []struct {
		parallelism, completions int32
		pods                     int
	}{{0, 0, 1}, {4, 0, 4}, {4, 8, 4}, {4, 2, 2}} {
		want := Request{Accelerators: 4 * c.pods, VCPUs: 2.5 * float64(c.pods), MemoryGiB: 9 * float64(c.pods)}
		if got := JobRequest(jobOf(spec, c.parallelism, c.completions), nil); got != want {
			t.Errorf("parallelism %d, completions %d: request %+v, want %+v (%d pods)", c.parallelism, c.completions, got, want, c.pods)
		}
	}
}

// Counting a Job writes nothing into it: its template's resource lists
// stay as they were, LimitRange or not.
func TestCountingAJobLeavesItsTemplateAsItWas(t *testing.T) {
	spec := corev1.PodSpec{InitContainers: []corev1.Container{ctr("fetch", nil, rl("cpu", "1"))},
		Containers: []corev1.Container{ctr("train", rl("cpu", "2"), nil), ctr("sidecar", nil, nil)}}
	j := jobOf(spec, 2, 0)
	before := j.DeepCopy()
	JobRequest(j, []corev1.LimitRange{containerRange("defaults", rl("cpu", "2", "memory", "4Gi"), rl("cpu", "500m", "memory", "1Gi"))})
	if !reflect.DeepEqual(j, before) {
		t.Errorf("the Job changed:\n%+v\nwas\n%+v", j.Spec.Template.Spec, before.Spec.Template.Spec)
	}
}

// Kueue's own case ("Handle container limit range", TestAdjustResources
// in pkg/workload/resources_test.go, v0.17.0): under a Container
// LimitRange of default 4, defaultRequest 3 (max 5, min 2), each pod set
// with an empty init container and a container that is empty, gives only
// a limit of 6, or requests 1. Kueue fills the init container to request
// 3 and the containers to request 3, 3 (not the limit of 6) and 1: each
// pod asks max(container, init container) = 3 vCPUs.
func TestKueuesContainerLimitRangeCase(t *testing.T) {
	lr := containerRange("foo", rl("cpu", "4"), rl("cpu", "3"))
	lr.Spec.Limits[1].Max, lr.Spec.Limits[1].Min = rl("cpu", "5"), rl("cpu", "2")
	for name, c := range map[string]corev1.Container{
		"a": {},
		"b": ctr("", nil, rl("cpu", "6")),
		"c": ctr("", rl("cpu", "1"), nil),
	} {
		spec := corev1.PodSpec{InitContainers: []corev1.Container{{}}, Containers: []corev1.Container{c}}
		if got := PodRequests(&spec, []corev1.LimitRange{lr}); got.Cpu().MilliValue() != 3000 {
			t.Errorf("pod set %s: %v vCPUs, want 3", name, got.Cpu())
		}
		spec.InitContainers = nil
		want := map[string]int64{"a": 3000, "b": 3000, "c": 1000}[name]
		if got := PodRequests(&spec, []corev1.LimitRange{lr}); got.Cpu().MilliValue() != want {
			t.Errorf("pod set %s without its init container: %v vCPUs, want %dm", name, got.Cpu(), want)
		}
	}
}

// cpuPolicy is testPolicy ("QUOTA_A QUOTA_B ...", in accelerators) with
// cpu and memory counted: team a's quota also names 10 vCPUs, b's none
// (so a has none to borrow), and each 1,000 GiB of the fleet's first
// instance type.
func cpuPolicy(policy []byte, fleet []FleetType) (*Config, error) {
	cfg, err := testPolicy(policy, fleet)
	if err != nil {
		return nil, err
	}
	m := cfg.Model
	m.Resources = append(m.Resources, "cpu", "memory")
	m.Flavors[0].CPUResource, m.Flavors[0].MemResource = 1, 2
	for i := range m.Queues {
		g := &m.Queues[i].Groups[0]
		g.Resources = []int{0, 1, 2}
		g.Flavors[0].Quotas[1] = policies.Quota{Nominal: policies.Qty(10*(1-i)) * policies.Milli}
		g.Flavors[0].Quotas[2] = policies.Quota{Nominal: 1000 * policies.Milli}
	}
	return cfg, nil
}

// On a real control plane, the controller counts a namespace's LimitRange
// defaults toward a quota that names vCPUs, and counts again when the
// LimitRange changes. Team a may use 16 GPUs and 10 vCPUs; its jobs of 2
// GPUs give no cpu, and its LimitRange gives a container 4 vCPUs: two
// jobs run (8 vCPUs), the third waits though the GPUs are free. With the
// default lowered to 3, the third runs (9 vCPUs), with nothing else
// changed. The controller reads the LimitRanges from its informer cache;
// under its ServiceAccount it may list them too (Sync on its own).
func TestLimitRangeDefaultsCountTowardACPUQuota(t *testing.T) {
	c := kubetest.Start(t)
	c.Nodes("p5.48xlarge", ResourceNVIDIA, 8, 2)
	e := &env{t: t, c: c, configure: cpuPolicy}
	c.Apply("../../deploy/namespace.yaml", "../../deploy/rbac.yaml", "../../deploy/usage.yaml")
	ctx := context.Background()
	for _, ns := range []string{"a", "b"} {
		if _, err := c.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	lr := containerRange("defaults", rl("cpu", "8"), rl("cpu", "4"))
	lr.Spec.Limits = lr.Spec.Limits[1:] // the Container item alone
	if _, err := c.Client.CoreV1().LimitRanges("a").Create(ctx, &lr, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "allot-policy", Namespace: "allot-system"}, Data: map[string]string{PolicyKey: "16 16"}}
	if _, err := c.Client.CoreV1().ConfigMaps("allot-system").Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	e.run()
	for _, n := range []string{"j1", "j2", "j3"} {
		e.job("a", n, "low", 2, "")
	}
	e.wait("a", "j1", "admitted", admitted)
	e.wait("a", "j2", "admitted", admitted)
	e.wait("a", "j3", "waiting with a reason", func(j *batchv1.Job, _ int) bool { return *j.Spec.Suspend && j.Annotations[AnnReason] != "" })
	time.Sleep(2 * time.Second) // two resyncs
	if j := e.get("a", "j3"); !*j.Spec.Suspend {
		t.Fatalf("a/j3 admitted at 12 vCPUs of a's 10: %v", j.Annotations)
	}
	// Listed under the controller's ServiceAccount, as Sync on its own does.
	cs, err := NewClient(c.ServiceAccount("allot-system", "allot-controller"))
	if err != nil {
		t.Fatal(err)
	}
	listed, err := (&Controller{Client: cs}).limitRanges(ctx)
	if err != nil || len(listed) != 1 || listed[0].Namespace != "a" || listed[0].Name != "defaults" {
		t.Fatalf("listed %v (%v), want a/defaults", listed, err)
	}
	got, err := c.Client.CoreV1().LimitRanges("a").Get(ctx, "defaults", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got.Spec.Limits[0].DefaultRequest = rl("cpu", "3")
	if _, err := c.Client.CoreV1().LimitRanges("a").Update(ctx, got, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	e.wait("a", "j3", "admitted once the default is 3 vCPUs", admitted)
}
