package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/allot-sim/allot/live/kube/kubetest"
	"github.com/allot-sim/allot/scenarios/export"
	"go.yaml.in/yaml/v3"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
)

// The two schedulers of the differential test as host processes: the
// real Kueue manager with the export applied, and allot's controller.

// startKueue installs Kueue's CRDs and the export's objects, runs Kueue's
// manager with the export's configuration, and waits until every
// ClusterQueue is active.
func startKueue(t *testing.T, c *kubetest.Cluster, bin string, k *export.Kueue) (stop func()) {
	t.Helper()
	c.ApplyCRDs("sigs.k8s.io/kueue", "config/components/crd/bases") // all of Kueue's CRDs
	objs, err := k.ObjectsYAML()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "objects.yaml")
	writeBytes(t, path, objs)
	c.Apply(path)
	conf, err := k.ConfigYAML()
	if err != nil {
		t.Fatal(err)
	}
	return startKueueManager(t, c, bin, conf, len(k.ClusterQueues))
}

// startKueueManager runs Kueue's manager with a kueue-config.yaml merged
// into its own settings, and waits until cqs ClusterQueues are active.
func startKueueManager(t *testing.T, c *kubetest.Cluster, bin string, conf []byte, cqs int) (stop func()) {
	t.Helper()
	dir := t.TempDir()
	if _, err := c.Client.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "kueue-system"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	certs := filepath.Join(dir, "certs")
	selfSigned(t, certs)
	metricsCerts(t, certs)
	ports, err := kubetest.FreePorts(2)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := kueueRuntimeConfig(conf, certs, "127.0.0.1:"+strconv.Itoa(ports[0]), ports[1])
	if err != nil {
		t.Fatal(err)
	}
	writeBytes(t, filepath.Join(dir, "config.yaml"), cfg)
	cmd := exec.Command(bin, "--config", filepath.Join(dir, "config.yaml"), "--kubeconfig", c.Kubeconfig, "--feature-gates", kueueGates, "--zap-log-level", "error")
	stop, exited, log := startProcess(t, "kueue", cmd)
	dyn, err := dynamic.NewForConfig(c.AdminConfig())
	if err != nil {
		t.Fatal(err)
	}
	cqRes := schema.GroupVersionResource{Group: kueue.GroupVersion.Group, Version: kueue.GroupVersion.Version, Resource: "clusterqueues"}
	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case err := <-exited:
			t.Fatalf("kueue exited: %v\n%s", err, log.String())
		default:
		}
		l, err := dyn.Resource(cqRes).List(context.Background(), metav1.ListOptions{})
		active := 0
		if err == nil {
			for _, u := range l.Items {
				var cq kueue.ClusterQueue
				if runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &cq) == nil && isTrue(cq.Status.Conditions, kueue.ClusterQueueActive) {
					active++
				}
			}
		}
		if active == cqs {
			return stop
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d ClusterQueues active after 60 s (%v)\n%s", active, cqs, err, log.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// kueueGates are v0.17 feature gates set to match kueue-semantics.md
// (written against a newer Kueue); the visibility API server is off (no
// aggregation layer here).
const kueueGates = "VisibilityOnDemand=false,SchedulingEquivalenceHashing=true"

// kueueRuntimeConfig is the export's Configuration with what running on
// the host needs: no leader election, only batch/v1 Jobs, webhooks on a
// loopback port with a self-signed certificate (served, not registered),
// metrics off.
func kueueRuntimeConfig(data []byte, certDir, probeAddr string, webhookPort int) ([]byte, error) {
	// kueue-config.yaml is a fragment to merge: merged here into the
	// manager's own settings, as a user would.
	var m map[string]any
	if err := yaml.Unmarshal(data, &m); err != nil {
		return nil, err
	}
	m["apiVersion"], m["kind"] = "config.kueue.x-k8s.io/v1beta2", "Configuration"
	m["namespace"] = "kueue-system"
	m["leaderElection"] = map[string]any{"leaderElect": false}
	m["internalCertManagement"] = map[string]any{"enable": false}
	m["health"] = map[string]any{"healthProbeBindAddress": probeAddr}
	m["metrics"] = map[string]any{"bindAddress": "0"}
	m["webhook"] = map[string]any{"port": webhookPort, "host": "127.0.0.1", "certDir": certDir}
	m["integrations"] = map[string]any{"frameworks": []string{"batch/job"}}
	return yaml.Marshal(m)
}

// startAllot runs allot's Kubernetes controller (this binary as allot,
// with the cluster admin's rights) on the policy.
func startAllot(t *testing.T, c *kubetest.Cluster, policy string) (stop func()) {
	t.Helper()
	c.Apply("../../deploy/namespace.yaml", "../../deploy/usage.yaml")
	path := filepath.Join(t.TempDir(), "policy.yaml")
	writeBytes(t, path, []byte(policy))
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "live", "serve", "--backend", "kubernetes", "--kubeconfig", c.Kubeconfig, "--config", path)
	cmd.Env = append(os.Environ(), docCLIEnv+"=1")
	stop, _, _ = startProcess(t, "allot controller", cmd)
	return stop
}

// startProcess starts cmd; stop (also at cleanup) sends SIGTERM and kills
// it after 10 s; exited says when it ends; its output is printed if the
// test fails.
func startProcess(t *testing.T, name string, cmd *exec.Cmd) (stop func(), exited <-chan error, log *lockedBuffer) {
	t.Helper()
	log = &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			_ = cmd.Process.Signal(syscall.SIGTERM)
			select {
			case err := <-done:
				done <- err
			case <-time.After(10 * time.Second):
				_ = cmd.Process.Kill()
			}
		})
	}
	t.Cleanup(stop)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("%s log:\n%s", name, log.String())
		}
	})
	return stop, done, log
}

// lockedBuffer is a process's output, read while it is written.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func writeBytes(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// selfSigned writes tls.crt and tls.key for 127.0.0.1 into dir.
func selfSigned(t *testing.T, dir string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "kueue-webhook"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kd, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeBytes(t, filepath.Join(dir, "tls.crt"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
	writeBytes(t, filepath.Join(dir, "tls.key"), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kd}))
}

// kueueMetricsCerts is where Kueue v0.17, without its internal certificate
// management, reads its metrics server's certificate; the path is fixed
// in its main. The metrics server is off, but the files must load.
const kueueMetricsCerts = "/etc/kueue/metrics/certs"

var metricsCertsMu sync.Mutex

// metricsCerts puts a certificate where Kueue looks for it, unless one is
// there; where that is not writable the test skips, saying why. One test
// at a time: workloads of the differential test start Kueue side by side.
func metricsCerts(t *testing.T, from string) {
	t.Helper()
	metricsCertsMu.Lock()
	defer metricsCertsMu.Unlock()
	if _, err := os.Stat(filepath.Join(kueueMetricsCerts, "tls.key")); err == nil {
		return
	}
	if err := os.MkdirAll(kueueMetricsCerts, 0o755); err != nil {
		t.Skipf("Kueue v0.17 reads its metrics certificate from %s, which cannot be created here: %v", kueueMetricsCerts, err)
	}
	for _, f := range []string{"tls.crt", "tls.key"} {
		data, err := os.ReadFile(filepath.Join(from, f))
		if err != nil {
			t.Fatal(err)
		}
		writeBytes(t, filepath.Join(kueueMetricsCerts, f), data)
	}
}
