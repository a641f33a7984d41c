#!/usr/bin/env bash
# Exact resume over lgc launch: each case kill -9s one process of a K = 4 job at a random step, lgc launch
# --max-restarts 1 restarts the job from the last complete checkpoint, and the result is compared with the same config
# run uninterrupted in one JVM. See scripts/resume-check.py --help. Builds the jar first when it is missing or stale.
# Usage: scripts/resume-check.sh [--seed N] [--out DIR] [--cases METHOD...] [--keep]   (~30 min on 2 cores)
#        scripts/resume-check.sh --campaign N [--seed N] [--out DIR]   (issue 39's fault campaign: N random KILL or
#        STOP injections over every method, S = 1 and S = K; OUT/README.md and OUT/results.json)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/bin/lgc" --version > /dev/null   # builds lgc-cli/target/lgc.jar when a source is newer
exec python3 "$root/scripts/resume-check.py" "$@"
