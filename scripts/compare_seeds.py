#!/usr/bin/env python3
"""Accuracy of the same methods and seeds in two suite directories: mean ± sd, the difference of the means against
two standard errors of it, and the per-seed (paired) differences. For changes that should leave accuracy alone,
such as the compute path (docs/results/compute/).

    scripts/compare_seeds.py A_RUNS B_RUNS --methods dense,dgc,lgc-ps,lgc-rar --labels "DL4J's own path,oneDNN"
"""
import argparse
import json
import math
import pathlib
import statistics


def accuracy(runs, method, model, seed):
    path = pathlib.Path(runs) / ("%s-%s-s%d" % (method, model, seed)) / "summary.json"
    return json.loads(path.read_text())["finalTestAccuracy"] * 100


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--methods", default="dense,dgc,lgc-ps,lgc-rar")
    p.add_argument("--model", default="small-cnn")
    p.add_argument("--seeds", default="1,2,3")
    p.add_argument("--labels", default="A,B")
    args = p.parse_args()
    la, lb = args.labels.split(",")
    seeds = [int(s) for s in args.seeds.split(",")]
    print("| method | %s: top-1 %% (mean ± sd) | %s: top-1 %% (mean ± sd) | Δ (B − A) | 2 SE of Δ | within 2 SE |"
          " per-seed Δ (seeds %s) |" % (la, lb, ", ".join(map(str, seeds))))
    print("|---|---|---|---|---|---|---|")
    for m in args.methods.split(","):
        a = [accuracy(args.a, m, args.model, s) for s in seeds]
        b = [accuracy(args.b, m, args.model, s) for s in seeds]
        ma, mb = statistics.mean(a), statistics.mean(b)
        sa, sb = statistics.stdev(a), statistics.stdev(b)
        se = math.sqrt(sa ** 2 / len(a) + sb ** 2 / len(b))
        d = mb - ma
        print("| %s | %.2f ± %.2f | %.2f ± %.2f | %+.2f | %.2f | %s | %s |" % (
            m, ma, sa, mb, sb, d, 2 * se, "yes" if abs(d) <= 2 * se else "**no**",
            ", ".join("%+.2f" % (y - x) for x, y in zip(a, b))))


if __name__ == "__main__":
    main()
