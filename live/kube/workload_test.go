package kube

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/allot-sim/allot/live"
	"github.com/allot-sim/allot/live/kube/kubetest"
	"github.com/allot-sim/allot/policies"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
)

// workloadFields lists a workload's exported fields by dotted name,
// descending into the request.
func workloadFields(v reflect.Value, prefix string, out map[string]reflect.Value) {
	for i := range v.NumField() {
		f := v.Type().Field(i)
		if !f.IsExported() {
			continue
		}
		if f.Type == reflect.TypeFor[policies.Request]() {
			workloadFields(v.Field(i), prefix+f.Name+".", out)
			continue
		}
		out[prefix+f.Name] = v.Field(i)
	}
}

// The local backend's stored job and a Kubernetes Job describing the same
// job (team, class, 2 pods of 8 GPUs, instance type, queue place, run
// start, checkpoint interval) give the core the same workload, field by
// field, every field the live adapter sets being non-zero.
func TestLocalAndKubernetesBackendsGiveTheCoreTheSameWorkload(t *testing.T) {
	cfg, err := testPolicy([]byte("8 8 30 3600"), []FleetType{{Name: "p5.48xlarge", Resource: ResourceNVIDIA, PerNode: 8, Nodes: []string{"n0", "n1"}}})
	if err != nil {
		t.Fatal(err)
	}
	epoch := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	at := func(t time.Time) float64 { return t.Sub(epoch).Seconds() }
	const seq = 7

	local := &live.Job{ID: "b/train", Seq: seq, Team: "b", PriorityClass: "high", Accelerators: 16, InstanceType: "p5.48xlarge",
		Order: 1200.5, RunStart: 3000.25, CheckpointInterval: 600}
	wl, err := cfg.Workload(local.Spec())
	if err != nil {
		t.Fatal(err)
	}

	kj := newJob("b", "train", "high", 8, "")
	kj.Spec.Parallelism, kj.Spec.Completions = ptr.To(int32(2)), ptr.To(int32(2))
	kj.Annotations[AnnSubmitted] = epoch.Add(1200500 * time.Millisecond).Format(time.RFC3339Nano)
	kj.Annotations[AnnAdmitted] = epoch.Add(3000250 * time.Millisecond).Format(time.RFC3339Nano)
	kj.Annotations[AnnInstanceType] = "p5.48xlarge"
	kj.Annotations[AnnCheckpointInterval] = "10m"
	q := teamOf(cfg, kj)
	if q != 1 {
		t.Fatalf("team %d, want b (1)", q)
	}
	spec, err := specOf(cfg, kj, nil, q, seq, at, newUsers(len(cfg.Teams)))
	if err != nil {
		t.Fatal(err)
	}
	wk, err := cfg.Workload(spec)
	if err != nil {
		t.Fatal(err)
	}

	lf, kf := map[string]reflect.Value{}, map[string]reflect.Value{}
	workloadFields(reflect.ValueOf(wl).Elem(), "", lf)
	workloadFields(reflect.ValueOf(wk).Elem(), "", kf)
	var zero []string
	for _, n := range slices.Sorted(func(yield func(string) bool) {
		for n := range lf {
			if !yield(n) {
				return
			}
		}
	}) {
		if !reflect.DeepEqual(lf[n].Interface(), kf[n].Interface()) {
			t.Errorf("%s: local %v, Kubernetes %v", n, lf[n], kf[n])
		}
		if lf[n].IsZero() {
			zero = append(zero, n)
		}
	}
	// Left by the adapter (live/workload_test.go says why); User: the
	// local backend has no users, and a team's first user is number 0;
	// Req.VCPU and Req.Mem: the local backend's jobs ask for accelerators
	// only, and this Job's pod gives no cpu or memory (requests_test.go
	// counts them).
	if want := []string{"Estimate", "ForcedFlavors", "Req.Mem", "Req.PodSets", "Req.VCPU", "Tag", "User"}; !slices.Equal(zero, want) {
		t.Errorf("fields left zero %v, want only %v: the comparison must cover every field the adapter sets", zero, want)
	}
	if wk.CheckpointInterval != 600 || wk.RunStart != 3000.25 || wk.Order != 1200.5 || wk.Req.Accel != 16*policies.Milli {
		t.Errorf("Kubernetes workload %+v", *wk)
	}
}

