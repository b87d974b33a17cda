package main

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/allot-sim/allot/cmd/internal/liveconf"
	"github.com/allot-sim/allot/live/kube"
	"github.com/allot-sim/allot/live/kube/kubetest"
	"github.com/allot-sim/allot/scenarios"
	"github.com/allot-sim/allot/scenarios/export"
	"go.yaml.in/yaml/v3"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
)

// KueueBinEnv names Kueue's controller manager (scripts/k8s/kueue.sh
// builds it; make test sets it).
const KueueBinEnv = kubetest.KueueBinEnv

// diffWorkload is one file of testdata/kueuediff.
type diffWorkload struct {
	Nodes  map[string]int `yaml:"nodes"`
	Policy string         `yaml:"policy"`
	Steps  [][]string     `yaml:"steps"`
}

// diffBatch is "TEAM CLASS GPUS xCOUNT [type=T] [run=D] [cpu=N]".
type diffBatch struct {
	team, class, itype string
	gpus, count        int
	run                time.Duration
	cpu                int // the train container's vCPUs (0: not given, diffCPU)
}

// diffCPU is the train container's vCPUs where a batch gives none.
const diffCPU = 2

var batchRE = regexp.MustCompile(`^(\S+) (\S+) (\d+) x(\d+)((?: (?:type|run|cpu)=\S+)*)$`)

func parseBatch(s string) (diffBatch, error) {
	m := batchRE.FindStringSubmatch(s)
	if m == nil {
		return diffBatch{}, fmt.Errorf("batch %q: want TEAM CLASS GPUS xCOUNT [type=T] [run=D] [cpu=N]", s)
	}
	b := diffBatch{team: m[1], class: m[2]}
	b.gpus, _ = strconv.Atoi(m[3])
	b.count, _ = strconv.Atoi(m[4])
	for _, kv := range strings.Fields(m[5]) {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "type":
			b.itype = v
		case "cpu":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return diffBatch{}, fmt.Errorf("batch %q: cpu=%s: want a whole number of vCPUs, at least 1", s, v)
			}
			b.cpu = n
		default:
			d, err := time.ParseDuration(v)
			if err != nil {
				return diffBatch{}, fmt.Errorf("batch %q: %w", s, err)
			}
			b.run = d
		}
	}
	return b, nil
}

// diffRecorder collects each system's decisions, tagged with the step
// being fed when they happened.
type diffRecorder struct {
	mu     sync.Mutex
	step   int
	last   time.Time
	events map[int][]string // step -> "job-signature admit FLAVOR" / "... preempt REASON"
	busy   map[string]bool  // jobs and workloads between two states
	log    []string         // every event with its time, for a failure's report
	// stalledFrom is the first step after which the system was found
	// stalled (0: never).
	stalledFrom int
	// transient lists, by step, the admissions reclaimed
	// (InCohortReclamation) within a second (Kueue's requeue race,
	// docs/export.md); admitted holds each job's last admission.
	transient map[int][]reclaimedAtOnce
	admitted  map[string]admittedAt
}

func newRecorder() *diffRecorder {
	return &diffRecorder{events: map[int][]string{}, busy: map[string]bool{}, admitted: map[string]admittedAt{}, transient: map[int][]reclaimedAtOnce{}, last: time.Now()}
}

// add records a decision; note goes only into the log (whom a
// preemption was for).
func (r *diffRecorder) add(job, what, note string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := time.Now()
	ev := signature(job) + " " + what
	line := fmt.Sprintf("%s step %d %s %s", now.Format("15:04:05.000"), r.step, job, what)
	if note != "" {
		line += " (" + note + ")"
	}
	r.last = now
	if a, ok := r.admitted[job]; ok && what == "preempt InCohortReclamation" && a.step == r.step && now.Sub(a.at) < time.Second {
		r.transient[r.step] = append(r.transient[r.step], reclaimedAtOnce{admit: a.ev, reclaim: ev})
		line += " [reclaimed " + now.Sub(a.at).Round(time.Millisecond).String() + " after its admission]"
	}
	if strings.HasPrefix(what, "admit ") {
		r.admitted[job] = admittedAt{step: r.step, at: now, ev: ev}
	}
	r.events[r.step] = append(r.events[r.step], ev)
	r.log = append(r.log, line)
}

