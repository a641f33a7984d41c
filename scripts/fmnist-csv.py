#!/usr/bin/env python3
"""Writes Fashion-MNIST's training split as CSV of raw pixel bytes (784 columns 0..255, then the label), `copies`
times over, split into files of one copy each: DIR/part-000.csv ... The data set for streaming from files at a size
larger than a worker's heap (12 copies: 720,000 rows, about 1.9 GB). Also writes the uncompressed IDX files into
DIR/../idx/ for the IDX source.

    scripts/fmnist-csv.py /tmp/lgc-data/csv-12x --copies 12
"""
import argparse
import gzip
import os
import shutil
import struct


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("out")
    p.add_argument("--copies", type=int, default=1)
    p.add_argument("--source", default="/usr/share/datasets/fashion-mnist")
    a = p.parse_args()
    idx = os.path.join(os.path.dirname(os.path.abspath(a.out)), "idx")
    os.makedirs(idx, exist_ok=True)
    for name in ("train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte",
                 "t10k-labels-idx1-ubyte"):
        target = os.path.join(idx, name)
        if not os.path.exists(target):
            with gzip.open(os.path.join(a.source, name + ".gz"), "rb") as src, open(target + ".part", "wb") as dst:
                shutil.copyfileobj(src, dst)
            os.replace(target + ".part", target)
    with open(os.path.join(idx, "train-images-idx3-ubyte"), "rb") as f:
        magic, n, rows, cols = struct.unpack(">IIII", f.read(16))
        images = f.read()
    with open(os.path.join(idx, "train-labels-idx1-ubyte"), "rb") as f:
        f.read(8)
        labels = f.read()
    width = rows * cols
    lines = []
    for i in range(n):
        pixels = images[i * width:(i + 1) * width]
        lines.append(",".join(map(str, pixels)) + "," + str(labels[i]) + "\n")
    text = "".join(lines).encode("ascii")
    os.makedirs(a.out, exist_ok=True)
    for c in range(a.copies):
        target = os.path.join(a.out, "part-%03d.csv" % c)
        if not os.path.exists(target) or os.path.getsize(target) != len(text):
            with open(target + ".part", "wb") as out:
                out.write(text)
            os.replace(target + ".part", target)
    print("%d rows x %d copies, %.2f GB in %s; IDX in %s" % (n, a.copies, a.copies * len(text) / 1e9, a.out, idx))


if __name__ == "__main__":
    main()
