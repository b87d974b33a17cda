// Command devcluster runs the test suite's Kubernetes control plane for a
// person: etcd, kube-apiserver, kube-controller-manager, kube-scheduler
// and kwok with fake accelerator nodes, until interrupted. It is the
// cluster the README's Kubernetes walkthrough uses when there is no
// other; `make dev-cluster` builds the binaries first.
//
//	ALLOT_K8S_BIN=$(scripts/k8s/control-plane.sh) go run ./scripts/k8s/devcluster --nodes p5.48xlarge=2
//
// Pods on the fake nodes run until deleted (or, annotated
// kwok-sim/run-for: 30s, that long).
//
// With --kueue (make dev-cluster KUEUE=1) it runs the real Kueue v0.17
// instead, on the nodes and queues of scripts/k8s/kueuehistory, and
// records that history of 217 Jobs (about four minutes) for allot import
// kueue --kubeconfig to read (docs/import.md):
//
//	ALLOT_K8S_BIN=$(scripts/k8s/control-plane.sh) ALLOT_KUEUE_BIN=$(scripts/k8s/kueue.sh) go run ./scripts/k8s/devcluster --kueue
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/allot-sim/allot/hardware"
	"github.com/allot-sim/allot/live/kube/kubetest"
	"github.com/allot-sim/allot/scripts/k8s/kueuehistory"
)

func main() {
	nodes := flag.String("nodes", "p5.48xlarge=2", "fake nodes, TYPE=COUNT,... (types from the built-in catalog)")
	withKueue := flag.Bool("kueue", false, "run Kueue and record scripts/k8s/kueuehistory's history under it (its nodes, not --nodes)")
	flag.Parse()
	tb := &runner{}
	defer tb.stop()
	go func() {
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
		<-sig
		tb.stop()
		os.Exit(0)
	}()
	if *withKueue {
		kueueHistory(tb)
		select {}
	}
	c := kubetest.Start(tb)
	c.Untainted = true
	cat := hardware.Builtin()
	for _, spec := range strings.Split(*nodes, ",") {
		name, n, ok := strings.Cut(spec, "=")
		count, err := strconv.Atoi(n)
		it, known := cat.Lookup(name)
		if !ok || err != nil || count < 1 || !known {
			tb.Fatalf("--nodes %q: want TYPE=COUNT with a type of the built-in catalog (allot catalog)", spec)
		}
		c.Nodes(name, it.Resource, it.Accelerators, count)
	}
	bin := os.Getenv(kubetest.BinEnv)
	fmt.Printf(`A Kubernetes control plane with fake nodes %s runs; Ctrl-C stops it.
  export KUBECONFIG=%s PATH=%s:$PATH
  kubectl get nodes
`, *nodes, c.Kubeconfig, bin)
	select {}
}

// runner is kubetest.TB for a command: a failure stops what started.
type runner struct {
	cleanups []func()
	failed   bool
}

func (r *runner) Helper()          {}
func (r *runner) Cleanup(f func()) { r.cleanups = append(r.cleanups, f) }
func (r *runner) Failed() bool     { return r.failed }
func (r *runner) Logf(f string, a ...any) {
	fmt.Fprintf(os.Stderr, "devcluster: "+f+"\n", a...)
}
func (r *runner) Skipf(f string, a ...any) { r.Fatalf(f, a...) }
func (r *runner) Fatal(a ...any)           { r.Fatalf("%s", fmt.Sprint(a...)) }
func (r *runner) Fatalf(f string, a ...any) {
	r.failed = true
	fmt.Fprintf(os.Stderr, "devcluster: "+f+"\n", a...)
	r.stop()
	os.Exit(1)
}

// stop runs the cleanups, last first, once.
func (r *runner) stop() {
	fs := r.cleanups
	r.cleanups = nil
	slices.Reverse(fs)
	for _, f := range fs {
		f()
	}
}

// kueueHistory starts the cluster with Kueue, says where it is, and
// records the history.
func kueueHistory(tb *runner) {
	bin := os.Getenv(kubetest.KueueBinEnv)
	if bin == "" {
		tb.Fatalf("--kueue: %s is not set: point it at scripts/k8s/kueue.sh's build (make dev-cluster KUEUE=1 does)", kubetest.KueueBinEnv)
	}
	h := kueuehistory.Start(tb, bin)
	fmt.Printf(`A Kubernetes control plane with Kueue v0.17 runs; Ctrl-C stops it.
  export KUBECONFIG=%s PATH=%s:$PATH
  kubectl get workloads -A --watch
Recording %d Jobs of %s (about four minutes)...
`, h.Cluster.Kubeconfig, os.Getenv(kubetest.BinEnv), len(h.Jobs), kueuehistory.ScenarioFile)
	if err := h.Run(context.Background()); err != nil {
		tb.Fatalf("the history: %v", err)
	}
	fmt.Printf(`The history is recorded: %d Jobs finished in %v. Import it and check the import:
  bin/allot import kueue --kubeconfig $KUBECONFIG -o imported/scenario.yaml
  bin/allot sim imported/scenario.yaml --replay-check
`, len(h.Jobs), h.Took.Round(time.Second))
}