// admittedAt is when, and in which step, a job's last admission was.
type admittedAt struct {
	step int
	at   time.Time
	ev   string
}

// reclaimedAtOnce is an admission's event and that of its reclaim.
type reclaimedAtOnce struct{ admit, reclaim string }

// setBusy marks an object as between two states (pods starting or
// stopping, a short job's pod running, quota held by an evicted workload):
// the system is not quiet until none is.
func (r *diffRecorder) setBusy(key string, on bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if on {
		r.busy[key] = true
	} else {
		delete(r.busy, key)
	}
	r.last = time.Now()
}

// quiet is whether nothing happened for d and nothing is busy.
func (r *diffRecorder) quiet(d time.Duration) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.busy) == 0 && time.Since(r.last) >= d
}

// signature is a job's name without its index: jobs of one batch are
// interchangeable (same team, class, size and type, created together).
func signature(job string) string { return job[:strings.LastIndex(job, "-")] }

// jobName is s<step>-<team>-<class>-<gpus>g[-<type>][-<cpu>c][-<run>s]-<i>.
func jobName(step int, b diffBatch, i int) string {
	n := fmt.Sprintf("s%d-%s-%s-%dg", step, b.team, b.class, b.gpus)
	if b.itype != "" {
		n += "-" + strings.ReplaceAll(strings.Split(b.itype, ".")[0], "_", "")
	}
	if b.cpu > 0 {
		n += "-" + strconv.Itoa(b.cpu) + "c"
	}
	if b.run > 0 {
		n += "-" + strconv.Itoa(int(b.run.Seconds())) + "s"
	}
	return n + "-" + strconv.Itoa(i)
}

// diffSystem is a scheduler under test: how a Job is marked for it, and
// how its decisions are watched.
type diffSystem struct {
	name  string
	label func(j *batchv1.Job, b diffBatch)
	watch func(ctx context.Context, r *diffRecorder)
	// check, when set, runs once a step is quiet and says what is wrong
	// with the system's own state ("" when nothing is).
	check func(ctx context.Context) string
}

// Allot's quota policy and the real Kueue v0.17, fed the same workloads on
// the same control plane, make the same admissions (with instance types)
// and preemptions (with reasons) step by step. Kueue runs from
// scripts/k8s/kueue.sh's build with its webhooks served but not
// registered (see docs/export.md, "Differential test").
func TestKueueDifferential(t *testing.T) {
	if testing.Short() {
		t.Skip("starts control planes and Kueue: minutes")
	}
	t.Parallel() // waits on a control plane: beside the other tests that do
	files, err := filepath.Glob("testdata/kueuediff/*.yaml")
	if err != nil || len(files) < 7 {
		t.Fatalf("%d workloads in testdata/kueuediff, want at least 7 (%v)", len(files), err)
	}
	bin := os.Getenv(KueueBinEnv)
	if bin == "" {
		if os.Getenv(kubetest.RequiredEnv) != "" {
			t.Fatalf("%s is not set: run scripts/k8s/kueue.sh (make test does)", KueueBinEnv)
		}
		t.Skipf("no Kueue manager: %s is not set (scripts/k8s/kueue.sh builds it; make test does)", KueueBinEnv)
	}
	// The workloads run side by side, each on a control plane of its
	// own: a feed mostly waits, for each step's second and for quiet. The
	// longest start first: cpu-quota, and borrow-reclaim, which Kueue's
	// stall has fed twice in a run as often as not.
	later := func(f string) int {
		if slices.Contains(kueueDiffSlowest, filepath.Base(f)) {
			return 0
		}
		return 1
	}
	slices.SortStableFunc(files, func(a, b string) int { return later(a) - later(b) })
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = strings.TrimSuffix(filepath.Base(f), ".yaml")
	}
	sideBySide(t, sideBySideLimit(t, kueueDiffParallelEnv, 4), names, func(t *testing.T, i int) {
		f := files[i]
		d := newDiffCase(t, f)
		// Kueue v0.17 can stall: it admits a borrower into room whose
		// owner's job is being requeued, and when its own admission
		// write overwrites the eviction it then writes, the owner's
		// job waits under its quota for good (docs/export.md).
		// Decisions from the step where Kueue was found stalled on
		// are explained, and the workload is fed again. Any difference
		// before that step, or in a run where Kueue did not stall,
		// fails. Where Kueue stalls in every feed (on a loaded
		// machine it can), the steps after the stall go unchecked,
		// and the test says so by skipping.
		for feeds := 1; ; feeds++ {
			switch kueueDiff(t, bin, d) {
			case diffSame:
				return
			case diffUnexplained:
				t.Fatalf("allot and Kueue decided differently")
			}
			if feeds == 5 {
				t.Skipf("Kueue stalled in %d feeds of %s in a row: the steps before the stall matched in each, the steps from it on were not compared", feeds, filepath.Base(f))
			}
			t.Logf("%s: Kueue stalled; feeding it again", filepath.Base(f))
		}
	})
}

