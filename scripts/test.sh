#!/usr/bin/env bash
# The test suite: unit tests, wire-format golden files, bad-input tests and short end-to-end runs on Fashion-MNIST.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/ensure-dataset.sh
scripts/ensure-fonts.sh
exec mvn -B verify "$@"
