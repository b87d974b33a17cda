#!/usr/bin/env bash
# End-to-end benchmarks: the shipped 1M-job scenario under fifo, priority and
# quota, each run 5 times; prints the median BENCH line per policy (jobs/s,
# events/s, ns per cycle, peak RSS). BENCH_RUNS and BENCH_POLICIES override.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=bin/allot
RUNS=${BENCH_RUNS:-5}
POLICIES=${BENCH_POLICIES:-"fifo priority quota"}
SCENARIO=scenarios/bench/1m-jobs.yaml
for p in $POLICIES; do
  lines=()
  for i in $(seq "$RUNS"); do
    lines+=("$("$BIN" sim "$SCENARIO" --policy "$p" --json --stats 2>&1 >/dev/null | grep '^BENCH')")
  done
  printf '%s\n' "${lines[@]}" |
    awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^wall_s=/) { split($i, a, "="); print a[2], $0 } }' |
    sort -n | cut -d' ' -f2- |
    awk -v n="$RUNS" '{ line[NR] = $0 } END { print "median of " n ": " line[int((n + 1) / 2)] }'
done
