#!/usr/bin/env bash
# The test suite: unit tests, wire-format golden files, bad-input tests and short end-to-end runs on Fashion-MNIST;
# then the examples copied out of the tree, built and run on their own against the installed modules.
# With arguments (e.g. -pl lgc-core -Dtest=...), only mvn -B verify with them.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/ensure-dataset.sh
scripts/ensure-fonts.sh
if [ $# -gt 0 ]; then
  exec mvn -B verify "$@"
fi
# install = verify, then every module into the local repository, where a copy of examples/ finds them (~40 s more)
mvn -B install
exec scripts/examples-standalone.sh
