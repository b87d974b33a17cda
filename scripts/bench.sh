#!/usr/bin/env bash
# The benchmark suite (not part of CI):
#   - Go benchmarks of one scheduling cycle on 10,000 pending and 2,000
#     running jobs of 100 teams (classical and fair sharing), median of 5,
#     and the same state as a snapshot file (scripts/cycle-snapshot.awk)
#     through `allot cycle --stats`;
#   - end-to-end runs of the shipped 100k-, 1M- and 10M-job scenarios under
#     fifo, priority and quota: median of BENCH_RUNS (5) for 100k and 1M, one
#     run for 10M; then the 10M-job quota run again with every output on
#     (--out to a temporary folder), for peak memory;
#   - the issue's headline under quota: a month of a 20,000-GPU fleet
#     (median of BENCH_RUNS) and a year of it (one run);
#   - the stress family cut to BENCH_STRESS_COUNT jobs beside the 1M
#     benchmark cut the same way;
#   - with BENCH_REFERENCE=1, --reference against the default at full size;
#     with BENCH_CHECK=1, every shortcut recomputed (scripts/check-shortcuts.sh);
#   - live mode on a Kubernetes control plane: admissions per second and
#     creation-to-admission latency (BENCH_K8S=0 skips).
# Every result is one machine-readable BENCH line; a table follows.
# BENCH_RUNS, BENCH_POLICIES, BENCH_SIZES ("100k 1m 10m"; empty to skip) and BENCH_FLEET
# ("month year"; empty to skip) override.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=bin/allot
RUNS=${BENCH_RUNS:-5}
POLICIES=${BENCH_POLICIES:-"fifo priority quota"}
SIZES=${BENCH_SIZES-"100k 1m 10m"}
FLEET=${BENCH_FLEET-"month year"}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
results=()

median_line() { # lines on stdin, key=value fields; median by the field $1
  awk -v k="$1" '{ for (i = 1; i <= NF; i++) { split($i, a, "="); if (a[1] == k) print a[2], $0 } }' |
    sort -n | cut -d' ' -f2- | awk '{ l[NR] = $0 } END { print l[int((NR + 1) / 2)] }'
}

for name in BenchmarkCycle10kPending2kRunning100Teams BenchmarkCycle10kPending2kRunning100TeamsFair; do
  ns=$(go test -run '^$' -bench "^${name}\$" -benchtime 100x -count "$RUNS" ./policies |
    awk '/^Benchmark/ { print $3 }' | sort -n | awk '{ l[NR] = $0 } END { print l[int((NR + 1) / 2)] }')
  line="BENCH name=${name#Benchmark} policy=quota ns_per_cycle=$ns runs=$RUNS"
  echo "$line"
  results+=("$line")
done

# The same state as a snapshot file through `allot cycle` (loading excluded).
for fair in 0 1; do
  awk -v fair=$fair -f scripts/cycle-snapshot.awk > "$tmp/cycle.yaml"
  line="$("$BIN" cycle "$tmp/cycle.yaml" --stats --repeat "$RUNS" 2>&1 >/dev/null | grep '^BENCH')"
  echo "$line"
  results+=("$line")
done

run() { # scenario policy runs [outputs]
  local scenario=$1 lines=() out=() tag=""
  if [ -n "${4:-}" ]; then
    out=(--out "$tmp/out")
    tag=" outputs=on"
  fi
  for i in $(seq "$3"); do
    lines+=("$("$BIN" sim "$scenario" --policy "$2" --json --stats "${out[@]}" 2>&1 >/dev/null | grep '^BENCH') runs=$3$tag")
    rm -rf "$tmp/out"
  done
  printf '%s\n' "${lines[@]}" | median_line wall_s
}

for size in $SIZES; do
  n=$RUNS
  [ "$size" = 10m ] && n=1
  for p in $POLICIES; do
    line=$(run "scenarios/bench/$size-jobs.yaml" "$p" "$n")
    echo "$line"
    results+=("$line")
  done
done
if [[ " $SIZES " == *" 10m "* ]]; then
  line=$(run scenarios/bench/10m-jobs.yaml quota 1 outputs)
  echo "$line"
  results+=("$line")
fi
for span in $FLEET; do
  n=$RUNS
  [ "$span" = year ] && n=1
  line=$(run "scenarios/bench/20k-gpus-$span.yaml" quota "$n")
  echo "$line"
  results+=("$line")
done

# The stress family (scenarios/bench/stress, see docs/performance.md) cut
# to BENCH_STRESS_COUNT jobs (20,000; empty skips), beside the shipped 1M
# benchmark cut the same way, BENCH_STRESS_RUNS runs each (1): wall time
# and its ratio to the benchmark's.
STRESS_COUNT=${BENCH_STRESS_COUNT-20000}
if [ -n "$STRESS_COUNT" ]; then
  go run ./scripts/stress -count "$STRESS_COUNT" -o "$tmp/stress" >/dev/null
  sed "s/count: 1000000/count: $STRESS_COUNT/" scenarios/bench/1m-jobs.yaml > "$tmp/stress/bench-1m-cut.yaml"
  base=""
  for f in "$tmp/stress/bench-1m-cut.yaml" "$tmp"/stress/s*.yaml; do
    line=$(run "$f" quota "${BENCH_STRESS_RUNS:-1}")
    wall=$(echo "$line" | tr ' ' '\n' | sed -n 's/^wall_s=//p')
    [ -z "$base" ] && base=$wall
    line="$line stress_jobs=$STRESS_COUNT vs_bench=$(awk -v a="$wall" -v b="$base" 'BEGIN { printf "%.1f", a / b }')"
    echo "$line"
    results+=("$line")
  done
