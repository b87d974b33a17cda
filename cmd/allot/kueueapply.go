package main

import (
	"context"
	"fmt"
	"io"

	"github.com/allot-sim/allot/scenarios/export"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// applyKueue server-side applies an export to the cluster of the
// kubeconfig (in a pod, its own cluster): export.Kueue.Apply.
func applyKueue(w io.Writer, k *kubeTarget, ex *export.Kueue, dryRun bool) error {
	cfg, err := k.Loader().ClientConfig()
	if err != nil {
		if cfg, err = rest.InClusterConfig(); err != nil {
			return badInput(fmt.Errorf("no cluster to apply to: %w", err))
		}
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	return liveErr(ex.Apply(context.Background(), dyn, w, dryRun))
}
