#!/usr/bin/env bash
# Counts the instructions one simulation executes, under valgrind's
# callgrind: a yardstick for speed changes that, unlike wall time, does not
# move with the other work on a shared machine. The garbage collector is off
# and the run held to one thread, so that two builds are compared on the
# work they do, not on when the collector ran; asynchronous preemption is
# off because callgrind can abort on the signals it sends.
#
#   scripts/instructions.sh [BINARY] [JOBS] [POLICY]
#
# runs BINARY (default bin/allot) on scenarios/bench/100k-jobs.yaml cut to
# JOBS jobs (default 20000) under POLICY (default quota), and prints one
# machine-readable line:
#   INSTRUCTIONS binary=bin/allot jobs=20000 policy=quota ir=2025348744
# To compare two builds, run it on each: repeated runs of one build agree
# within about 0.1%, so a difference of 1% is real.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-bin/allot}
JOBS=${2:-20000}
POLICY=${3:-quota}
if ! command -v valgrind > /dev/null; then
  echo "instructions.sh: valgrind is not installed (Debian: apt-get install valgrind)" >&2
  exit 1
fi
if [ ! -x "$BIN" ]; then
  echo "instructions.sh: $BIN is not an executable; run make build first" >&2
  exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sed "s/^    count: 100000$/    count: $JOBS/" scenarios/bench/100k-jobs.yaml > "$tmp/scenario.yaml"
if ! grep -q "^    count: $JOBS$" "$tmp/scenario.yaml"; then
  echo "instructions.sh: could not set the job count in scenarios/bench/100k-jobs.yaml" >&2
  exit 1
fi
GODEBUG=asyncpreemptoff=1 GOGC=off GOMAXPROCS=1 valgrind --tool=callgrind --callgrind-out-file="$tmp/out" \
  "$BIN" sim "$tmp/scenario.yaml" --policy "$POLICY" --json > /dev/null 2> "$tmp/err"
ir=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$tmp/err")
if [ -z "$ir" ]; then
  echo "instructions.sh: callgrind gave no count; its output:" >&2
  cat "$tmp/err" >&2
  exit 1
fi
echo "INSTRUCTIONS binary=$BIN jobs=$JOBS policy=$POLICY ir=$ir"
