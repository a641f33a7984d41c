#!/usr/bin/env python3
"""Accuracy of a run resumed at another number of workers, beside the runs it must be compared with.

For each method and seed: the run at K = 4 uninterrupted (checkpoints every --every steps); the same run resumed from
its checkpoint after --after steps (inside epoch 0) at K' = 3 and K' = 5 (`lgc run --resume DIR --workers K'`); and
runs at K' = 3 and K' = 5 from step 0 (what a job that had K' workers all along reaches). Every run in one JVM, one at a
time. Writes OUT/runs.csv (one row per run) and OUT/table.md (the table: final test accuracy, mean and spread over the
seeds, steps, and each resumed run beside the uninterrupted K = 4 run).

Usage: scripts/elastic-accuracy.py [--out DIR] [--seeds 1,2,3] [--methods dense-ps,...] [--jar lgc-cli/target/lgc.jar]
       [--append] [--table-only]
"""
import argparse
import csv
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# method -> YAML lines after `training:` (topology, compressor, stages); the data and model are the same for all
METHODS = {
    "dense-ring": "topology: {type: ring}\n",
    "dense-ps": "topology: {type: ps}\n",
    "topk": "topology: {type: ring}\ncompressor: {type: topk, ratio: 0.01}\nstages: {fullIterations: 20}\n",
    "dgc": "topology: {type: ps}\ncompressor: {type: dgc, ratio: 0.01, momentum: 0.9}\nstages: {fullIterations: 20}\n",
    "powersgd": "topology: {type: ps}\ncompressor: {type: powersgd, rank: 2}\nstages: {fullIterations: 20}\n",
    # LGC as configs/lgc-*.yaml trains it (Adam for the autoencoder, λ_sim 0, the low-pass accumulator)
    "lgc-rar": "topology: {type: ring}\ncompressor: {type: lgc, ratio: 0.01, lowPass: 0.1}\n"
               "stages: {fullIterations: 20, aeTrainingIterations: 20}\n"
               "autoencoder: {optimizer: adam, learningRate: 0.001, lambdaSim: 0.0}\n",
    "lgc-ps": "topology: {type: ps}\ncompressor: {type: lgc, ratio: 0.01, lowPass: 0.1}\n"
              "stages: {fullIterations: 20, aeTrainingIterations: 20}\n"
              "autoencoder: {optimizer: adam, learningRate: 0.001, lambdaSim: 0.0}\n",
}
SGD_METHODS = {"dgc"}  # DGC applies momentum itself: plain SGD under it


def config(method, seed, workers, out, every, epochs, train, batch):
    updater = ("{type: sgd, learningRate: 0.05}" if method in SGD_METHODS
               else "{type: nesterovs, learningRate: 0.05, momentum: 0.9}")
    return (f"run: {{name: {method}-s{seed}-k{workers}, seed: {seed}, outputDir: {out}}}\n"
            f"data: {{trainLimit: {train}, testLimit: 2000}}\n"
            f"model: {{name: tiny-cnn, updater: {updater}}}\n"
            f"training: {{workers: {workers}, batchSizePerWorker: {batch}, epochs: {epochs}, evalEverySteps: 0,"
            f" checkpointEverySteps: {every}}}\n" + METHODS[method])


def lgc(jar, *args, log):
    """Runs lgc; returns its output (also appended to log)."""
    cmd = ["java", "-Xmx2g", "-Dorg.bytedeco.javacpp.maxbytes=3G", "-jar", str(jar), *args, "--no-progress"]
    started = time.time()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    with open(log, "a") as f:
        f.write("$ " + " ".join(cmd) + "\n" + p.stdout + f"(exit {p.returncode}, {time.time() - started:.1f} s)\n")
    if p.returncode != 0:
        print(f"failed: {' '.join(args)} (see {log})", flush=True)
        return None
    return p.stdout


