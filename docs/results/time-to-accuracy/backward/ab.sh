#!/usr/bin/env bash
# Alternated pairs of traced runs, overlap none then backward, of the dense ring (small CNN, Fashion-MNIST, 60 steps,
# traced steps 10..59), one network namespace per process, then `lgc trace summary` of each:
#   docs/results/time-to-accuracy/backward/ab.sh OUT K PAIRS [lgc launch options]
#   e.g. ab.sh /tmp/bw 4 3 --netns-rate 100mbit --cpu-share 0.4
# Needs root (network namespaces) and a quiet machine. Each run takes 40-60 s.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../../.." && pwd)
out=$1 k=$2 pairs=$3
shift 3
mkdir -p "$out"
export OMP_NUM_THREADS=1
for i in $(seq 1 "$pairs"); do
  for m in none backward; do
    sed "s/workers: 4/workers: $k/" "$here/dense-$m.yaml" > "$out/dense-$m-k$k.yaml"
    "$root/bin/lgc" launch --nproc "$k" "$@" --trace "$out/trace-$m-$i.json" --trace-steps 10..59 \
      --output-dir "$out/runs" "$out/dense-$m-k$k.yaml" > "$out/log-$m-$i.txt" 2>&1
    "$root/bin/lgc" trace summary --rate-mbit 95.6 --csv "$out/timeline-$m-$i.csv" "$out/trace-$m-$i.json" \
      > "$out/summary-$m-$i.txt"
  done
done
