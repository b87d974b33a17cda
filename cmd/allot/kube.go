package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/allot-sim/allot/hardware"
	"github.com/allot-sim/allot/live"
	"github.com/allot-sim/allot/live/kube"
	"github.com/allot-sim/allot/scenarios"
	"github.com/spf13/cobra"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// kubeTarget is where a live command acts: the local daemon, or with
// --backend kubernetes a cluster's API server.
type kubeTarget struct {
	backend, kubeconfig, namespace string
	policy                         string // NAMESPACE/NAME of the policy ConfigMap (top, live snapshot)
}

// addPolicyFlag adds --policy-configmap to a command that reads the
// controller's policy.
func addPolicyFlag(cmd *cobra.Command, k *kubeTarget) {
	cmd.Flags().StringVar(&k.policy, "policy-configmap", "allot-system/allot-policy", "with --backend kubernetes: the controller's policy ConfigMap, [NAMESPACE/]NAME")
}

// policyMap is where the controller's policy is: namespace and name.
func (k *kubeTarget) policyMap() (string, string) {
	ref := k.policy
	if ref == "" {
		ref = "allot-system/allot-policy"
	}
	if ns, name, ok := strings.Cut(ref, "/"); ok {
		return ns, name
	}
	return "allot-system", ref
}

func addBackendFlags(cmd *cobra.Command, k *kubeTarget) {
	f := cmd.Flags()
	f.StringVar(&k.backend, "backend", "local", "local (the daemon on this machine) or kubernetes (the cluster's API server)")
	f.StringVar(&k.kubeconfig, "kubeconfig", "", "with --backend kubernetes: kubeconfig file (default $KUBECONFIG, ~/.kube/config, else in-cluster)")
	f.StringVarP(&k.namespace, "namespace", "n", "", "with --backend kubernetes: the namespace (default: the team's, else every namespace)")
}

// on says whether the command acts on Kubernetes; an unknown backend is a
// usage error.
func (k *kubeTarget) on(cmd *cobra.Command) (bool, error) {
	switch k.backend {
	case "", "local":
		return false, nil
	case "kubernetes":
		return true, nil
	}
	return false, &usageError{cmd: cmd.CommandPath(), msg: fmt.Sprintf("--backend %q: want local or kubernetes", k.backend)}
}

func (k *kubeTarget) loader() clientcmd.ClientConfig {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if k.kubeconfig != "" {
		rules.ExplicitPath = k.kubeconfig
	}
	return clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{})
}

// contextNamespace is the namespace the kubeconfig's current context
// names ("" when it names none).
func (k *kubeTarget) contextNamespace() string {
	raw, err := k.loader().RawConfig()
	if err != nil {
		return ""
	}
	if c := raw.Contexts[raw.CurrentContext]; c != nil {
		return c.Namespace
	}
	return ""
}

func (k *kubeTarget) client() (kubernetes.Interface, error) {
	cfg, err := k.loader().ClientConfig()
	if err != nil {
		if in, ierr := rest.InClusterConfig(); ierr == nil {
			cfg = in
		} else {
			return nil, badInput(fmt.Errorf("no cluster to talk to: %w", err))
		}
	}
	return kube.NewClient(cfg)
}

// kubeConfigure is the controller's policy: a policy file (the ConfigMap's
// policy.yaml) on the cluster's fleet, admitting at quota level.
func kubeConfigure(where string) kube.Configure {
	return func(policy []byte, fleet []kube.FleetType) (*kube.Config, error) {
		s, err := scenarios.ParseLiveOnFleet(where, policy, fleetYAML(fleet))
		if err != nil {
			return nil, err
		}
		cfg := &kube.Config{Config: liveConfigOf(s, nil), PlacementTimeout: time.Duration(s.Policy.PlacementTimeout * float64(time.Second))}
		for _, t := range s.Teams {
			cfg.Namespaces = append(cfg.Namespaces, t.Namespace)
		}
		for _, f := range cfg.Model.Flavors {
			i := slices.IndexFunc(fleet, func(t kube.FleetType) bool { return t.Name == f.Name })
			cfg.Types = append(cfg.Types, fleet[i])
		}
		return cfg, nil
	}
}

