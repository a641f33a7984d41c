#!/usr/bin/env python3
"""Writes Fashion-MNIST's training split as CSV (784 pixel columns, then the label), `copies` times over, one file per
copy: DIR/part-000.csv ... The data set for streaming from files at a size larger than a worker's heap. Pixels are the
raw bytes 0..255, or with --scale the byte / 255 to 4 decimals (what a network trains on; 12 copies: 720,000 rows,
3.9 GB). Also writes the uncompressed IDX files into DIR/../idx/ for the IDX source.

    scripts/fmnist-csv.py /tmp/lgc-data/csv-12x --copies 12 --scale
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
    p.add_argument("--scale", action="store_true", help="pixels as byte / 255, 4 decimals")
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
    text_of = ["%.4f" % (v / 255) if a.scale else str(v) for v in range(256)]
    lines = []
    for i in range(n):
        pixels = images[i * width:(i + 1) * width]
        lines.append(",".join(text_of[v] for v in pixels) + "," + str(labels[i]) + "\n")
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
