// Package kubetest starts a real Kubernetes control plane for tests: etcd,
// kube-apiserver, kube-controller-manager (its Job, garbage-collector and
// namespace controllers), kube-scheduler, and kwok as the kubelet of fake
// accelerator nodes, each a child process on loopback ports. The binaries
// come from scripts/k8s/control-plane.sh, found through ALLOT_K8S_BIN
// (make test sets it); without it the tests that need a cluster skip.
package kubetest

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	mathrand "math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
)

// BinEnv names the directory of the control plane's binaries.
const BinEnv = "ALLOT_K8S_BIN"

// RequiredEnv set (make test-k8s) fails the tests that would skip for want
// of a control plane.
const RequiredEnv = "ALLOT_K8S_REQUIRED"

// Cluster is a running control plane.
type Cluster struct {
	Kubeconfig string
	Client     kubernetes.Interface
	Untainted  bool // Nodes makes nodes without FakeTaint (no pod needs a toleration)
	dir        string
	bin        string
	t          TB
	procs      []*proc
}

// TB is what Start needs of its caller: a test's testing.TB, or a
// command's own (scripts/k8s/devcluster).
type TB interface {
	Helper()
	Cleanup(func())
	Failed() bool
	Logf(format string, args ...any)
	Skipf(format string, args ...any)
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

// Start starts a control plane for the test and stops it when the test
// ends; it skips the test under -short and when ALLOT_K8S_BIN is not set.
// An API server that exits or is not ready in time is started again, on
// fresh ports in a fresh directory, up to startAttempts times in all: on a
// loaded machine a port picked free can be taken before the server binds
// it.
func Start(t TB) *Cluster {
	t.Helper()
	// testing.Testing first: Short panics outside a test binary
	// (scripts/k8s/devcluster).
	if testing.Testing() && testing.Short() {
		t.Skipf("-short: starts a Kubernetes control plane")
	}
	bin := os.Getenv(BinEnv)
	if bin == "" && os.Getenv(RequiredEnv) != "" {
		t.Fatalf("no Kubernetes control plane: %s is not set, and %s says the suite must run", BinEnv, RequiredEnv)
	}
	if bin == "" {
		t.Skipf("no Kubernetes control plane: %s is not set (run scripts/k8s/control-plane.sh and point %s at the directory it prints; make test does)", BinEnv, BinEnv)
	}
	var errs []string
	for attempt := 1; attempt <= startAttempts; attempt++ {
		c, err := boot(t, bin)
		if err == nil {
			c.startControllers()
			return c
		}
		errs = append(errs, fmt.Sprintf("attempt %d: %v", attempt, err))
		t.Logf("control plane, attempt %d of %d: %v", attempt, startAttempts, err)
	}
	t.Fatalf("no Kubernetes control plane after %d attempts:\n%s", startAttempts, strings.Join(errs, "\n"))
	return nil
}

const (
	startAttempts = 3
	readyWithin   = 90 * time.Second
)

// boot starts etcd and kube-apiserver and waits for the API server to be
// ready. On an error it has stopped both, and the error carries the tails
// of their logs; the directory goes when the test ends, as a ready one's
// does (kept if the test fails).
func boot(t TB, bin string) (*Cluster, error) {
	dir, err := os.MkdirTemp("", "allot-k8s")
	if err != nil {
		t.Fatal(err)
	}
	c := &Cluster{dir: dir, bin: bin, t: t}
	t.Cleanup(func() {
		c.stop()
		if t.Failed() {
			t.Logf("control plane logs kept in %s", dir)
			return
		}
		os.RemoveAll(dir)
	})
	ports := pickPorts(t, 3)
	etcd, peer, api := ports[0], ports[1], ports[2]
	c.credentials(api)
	c.start("etcd", "--name", "allot", "--data-dir", filepath.Join(dir, "etcd"), "--unsafe-no-fsync",
		"--listen-client-urls", "http://127.0.0.1:"+etcd, "--advertise-client-urls", "http://127.0.0.1:"+etcd,
		"--listen-peer-urls", "http://127.0.0.1:"+peer, "--initial-advertise-peer-urls", "http://127.0.0.1:"+peer,
		"--initial-cluster", "allot=http://127.0.0.1:"+peer, "--log-level", "warn")
	// --endpoint-reconciler-type none: a loopback advertise address is
	// refused otherwise. TaintNodesByCondition off: no node-lifecycle
	// controller runs to lift the not-ready taint. ServiceAccount off: no
	// controller creates the default service accounts.
	c.start("kube-apiserver", "--etcd-servers", "http://127.0.0.1:"+etcd,
		"--bind-address", "127.0.0.1", "--advertise-address", "127.0.0.1", "--endpoint-reconciler-type", "none",
		"--secure-port", api, "--cert-dir", filepath.Join(dir, "certs"),
		"--token-auth-file", filepath.Join(dir, "tokens.csv"), "--authorization-mode", "RBAC",
		"--service-account-issuer", "https://kubernetes.default.svc",
		"--service-account-key-file", filepath.Join(dir, "sa.pub"), "--service-account-signing-key-file", filepath.Join(dir, "sa.key"),
		"--service-cluster-ip-range", "10.0.0.0/24",
		"--disable-admission-plugins", "ServiceAccount,TaintNodesByCondition", "--enable-priority-and-fairness=false")
	c.Client = kubernetes.NewForConfigOrDie(c.admin())
	if err := c.waitReady(); err != nil {
		err = fmt.Errorf("%w\n%s\n%s", err, c.logTail("kube-apiserver"), c.logTail("etcd"))
		c.stop()
		return nil, err
	}
	return c, nil
}

// waitReady polls /readyz until it answers, etcd or the API server
// exits, or readyWithin passes.
func (c *Cluster) waitReady() error {
	deadline := time.Now().Add(readyWithin)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_, err := c.Client.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		cancel()
		if err == nil {
			return nil
		}
		for _, p := range c.procs {
			select {
			case <-p.done:
				return fmt.Errorf("%s exited before the API server was ready: %v", p.name, p.cmd.ProcessState)
			default:
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("kube-apiserver not ready after %v: %w", readyWithin, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// startControllers starts the Job controller and its company, the
// scheduler, and kwok.
func (c *Cluster) startControllers() {
	c.start("kube-controller-manager", "--kubeconfig", c.Kubeconfig, "--leader-elect=false", "--secure-port", "0",
		"--controllers", "job-controller,garbage-collector-controller,namespace-controller")
	c.start("kube-scheduler", "--kubeconfig", c.Kubeconfig, "--leader-elect=false", "--secure-port", "0")
	stages := filepath.Join(c.dir, "kwok.yaml")
	if err := os.WriteFile(stages, c.kwokStages(), 0o644); err != nil {
		c.t.Fatal(err)
	}
	c.start("kwok", "--kubeconfig", c.Kubeconfig, "--config", stages,
		"--manage-all-nodes=false", "--manage-nodes-with-annotation-selector", "kwok.x-k8s.io/node=fake",
		"--node-ip", "127.0.0.1", "--cidr", "10.244.0.0/16")
}

// credentials writes the service-account key pair, a static admin token
// and a kubeconfig for it.
func (c *Cluster) credentials(port string) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		c.t.Fatal(err)
	}
	pub, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		c.t.Fatal(err)
	}
	tok := make([]byte, 16)
	_, _ = rand.Read(tok)
	token := hex.EncodeToString(tok)
	c.Kubeconfig = filepath.Join(c.dir, "kubeconfig")
	files := map[string][]byte{
		"sa.key":     pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}),
		"sa.pub":     pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub}),
		"tokens.csv": []byte(token + `,admin,admin,"system:masters"` + "\n"),
		"kubeconfig": fmt.Appendf(nil, `apiVersion: v1
kind: Config
clusters:
- name: local
  cluster: {server: "https://127.0.0.1:%s", insecure-skip-tls-verify: true}
users:
- name: admin
  user: {token: %s}
contexts:
- name: local
  context: {cluster: local, user: admin}
current-context: local
`, port, token),
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(c.dir, name), data, 0o600); err != nil {
			c.t.Fatal(err)
		}
	}
}

