#!/usr/bin/env bash
# The main job on its embedded default: builds, makes sure Fashion-MNIST is there, and trains the small CNN with
# K = 4 in-process workers through LGC-PS (configs/quickstart.yaml). Extra arguments go to 'lgc run' (e.g. --max-steps 50).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/ensure-dataset.sh
exec bin/lgc run configs/quickstart.yaml "$@"
