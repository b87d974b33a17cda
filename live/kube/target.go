package kube

import (
	"errors"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Target is a cluster and where in it a command acts.
type Target struct {
	// Kubeconfig is the kubeconfig file ("": $KUBECONFIG, ~/.kube/config,
	// else the cluster the process runs in).
	Kubeconfig string
	// Namespace is where jobs are ("": the team's, else every namespace),
	// and where the controller keeps its policy and Lease ("":
	// allot-system).
	Namespace string
	// Policy is the controller's policy ConfigMap, [NAMESPACE/]NAME, as
	// commands that read it name it ("": allot-system/allot-policy).
	Policy string
}

// InputError is what a command gave that the cluster cannot act on: no
// cluster to talk to, a job id without a namespace, a submission without
// an image.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// IsInput says whether err is the caller's: an InputError, or a request
// the API server refused (invalid, not found, already there, forbidden,
// malformed).
func IsInput(err error) bool {
	var ie *InputError
	return errors.As(err, &ie) || apierrors.IsInvalid(err) || apierrors.IsNotFound(err) || apierrors.IsAlreadyExists(err) ||
		apierrors.IsForbidden(err) || apierrors.IsBadRequest(err)
}

// PolicyConfigMap is where the controller's policy is: namespace and name.
func (t *Target) PolicyConfigMap() (string, string) {
	ref := t.Policy
	if ref == "" {
		ref = "allot-system/allot-policy"
	}
	if ns, name, ok := strings.Cut(ref, "/"); ok {
		return ns, name
	}
	return "allot-system", ref
}

// Loader reads the kubeconfig, as kubectl does.
func (t *Target) Loader() clientcmd.ClientConfig {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if t.Kubeconfig != "" {
		rules.ExplicitPath = t.Kubeconfig
	}
	return clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{})
}

// ContextNamespace is the namespace the kubeconfig's current context
// names ("" when it names none).
func (t *Target) ContextNamespace() string {
	raw, err := t.Loader().RawConfig()
	if err != nil {
		return ""
	}
	if c := raw.Contexts[raw.CurrentContext]; c != nil {
		return c.Namespace
	}
	return ""
}

// Client is a client of the kubeconfig's cluster, else of the cluster the
// process runs in (NewClient).
func (t *Target) Client() (kubernetes.Interface, error) {
	cfg, err := t.Loader().ClientConfig()
	if err != nil {
		if in, ierr := rest.InClusterConfig(); ierr == nil {
			cfg = in
		} else {
			return nil, &InputError{fmt.Errorf("no cluster to talk to: %w", err)}
		}
	}
	return NewClient(cfg)
}

// Dynamic is a dynamic client of the kubeconfig's cluster, else of the
// cluster the process runs in: what applies another engine's objects
// (allot promote --to kueue --apply).
func (t *Target) Dynamic() (dynamic.Interface, error) {
	cfg, err := t.Loader().ClientConfig()
	if err != nil {
		if cfg, err = rest.InClusterConfig(); err != nil {
			return nil, &InputError{fmt.Errorf("no cluster to apply to: %w", err)}
		}
	}
	cfg = rest.CopyConfig(cfg)
	if cfg.QPS == 0 {
		// An export is a few hundred objects, each a get and a patch:
		// client-go's 5 a second would make that a minute.
		cfg.QPS, cfg.Burst = 100, 200
	}
	return dynamic.NewForConfig(cfg)
}