// proc is a control-plane process; done closes when it has exited.
type proc struct {
	name string
	cmd  *exec.Cmd
	log  *os.File
	done chan struct{}
}

func (c *Cluster) start(name string, args ...string) {
	c.t.Helper()
	log, err := os.Create(filepath.Join(c.dir, name+".log"))
	if err != nil {
		c.t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(c.bin, name), args...)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		log.Close()
		c.t.Fatalf("start %s: %v", name, err)
	}
	p := &proc{name: name, cmd: cmd, log: log, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(p.done) }()
	c.procs = append(c.procs, p)
}

// stop kills the processes, the last started first, and waits for each.
func (c *Cluster) stop() {
	for i := len(c.procs) - 1; i >= 0; i-- {
		p := c.procs[i]
		_ = p.cmd.Process.Kill()
		<-p.done
		p.log.Close()
	}
	c.procs = nil
}

// logTail is the end of a process's log, for an error message.
func (c *Cluster) logTail(name string) string {
	data, err := os.ReadFile(filepath.Join(c.dir, name+".log"))
	if err != nil {
		return fmt.Sprintf("%s log: %v", name, err)
	}
	const keep = 1500
	if len(data) > keep {
		data = data[len(data)-keep:]
	}
	return fmt.Sprintf("%s log ends:\n%s", name, data)
}