// The checkpoint-interval annotation is a Go duration or seconds, above 0.
func TestCheckpointIntervalAnnotationIsADurationOrSeconds(t *testing.T) {
	for v, want := range map[string]float64{"10m": 600, "1h30m": 5400, "600": 600, " 90s ": 90, "0.5": 0.5, FormatCheckpointInterval(600): 600, FormatCheckpointInterval(1.5): 1.5} {
		if got, err := checkpointInterval(v); err != nil || got != want {
			t.Errorf("%q: %v, %v; want %v", v, got, err, want)
		}
	}
	for _, v := range []string{"", "often", "0", "-5m", "10 minutes", "NaN", "Inf", "1d"} {
		if _, err := checkpointInterval(v); err == nil || !strings.Contains(err.Error(), AnnCheckpointInterval) {
			t.Errorf("%q: error %v, want one naming the annotation", v, err)
		}
	}
}

// stepClock stands still until the test moves it.
type stepClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *stepClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *stepClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// lostWorkPolicy is testPolicy with prefer_least_lost_work on.
func lostWorkPolicy(policy []byte, fleet []FleetType) (*Config, error) {
	cfg, err := testPolicy(policy, fleet)
	if err == nil {
		cfg.Model.PreferLeastLostWork = true
	}
	return cfg, err
}

// placed is a running job as the reference core is given it.
type placed struct {
	name               string
	admitted           float64 // controller seconds
	runStart           float64 // what the core is told of the run's start
	checkpointInterval float64
}

// coreVictim is the job the core itself preempts, under cfg's model at
// now, for a job of class high and gpus GPUs in team a, of the low jobs
// running in team a; the simulator hands its core the same.
func coreVictim(t *testing.T, cfg *Config, running []placed, gpus int, now float64) string {
	t.Helper()
	m := *cfg.Model
	m.NodesModelled = false // as the controller's reconfigure sets it
	core, err := policies.NewCore(&m)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range running {
		w := &policies.Workload{Name: p.name, Seq: int64(i), Queue: 0, Priority: cfg.Priorities["low"], Req: policies.Request{Accel: 4 * policies.Milli},
			RunStart: p.runStart, CheckpointInterval: p.checkpointInterval}
		if err := core.AddPlaced(w, 0, nil, p.admitted, false); err != nil {
			t.Fatal(err)
		}
	}
	hw := &policies.Workload{Name: "a/high", Seq: int64(len(running)), Queue: 0, Priority: cfg.Priorities["high"], Order: now,
		Req: policies.Request{Accel: policies.Qty(gpus) * policies.Milli}}
	if err := core.Submit(hw); err != nil {
		t.Fatal(err)
	}
	plan := core.Schedule(now)
	if len(plan.Preempted) != 1 {
		t.Fatalf("the core preempts %d jobs, want 1", len(plan.Preempted))
	}
	return plan.Preempted[0].W.Name
}

