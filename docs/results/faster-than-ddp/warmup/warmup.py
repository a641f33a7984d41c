#!/usr/bin/python3
"""How much of a time-to-accuracy run its first 20 steps cost beyond the run's steady step.

For every LGC4J run under TABLE/<link>/runs/ (metrics.csv) and every PyTorch peer under TABLE/<link>/peers/
(evals.jsonl, rank 0's record every 5 steps): the training time (evaluations excluded, as the table counts it), the
time of steps 0-2 and 3-19, the steady step (LGC4J: the median step from step 40 on; PyTorch: the median of its
5-step increments from step 20 on) and the extra: the time of steps 0-19 minus 20 steady steps.

    docs/results/faster-than-ddp/warmup/warmup.py results/tables/powersgd-bf16-100mbit ...
"""
import csv
import glob
import json
import os
import statistics
import sys


def lgc4j(metrics):
    rows = list(csv.DictReader(open(metrics)))
    wall = [float(r["wall_ms"]) - float(r["evaluate_max_ms"] or 0) for r in rows]
    steady = statistics.median(wall[40:] if len(wall) > 50 else wall[20:])
    extra = sum(wall[:20]) - 20 * steady
    return len(wall), sum(wall) / 1e3, sum(wall[:3]) / 1e3, sum(wall[3:20]) / 1e3, steady, extra / 1e3


def peer(evals):
    train = {e["step"]: e["train_s"] for e in map(json.loads, open(evals))}
    increments = [(train[s] - train[s - 5]) / 5 for s in sorted(train) if s >= 25 and s - 5 in train]
    steady = statistics.median(increments)
    last = max(train)
    return last, train[last], train.get(20, float("nan")) - 20 * steady, steady * 1e3


def main():
    for table in sys.argv[1:]:
        for run in sorted(glob.glob(os.path.join(table, "*", "runs", "*", "metrics.csv"))):
            if "/reference/" in run:
                continue
            n, total, first, rest, steady, extra = lgc4j(run)
            print(f"{os.path.basename(os.path.dirname(run))} ({run.split('/')[-4]}): {n} steps, {total:.2f} s; "
                  f"steps 0-2 {first:.2f} s, 3-19 {rest:.2f} s; steady step {steady:.1f} ms; "
                  f"extra in steps 0-19 {extra:.2f} s ({100 * extra / total:.0f} %)")
        for run in sorted(glob.glob(os.path.join(table, "*", "peers", "*", "evals.jsonl"))):
            if "/reference/" in run:
                continue
            last, total, extra, steady = peer(run)
            print(f"{os.path.basename(os.path.dirname(run))} ({run.split('/')[-4]}): {last} steps, {total:.2f} s; "
                  f"steady step {steady:.1f} ms; extra in steps 0-19 {extra:.2f} s ({100 * extra / total:.0f} %)")


if __name__ == "__main__":
    main()
