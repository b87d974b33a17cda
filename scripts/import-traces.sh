#!/usr/bin/env bash
# Imports the public traces in ../shared/traces into scenarios/replay/traces/
# (canonical Parquet only: the shipped scenarios in scenarios/replay/ replay
# them, so no draft scenario is written beside them). The files are derived from public datasets
# and are not committed. SHARED overrides where the traces are.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-bin/allot}
SHARED=${SHARED:-../shared}
T="$SHARED/traces"
OUT=scenarios/replay/traces
if [ ! -d "$T" ]; then
  echo "import-traces: $T not found; the replay scenarios need the public traces (set SHARED=...)" >&2
  exit 1
fi
mkdir -p "$OUT"
run() { echo "+ $*" >&2; "$@"; }
run "$BIN" trace import --no-scenario --format openb \
  "$T/alibaba-gpu-v2023-openb/csv/openb_pod_list_default.csv" \
  "$T/alibaba-gpu-v2023-openb/csv/openb_node_list_all_node.csv" -o "$OUT/openb.parquet"
# The busy month: the trace's arrivals are back-loaded into its last 30 days.
run "$BIN" trace transform "$OUT/openb.parquet" --window 119d: -o "$OUT/openb-last30d.parquet"
run "$BIN" trace import --no-scenario --format gavel-philly "$T"/gavel-philly-derived/seed=0/*.trace \
  --vc-nodes "$T/helios-sensetime/philly_vc.csv" -o "$OUT/philly.parquet"
run "$BIN" trace import --no-scenario --format alibaba-dlrm \
  "$T/alibaba-gpu-v2025-dlrm/disaggregated_DLRM_trace.csv" -o "$OUT/dlrm.parquet"
echo "import-traces: done; replay them with: for s in scenarios/replay/*.yaml; do $BIN sim \$s; done (or make replay)" >&2
