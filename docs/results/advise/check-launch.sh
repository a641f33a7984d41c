#!/usr/bin/env bash
# compressor: auto under lgc launch at the time-to-accuracy table's conditions (docs/results/time-to-accuracy/,
# configs/tables/time-to-accuracy-41.yaml): K = 4 worker processes and the one server process the candidates need,
# each in its own network namespace (its link capped with tc tbf at RATE, unshaped: no cap) and its own cgroup of
# 0.4 cores. Every process joins the advise session, which probes the links (the ring pattern at the dense chunk's
# size, a server's fan-in and fan-out, the loaded legs and straggler after a pass); rank 0 predicts every candidate
# and the run trains the choice for STEPS steps. Copies each run's advice.csv to OUT/advice-<rate>-probed.csv for
# compare.py, and the log. Needs root and the jar (bin/lgc).
#   usage: docs/results/advise/check-launch.sh OUT_DIR [STEPS]
set -euo pipefail
out=${1:?usage: check-launch.sh OUT_DIR [STEPS]}
steps=${2:-80}
mkdir -p "$out/runs"
for rate in unshaped 100mbit 10mbit; do
  echo "== $rate" | tee -a "$out/launch.txt"
  bin/lgc launch configs/auto/quickstart.yaml --netns-rate "$rate" --cpu-share 0.4 --max-steps "$steps" \
    --output-dir "$out/runs/$rate" --no-progress >> "$out/launch.txt" 2>&1
  cp "$(ls -d "$out/runs/$rate"/quickstart-auto-*/ | tail -1)advice.csv" "$out/advice-$rate-probed.csv"
done
