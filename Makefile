# allot: the two set-up commands are `make demo` and `make test`.
GO       ?= go
BIN      := bin/allot
PKGS     := ./...
# allot version prints these; GOFLAGS may turn Go's own VCS stamping off.
VERSION  ?= $(shell git describe --tags --abbrev=0 2>/dev/null || echo dev)
COMMIT   ?= $(shell c=$$(git rev-parse --short=12 HEAD 2>/dev/null) && { git diff --quiet HEAD 2>/dev/null || c=$$c-dirty; echo $$c; } || echo unknown)
LDFLAGS  := -X main.version=$(VERSION) -X main.commit=$(COMMIT)

.PHONY: build test test-k8s dev-cluster test-short bench pgo demo traces replay lint clean image image-check

build:
	@echo "make: building $(BIN) (optimised with cmd/allot/default.pgo; a cold first build recompiles the standard library and takes a few minutes)"
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/allot

# The whole suite: unit tests, parity cases, queueing theory, invariants on
# every shipped scenario, the CLI end to end, the HTML report in headless
# Chromium (installed once by scripts/ensure-chromium.sh), live mode on a
# real Kubernetes control plane (built once from the Go module proxy by
# scripts/k8s/control-plane.sh into ~/.cache/allot: about 15 min cold), and
# allot's quota policy against the real Kueue v0.17 on it (its manager
# built once by scripts/k8s/kueue.sh: about 6 min cold), and the AWS
# exports through the AWS CLI (found or installed by
# scripts/ensure-awscli.sh; the test skips without one). -parallel 8: the
# tests that mostly wait on a control plane (t.Parallel) start together,
# rather than two at a time (the default is the number of CPUs).
K8S_ENV := ALLOT_K8S_BIN=$$(./scripts/k8s/control-plane.sh) && ALLOT_KUEUE_BIN=$$(./scripts/k8s/kueue.sh) && export ALLOT_K8S_BIN ALLOT_KUEUE_BIN
AWS_ENV := ALLOT_AWS_CLI=$$(./scripts/ensure-awscli.sh) && export ALLOT_AWS_CLI
test: build
	./scripts/ensure-chromium.sh
	$(GO) vet $(PKGS)
	$(K8S_ENV) && $(AWS_ENV) && $(GO) test -count=1 -timeout 30m -parallel 8 $(PKGS)
	$(MAKE) image-check
	$(MAKE) fuzz-short
	$(MAKE) check-shortcuts

# The fast core against the independent oracle (policies/oracle), cycle by
# cycle, on 10,000 random scenarios of 1,000 jobs (not in CI: under 2 h).
ORACLE_SCENARIOS ?= 10000
ORACLE_JOBS      ?= 1000
.PHONY: oracle
oracle:
	ORACLE_SCENARIOS=$(ORACLE_SCENARIOS) ORACLE_JOBS=$(ORACLE_JOBS) $(GO) test -count=1 -timeout 3h -v -run '^TestCoreAndOracleLongRun$$' ./policies/oracle

# Every shortcut of the core recomputed on every answer it gives (a build
# with -tags allotcheck), over the shipped scenarios and 20,000-job cuts
# of the benchmark and the stress family: a mismatch panics naming it.
.PHONY: check-shortcuts
check-shortcuts:
	./scripts/check-shortcuts.sh

# The Kubernetes suite alone (live/kube and the CLI on a cluster), building
# the control plane first if it is not cached; it fails, never skips, when
# the control plane cannot run.
test-k8s:
	$(K8S_ENV) ALLOT_K8S_REQUIRED=1 && \
	  $(GO) test -count=1 ./live/kube/... && $(GO) test -count=1 -timeout 30m -parallel 8 -run 'Kubernetes|Kueue' ./cmd/allot

# A Kubernetes control plane with fake GPU nodes for trying live mode on
# Kubernetes without a cluster (README): runs until Ctrl-C. KUEUE=1 runs
# the real Kueue v0.17 on it instead (built once by scripts/k8s/kueue.sh)
# and records a history of 217 Jobs under it (about four minutes), for
# allot import kueue --kubeconfig (docs/import.md).
NODES ?= p5.48xlarge=2
KUEUE ?=
dev-cluster:
	ALLOT_K8S_BIN=$$(./scripts/k8s/control-plane.sh) && export ALLOT_K8S_BIN && \
	  if [ -n "$(KUEUE)" ]; then ALLOT_KUEUE_BIN=$$(./scripts/k8s/kueue.sh) && export ALLOT_KUEUE_BIN; fi && \
	  $(GO) run ./scripts/k8s/devcluster --nodes $(NODES) $(if $(KUEUE),--kueue)

