package kubetest

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
	"time"

	"go.yaml.in/yaml/v3"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
)

// The real Kueue manager as a host process on the control plane: the
// differential test's, make dev-cluster's with KUEUE=1.

// KueueBinEnv names Kueue's controller manager (scripts/k8s/kueue.sh
// builds it; make test sets it).
const KueueBinEnv = "ALLOT_KUEUE_BIN"

// StartKueue runs Kueue's manager (the binary at bin) with conf, a
// kueue-config.yaml, merged into its own settings, and waits until
// clusterQueues ClusterQueues are active; Kueue's CRDs and objects are the
// caller's to apply. stop (also at cleanup) sends SIGTERM and kills the
// manager after 10 s; its log is printed if the test fails.
func (c *Cluster) StartKueue(bin string, conf []byte, clusterQueues int) (stop func()) {
	c.t.Helper()
	dir, err := os.MkdirTemp(c.dir, "kueue")
	if err != nil {
		c.t.Fatal(err)
	}
	if _, err := c.Client.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "kueue-system"}}, metav1.CreateOptions{}); err != nil {
		c.t.Fatal(err)
	}
	certs := filepath.Join(dir, "certs")
	if err := selfSigned(certs); err != nil {
		c.t.Fatal(err)
	}
	metricsCerts(c.t, certs)
	ports, err := FreePorts(2)
	if err != nil {
		c.t.Fatal(err)
	}
	cfg, err := kueueRuntimeConfig(conf, certs, "127.0.0.1:"+strconv.Itoa(ports[0]), ports[1])
	if err != nil {
		c.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.yaml"), cfg, 0o644); err != nil {
		c.t.Fatal(err)
	}
	cmd := exec.Command(bin, "--config", filepath.Join(dir, "config.yaml"), "--kubeconfig", c.Kubeconfig, "--feature-gates", kueueGates, "--zap-log-level", "error")
	stop, exited, log := StartProcess(c.t, "kueue", cmd)
	dyn, err := dynamic.NewForConfig(c.admin())
	if err != nil {
		c.t.Fatal(err)
	}
	cqRes := schema.GroupVersionResource{Group: kueue.GroupVersion.Group, Version: kueue.GroupVersion.Version, Resource: "clusterqueues"}
	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case err := <-exited:
			c.t.Fatalf("kueue exited: %v\n%s", err, log.String())
		default:
		}
		l, err := dyn.Resource(cqRes).List(context.Background(), metav1.ListOptions{})
		active := 0
		if err == nil {
			for _, u := range l.Items {
				var cq kueue.ClusterQueue
				if runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &cq) == nil && conditionTrue(cq.Status.Conditions, kueue.ClusterQueueActive) {
					active++
				}
			}
		}
		if active == clusterQueues {
			return stop
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("%d of %d ClusterQueues active after 60 s (%v)\n%s", active, clusterQueues, err, log.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func conditionTrue(cs []metav1.Condition, typ string) bool {
	for _, c := range cs {
		if c.Type == typ {
			return c.Status == metav1.ConditionTrue
		}
	}
	return false
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
	if m == nil {
		m = map[string]any{}
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

// StartProcess starts cmd; stop (also at cleanup) sends SIGTERM and kills
// it after 10 s; exited says when it ends; its output is logged if the
// test fails.
func StartProcess(t TB, name string, cmd *exec.Cmd) (stop func(), exited <-chan error, log *LockedBuffer) {
	t.Helper()
	log = &LockedBuffer{}
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

// LockedBuffer is a process's output, read while it is written.
type LockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *LockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *LockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// selfSigned writes tls.crt and tls.key for 127.0.0.1 into dir.
func selfSigned(dir string) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "kueue-webhook"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return err
	}
	kd, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "tls.crt"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "tls.key"), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kd}), 0o600)
}

// kueueMetricsCerts is where Kueue v0.17, without its internal certificate
// management, reads its metrics server's certificate; the path is fixed
// in its main. The metrics server is off, but the files must load.
const kueueMetricsCerts = "/etc/kueue/metrics/certs"

var metricsCertsMu sync.Mutex

// metricsCerts puts a certificate where Kueue looks for it, unless one is
// there; where that is not writable the caller skips, saying why. One at
// a time: workloads of the differential test start Kueue side by side.
func metricsCerts(t TB, from string) {
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
		if err := os.WriteFile(filepath.Join(kueueMetricsCerts, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