fi

# The reference at full size: allot sim --reference (every shortcut off)
# against the default on the 1M benchmark and the stress family, summaries
# compared byte for byte less wall time; the test does the same on 20,000-
# job cuts. Hours: only with BENCH_REFERENCE=1.
if [ "${BENCH_REFERENCE:-0}" = 1 ]; then
  for f in scenarios/bench/1m-jobs.yaml scenarios/bench/stress/s*.yaml; do
    "$BIN" sim "$f" --json | grep -v '"wall_s"' > "$tmp/default.json"
    "$BIN" sim "$f" --json --reference | grep -v '"wall_s"' > "$tmp/reference.json"
    same=yes
    cmp -s "$tmp/default.json" "$tmp/reference.json" || same=no
    line="BENCH name=reference-$(basename "$f" .yaml) same_summary=$same"
    echo "$line"
    results+=("$line")
    [ "$same" = yes ] || { echo "bench: --reference changed the summary of $f" >&2; exit 1; }
  done
fi

# Every shortcut recomputed on every answer (-tags allotcheck) over the
# full benchmark and stress family: hours, only with BENCH_CHECK=1.
if [ "${BENCH_CHECK:-0}" = 1 ]; then
  CHECK_COUNT=full ./scripts/check-shortcuts.sh
fi

# Live mode on a real Kubernetes control plane (built once, cached): the
# controller admitting 1,000 queued Jobs of 10 teams, and one Job's
# creation to its admission on an idle cluster. BENCH_K8S=0 skips.
if [ "${BENCH_K8S:-1}" = 1 ]; then
  ALLOT_K8S_BIN=$(./scripts/k8s/control-plane.sh)
  export ALLOT_K8S_BIN
  rate=$(go test -run '^$' -bench '^BenchmarkAdmissionsOf1000QueuedJobsAcross10Teams$' -benchtime 1x -count "$RUNS" ./live/kube 2>/dev/null |
    awk '{ for (i = 2; i <= NF; i++) if ($i == "admissions/s") print $(i-1) }' | sort -n | awk '{ l[NR] = $0 } END { print l[int((NR + 1) / 2)] }')
  line="BENCH name=KubernetesAdmissions1000Jobs10Teams admissions_per_s=$rate runs=$RUNS"
  echo "$line"
  results+=("$line")
  lat=$(go test -run '^$' -bench '^BenchmarkCreationToAdmissionOnAnIdleCluster$' -benchtime 50x -count "$RUNS" ./live/kube 2>/dev/null |
    awk '{ for (i = 2; i <= NF; i++) if ($i == "ms-median") print $(i-1) }' | sort -n | awk '{ l[NR] = $0 } END { print l[int((NR + 1) / 2)] }')
  line="BENCH name=KubernetesCreationToAdmission ms_median=$lat runs=$RUNS"
  echo "$line"
  results+=("$line")
fi

echo
printf '%s\n' "${results[@]}" | awk '
  { delete f; for (i = 2; i <= NF; i++) { split($i, a, "="); f[a[1]] = a[2] } }
  f["same_summary"] != "" { printf "%-46s --reference gives the same summary: %s\n", f["name"], f["same_summary"]; next }
  f["stress_jobs"] != "" { printf "%-34s %8s s  %6sx the 1M benchmark cut  (%s jobs, %s run)\n", f["name"], f["wall_s"], f["vs_bench"], f["stress_jobs"], f["runs"]; next }
  f["admissions_per_s"] != "" { printf "%-46s %12s admissions/s (median of %s)\n", f["name"], f["admissions_per_s"], f["runs"]; next }
  f["ms_median"] != "" { printf "%-46s %12s ms, median of 50 (median of %s runs)\n", f["name"], f["ms_median"], f["runs"]; next }
  f["ns_per_decision"] != "" { printf "allot cycle %-34s %12s ns per cycle (median of %s)\n", f["name"], f["ns_per_decision"], f["runs"]; next }
  f["wall_s"] == "" { printf "%-46s %12s ns per cycle (median of %s)\n", f["name"], f["ns_per_cycle"], f["runs"]; next }
  { printf "%-22s %-9s %8s s  %9s jobs/s  %9s events/s  %7s ns/cycle  %7s MB peak RSS  (median of %s)%s\n",
      f["name"], f["policy"], f["wall_s"], f["jobs_per_s"], f["events_per_s"], f["ns_per_cycle"], f["peak_rss_mb"], f["runs"],
      (f["outputs"] == "on" ? ", with every output" : "") }'