// kwokStages is kwok's configuration: its own fast node and pod stages,
// then pods being deleted vanish at once, or at the end of their grace
// period with the annotation kwok-sim/graceful (a job checkpointing until
// SIGKILL), and pods annotated kwok-sim/run-for end that long after they
// run (Failed with kwok-sim/exit-code other than 0).
func (c *Cluster) kwokStages() []byte {
	var out []byte
	for _, f := range []string{"kwok-node-initialize.yaml", "kwok-pod-ready.yaml"} {
		data, err := os.ReadFile(filepath.Join(c.bin, f))
		if err != nil {
			c.t.Fatal(err)
		}
		out = append(append(out, data...), "\n---\n"...)
	}
	return append(out, stages...)
}

const stages = `apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata: {name: pod-delete}
spec:
  resourceRef: {apiGroup: v1, kind: Pod}
  selector:
    matchExpressions:
    - {key: '.metadata.deletionTimestamp', operator: 'Exists'}
    - {key: '.metadata.annotations["kwok-sim/graceful"]', operator: 'DoesNotExist'}
  next: {delete: true}
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata: {name: pod-delete-graceful}
spec:
  resourceRef: {apiGroup: v1, kind: Pod}
  selector:
    matchExpressions:
    - {key: '.metadata.deletionTimestamp', operator: 'Exists'}
    - {key: '.metadata.annotations["kwok-sim/graceful"]', operator: 'Exists'}
  delay:
    durationMilliseconds: 0
    durationFrom: {expressionFrom: '.metadata.deletionTimestamp'}
  next: {delete: true}
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata: {name: pod-complete-run-for}
spec:
  resourceRef: {apiGroup: v1, kind: Pod}
  selector:
    matchExpressions:
    - {key: '.metadata.deletionTimestamp', operator: 'DoesNotExist'}
    - {key: '.status.phase', operator: 'In', values: ['Running']}
    - {key: '.metadata.annotations["kwok-sim/run-for"]', operator: 'Exists'}
  delay:
    durationMilliseconds: 0
    durationFrom: {expressionFrom: '.metadata.annotations["kwok-sim/run-for"]'}
  next:
    statusTemplate: |
      {{ $now := Now }}
      {{ $code := or (index .metadata.annotations "kwok-sim/exit-code") "0" }}
      containerStatuses:
      {{ range $index, $item := .spec.containers }}
      - image: {{ $item.image | Quote }}
        name: {{ $item.name | Quote }}
        ready: false
        restartCount: 0
        started: false
        state:
          terminated:
            exitCode: {{ $code }}
            finishedAt: {{ $now | Quote }}
            reason: {{ if eq $code "0" }}Completed{{ else }}Error{{ end }}
            startedAt: {{ $now | Quote }}
      {{ end }}
      phase: {{ if eq $code "0" }}Succeeded{{ else }}Failed{{ end }}
`