// fleetYAML is the fleet section of the cluster's instance types: a type
// the catalog knows with the same accelerators per node is the catalog's
// (its price and speed); another is declared from its nodes.
func fleetYAML(fleet []kube.FleetType) string {
	cat := hardware.Builtin()
	var types, nodes strings.Builder
	for _, t := range fleet {
		if it, ok := cat.Lookup(t.Name); !ok || it.Accelerators != t.PerNode || it.Resource != t.Resource {
			accel := "generic"
			if t.Resource == kube.ResourceNeuron {
				accel = "trainium"
			}
			fmt.Fprintf(&types, "  - {name: %q, accelerator: %s, resource: %q, accelerators: %d}\n", t.Name, accel, t.Resource, t.PerNode)
		}
		fmt.Fprintf(&nodes, "  - {type: %q, count: %d}\n", t.Name, len(t.Nodes))
	}
	out := ""
	if types.Len() > 0 {
		out += "instance_types:\n" + types.String()
	}
	return out + "nodes:\n" + nodes.String()
}

// serveKube runs the controller on a cluster until interrupted; with a
// policy file it first writes it to the policy ConfigMap.
func serveKube(cmd *cobra.Command, k *kubeTarget, config, configMap, httpAddr string) error {
	cs, err := k.client()
	if err != nil {
		return err
	}
	ns := k.namespace
	if ns == "" {
		ns = "allot-system"
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if config != "" {
		data, err := os.ReadFile(config)
		if err != nil {
			return badInput(err)
		}
		if err := putPolicy(ctx, cs, ns, configMap, data); err != nil {
			return err
		}
	}
	rec, shutdown := kube.Recorder(cs)
	defer shutdown()
	c := &kube.Controller{Client: cs, Namespace: ns, ConfigMap: configMap, Configure: kubeConfigure("ConfigMap " + ns + "/" + configMap),
		Clock: live.SystemClock{}, Events: rec}
	if httpAddr != "" {
		hl, err := listenHTTP(httpAddr)
		if err != nil {
			return err
		}
		defer hl.Close()
		mux := http.NewServeMux()
		mux.Handle("GET /metrics", live.NewMetrics(c).Handler())
		mux.Handle("GET /", live.Dashboard(c, dashboardPage))
		// Ready while leading: a Service over the replicas sends users to
		// the one that decides (a standby's figures are not kept).
		mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
			if !c.Leading() {
				http.Error(w, "standby: another replica holds the leader Lease", http.StatusServiceUnavailable)
				return
			}
			fmt.Fprintln(w, "leading")
		})
		go func() { _ = (&http.Server{Handler: mux}).Serve(hl) }()
		fmt.Fprintf(cmd.ErrOrStderr(), "allot live: dashboard on http://%s/ and metrics on /metrics\n", hl.Addr())
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "allot live: controller for the cluster, policy from ConfigMap %s/%s\n", ns, configMap)
	return c.Run(ctx, kube.Options{Log: cmd.ErrOrStderr()})
}

// putPolicy creates or updates the policy ConfigMap.
func putPolicy(ctx context.Context, cs kubernetes.Interface, ns, name string, data []byte) error {
	cms := cs.CoreV1().ConfigMaps(ns)
	cm, err := cms.Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		cm = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Data: map[string]string{kube.PolicyKey: string(data)}}
		_, err = cms.Create(ctx, cm, metav1.CreateOptions{})
		return err
	}
	if err != nil {
		return err
	}
	if cm.Data == nil {
		cm.Data = map[string]string{}
	}
	cm.Data[kube.PolicyKey] = string(data)
	_, err = cms.Update(ctx, cm, metav1.UpdateOptions{})
	return err
}

// kubeJob is a submission to the cluster: a suspended Job the controller
// admits.
type kubeJob struct {
	req         live.Request
	image       string
	resource    string
	pods        int
	tolerations []string
}