// Under prefer_least_lost_work the Kubernetes backend preempts the job
// the core preempts in the simulator: the one that loses least since its
// last checkpoint, by its run start (its admission) and its
// checkpoint-interval annotation.
//
// On one node of 8 GPUs, team a runs x (4 GPUs, checkpointing every
// 3h30m) from time 0 and y (4 GPUs, every 2h) from 1h; at 4h30m a high
// job of 4 GPUs comes. x would lose 1h (4h30m mod 3h30m), y 1h30m
// (3h30m mod 2h): x goes. Without run starts the core would reckon y's
// loss from time 0 (4h30m mod 2h = 30m), without checkpoint intervals
// both whole runs (x's is the longer), and without either the two tie and
// the latest admitted goes: each time y. A bad annotation on a running
// job is warned of once and the job stays; on a waiting one it is held,
// as other bad annotations are.
func TestPreferLeastLostWorkPicksTheSimulatorsVictimOnKubernetes(t *testing.T) {
	// A day's placement timeout: the clock jumps hours at a time, and a
	// sync whose pod cache lags the jump must not take a running job for
	// one whose pods never came.
	const policy = "8 0 86400"
	f := startLostWorkCluster(t, policy)
	f.submit("x", "low", 4, "3h30m")
	ax := f.runStart("x")
	f.clock.advance(time.Hour)
	f.submit("y", "low", 4, "2h")
	ay := f.runStart("y")
	if ax != 0 || ay != 3600 {
		t.Fatalf("x admitted at %v s, y at %v s; want 0 and 3600", ax, ay)
	}
	f.clock.advance(3*time.Hour + 30*time.Minute)
	now := f.clock.Now().Sub(f.t0).Seconds()

	// The core's answer, and that it hangs on both fields.
	cfg, err := lostWorkPolicy([]byte(policy), []FleetType{{Name: "p5.48xlarge", Resource: ResourceNVIDIA, PerNode: 8, Nodes: []string{"p5.48xlarge-0"}}})
	if err != nil {
		t.Fatal(err)
	}
	running := []placed{{"a/x", ax, ax, 3.5 * 3600}, {"a/y", ay, ay, 2 * 3600}}
	want := coreVictim(t, cfg, running, 4, now)
	if want != "a/x" {
		t.Fatalf("the core preempts %s, want a/x (the case is not the one described)", want)
	}
	checkVictimNeedsBothFields(t, cfg, running, now)

	f.submit("high", "high", 4, "")
	victim, kept := f.victim()
	if victim != want {
		t.Fatalf("the Kubernetes backend preempted %s, the core (as in the simulator) %s", victim, want)
	}
	f.wait("a", "high", "admitted", admitted)
	f.checkBadCheckpointIntervals(kept)
}

// lostWorkCluster is a control plane with one node of 8 GPUs and team
// namespaces a and b, run by a controller under prefer_least_lost_work
// whose time is the test's: it stands still between steps, and its time
// 0 (its first sync) is t0.
type lostWorkCluster struct {
	*env
	ctx   context.Context
	clock *stepClock
	t0    time.Time
}

// startLostWorkCluster starts the control plane and the controller on
// policy; the test's cleanup stops the controller.
func startLostWorkCluster(t *testing.T, policy string) *lostWorkCluster {
	c := kubetest.Start(t)
	c.Nodes("p5.48xlarge", ResourceNVIDIA, 8, 1)
	e := &env{t: t, c: c}
	c.Apply("../../deploy/namespace.yaml", "../../deploy/rbac.yaml", "../../deploy/usage.yaml")
	ctx := context.Background()
	for _, ns := range []string{"a", "b"} {
		if _, err := c.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "allot-policy", Namespace: "allot-system"}, Data: map[string]string{PolicyKey: policy}}
	if _, err := c.Client.CoreV1().ConfigMaps("allot-system").Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now().UTC()
	clock := &stepClock{t: t0}
	cs, err := NewClient(c.ServiceAccount("allot-system", "allot-controller"))
	if err != nil {
		t.Fatal(err)
	}
	rec, stopRec := Recorder(cs)
	ctrl := &Controller{Client: cs, Namespace: "allot-system", ConfigMap: "allot-policy", Configure: lostWorkPolicy, Clock: clock, Events: rec}
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- ctrl.Run(runCtx, Options{Identity: "first", Resync: time.Second}); stopRec() }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("controller: %v", err)
		}
	})
	return &lostWorkCluster{env: e, ctx: ctx, clock: clock, t0: t0}
}

// submit creates a job in team a, with a checkpoint interval unless ckpt
// is "".
func (f *lostWorkCluster) submit(name, class string, gpus int, ckpt string) {
	f.t.Helper()
	j := newJob("a", name, class, gpus, "")
	if ckpt != "" {
		j.Annotations[AnnCheckpointInterval] = ckpt
	}
	if _, err := f.c.Client.BatchV1().Jobs("a").Create(f.ctx, j, metav1.CreateOptions{}); err != nil {
		f.t.Fatal(err)
	}
}

// runStart waits for a job of team a to be admitted and says when, in
// the controller's seconds.
func (f *lostWorkCluster) runStart(name string) float64 {
	f.t.Helper()
	j := f.wait("a", name, "admitted", admitted)
	adm, ok := annTime(j, AnnAdmitted)
	if !ok {
		f.t.Fatalf("%s: no admitted annotation: %v", name, j.Annotations)
	}
	return adm.Sub(f.t0).Seconds()
}

