#!/usr/bin/env bash
# Makes sure Debian's dataset-fashion-mnist is installed: installs it when missing and we may (root with apt-get),
# otherwise says exactly how and fails.
set -euo pipefail
dir=${FASHION_MNIST_DIR:-/usr/share/datasets/fashion-mnist}
files="train-images-idx3-ubyte.gz train-labels-idx1-ubyte.gz t10k-images-idx3-ubyte.gz t10k-labels-idx1-ubyte.gz"
missing=0
for f in $files; do [ -f "$dir/$f" ] || missing=1; done
[ "$missing" = 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "Fashion-MNIST not found in $dir: installing Debian's dataset-fashion-mnist" >&2
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq dataset-fashion-mnist >&2
  exit 0
fi
cat >&2 <<MSG
Fashion-MNIST not found: expected $files in $dir.
Install it with:   sudo apt-get install dataset-fashion-mnist
or put the four IDX .gz files in a directory and set FASHION_MNIST_DIR (and data.path in the config) to it.
MSG
exit 1
