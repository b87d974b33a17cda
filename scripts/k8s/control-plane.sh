#!/usr/bin/env bash
# Build a real Kubernetes control plane from the Go module proxy, once, into
# a cache outside the repo, and print the directory holding its binaries:
# etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kubectl and
# kwok (a kubelet for fake nodes). The live-mode Kubernetes tests run on it
# (KUBEBUILDER_ASSETS). Cold: about 15 min on 2 cores and 5 GB of Go cache;
# cached: instant.
# Usage: scripts/k8s/control-plane.sh [CACHE_DIR]
set -euo pipefail
KV=v1.37.2   # Kubernetes
WV=v0.8.0    # kwok
EV=v3.7.0    # etcd, the version k8s $KV pins
CACHE=${1:-${ALLOT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/allot}}/k8s-$KV-kwok-$WV
BIN=$CACHE/bin
need="etcd kube-apiserver kube-controller-manager kube-scheduler kubectl kwok"
have=1
for b in $need; do [ -x "$BIN/$b" ] || have=0; done
if [ $have = 1 ]; then echo "$BIN"; exit 0; fi

MOD=$CACHE/mod
mkdir -p "$MOD" "$BIN"
cd "$MOD"
rm -f go.mod go.sum
# k8s.io/kubernetes replaces its staging modules (k8s.io/api, client-go, ...)
# with ./staging/src paths; a module that requires it must point each at its
# published v0.<minor>.<patch> tag instead.
SV=v0.${KV#v1.}
GOMOD=$(go mod download -json k8s.io/kubernetes@"$KV" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
GOVER=$(awk '$1=="go"{print $2; exit}' "$GOMOD")
{
  printf 'module allot/k8s-control-plane\n\ngo %s\n\nrequire (\n\tk8s.io/kubernetes %s\n\tsigs.k8s.io/kwok %s\n\tgo.etcd.io/etcd/server/v3 %s\n)\n\nreplace (\n' "$GOVER" "$KV" "$WV" "$EV"
  for m in $(awk '/=> \.\/staging/{print $1}' "$GOMOD"); do
    if go list -m -versions "$m" 2>/dev/null | tr ' ' '\n' | grep -qx "$SV"; then
      printf '\t%s => %s %s\n' "$m" "$m" "$SV"
    fi
  done
  echo ")"
} > go.mod.new   # not go.mod yet: go list above must not see a half-written one
mv go.mod.new go.mod
cat > tools.go <<'GO'
//go:build tools

package tools

import (
	_ "go.etcd.io/etcd/server/v3"
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubectl"
	_ "sigs.k8s.io/kwok/cmd/kwok"
)
GO
echo "k8s control plane: resolving modules" >&2
go mod tidy >&2
V=k8s.io/component-base/version
# Stamped, or the binaries call themselves v0.0.0-master and kubectl warns.
LDF="-s -w -X $V.gitVersion=$KV -X $V.gitMajor=1 -X $V.gitMinor=$(echo "$KV" | cut -d. -f2) -X $V.gitTreeState=clean"
echo "k8s control plane: building into $BIN (about 15 min cold)" >&2
tmp=$(mktemp -d "$CACHE/build.XXXX")
CGO_ENABLED=0 go build -trimpath -ldflags "$LDF" -o "$tmp/" \
  k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager \
  k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kubectl sigs.k8s.io/kwok/cmd/kwok >&2
CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$tmp/etcd" go.etcd.io/etcd/server/v3 >&2
# kwok needs stages; kwok's own fast node and pod stages come from its module.
cp "$(go env GOMODCACHE)/sigs.k8s.io/kwok@$WV/kustomize/stage/node/fast/node-initialize.yaml" "$tmp/kwok-node-initialize.yaml"
cp "$(go env GOMODCACHE)/sigs.k8s.io/kwok@$WV/kustomize/stage/pod/fast/pod-ready.yaml" "$tmp/kwok-pod-ready.yaml"
mv "$tmp"/* "$BIN/" && rmdir "$tmp"
echo "$BIN"