func (s *kubeJob) job(ns string) (*batchv1.Job, error) {
	r := &s.req
	if s.image == "" {
		return nil, errors.New("--image is required with --backend kubernetes")
	}
	if s.pods < 1 || r.Accelerators%s.pods != 0 {
		return nil, fmt.Errorf("--pods %d: want at least 1, dividing --accelerators %d evenly", s.pods, r.Accelerators)
	}
	limits := corev1.ResourceList{}
	if r.Accelerators > 0 {
		limits[corev1.ResourceName(s.resource)] = *resource.NewQuantity(int64(r.Accelerators/s.pods), resource.DecimalSI)
	}
	var tols []corev1.Toleration
	for _, t := range s.tolerations {
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
			Labels:      map[string]string{kube.LabelTeam: r.Team, kube.LabelPriorityClass: r.PriorityClass},
			Annotations: map[string]string{kube.AnnSubmitted: time.Now().UTC().Format(time.RFC3339Nano)}},
		Spec: batchv1.JobSpec{Suspend: ptrTo(true), BackoffLimit: ptrTo(int32(0)),
			Parallelism: ptrTo(int32(s.pods)), Completions: ptrTo(int32(s.pods)), Template: corev1.PodTemplateSpec{
				Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, Tolerations: tols,
					Containers: []corev1.Container{{Name: "job", Image: s.image, Command: r.Command, Resources: corev1.ResourceRequirements{Limits: limits}}}}}},
	}
	if r.Name != "" {
		j.Name = r.Name
	} else {
		j.GenerateName = "allot-"
	}
	if r.InstanceType != "" {
		j.Annotations[kube.AnnInstanceType] = r.InstanceType
	}
	if r.CheckpointInterval > 0 {
		j.Annotations[kube.AnnCheckpointInterval] = kube.FormatCheckpointInterval(r.CheckpointInterval)
	}
	if r.TimeLimit > 0 {
		j.Spec.ActiveDeadlineSeconds = ptrTo(int64(r.TimeLimit))
	}
	return j, nil
}

func ptrTo[T any](v T) *T { return &v }

// submitKube creates the job suspended in the team's namespace (or -n)
// and returns its id, namespace/name.
func submitKube(k *kubeTarget, s *kubeJob) (string, error) {
	cs, err := k.client()
	if err != nil {
		return "", err
	}
	ns := k.namespace
	if ns == "" {
		ns = s.req.Team
	}
	j, err := s.job(ns)
	if err != nil {
		return "", badInput(err)
	}
	made, err := cs.BatchV1().Jobs(ns).Create(context.Background(), j, metav1.CreateOptions{})
	if err != nil {
		return "", kubeErr(err)
	}
	return kube.ID(made), nil
}

// kubeErr makes the API server's refusals bad input (exit 2).
func kubeErr(err error) error {
	if apierrors.IsInvalid(err) || apierrors.IsNotFound(err) || apierrors.IsAlreadyExists(err) || apierrors.IsForbidden(err) || apierrors.IsBadRequest(err) {
		return badInput(err)
	}
	return err
}

// kubeJobs lists the managed jobs (namespace -n, else all) in queue order.
func kubeJobs(k *kubeTarget) ([]live.View, error) {
	cs, err := k.client()
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	ns := k.namespace
	jobs, err := cs.BatchV1().Jobs(ns).List(ctx, metav1.ListOptions{LabelSelector: kube.LabelTeam})
	if ns == "" && apierrors.IsForbidden(err) {
		// A team's user may list only in their namespace: the one their
		// kubeconfig's context names, as kubectl would use.
		if ns = k.contextNamespace(); ns == "" {
			return nil, badInput(fmt.Errorf("%w (give -n NAMESPACE, or set a namespace in the kubeconfig's context)", err))
		}
		jobs, err = cs.BatchV1().Jobs(ns).List(ctx, metav1.ListOptions{LabelSelector: kube.LabelTeam})
	}
	if err != nil {
		return nil, kubeErr(err)
	}
	pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: batchv1.ControllerUidLabel})
	if err != nil {
		return nil, kubeErr(err)
	}
	alive := kube.LivePods(pods.Items)
	out := []live.View{}
	for i := range jobs.Items {
		j := &jobs.Items[i]
		out = append(out, kube.View(j, j.Labels[kube.LabelTeam], alive[string(j.UID)]))
	}
	slices.SortStableFunc(out, func(a, b live.View) int { return a.Submitted.Compare(b.Submitted) })
	return out, nil
}

// clientJob is a client and the job id names.
func (k *kubeTarget) clientJob(id string) (kubernetes.Interface, *batchv1.Job, error) {
	cs, err := k.client()
	if err != nil {
		return nil, nil, err
	}
	j, err := k.job(cs, id)
	return cs, j, err
}

// job finds one job by namespace/name (or name with -n).
func (k *kubeTarget) job(cs kubernetes.Interface, id string) (*batchv1.Job, error) {
	ns, name, ok := strings.Cut(id, "/")
	if !ok {
		ns, name = k.namespace, id
		if ns == "" {
			return nil, badInput(fmt.Errorf("job %q: give NAMESPACE/NAME, or -n NAMESPACE", id))
		}
	}
	j, err := cs.BatchV1().Jobs(ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		return nil, kubeErr(err)
	}
	return j, nil
}