def memory_means(output):
    """The regroup's log line: each memory section's mean over the ranks of its element sum, before and after."""
    found = re.findall(r"; (\S+): mean of Σm (\S+) at K = (\d+), (\S+) at K = (\d+)", output)
    return "; ".join(f"{name} {before} → {after}" for name, before, _, after, _ in found)


def summary(run_dir):
    """Accuracy, steps, K and loss of a finished run; NaN accuracy and the steps written for a run that failed
    (training diverged: a rank's gradient was not finite)."""
    if not (run_dir / "summary.json").exists():
        rows = (run_dir / "metrics.csv").read_text().splitlines() if (run_dir / "metrics.csv").exists() else [""]
        return float("nan"), len(rows) - 1, 0, float("nan")
    s = json.loads((run_dir / "summary.json").read_text())
    return s["finalTestAccuracy"], s["steps"], s["workers"], s["finalLoss"]


def only(directory):
    dirs = [d for d in directory.iterdir() if d.is_dir()]
    if len(dirs) != 1:
        sys.exit(f"expected one run in {directory}, found {dirs}")
    return dirs[0]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", default=str(ROOT / "docs/results/elastic"))
    p.add_argument("--work", default="/tmp/lgc-elastic", help="where the runs go (large; not committed)")
    p.add_argument("--seeds", default="1,2,3")
    p.add_argument("--methods", default=",".join(METHODS))
    p.add_argument("--jar", default=str(ROOT / "lgc-cli/target/lgc.jar"))
    p.add_argument("--train", type=int, default=12800, help="training examples (Fashion-MNIST's first N)")
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--every", type=int, default=10, help="checkpoint every N steps")
    p.add_argument("--after", type=int, default=50, help="resume from the checkpoint after N steps")
    p.add_argument("--append", action="store_true", help="add these methods' runs to OUT/runs.csv (replacing theirs) instead of replacing the file")
    p.add_argument("--table-only", action="store_true", help="rewrite OUT/table.md from OUT/runs.csv; run nothing")
    a = p.parse_args()
    if a.table_only:
        write_readme(Path(a.out), read_rows(Path(a.out) / "runs.csv"), a)
        return
    out, work, jar = Path(a.out), Path(a.work), Path(a.jar)
    out.mkdir(parents=True, exist_ok=True)
    work.mkdir(parents=True, exist_ok=True)
    log = work / "log.txt"
    rows = []
    for method in a.methods.split(","):
        for seed in [int(s) for s in a.seeds.split(",")]:
            base = work / method / f"s{seed}"
            if base.exists():
                shutil.rmtree(base)
            for k in (4, 3, 5):
                d = base / f"k{k}"
                d.mkdir(parents=True)
                yaml = d / "config.yaml"
                yaml.write_text(config(method, seed, k, d / "results", a.every, a.epochs, a.train, a.batch))
                lgc(jar, "run", str(yaml), log=log)
                acc, steps, workers, loss = summary(only(d / "results"))
                rows.append(dict(method=method, seed=seed, run=f"K = {k} from step 0", workers=workers, steps=steps,
                                 accuracy=acc, loss=loss, memory=""))
            full = only(base / "k4" / "results")
            for k in (3, 5):
                copy = base / f"k4-to-{k}"
                shutil.copytree(full, copy)
                for c in (copy / "checkpoints").iterdir():
                    if int(c.name.split("-")[1]) > a.after:
                        shutil.rmtree(c)
                output = lgc(jar, "run", "--resume", str(copy), "--workers", str(k), log=log)
                acc, steps, workers, loss = summary(copy)
                rows.append(dict(method=method, seed=seed, run=f"K = 4, then {k} after step {a.after}",
                                 workers=workers, steps=steps, accuracy=acc, loss=loss,
                                 memory=memory_means(output or "")))
            print(method, seed, [(r["run"], r["accuracy"]) for r in rows if r["method"] == method
                                 and r["seed"] == seed], flush=True)
    if a.append and (out / "runs.csv").exists():
        again = {r["method"] for r in rows}  # a method run again replaces its old rows
        rows = [r for r in read_rows(out / "runs.csv") if r["method"] not in again] + rows
    with open(out / "runs.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    write_readme(out, rows, a)


def read_rows(path):
    """The rows of a runs.csv this script wrote, with their numbers as numbers."""
    with open(path) as f:
        return [dict(r, seed=int(r["seed"]), steps=int(r["steps"]), workers=int(r["workers"]),
                     accuracy=float(r["accuracy"]), loss=float(r["loss"])) for r in csv.DictReader(f)]


def write_readme(out, rows, a):
    runs = ["K = 4 from step 0", f"K = 4, then 3 after step {a.after}", f"K = 4, then 5 after step {a.after}",
            "K = 3 from step 0", "K = 5 from step 0"]
    lines = ["# Resume at another number of workers: accuracy", "",
             f"Fashion-MNIST's first {a.train:,} training images (test: the first 2,000), tiny-cnn, b = {a.batch} per "
             f"worker, {a.epochs} epochs, in one JVM; a checkpoint every {a.every} steps; the resized runs go on from "
             f"the K = 4 run's checkpoint after step {a.after} (inside epoch 0) with `lgc run --resume DIR --workers "
             "K'`. Final test accuracy, mean ± standard deviation over the seeds "
             f"({a.seeds}); steps in parentheses. Δ: the resized run's accuracy minus the uninterrupted K = 4 run's, "
             "seed by seed, mean ± sd.", "",
             "| method | " + " | ".join(runs) + " | Δ 4→3 | Δ 4→5 |",
             "| --- |" + " ---: |" * (len(runs) + 2)]
    for method in dict.fromkeys(r["method"] for r in rows):
        cells = []
        by_run = {}
        for run in runs:
            rs = [r for r in rows if r["method"] == method and r["run"] == run]
            by_run[run] = {r["seed"]: r["accuracy"] for r in rs}
            accs = [r["accuracy"] for r in rs if r["accuracy"] == r["accuracy"]]
            failed = len(rs) - len(accs)
            steps = sorted({r["steps"] for r in rs})
            cell = (f"{statistics.mean(accs):.4f} ± {spread(accs):.4f} ({'/'.join(map(str, steps))})" if accs
                    else "refused" if not rs else "")
            cells.append(cell + (f"; {failed} of {len(rs)} diverged" if failed else ""))
        for k in (3, 5):
            resized = by_run[f"K = 4, then {k} after step {a.after}"]
            d = [resized[s] - by_run["K = 4 from step 0"][s] for s in resized
                 if resized[s] == resized[s] and by_run["K = 4 from step 0"][s] == by_run["K = 4 from step 0"][s]]
            cells.append(f"{statistics.mean(d):+.4f} ± {spread(d):.4f}" if d else "—")
        lines.append(f"| {method} | " + " | ".join(cells) + " |")
    lines += ["", "Each memory's mean over the ranks of its element sum (Σm / K), before the regroup and after it "
              "(Σm' / K'), as `lgc run --resume --workers` logs it; the rule keeps it to float rounding (seed "
              f"{a.seeds.split(',')[0]}):", "", "| method | K' | memory: before → after |", "| --- | ---: | --- |"]
    first = int(a.seeds.split(",")[0])
    for r in rows:
        if r["seed"] == first and r["memory"]:
            lines.append(f"| {r['method']} | {r['workers']} | {r['memory']} |")
    lines += ["", "Reproduce: `scripts/elastic-accuracy.py` (builds nothing: `bin/lgc --version` first; ~25 min on "
              "2 cores). Raw: [`runs.csv`](runs.csv).", ""]
    (out / "table.md").write_text("\n".join(lines))


def spread(values):
    return statistics.stdev(values) if len(values) > 1 else 0.0


if __name__ == "__main__":
    main()
