#!/usr/bin/env bash
# Writes cmd/allot/default.pgo, the CPU profile that `go build` uses to
# optimise the allot binary (profile-guided optimisation: hot calls are
# inlined more eagerly). It profiles a build made without a profile on the
# work the benchmarks time: the 1M-job scenario under quota, priority and
# fifo, and a month of the 20,000-GPU fleet. Decisions do not depend on the
# profile; only speed does. Rerun it (`make pgo`) after large changes to
# the policy core or the simulator, and commit the result.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -pgo=off -o "$tmp/allot" ./cmd/allot
for p in quota priority fifo; do
  "$tmp/allot" sim scenarios/bench/1m-jobs.yaml --policy "$p" --json --cpuprofile "$tmp/1m-$p.prof" > /dev/null
done
"$tmp/allot" sim scenarios/bench/20k-gpus-month.yaml --json --cpuprofile "$tmp/month.prof" > /dev/null
go tool pprof -proto "$tmp"/*.prof > "$tmp/merged.pgo"
mv "$tmp/merged.pgo" cmd/allot/default.pgo
echo "wrote cmd/allot/default.pgo ($(wc -c < cmd/allot/default.pgo) bytes)"
