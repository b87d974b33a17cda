package kube

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"

	"github.com/allot-sim/allot/live"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// ServeOptions is what Serve runs a cluster's controller with.
type ServeOptions struct {
	// ConfigMap names the policy ConfigMap, in the Target's namespace
	// (allot-system when it has none), whose policy.yaml it follows.
	ConfigMap string
	// PolicyFile, when set, is written to the ConfigMap first.
	PolicyFile string
	// Configure reads the policy (where names it in errors) on the
	// cluster's fleet.
	Configure func(where string) Configure
	// Listen, when set, opens the listener of the dashboard (Page),
	// /metrics and /readyz.
	Listen func() (net.Listener, error)
	Page   live.Page
	// Log is where it says what it does, one line each (nil: nowhere).
	Log io.Writer
}

// Serve runs the controller of the Target's cluster until ctx ends. It
// acts while it holds the leader Lease (Run); /readyz is ready only then,
// so a Service over the replicas sends users to the one that decides (a
// standby's figures are not kept).
func (t *Target) Serve(ctx context.Context, o ServeOptions) error {
	cs, err := t.Client()
	if err != nil {
		return err
	}
	ns := t.Namespace
	if ns == "" {
		ns = "allot-system"
	}
	if o.PolicyFile != "" {
		data, err := os.ReadFile(o.PolicyFile)
		if err != nil {
			return &InputError{err}
		}
		if err := PutPolicy(ctx, cs, ns, o.ConfigMap, data); err != nil {
			return err
		}
	}
	logw := o.Log
	if logw == nil {
		logw = io.Discard
	}
	rec, shutdown := Recorder(cs)
	defer shutdown()
	c := &Controller{Client: cs, Namespace: ns, ConfigMap: o.ConfigMap, Configure: o.Configure("ConfigMap " + ns + "/" + o.ConfigMap),
		Clock: live.SystemClock{}, Events: rec}
	if o.Listen != nil {
		hl, err := o.Listen()
		if err != nil {
			return err
		}
		defer hl.Close()
		mux := http.NewServeMux()
		mux.Handle("GET /metrics", live.NewMetrics(c).Handler())
		mux.Handle("GET /", live.Dashboard(c, o.Page))
		mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
			if !c.Leading() {
				http.Error(w, "standby: another replica holds the leader Lease", http.StatusServiceUnavailable)
				return
			}
			fmt.Fprintln(w, "leading")
		})
		go func() { _ = (&http.Server{Handler: mux}).Serve(hl) }()
		fmt.Fprintf(logw, "allot live: dashboard on http://%s/ and metrics on /metrics\n", hl.Addr())
	}
	fmt.Fprintf(logw, "allot live: controller for the cluster, policy from ConfigMap %s/%s\n", ns, o.ConfigMap)
	return c.Run(ctx, Options{Log: o.Log})
}

// PutPolicy creates or updates the policy ConfigMap ns/name with a policy
// file's text.
func PutPolicy(ctx context.Context, cs kubernetes.Interface, ns, name string, data []byte) error {
	cms := cs.CoreV1().ConfigMaps(ns)
	cm, err := cms.Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		cm = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Data: map[string]string{PolicyKey: string(data)}}
		_, err = cms.Create(ctx, cm, metav1.CreateOptions{})
		return err
	}
	if err != nil {
		return err
	}
	if cm.Data == nil {
		cm.Data = map[string]string{}
	}
	cm.Data[PolicyKey] = string(data)
	_, err = cms.Update(ctx, cm, metav1.UpdateOptions{})
	return err
}

// ReplacePolicy writes a policy file's text into the Target's policy
// ConfigMap (PolicyConfigMap), which must exist: allot promote changes
// the policy of a controller already set up, and creates nothing.
func (t *Target) ReplacePolicy(ctx context.Context, data []byte) error {
	cs, err := t.Client()
	if err != nil {
		return err
	}
	pns, pname := t.PolicyConfigMap()
	cm, err := cs.CoreV1().ConfigMaps(pns).Get(ctx, pname, metav1.GetOptions{})
	if err != nil {
		return err
	}
	if cm.Data == nil {
		cm.Data = map[string]string{}
	}
	cm.Data[PolicyKey] = string(data)
	_, err = cs.CoreV1().ConfigMaps(pns).Update(ctx, cm, metav1.UpdateOptions{})
	return err
}