// describeKube is a job's view and its Events, oldest first.
func describeKube(k *kubeTarget, id string) (*live.Description, error) {
	cs, j, err := k.clientJob(id)
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	pods, err := cs.CoreV1().Pods(j.Namespace).List(ctx, metav1.ListOptions{LabelSelector: batchv1.ControllerUidLabel + "=" + string(j.UID)})
	if err != nil {
		return nil, kubeErr(err)
	}
	d := &live.Description{View: kube.View(j, j.Labels[kube.LabelTeam], kube.LivePods(pods.Items)[string(j.UID)])}
	if len(j.Spec.Template.Spec.Containers) > 0 {
		d.Command = j.Spec.Template.Spec.Containers[0].Command
	}
	evs, err := cs.CoreV1().Events(j.Namespace).List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=" + j.Name})
	if err != nil {
		return nil, kubeErr(err)
	}
	kube.SortEvents(evs.Items)
	t0 := j.CreationTimestamp.Time
	for _, e := range evs.Items {
		if e.InvolvedObject.UID != j.UID {
			continue
		}
		d.History = append(d.History, live.Event{Time: kube.EventTime(&e).Sub(t0).Seconds(), Job: kube.ID(j), Kind: e.Reason, Detail: e.Message})
	}
	return d, nil
}