// Nodes adds count fake nodes of an instance type, each with accel of
// resource (nvidia.com/gpu, aws.amazon.com/neuron), named TYPE-i; kwok
// keeps them Ready. Their taint keeps pods without the toleration off.
func (c *Cluster) Nodes(instanceType, res string, accel, count int) {
	c.t.Helper()
	for i := range count {
		capacity := corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse("96"), corev1.ResourceMemory: resource.MustParse("1Ti"),
			corev1.ResourcePods: resource.MustParse("110"), corev1.ResourceName(res): *resource.NewQuantity(int64(accel), resource.DecimalSI),
		}
		n := &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: instanceType + "-" + strconv.Itoa(i),
				Annotations: map[string]string{"kwok.x-k8s.io/node": "fake"},
				Labels: map[string]string{"type": "kwok", "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
					"kubernetes.io/hostname": instanceType + "-" + strconv.Itoa(i), "node.kubernetes.io/instance-type": instanceType}},
			Spec:   corev1.NodeSpec{Taints: []corev1.Taint{FakeTaint}},
			Status: corev1.NodeStatus{Capacity: capacity, Allocatable: capacity},
		}
		if c.Untainted {
			n.Spec.Taints = nil
		}
		if _, err := c.Client.CoreV1().Nodes().Create(context.Background(), n, metav1.CreateOptions{}); err != nil {
			c.t.Fatal(err)
		}
	}
}

// FakeTaint keeps pods off fake nodes unless they tolerate it.
var FakeTaint = corev1.Taint{Key: "kwok.x-k8s.io/node", Value: "fake", Effect: corev1.TaintEffectNoSchedule}

// pickPorts picks the ports of each attempt; a test replaces it.
var pickPorts = distinctPorts

// distinctPorts is n free ports, no two the same.
func distinctPorts(t TB, n int) []string {
	ps, err := FreePorts(n)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, n)
	for i, p := range ps {
		out[i] = strconv.Itoa(p)
	}
	return out
}

// FreePorts is n free ports (FreePort), no two the same.
func FreePorts(n int) ([]int, error) {
	seen := map[int]bool{}
	var out []int
	for len(out) < n {
		p, err := FreePort()
		if err != nil {
			return nil, err
		}
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out, nil
}

// FreePort is a loopback port nothing listens on now, below Linux's
// ephemeral range (32768 and up): a port the kernel handed out with :0
// may be taken again as the source port of any new connection before the
// server that was to listen on it starts, and a test run opens thousands.
func FreePort() (int, error) {
	for range 200 {
		p := 20000 + mathrand.IntN(12000)
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
		if err == nil {
			l.Close()
			return p, nil
		}
	}
	return 0, fmt.Errorf("no free loopback port between 20000 and 32000")
}

// Apply runs kubectl apply as the admin on each file, or directory with a
// kustomization.yaml (-k).
func (c *Cluster) Apply(paths ...string) {
	c.t.Helper()
	c.apply(nil, paths)
}

func (c *Cluster) apply(extra []string, paths []string) {
	c.t.Helper()
	for _, p := range paths {
		flag := "-f"
		if _, err := os.Stat(filepath.Join(p, "kustomization.yaml")); err == nil {
			flag = "-k"
		}
		args := append(append([]string{"--kubeconfig", c.Kubeconfig, "apply"}, extra...), flag, p)
		out, err := exec.Command(filepath.Join(c.bin, "kubectl"), args...).CombinedOutput()
		if err != nil {
			c.t.Fatalf("kubectl apply %s %s: %v\n%s", flag, p, err, out)
		}
	}
}

// ServiceAccount is a client config that acts as the service account
// ns/name with a token the API server issues for it (TokenRequest), as a
// pod running under that account would.
func (c *Cluster) ServiceAccount(ns, name string) *rest.Config {
	c.t.Helper()
	tr, err := c.Client.CoreV1().ServiceAccounts(ns).CreateToken(context.Background(), name,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To(int64(3600))}}, metav1.CreateOptions{})
	if err != nil {
		c.t.Fatalf("token for service account %s/%s: %v", ns, name, err)
	}
	cfg := c.admin()
	cfg.BearerToken = tr.Status.Token
	cfg.QPS, cfg.Burst = 0, 0 // as a controller's own config would have it
	return cfg
}

