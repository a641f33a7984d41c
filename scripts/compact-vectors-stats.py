#!/usr/bin/env python3
"""How much of the ranks' mean compact vector a code of the leader's vector could carry.

Reads recordings of `lgc record compact-vectors` (format: CompactVectorFile, version 1) and prints, per file, medians
over the recorded steps of:

  corr      mean pairwise Pearson correlation between the K ranks' compact vectors
  cos(l,m)  cosine between the leader's vector and the ranks' mean m (the values LGC must deliver on the support)
  bound     sqrt(1 - cos(l,m)^2): the smallest relative error ||a - m|| / ||m|| of any update a that is a multiple of
            the leader's vector -- what a decoder of the leader's latent alone can reach at best when the other ranks'
            vectors carry nothing the leader's does (LGC-PS without innovation, LGC-RAR's latent is an average)
  sign      share of positions where a non-leader's value has the leader's sign
  rms       a non-leader's RMS over the leader's
  top10     relative error of the mean of the ranks' top 10% values (each rank its own, zero elsewhere): LGC-PS's
            innovation alone

Usage: scripts/compact-vectors-stats.py FILE [FILE ...]
"""
import struct
import sys

import numpy as np


def read(path):
    with open(path, "rb") as f:
        head = f.read(20)
        magic, version, _, k, mu, steps = struct.unpack("<4sHHiii", head)
        if magic != b"LGCV" or version != 1:
            raise SystemExit(f"{path}: not a compact-vector recording of version 1 (magic {magic!r}, version {version})")
        for _ in range(steps):
            leader = struct.unpack("<i", f.read(4))[0]
            values = np.frombuffer(f.read(4 * k * mu), dtype="<f4").reshape(k, mu).astype(np.float64)
            yield leader, values


def cosine(a, b):
    na, nb = np.linalg.norm(a), np.linalg.norm(b)
    return float(a @ b / (na * nb)) if na > 0 and nb > 0 else 0.0


def top_share_mean(values, share):
    k, mu = values.shape
    n = max(1, int(np.ceil(share * mu)))
    kept = np.zeros_like(values)
    for r in range(k):
        idx = np.argsort(-np.abs(values[r]))[:n]
        kept[r, idx] = values[r, idx]
    return kept.mean(axis=0)


def stats(path):
    rows = []
    for leader, v in read(path):
        k = v.shape[0]
        m = v.mean(axis=0)
        corr = np.corrcoef(v)
        pairs = [corr[i, j] for i in range(k) for j in range(i + 1, k)]
        others = [r for r in range(k) if r != leader]
        c = cosine(v[leader], m)
        sign = np.mean([np.mean(np.sign(v[r]) == np.sign(v[leader])) for r in others])
        rms = np.median([np.sqrt(np.mean(v[r] ** 2)) / np.sqrt(np.mean(v[leader] ** 2)) for r in others])
        top = top_share_mean(v, 0.1)
        rows.append((np.mean(pairs), c, np.sqrt(max(0.0, 1 - c * c)), sign, rms,
                     np.linalg.norm(top - m) / np.linalg.norm(m)))
    a = np.array(rows)
    return len(rows), np.median(a, axis=0)


def main(paths):
    print("| recording | steps | corr | cos(l,m) | bound | sign | rms | top10 |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for p in paths:
        n, med = stats(p)
        print(f"| {p} | {n} | " + " | ".join(f"{x:.3f}" for x in med) + " |")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    main(sys.argv[1:])