// cancelKube stops a job for good: suspended (its pods deleted with their
// grace period) and marked cancelled, which the controller leaves alone.
func cancelKube(k *kubeTarget, id string) error {
	cs, j, err := k.clientJob(id)
	if err != nil {
		return err
	}
	who := os.Getenv("USER")
	if who == "" {
		who = fmt.Sprintf("uid %d", os.Getuid())
	}
	patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%q,%q:%q,%q:"cancelled"}},"spec":{"suspend":true}}`,
		kube.AnnCancelled, who, kube.AnnCancelledAt, time.Now().UTC().Format(time.RFC3339Nano), kube.AnnReason)
	_, err = cs.BatchV1().Jobs(j.Namespace).Patch(context.Background(), j.Name, "application/merge-patch+json", []byte(patch), metav1.PatchOptions{})
	return kubeErr(err)
}

// logsKube copies the logs of the job's pods, oldest pod first, following
// the last one with follow; a pod whose node keeps no logs says so.
func logsKube(cmd *cobra.Command, k *kubeTarget, id string, follow bool) error {
	cs, j, err := k.clientJob(id)
	if err != nil {
		return err
	}
	ctx := context.Background()
	pods, err := cs.CoreV1().Pods(j.Namespace).List(ctx, metav1.ListOptions{LabelSelector: batchv1.ControllerUidLabel + "=" + string(j.UID)})
	if err != nil {
		return kubeErr(err)
	}
	if len(pods.Items) == 0 {
		return badInput(fmt.Errorf("job %s has no pods now (%s)", kube.ID(j), kube.View(j, j.Labels[kube.LabelTeam], 0).State))
	}
	slices.SortFunc(pods.Items, func(a, b corev1.Pod) int { return a.CreationTimestamp.Compare(b.CreationTimestamp.Time) })
	for i, p := range pods.Items {
		if len(pods.Items) > 1 {
			fmt.Fprintf(cmd.OutOrStdout(), "==> pod %s <==\n", p.Name)
		}
		st, err := cs.CoreV1().Pods(p.Namespace).GetLogs(p.Name, &corev1.PodLogOptions{Follow: follow && i == len(pods.Items)-1}).Stream(ctx)
		if err != nil {
			fmt.Fprintf(cmd.ErrOrStderr(), "allot: pod %s: no logs: %v\n", p.Name, err)
			continue
		}
		_, err = io.Copy(cmd.OutOrStdout(), st)
		st.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// topKube is one look at the cluster for allot top: its fleet, the
// policy's quotas per team, and the managed jobs.
func topKube(k *kubeTarget) topData {
	d := topData{at: time.Now()}
	cs, err := k.client()
	if err != nil {
		d.err = err
		return d
	}
	ctx := context.Background()
	nodes, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		d.err = kubeErr(err)
		return d
	}
	fleet, _ := kube.FleetOf(nodes.Items)
	devices := 0
	for _, t := range fleet {
		devices += t.PerNode * len(t.Nodes)
	}
	var teams []live.TeamUsage
	pns, pname := k.policyMap()
	if cm, err := cs.CoreV1().ConfigMaps(pns).Get(ctx, pname, metav1.GetOptions{}); err == nil {
		if cfg, err := kubeConfigure("ConfigMap "+pns+"/"+pname)([]byte(cm.Data[kube.PolicyKey]), fleet); err == nil {
			for i, t := range cfg.Teams {
				u := live.TeamUsage{Team: t}
				for _, q := range cfg.Quotas[i] {
					u.Quota += q
				}
				teams = append(teams, u)
			}
		}
	}
	views, err := kubeJobs(&kubeTarget{kubeconfig: k.kubeconfig, namespace: k.namespace})
	if err != nil {
		d.err = err
		return d
	}
	for _, v := range views {
		if !slices.ContainsFunc(teams, func(u live.TeamUsage) bool { return u.Team == v.Team }) {
			teams = append(teams, live.TeamUsage{Team: v.Team})
		}
	}
	d.o = live.Tally(devices, teams, views)
	for _, st := range []string{live.StateRunning, live.StatePreempted, live.StatePending} {
		for _, v := range views {
			if v.State == st {
				d.jobs = append(d.jobs, v)
			}
		}
	}
	return d
}

// snapshotKube writes the cluster's state as a snapshot allot cycle reads:
// the policy of the ConfigMap on the cluster's fleet, at quota level, and
// the managed jobs; times are seconds from the earliest submission.
func snapshotKube(k *kubeTarget) ([]byte, error) { return snapshotKubeUnder(k, "", nil) }

// snapshotKubeUnder is the cluster's state as a snapshot under a policy
// file's text (where names it), or the controller's ConfigMap's when nil.
func snapshotKubeUnder(k *kubeTarget, where string, policy []byte) ([]byte, error) {
	cs, err := k.client()
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	nodes, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, kubeErr(err)
	}
	fleet, _ := kube.FleetOf(nodes.Items)
	if policy == nil {
		pns, pname := k.policyMap()
		cm, err := cs.CoreV1().ConfigMaps(pns).Get(ctx, pname, metav1.GetOptions{})
		if err != nil {
			return nil, kubeErr(err)
		}
		where, policy = "ConfigMap "+pns+"/"+pname, []byte(cm.Data[kube.PolicyKey])
	}
	cfg, err := kubeConfigure(where)(policy, fleet)
	if err != nil {
		return nil, badInput(err)
	}
	cfg.Model.NodesModelled = false // as the controller admits
	jobs, err := cs.BatchV1().Jobs("").List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, kubeErr(err)
	}
	pods, err := cs.CoreV1().Pods("").List(ctx, metav1.ListOptions{LabelSelector: batchv1.ControllerUidLabel})
	if err != nil {
		return nil, kubeErr(err)
	}
	ranges, err := cs.CoreV1().LimitRanges("").List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, kubeErr(err)
	}
	held := kube.Snapshot(cfg, jobs.Items, pods.Items, ranges.Items)
	now := time.Now()
	epoch := now
	for _, h := range held {
		if h.Submitted.Before(epoch) {
			epoch = h.Submitted
		}
	}
	var out []scenarios.SnapshotJob
	for _, h := range held {
		sj := scenarios.SnapshotJob{Name: h.ID, Queue: cfg.Teams[h.Team], Priority: h.Priority, Created: h.Submitted.Sub(epoch).Seconds(),
			Flavor: cfg.Model.FlavorIndex(h.Flavor), Want: cfg.Model.FlavorIndex(h.InstanceType), Accelerators: float64(h.Accelerators),
			VCPUs: h.VCPUs, MemoryGiB: h.MemoryGiB, Evicting: h.Evicting}
		if h.Flavor != "" && sj.Flavor < 0 {
			continue // its instance type left the fleet: the controller requeues it
		}
		if sj.Flavor >= 0 {
			sj.Admitted = h.Admitted.Sub(epoch).Seconds()
		}
		out = append(out, sj)
	}
	return scenarios.MarshalSnapshot(cfg.Model, now.Sub(epoch).Seconds(), out,
		"written by allot live snapshot --backend kubernetes from "+where+": quota level; times are seconds from the earliest submission")
}
