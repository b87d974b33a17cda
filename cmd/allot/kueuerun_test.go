package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/allot-sim/allot/live/kube/kubetest"
	"github.com/allot-sim/allot/scenarios/export"
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
	return c.StartKueue(bin, conf, cqs)
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
func startProcess(t *testing.T, name string, cmd *exec.Cmd) (stop func(), exited <-chan error, log *kubetest.LockedBuffer) {
	t.Helper()
	return kubetest.StartProcess(t, name, cmd)
}

func writeBytes(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
