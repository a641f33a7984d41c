#!/usr/bin/env bash
# One traced pair at 10 Mbit/s and 0.4 cores per process, overlap none then backward, of the dense ring (20 steps,
# traced steps 4-19), then `lgc trace summary` of each:  run.sh OUT_DIR   (root; about 3 minutes)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
lgc=$(cd "$here/../../../../.." && pwd)/bin/lgc
out=${1:?usage: run.sh OUT_DIR}
mkdir -p "$out"
export OMP_NUM_THREADS=1
for m in none backward; do
  "$lgc" launch --nproc 4 --netns-rate 10mbit --cpu-share 0.4 --trace "$out/trace-$m.json" --trace-steps 4..19 \
    --output-dir "$out/runs" "$here/dense-$m.yaml" > "$out/log-$m.txt" 2>&1
  "$lgc" trace summary --rate-mbit 9.6 --csv "$out/timeline-$m.csv" "$out/trace-$m.json" > "$out/summary-$m.txt"
done
