#!/usr/bin/env python3
"""Per method of a suite's runs directory, over its seeds: final accuracy (mean ± sd), the step at which each seed's
test accuracy first reached the target (an evaluated step, counted from 1), the accuracy at given steps, and the
megabytes a worker sent (mean over the workers) until the target. For questions of steps rather than seconds, such
as what a compressed warm-up or a stale gradient costs (docs/results/time-to-accuracy/warmup/, .../overlap/).

    scripts/steps_to_target.py RUNS [--target 0.80] [--at 50,100,200] [--methods a,b] [--labels a=A,b=B]
"""
import argparse
import csv
import json
import pathlib
import re
import statistics


def read(run):
    rows = list(csv.DictReader(open(run / "metrics.csv")))
    summary = json.loads((run / "summary.json").read_text())
    return rows, summary


def fmt(values, digits=2, scale=1.0):
    if not values:
        return "–"
    if len(values) == 1:
        return "%.*f" % (digits, values[0] * scale)
    return "%.*f ± %.*f" % (digits, statistics.mean(values) * scale, digits, statistics.stdev(values) * scale)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("runs")
    p.add_argument("--target", type=float, default=0.80)
    p.add_argument("--at", default="50,100,200")
    p.add_argument("--methods", default="")
    p.add_argument("--labels", default="")
    args = p.parse_args()
    at = [int(a) for a in args.at.split(",") if a]
    labels = dict(kv.split("=", 1) for kv in args.labels.split(";") if kv)
    groups = {}
    for run in sorted(pathlib.Path(args.runs).iterdir()):
        m = re.fullmatch(r"(.+)-(small-cnn|small-resnet|tiny-cnn)-s(\d+)", run.name)
        if m and (run / "summary.json").exists():
            groups.setdefault(m.group(1), []).append((int(m.group(3)), run))
    methods = args.methods.split(",") if args.methods else list(groups)
    head = ["method", "seeds", "final top-1 % (mean ± sd)", "step to %d%% per seed" % round(args.target * 100),
            "steps to %d%% (mean)" % round(args.target * 100)]
    head += ["top-1 %% at step %d" % a for a in at]
    head += ["MB a worker sent to %d%% (mean)" % round(args.target * 100)]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for method in methods:
        finals, reach, sent, by_step = [], [], [], {a: [] for a in at}
        for seed, run in sorted(groups.get(method, [])):
            rows, summary = read(run)
            finals.append(summary["finalTestAccuracy"])
            workers = [k for k in rows[0] if re.fullmatch(r"bytes_sent_w\d+", k)]
            total, hit = 0, None
            for r in rows:
                total += sum(int(r[k] or 0) for k in workers) / len(workers)
                acc = r["test_accuracy"]
                step = int(r["step"]) + 1
                if acc and step in by_step:
                    by_step[step].append(float(acc))
                if acc and hit is None and float(acc) >= args.target:
                    hit = step
                    sent.append(total / 1e6)
            reach.append(hit)
        reached = [h for h in reach if h is not None]
        cells = [labels.get(method, method), str(len(finals)), fmt(finals, 2, 100),
                 ", ".join("–" if h is None else str(h) for h in reach),
                 ("%.0f" % statistics.mean(reached) + ("" if len(reached) == len(reach) else
                  " (%d of %d)" % (len(reached), len(reach)))) if reached else "not reached"]
        cells += [fmt(by_step[a], 2, 100) for a in at]
        cells += [fmt(sent, 1) if sent else "–"]
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