// checkVictimNeedsBothFields checks that the core's victim hangs on both
// run starts and checkpoint intervals: without either, it is a/y.
func checkVictimNeedsBothFields(t *testing.T, cfg *Config, running []placed, now float64) {
	t.Helper()
	for what, strip := range map[string]func(p *placed){
		"run starts":           func(p *placed) { p.runStart = 0 },
		"checkpoint intervals": func(p *placed) { p.checkpointInterval = 0 },
		"both":                 func(p *placed) { p.runStart, p.checkpointInterval = 0, 0 },
	} {
		var without []placed
		for _, p := range running {
			strip(&p)
			without = append(without, p)
		}
		if got := coreVictim(t, cfg, without, 4, now); got != "a/y" {
			t.Errorf("without %s the core preempts %s, want a/y: the case does not show that the backend must set them", what, got)
		}
	}
}

// victim waits for x or y to be preempted by a/high, and names the one
// preempted and the one kept.
func (f *lostWorkCluster) victim() (victim, kept string) {
	f.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for victim == "" {
		for _, n := range []string{"x", "y"} {
			if j := f.get("a", n); *j.Spec.Suspend {
				victim, kept = ID(j), map[string]string{"x": "y", "y": "x"}[n]
				if by := j.Annotations[AnnPreemptedBy]; by != "a/high" {
					f.t.Errorf("%s preempted by %q, want a/high; annotations %v", victim, by, j.Annotations)
				}
			}
		}
		if victim == "" && time.Now().After(deadline) {
			f.t.Fatalf("neither x nor y preempted 20 s after a/high came")
		}
		time.Sleep(50 * time.Millisecond)
	}
	return victim, kept
}

// checkBadCheckpointIntervals checks that a bad annotation on a running
// job (kept) is warned of once and the job stays, and that a waiting job
// with one is held, saying why.
func (f *lostWorkCluster) checkBadCheckpointIntervals(kept string) {
	t, c := f.t, f.c
	t.Helper()
	// A running job whose annotation goes bad stays, warned once.
	// The Job controller writes its status meanwhile: retry on conflict.
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		j := f.get("a", kept)
		j.Annotations[AnnCheckpointInterval] = "often"
		_, err := c.Client.BatchV1().Jobs("a").Update(f.ctx, j, metav1.UpdateOptions{})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * time.Second) // three resyncs
	if j := f.get("a", kept); *j.Spec.Suspend {
		t.Errorf("a/%s suspended for a bad checkpoint interval: it holds quota and must stay", kept)
	}
	if got := warnings(t, c, "a", kept, "BadCheckpointInterval"); len(got) != 1 || got[0].Count != 1 ||
		!strings.Contains(got[0].Message, "job a/"+kept) || !strings.Contains(got[0].Message, AnnCheckpointInterval) {
		t.Errorf("warnings for the running job: %+v; want one, once, naming the job and the annotation", got)
	}
	// A waiting job with a bad one is held, saying why.
	f.submit("bad", "low", 4, "ten minutes")
	j := f.wait("a", "bad", "given a reason", func(j *batchv1.Job, _ int) bool { return j.Annotations[AnnReason] != "" })
	if why := j.Annotations[AnnReason]; !strings.Contains(why, "not admitted") || !strings.Contains(why, AnnCheckpointInterval) || !strings.Contains(why, "a/bad") {
		t.Errorf("reason %q", why)
	}
	if got := warnings(t, c, "a", "bad", "BadCheckpointInterval"); len(got) != 1 {
		t.Errorf("warnings for the waiting job: %+v", got)
	}
}

// warnings are allot's Warning Events of one reason about a job.
func warnings(t *testing.T, c *kubetest.Cluster, ns, name, reason string) []corev1.Event {
	t.Helper()
	evs, err := c.Client.CoreV1().Events(ns).List(context.Background(), metav1.ListOptions{FieldSelector: "involvedObject.name=" + name})
	if err != nil {
		t.Fatal(err)
	}
	var out []corev1.Event
	for _, ev := range evs.Items {
		if ev.Source.Component == "allot" && ev.Type == corev1.EventTypeWarning && ev.Reason == reason {
			out = append(out, ev)
		}
	}
	return out
}
