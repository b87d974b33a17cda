#!/usr/bin/env bash
# Runs the core built with -tags allotcheck, where every shortcut that
# answers is recomputed without it and a mismatch panics naming the
# shortcut (policies/check.go), over every shipped scenario and over cuts
# of the 1M benchmark and the stress family (CHECK_COUNT jobs, 20,000 by
# default; "full" runs them whole, as make bench does with BENCH_CHECK=1).
# The core's tests built the same way run first. Two runs at a time; the first failure stops it with the panic's message.
set -euo pipefail
cd "$(dirname "$0")/.."
COUNT=${CHECK_COUNT:-20000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The core's own tests under the check build: the twins, and a state
# change that bypasses Core.changed, which the check must catch.
go test -count=1 -tags allotcheck ./policies/...
go build -tags allotcheck -o "$tmp/allot-check" ./cmd/allot
files=(scenarios/*.yaml)
if [ "$COUNT" = full ]; then
  files+=(scenarios/bench/1m-jobs.yaml scenarios/bench/stress/s*.yaml)
else
  go run ./scripts/stress -count "$COUNT" -o "$tmp/cuts" >/dev/null
  sed "s/count: 1000000/count: $COUNT/" scenarios/bench/1m-jobs.yaml > "$tmp/cuts/bench-1m-cut.yaml"
  files+=("$tmp"/cuts/*.yaml)
fi
check() {
  if ! out=$("$1" sim "$2" --json 2>&1 >/dev/null); then
    echo "check-shortcuts: $2: $(echo "$out" | grep -m1 'allotcheck\|panic\|allot:' || echo "$out" | tail -3)" >&2
    return 1
  fi
  echo "check-shortcuts: $(basename "$2"): every shortcut's answers recomputed, none differed"
}
export -f check
printf '%s\n' "${files[@]}" | xargs -P 2 -I{} bash -c 'check "$0" "$1"' "$tmp/allot-check" {}