// kueueDiffSlowest are the workloads started first.
var kueueDiffSlowest = []string{"borrow-reclaim.yaml", "cpu-quota.yaml"}

// kueueDiffParallelEnv sets how many workloads of the differential test
// run at once (4 unless set; 1: one after another).
const kueueDiffParallelEnv = "ALLOT_KUEUEDIFF_PARALLEL"

// diffResult is how one feed of a workload compared.
type diffResult int

const (
	diffSame         diffResult = iota
	diffUnexplained             // a difference no stall of Kueue's explains
	diffKueueStalled            // differences only from the step Kueue was found stalled
)

// diffCase is a workload of the differential test and what feeding it
// needs: the export of its policy on its nodes, and by team the index of
// its LocalQueue and its namespace, by class the WorkloadPriorityClass.
type diffCase struct {
	file  string
	w     diffWorkload
	steps [][]diffBatch
	jobs  int
	k     *export.Kueue
	team  map[string]int
	class map[string]string
	ns    map[string]string
}

func newDiffCase(t *testing.T, file string) *diffCase {
	w, steps, jobs := readDiffWorkload(t, file)
	var fleet []kube.FleetType
	for _, ty := range slices.Sorted(maps.Keys(w.Nodes)) {
		ft := kube.FleetType{Name: ty, Resource: kube.ResourceNVIDIA, PerNode: 8}
		for i := range w.Nodes[ty] {
			ft.Nodes = append(ft.Nodes, ty+"-"+strconv.Itoa(i))
		}
		fleet = append(fleet, ft)
	}
	s, err := scenarios.ParseLiveOnFleet(file, []byte(w.Policy), liveconf.FleetYAML(fleet))
	if err != nil {
		t.Fatal(err)
	}
	k, err := export.ToKueue(s, export.KueueOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d := &diffCase{file: file, w: w, steps: steps, jobs: jobs, k: k, team: map[string]int{}, class: map[string]string{}, ns: map[string]string{}}
	for i, tm := range s.Teams {
		d.team[tm.Name], d.ns[tm.Name] = i, tm.Namespace
	}
	for i, p := range s.Priority {
		d.class[p.Name] = k.PriorityClasses[i].Name
	}
	return d
}

// cluster starts a control plane with the workload's nodes (kwok's, as
// Nodes names them: TYPE-i).
func (d *diffCase) cluster(t *testing.T) *kubetest.Cluster {
	c := kubetest.Start(t)
	for _, ty := range slices.Sorted(maps.Keys(d.w.Nodes)) {
		c.Nodes(ty, kube.ResourceNVIDIA, 8, d.w.Nodes[ty])
	}
	return c
}

// limitRanges gives the teams' namespaces the LimitRange both runs count
// the sidecar by.
func (d *diffCase) limitRanges(t *testing.T, c *kubetest.Cluster) {
	for _, n := range d.ns {
		if _, err := c.Client.CoreV1().LimitRanges(n).Create(context.Background(), diffLimitRange(), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

// feedKueue feeds the workload to Kueue, with the export applied, on a
// control plane of its own.
func (d *diffCase) feedKueue(t *testing.T, bin string) *diffRecorder {
	c := d.cluster(t)
	kq := &diffSystem{name: "kueue",
		label: func(j *batchv1.Job, b diffBatch) {
			j.Labels = map[string]string{"kueue.x-k8s.io/queue-name": d.k.LocalQueues[d.team[b.team]].Name, "kueue.x-k8s.io/priority-class": d.class[b.class]}
			if b.itype != "" {
				j.Spec.Template.Spec.NodeSelector = map[string]string{export.InstanceTypeLabel: b.itype}
			}
		},
		watch: func(ctx context.Context, r *diffRecorder) { watchWorkloads(ctx, t, c, r) },
		check: func(ctx context.Context) string { return kueueStalled(ctx, t, c, d.k, d.w.Nodes) },
	}
	stop := startKueue(t, c, bin, d.k) // the export's objects: the teams' namespaces too
	defer stop()
	d.limitRanges(t, c)
	return feed(t, c, kq, d.steps, d.ns)
}

// feedAllot feeds the workload to allot's controller on a control plane
// of its own, with the export's namespaces.
func (d *diffCase) feedAllot(t *testing.T) *diffRecorder {
	c := d.cluster(t)
	al := &diffSystem{name: "allot",
		label: func(j *batchv1.Job, b diffBatch) {
			j.Labels = map[string]string{kube.LabelPriorityClass: b.class}
			if b.itype != "" {
				j.Annotations = map[string]string{kube.AnnInstanceType: b.itype}
			}
		},
		watch: func(ctx context.Context, r *diffRecorder) { watchAllotJobs(ctx, t, c, r) },
	}
	for _, n := range d.k.Namespaces {
		if _, err := c.Client.CoreV1().Namespaces().Create(context.Background(), n, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	d.limitRanges(t, c)
	stop := startAllot(t, c, d.w.Policy)
	defer stop()
	return feed(t, c, al, d.steps, d.ns)
}

// kueueDiff feeds a workload to Kueue and to allot, side by side, each
// on a control plane of its own, and compares their decisions, logging
// each step's.
func kueueDiff(t *testing.T, bin string, d *diffCase) diffResult {
	var mu sync.Mutex
	got := map[string]*diffRecorder{}
	systems := []string{"kueue", "allot"}
	sideBySide(t, len(systems), systems, func(t *testing.T, i int) {
		var r *diffRecorder
		if systems[i] == "kueue" {
			r = d.feedKueue(t, bin)
		} else {
			r = d.feedAllot(t)
		}
		mu.Lock()
		defer mu.Unlock()
		got[systems[i]] = r
	})
	if t.Failed() {
		t.FailNow()
	}
	result, report := compareDiff(d.w, d.steps, got)
	t.Logf("%s: %d jobs, %d steps\n%s", filepath.Base(d.file), d.jobs, len(d.steps), report)
	if result != diffSame || testing.Verbose() {
		t.Logf("their events:\nkueue:\n%s\nallot:\n%s", strings.Join(got["kueue"].log, "\n"), strings.Join(got["allot"].log, "\n"))
	}
	return result
}

// readDiffWorkload reads a workload file: its steps of batches and how
// many jobs they hold (at least 30).
func readDiffWorkload(t *testing.T, file string) (diffWorkload, [][]diffBatch, int) {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var w diffWorkload
	if err := yaml.Unmarshal(data, &w); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	var steps [][]diffBatch
	jobs := 0
	for _, st := range w.Steps {
		var bs []diffBatch
		for _, s := range st {
			b, err := parseBatch(s)
			if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			bs = append(bs, b)
			jobs += b.count
		}
		steps = append(steps, bs)
	}
	if jobs < 30 {
		t.Fatalf("%s: %d jobs, want at least 30", file, jobs)
	}
	return w, steps, jobs
}

// compareDiff compares each step's sorted events, Kueue's and allot's,
// and reports each step's events and each difference, explained or not.
func compareDiff(w diffWorkload, steps [][]diffBatch, got map[string]*diffRecorder) (diffResult, string) {
	var report strings.Builder
	stale := got["kueue"].stalledFrom
	result := diffSame
	for i := range steps {
		a, b := got["kueue"].events[i+1], got["allot"].events[i+1]
		slices.Sort(a)
		slices.Sort(b)
		fmt.Fprintf(&report, "step %d %v\n", i+1, w.Steps[i])
		for _, line := range counted(a) {
			fmt.Fprintf(&report, "  %s\n", line)
		}
		if slices.Equal(a, b) {
			continue
		}
		if why := transientExplains(a, b, got["kueue"].transient[i+1], got["allot"].transient[i+1]); why != "" {
			fmt.Fprintf(&report, "  explained: %s; the rest matches\n", why)
			continue
		}
		why := "DIFFERS"
		if stale > 0 && i+1 >= stale {
			why = "DIFFERS (explained: Kueue stalled in step " + strconv.Itoa(stale) + ")"
			result = max(result, diffKueueStalled)
		} else {
			result = diffUnexplained
		}
		fmt.Fprintf(&report, "  %s: kueue %v\n           allot %v\n", why, counted(a), counted(b))
	}
	return result, report.String()
}

// transientExplains says why the sorted events of one step, kueue and
// allot, differ only by transient pairs (an admission reclaimed within a
// second, when releases seen in one cycle let a borrower in ahead of the
// owner's requeued job): either side may have them, since which releases
// one cycle sees is timing. It returns "" when leaving the pairs out
// still leaves a difference.
func transientExplains(kueue, allot []string, kueuePairs, allotPairs []reclaimedAtOnce) string {
	if len(kueuePairs)+len(allotPairs) == 0 {
		return ""
	}
	strip := func(ev []string, pairs []reclaimedAtOnce) ([]string, []string) {
		var adm, both []string
		for _, p := range pairs {
			adm, both = append(adm, p.admit), append(both, p.admit, p.reclaim)
		}
		slices.Sort(adm)
		return without(ev, both), adm
	}
	k, kAdm := strip(kueue, kueuePairs)
	a, aAdm := strip(allot, allotPairs)
	if !slices.Equal(k, a) {
		return ""
	}
	var whys []string
	for _, side := range []struct {
		name string
		adm  []string
	}{{"Kueue", kAdm}, {"allot", aAdm}} {
		if len(side.adm) > 0 {
			whys = append(whys, fmt.Sprintf("%s admitted and at once reclaimed %v", side.name, counted(side.adm)))
		}
	}
	return strings.Join(whys, "; ") + " (a requeue race)"
}

// without is the sorted events ev less one of each of rm.
func without(ev, rm []string) []string {
	out := slices.Clone(ev)
	for _, x := range rm {
		if i := slices.Index(out, x); i >= 0 {
			out = slices.Delete(out, i, i+1)
		}
	}
	return out
}

// counted is sorted events as "N× event".
func counted(ev []string) []string {
	var out []string
	for i := 0; i < len(ev); {
		j := i
		for j < len(ev) && ev[j] == ev[i] {
			j++
		}
		out = append(out, fmt.Sprintf("%d× %s", j-i, ev[i]))
		i = j
	}
	return out
}

// feed creates each step's jobs at the start of a second, most important
// first, and waits until the system is quiet; it returns what happened in
// each step.
func feed(t *testing.T, c *kubetest.Cluster, sys *diffSystem, steps [][]diffBatch, ns map[string]string) *diffRecorder {
	r := newRecorder()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sys.watch(ctx, r)
	for i, st := range steps {
		time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second + 50*time.Millisecond)))
		r.mu.Lock()
		r.step = i + 1
		r.mu.Unlock()
		for _, b := range st {
			for n := range b.count {
				j := diffJob(ns[b.team], jobName(i+1, b, n), b)
				sys.label(j, b)
				if _, err := c.Client.BatchV1().Jobs(j.Namespace).Create(ctx, j, metav1.CreateOptions{}); err != nil {
					t.Fatal(err)
				}
			}
		}
		r.mu.Lock()
		r.last = time.Now() // quiet counts from the step's last job
		r.mu.Unlock()
		t0 := time.Now()
		deadline := time.Now().Add(60 * time.Second)
		for !r.quiet(diffQuiet) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: step %d not quiet after 60 s", sys.name, i+1)
			}
			time.Sleep(100 * time.Millisecond)
		}
		r.mu.Lock()
		r.log = append(r.log, fmt.Sprintf("step %d quiet after %s", i+1, time.Since(t0).Round(time.Millisecond)))
		r.mu.Unlock()
		if sys.check == nil {
			continue
		}
		if msg := sys.check(ctx); msg != "" {
			r.mu.Lock()
			r.log = append(r.log, fmt.Sprintf("step %d: %s", i+1, msg))
			if r.stalledFrom == 0 {
				r.stalledFrom = i + 1
			}
			r.mu.Unlock()
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r
}

// diffJob is a suspended Job of one pod as real ones are: an init
// container "fetch" giving only limits (1 vCPU, 1 GiB), a container
// "train" with the batch's GPUs, its vCPUs (diffCPU unless given) and
// 8 GiB, requested and limited, and a container "sidecar" giving no
// resources, for the namespace's LimitRange (diffLimitRange) to fill.
// Both schedulers count a pod as Kueue does: the containers' sum, train's
// request and the sidecar's defaultRequest (500m, 1 GiB), is more than
// fetch asks (the defaultRequest too: Kueue takes a limit for a missing
// request only after the defaults), so cpu+0.5 vCPUs and 9 GiB. kwok
// runs the pod, and ends it after b.run when set.
func diffJob(ns, name string, b diffBatch) *batchv1.Job {
	ann := map[string]string{}
	if b.run > 0 {
		ann["kwok-sim/run-for"] = b.run.String()
	}
	cpu := b.cpu
	if cpu == 0 {
		cpu = diffCPU
	}
	train := corev1.ResourceList{kube.ResourceNVIDIA: *resource.NewQuantity(int64(b.gpus), resource.DecimalSI),
		corev1.ResourceCPU: *resource.NewQuantity(int64(cpu), resource.DecimalSI), corev1.ResourceMemory: resource.MustParse("8Gi")}
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: batchv1.JobSpec{Suspend: ptr.To(true), BackoffLimit: ptr.To(int32(0)), Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Annotations: ann},
			Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, TerminationGracePeriodSeconds: ptr.To(int64(0)),
				Tolerations: []corev1.Toleration{{Key: kubetest.FakeTaint.Key, Operator: corev1.TolerationOpEqual, Value: kubetest.FakeTaint.Value, Effect: kubetest.FakeTaint.Effect}},
				InitContainers: []corev1.Container{{Name: "fetch", Image: "fetch:latest",
					Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("1Gi")}}}},
				Containers: []corev1.Container{
					{Name: "train", Image: "train:latest", Resources: corev1.ResourceRequirements{Requests: train, Limits: train}},
					{Name: "sidecar", Image: "sidecar:latest"},
				}}}},
	}
}