// As writes a kubeconfig whose requests the API server authorizes as user
// in groups (the admin impersonating them), its context in namespace ns,
// and returns its path.
func (c *Cluster) As(ns, user string, groups ...string) string {
	c.t.Helper()
	cfg, err := clientcmd.LoadFromFile(c.Kubeconfig)
	if err != nil {
		c.t.Fatal(err)
	}
	for _, a := range cfg.AuthInfos {
		a.Impersonate, a.ImpersonateGroups = user, groups
	}
	for _, x := range cfg.Contexts {
		x.Namespace = ns
	}
	path := filepath.Join(c.dir, "kubeconfig-"+user)
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		c.t.Fatal(err)
	}
	return path
}

func (c *Cluster) admin() *rest.Config {
	cfg, err := clientcmd.BuildConfigFromFlags("", c.Kubeconfig)
	if err != nil {
		c.t.Fatal(err)
	}
	// Not client-go's 5 a second: a test's own requests must not queue
	// behind its limiter and show up as the controller's latency.
	cfg.QPS, cfg.Burst = 1000, 2000
	return cfg
}

// ServiceAccountKubeconfig writes a kubeconfig for ServiceAccount's token
// (for a controller run as a separate process) and returns its path.
func (c *Cluster) ServiceAccountKubeconfig(ns, name string) string {
	c.t.Helper()
	token := c.ServiceAccount(ns, name).BearerToken
	cfg, err := clientcmd.LoadFromFile(c.Kubeconfig)
	if err != nil {
		c.t.Fatal(err)
	}
	for _, a := range cfg.AuthInfos {
		a.Token = token
	}
	path := filepath.Join(c.dir, "kubeconfig-"+ns+"-"+name)
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		c.t.Fatal(err)
	}
	return path
}

// ApplyCRDs installs CRD files of a Go module (as the module cache holds
// it: dir inside it, then each name, or every file there when none is
// named) and waits until they are served.
func (c *Cluster) ApplyCRDs(module, dir string, names ...string) {
	c.t.Helper()
	root, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", module).Output()
	if err != nil {
		c.t.Fatalf("go list -m %s: %v", module, err)
	}
	if len(names) == 0 {
		all, _ := filepath.Glob(filepath.Join(strings.TrimSpace(string(root)), dir, "*.yaml"))
		if len(all) == 0 {
			c.t.Fatalf("no CRD files in %s of %s", dir, module)
		}
		for _, f := range all {
			names = append(names, strings.TrimSuffix(filepath.Base(f), ".yaml"))
		}
	}
	var files, crds []string
	for _, n := range names {
		files = append(files, filepath.Join(strings.TrimSpace(string(root)), dir, n+".yaml"))
	}
	// Server-side: some CRDs (Kueue's Workload) are too large for the
	// last-applied annotation of a client-side apply.
	c.apply([]string{"--server-side"}, files)
	for _, n := range names {
		// kueue.x-k8s.io_clusterqueues -> clusterqueues.kueue.x-k8s.io
		if g, r, ok := strings.Cut(n, "_"); ok {
			crds = append(crds, "crd/"+r+"."+g)
		}
	}
	args := append([]string{"--kubeconfig", c.Kubeconfig, "wait", "--for=condition=Established", "--timeout=60s"}, crds...)
	for try := 0; ; try++ {
		out, err := exec.Command(filepath.Join(c.bin, "kubectl"), args...).CombinedOutput()
		if err == nil {
			return
		}
		// A CRD read before the API server has given it any condition
		// makes kubectl wait fail at once rather than wait.
		if !strings.Contains(string(out), ".status.conditions accessor error") || try == 20 {
			c.t.Fatalf("kubectl wait for %v: %v\n%s", crds, err, out)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// AdminConfig is a client config with the cluster admin's rights.
func (c *Cluster) AdminConfig() *rest.Config { return c.admin() }
