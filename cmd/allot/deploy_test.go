package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/allot-sim/allot/cmd/internal/liveconf"
	"github.com/allot-sim/allot/live/kube"
	"go.yaml.in/yaml/v3"
)

// deployDocs reads the YAML documents of a deploy/ file.
func deployDocs(t *testing.T, name string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("../../deploy", name))
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var doc map[string]any
		if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
			return out
		} else if err != nil {
			t.Fatalf("deploy/%s: %v", name, err)
		}
		out = append(out, doc)
	}
}

// The manifests hang together: kustomization lists every file of deploy/,
// the ConfigMap's policy loads on a cluster fleet, and the Deployment runs
// the image `make image` builds, under deploy/rbac.yaml's ServiceAccount.
func TestDeployManifestsHoldALoadablePolicyAndTheImageMakeBuilds(t *testing.T) {
	files, _ := filepath.Glob("../../deploy/*.yaml")
	var listed []string
	for _, r := range deployDocs(t, "kustomization.yaml")[0]["resources"].([]any) {
		listed = append(listed, r.(string))
	}
	for _, f := range files {
		if b := filepath.Base(f); b != "kustomization.yaml" && !slices.Contains(listed, b) {
			t.Errorf("deploy/%s is not in deploy/kustomization.yaml", b)
		}
	}

	cm := deployDocs(t, "policy.yaml")[0]
	policy := cm["data"].(map[string]any)[kube.PolicyKey].(string)
	fleet := []kube.FleetType{{Name: "p5.48xlarge", Resource: kube.ResourceNVIDIA, PerNode: 8, Nodes: []string{"n1", "n2"}}}
	if _, err := liveconf.KubeConfigure("deploy/policy.yaml")([]byte(policy), fleet); err != nil {
		t.Errorf("deploy/policy.yaml's policy does not load: %v", err)
	}

	mk, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^IMAGE \?= (\S+):\$\(VERSION\)$`).FindSubmatch(mk)
	if m == nil {
		t.Fatal("no IMAGE ?= REPO:$(VERSION) in the Makefile")
	}
	dep := deployDocs(t, "controller.yaml")[0]
	pod := dep["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
	image := pod["containers"].([]any)[0].(map[string]any)["image"].(string)
	if !strings.HasPrefix(image, string(m[1])+":") {
		t.Errorf("deploy/controller.yaml runs %s, not the %s make image builds", image, m[1])
	}
	if sa := pod["serviceAccountName"]; sa != "allot-controller" {
		t.Errorf("the controller runs as service account %v, not deploy/rbac.yaml's allot-controller", sa)
	}
}
