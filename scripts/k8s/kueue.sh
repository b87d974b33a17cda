#!/usr/bin/env bash
# Build Kueue's controller manager from the Go module proxy, once, into a
# cache outside the repo, and print its path. It is built in a module of
# its own, at the Kubernetes library versions Kueue pins (they differ from
# allot's). The differential test (cmd/allot, TestKueueDifferential) runs
# it as a host process against the test control plane. Cold: a few
# minutes on 2 cores; cached: instant.
# Usage: scripts/k8s/kueue.sh [CACHE_DIR]
set -euo pipefail
KQ=v0.17.0
CACHE=${1:-${ALLOT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/allot}}/kueue-$KQ
BIN=$CACHE/bin/kueue-manager
if [ -x "$BIN" ]; then echo "$BIN"; exit 0; fi
MOD=$CACHE/mod
mkdir -p "$MOD" "$CACHE/bin"
cd "$MOD"
GOMOD=$(go mod download -json sigs.k8s.io/kueue@"$KQ" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
GOVER=$(awk '$1=="go"{print $2; exit}' "$GOMOD")
# A module of its own: minimal version selection then picks exactly the
# versions Kueue's go.mod pins, as nothing else here requires more.
printf 'module allot/kueue-manager\n\ngo %s\n\nrequire sigs.k8s.io/kueue %s\n' "$GOVER" "$KQ" > go.mod.new
mv go.mod.new go.mod
cat > tools.go <<'GO'
//go:build tools

package tools

import _ "sigs.k8s.io/kueue/cmd/kueue"
GO
echo "kueue $KQ: resolving modules" >&2
go mod tidy >&2
echo "kueue $KQ: building the manager into $BIN" >&2
V=sigs.k8s.io/kueue/pkg/version
CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X $V.GitVersion=$KQ" -o "$BIN.tmp" sigs.k8s.io/kueue/cmd/kueue >&2
mv "$BIN.tmp" "$BIN"
echo "$BIN"