// diffLimitRange is each team namespace's LimitRange: a container that
// says nothing requests 500m and 1 GiB, and is limited to 1 vCPU and
// 2 GiB.
func diffLimitRange() *corev1.LimitRange {
	return &corev1.LimitRange{ObjectMeta: metav1.ObjectMeta{Name: "defaults"}, Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{
		Type:           corev1.LimitTypeContainer,
		Default:        corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("2Gi")},
		DefaultRequest: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("1Gi")},
	}}}}
}

var workloadsGVR = schema.GroupVersionResource{Group: kueue.GroupVersion.Group, Version: kueue.GroupVersion.Version, Resource: "workloads"}

// watchWorkloads records Kueue's decisions from its Workloads: an
// admission (with the flavor of the accelerators) when Admitted turns
// true, a preemption (with the reason of its Preempted condition) when
// Evicted turns true for Preempted; an evicted workload holding quota is
// busy.
func watchWorkloads(ctx context.Context, t *testing.T, c *kubetest.Cluster, r *diffRecorder) {
	dyn, err := dynamic.NewForConfig(c.AdminConfig())
	if err != nil {
		t.Fatal(err)
	}
	f := dynamicinformer.NewDynamicSharedInformerFactory(dyn, 0)
	inf := f.ForResource(workloadsGVR).Informer()
	conv := func(o any) *kueue.Workload {
		var w kueue.Workload
		if u, ok := o.(*unstructured.Unstructured); ok {
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &w); err != nil {
				t.Errorf("workload: %v", err)
			}
		}
		return &w
	}
	job := func(w *kueue.Workload) string {
		for _, o := range w.OwnerReferences {
			if o.Kind == "Job" {
				return o.Name
			}
		}
		return w.Name
	}
	on := func(old, w *kueue.Workload) {
		r.setBusy("workload/"+w.Namespace+"/"+w.Name, isTrue(w.Status.Conditions, kueue.WorkloadEvicted) && isTrue(w.Status.Conditions, kueue.WorkloadQuotaReserved))
		if isTrue(w.Status.Conditions, kueue.WorkloadAdmitted) && !isTrue(old.Status.Conditions, kueue.WorkloadAdmitted) {
			flavor := ""
			if a := w.Status.Admission; a != nil && len(a.PodSetAssignments) > 0 {
				flavor = string(a.PodSetAssignments[0].Flavors[kube.ResourceNVIDIA])
			}
			r.add(job(w), "admit "+flavor, "")
		}
		if ev := findCond(w.Status.Conditions, kueue.WorkloadEvicted); ev != nil && ev.Status == metav1.ConditionTrue && ev.Reason == kueue.WorkloadEvictedByPreemption {
			if o := findCond(old.Status.Conditions, kueue.WorkloadEvicted); o == nil || o.Status != metav1.ConditionTrue || !o.LastTransitionTime.Equal(&ev.LastTransitionTime) {
				reason, why := "", ""
				if p := findCond(w.Status.Conditions, kueue.WorkloadPreempted); p != nil {
					reason, why = p.Reason, p.Message
				}
				r.add(job(w), "preempt "+reason, why)
			}
		}
	}
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { on(&kueue.Workload{}, conv(o)) },
		UpdateFunc: func(o, n any) { on(conv(o), conv(n)) },
	}); err != nil {
		t.Fatal(err)
	}
	f.Start(ctx.Done())
	watchJobs(ctx, t, c, r, nil)
}

