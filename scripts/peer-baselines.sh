#!/usr/bin/env bash
# The PyTorch peer of configs/tables/baselines.yaml: LeNet-5 on Fashion-MNIST, K = 4 processes, DDP over gloo on
# loopback, batch 32 per rank, Nesterov SGD lr 0.05 momentum 0.9, 3 epochs; dense fp32, PyTorch's fp16 hook and its
# PowerSGD hook at ranks 1, 2, 4 starting at step 200 (the suite's FULL stage). One run per method and seed, one
# after another; each writes <out>/<method>-s<seed>.jsonl (one record per evaluation) and .json (the summary line).
#   scripts/peer-baselines.sh [OUT_DIR] [SEEDS...]      default: docs/results/baselines/peer 1
# Needs Debian's python3-torch and python3-numpy (apt-get install -y python3-torch python3-numpy).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
peer="${PEER:-$root/../shared/peers/ddp_peer.py}"
out="${1:-$root/docs/results/baselines/peer}"
shift || true
seeds=("${@:-1}")
[ ${#seeds[@]} -gt 0 ] || seeds=(1)
mkdir -p "$out"
run() { # name, then the peer's method options
  local name=$1; shift
  for seed in "${seeds[@]}"; do
    local base="$out/$name-s$seed"
    if [ -s "$base.json" ]; then echo "peer: $base.json exists, kept" >&2; continue; fi
    echo "peer: $name seed $seed ($(date -u +%H:%M:%S))" >&2
    /usr/bin/python3 "$peer" --procs 4 --epochs 3 --eval-every 468 --seed "$seed" --out "$base.jsonl" "$@" \
      > "$base.json.tmp"
    tail -n 1 "$base.json.tmp" > "$base.json" && rm "$base.json.tmp"
  done
}
run dense --method dense
run fp16 --method fp16
run powersgd-r1 --method powersgd --rank 1 --start-iter 200
run powersgd-r2 --method powersgd --rank 2 --start-iter 200
run powersgd-r4 --method powersgd --rank 4 --start-iter 200