# Runs each loader's fuzz target a few seconds: scenario, policy file,
# snapshot, CSV and Parquet trace. They must never panic, and every error
# must name its file (and line or row). The budget is a count of inputs,
# not a duration: with a duration, Go 1.26's fuzzing coordinator can fail
# a target with a bare "context deadline exceeded" as time runs out
# (golang/go#75804, fixed in Go 1.27).
FUZZTIME ?= 2000x
FUZZ     := $(GO) test -run '^$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 10x

.PHONY: fuzz-short
fuzz-short:
	$(FUZZ) ./scenarios -fuzz '^FuzzLoadScenario$$'
	$(FUZZ) ./scenarios -fuzz '^FuzzLoadPolicyFile$$'
	$(FUZZ) ./scenarios -fuzz '^FuzzLoadSnapshot$$'
	$(FUZZ) ./workload -fuzz '^FuzzReadTraceCSV$$'
	$(FUZZ) ./workload -fuzz '^FuzzReadTraceParquet$$'

# The fast tier, for the loop while editing (CI's first test phase): unit
# and core tests. -short skips the long simulations, the documentation's
# example runners, live daemons, Kubernetes and Kueue, Chromium and the
# AWS CLI, each saying so; make test runs them.
test-short:
	$(GO) test -short $(PKGS)

# FIFO against the quota policy on the shipped amazon-search scenario, side
# by side over five seeds, with its objectives (compare exits 0 either way).
demo: build
	@echo "make: FIFO against the quota policy on scenarios/amazon-search.yaml, 5 seeds each"
	@$(BIN) compare scenarios/amazon-search.yaml --policy fifo --policy quota --seeds 5

# Imports the public traces (../shared/traces) for the replay scenarios.
traces: build
	./scripts/import-traces.sh

# Replays every imported trace with its reports under out/replay/.
replay: traces
	@for s in scenarios/replay/*.yaml; do \
	  n=$$(basename $$s .yaml); echo "== $$n"; \
	  $(BIN) sim $$s --out out/replay/$$n | head -9 || exit 1; \
	done

# Benchmarks (not in CI): cycle benchmarks and 100k/1M/10M-job runs.
bench: build
	./scripts/bench.sh

# Profiles the benchmark runs again into cmd/allot/default.pgo, the profile
# `go build` optimises the binary with (commit it; not in CI).
pgo:
	./scripts/pgo-profile.sh

# The controller's container image without a Docker daemon: a static linux
# binary in a FROM-scratch image, written by scripts/image (its own module) as
# a reproducible OCI archive. The Dockerfile builds the same with Docker.
ARCH  ?= amd64
IMAGE ?= ghcr.io/allot-sim/allot:$(VERSION)

image:
	CGO_ENABLED=0 GOOS=linux GOARCH=$(ARCH) $(GO) build -trimpath -ldflags "$(LDFLAGS) -s -w" -o bin/linux_$(ARCH)/allot ./cmd/allot
	cd scripts/image && $(GO) run . -binary $(CURDIR)/bin/linux_$(ARCH)/allot -o $(CURDIR)/bin/allot-image-$(ARCH).tar -ref $(IMAGE) -arch $(ARCH)
	@echo "make: $(IMAGE) (linux/$(ARCH)) is in bin/allot-image-$(ARCH).tar; push it with"
	@echo "  skopeo copy oci-archive:bin/allot-image-$(ARCH).tar docker://REGISTRY/allot:TAG"
	@echo "  (crane wants the layout unpacked: mkdir -p bin/oci && tar -xf bin/allot-image-$(ARCH).tar -C bin/oci && crane push bin/oci REGISTRY/allot:TAG)"
	@echo "  or load it with podman load -i, docker load -i (Docker 25 or later) or ctr image import"

image-check:
	cd scripts/image && $(GO) test ./...

# gofmt, vet, and the size budgets of scripts/codesize (issue 38): cmd/allot
# at most 2,500 lines, 300 per file; 600 per file and 120 per function anywhere.
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)
	$(GO) run ./scripts/codesize

clean:
	rm -rf bin out cmp
