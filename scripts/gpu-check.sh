#!/bin/sh
# On a machine with an NVIDIA GPU: start a live daemon with no fleet
# section (so it discovers the GPUs through nvidia-smi), run a 1-GPU job,
# and check that the job was given exactly one of the discovered GPUs
# (and, where PyTorch is installed, that CUDA shows it only that one).
set -eu
cd "$(dirname "$0")/.."
go build -pgo=off -o bin/allot ./cmd/allot
dir=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$dir"' EXIT
nvidia-smi --query-gpu=index,name,memory.total --format=csv,noheader
model=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | sed 's/^NVIDIA //' | tr 'A-Z' 'a-z' | tr -c 'a-z0-9\n' '-' | sed 's/^-*//; s/-*$//')
cat > "$dir/policy.yaml" <<YAML
teams: [{name: ml, quota: {nvidia-$model: 1}}]
priority_classes: [{name: normal, value: 1}]
policy: {kind: quota}
YAML
bin/allot live serve --config "$dir/policy.yaml" --data-dir "$dir/data" &
pid=$!
export ALLOT_SOCKET="$dir/data/allot.sock"
for _ in $(seq 100); do [ -S "$ALLOT_SOCKET" ] && break; sleep 0.1; done
job=$(bin/allot submit --team ml --priority normal --accelerators 1 -- sh -c '
  echo "CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES"
  python3 -c "import torch; print(\"torch sees\", torch.cuda.device_count(), \"GPU\")" 2>/dev/null || true')
for _ in $(seq 100); do
  state=$(bin/allot jobs --json | grep -o '"state": "[a-z]*"' | head -1)
  case $state in *succeeded*|*failed*) break ;; esac
  sleep 0.1
done
bin/allot describe "$job"
out=$(bin/allot logs "$job")
echo "$out"
echo "$out" | grep -Eq '^CUDA_VISIBLE_DEVICES=[0-9]+$' || { echo "FAIL: the job was not given exactly one GPU"; exit 1; }
if echo "$out" | grep -q 'torch sees'; then
  echo "$out" | grep -q 'torch sees 1 GPU' || { echo "FAIL: CUDA shows the job more than its GPU"; exit 1; }
fi
echo "OK: discovered the GPUs; the job saw only the one it was given"
