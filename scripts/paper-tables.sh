#!/usr/bin/env bash
# Every paper table and figure, one after the other: Table VI (compression), Table V (phases), Figs. 3-4
# (mutual-information), Fig. 13 (sparsification), Fig. 14 (ae-convergence). Each goes to
# docs/results/tables/<name>[-quick]/; a run that finished before is reused, so an interrupted call resumes.
#   scripts/paper-tables.sh --quick     # about half an hour on a quiet 2-core machine
#   scripts/paper-tables.sh             # the full profile: 8-9 hours on 2 cores (Table VI: 3 epochs per method and model)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/ensure-dataset.sh
scripts/ensure-fonts.sh
quick=""
suffix=""
if [ "${1:-}" = "--quick" ]; then
  quick="--quick"
  suffix="-quick"
fi
for command in "table compression" "table phases" "figure mutual-information" "figure sparsification" \
               "figure ae-convergence"; do
  name=${command#* }
  start=$(date +%s)
  bin/lgc $command $quick --output-dir "docs/results/tables/$name$suffix" --no-progress
  echo "lgc $command $quick: $(( $(date +%s) - start )) s"
done