// watchAllotJobs records allot's decisions from the Jobs: an admission
// (with the flavor annotation) when a Job is unsuspended, a preemption
// (with the reason in the reason annotation) when its count rises.
func watchAllotJobs(ctx context.Context, t *testing.T, c *kubetest.Cluster, r *diffRecorder) {
	reason := regexp.MustCompile(`^preempted \(([A-Za-z]+)\)`)
	watchJobs(ctx, t, c, r, func(old, j *batchv1.Job) {
		if !*j.Spec.Suspend && (old == nil || *old.Spec.Suspend) {
			r.add(j.Name, "admit "+j.Annotations[kube.AnnFlavor], "")
		}
		n, _ := strconv.Atoi(j.Annotations[kube.AnnPreemptions])
		was := 0
		if old != nil {
			was, _ = strconv.Atoi(old.Annotations[kube.AnnPreemptions])
		}
		if n > was {
			m := reason.FindStringSubmatch(j.Annotations[kube.AnnReason])
			if m == nil {
				t.Errorf("job %s preempted, reason %q", j.Name, j.Annotations[kube.AnnReason])
				return
			}
			r.add(j.Name, "preempt "+m[1], "for "+j.Annotations[kube.AnnPreemptedBy])
		}
	})
}

// watchJobs follows the Jobs: one is busy while its pods start or stop
// (unsuspended without a pod active, suspended with pods left) and while
// a short job's pod runs; each change goes to also when given.
func watchJobs(ctx context.Context, t *testing.T, c *kubetest.Cluster, r *diffRecorder, also func(old, j *batchv1.Job)) {
	f := informers.NewSharedInformerFactory(c.Client, 0)
	inf := f.Batch().V1().Jobs().Informer()
	on := func(old, j *batchv1.Job) {
		if also != nil {
			also(old, j)
		}
		done := slices.ContainsFunc(j.Status.Conditions, func(c batchv1.JobCondition) bool {
			return (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue
		})
		pods := j.Status.Active + ptr.Deref(j.Status.Terminating, 0)
		short := strings.HasSuffix(signature(j.Name), "s")
		busy := !done && (*j.Spec.Suspend && pods > 0 || !*j.Spec.Suspend && (pods == 0 || short))
		r.setBusy("job/"+j.Namespace+"/"+j.Name, busy)
	}
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { on(nil, o.(*batchv1.Job)) },
		UpdateFunc: func(o, n any) { on(o.(*batchv1.Job), n.(*batchv1.Job)) },
		DeleteFunc: func(o any) {
			if j, ok := o.(*batchv1.Job); ok {
				r.setBusy("job/"+j.Namespace+"/"+j.Name, false)
			}
		},
	}); err != nil {
		t.Fatal(err)
	}
	f.Start(ctx.Done())
	f.WaitForCacheSync(ctx.Done())
}

func findCond(cs []metav1.Condition, typ string) *metav1.Condition {
	for i := range cs {
		if cs[i].Type == typ {
			return &cs[i]
		}
	}
	return nil
}

func isTrue(cs []metav1.Condition, typ string) bool {
	c := findCond(cs, typ)
	return c != nil && c.Status == metav1.ConditionTrue
}

// diffQuiet is how long nothing must happen for a system to be quiet.
var diffQuiet = 2 * time.Second
