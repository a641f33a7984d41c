#!/usr/bin/env python3
"""Elastic launch under faults: every injection SIGKILLs one random worker process of a running
`lgc launch --nproc 4 --min-nproc 2 --max-restarts 3 --rejoin-after R` job at a random step; the job must go on with
the workers left and grow back once the slot is back. Per injection: did it finish, the K of each attempt, the steps
done again (the kill's step minus the step of the checkpoint the restart resumed), the final accuracy beside the same
config's uninterrupted run at K = 4 (in one JVM, once per method and seed). Writes OUT/table.md and OUT/runs.csv.

Usage: scripts/elastic-campaign.py [--injections 20] [--seed 1] [--out DIR] [--jar lgc-cli/target/lgc.jar]
"""
import argparse
import csv
import json
import os
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
METHODS = {
    "dense-ps": "topology: {type: ps}\n",
    "dense-ring": "topology: {type: ring}\n",
    "topk": "topology: {type: ring}\ncompressor: {type: topk, ratio: 0.01}\nstages: {fullIterations: 10}\n",
    "dgc": "topology: {type: ps}\ncompressor: {type: dgc, ratio: 0.01, momentum: 0.9}\nstages: {fullIterations: 10}\n",
    "powersgd": "topology: {type: ps}\ncompressor: {type: powersgd, rank: 2}\nstages: {fullIterations: 10}\n",
}
K = 4
EVERY = 10


def config(method, seed, out, train):
    updater = ("{type: sgd, learningRate: 0.05}" if method == "dgc"
               else "{type: nesterovs, learningRate: 0.05, momentum: 0.9}")
    return (f"run: {{name: {method}-s{seed}, seed: {seed}, outputDir: {out}}}\n"
            f"data: {{trainLimit: {train}, testLimit: 2000}}\n"
            f"model: {{name: tiny-cnn, updater: {updater}}}\n"
            f"training: {{workers: {K}, batchSizePerWorker: 32, epochs: 2, evalEverySteps: 0,"
            f" checkpointEverySteps: {EVERY}}}\n" + METHODS[method])


def processes(launcher):
    """pid -> LGC_RANK of the launcher's children that have one."""
    found = {}
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(launcher.pid)], capture_output=True, text=True).stdout
    for pid in [int(p) for p in out.split()]:
        try:
            env = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        except OSError:
            continue
        for e in env:
            if e.startswith(b"LGC_RANK="):
                found[pid] = int(e[len(b"LGC_RANK="):])
    return found


def steps_written(results):
    dirs = [d for d in results.iterdir() if d.is_dir()] if results.exists() else []
    if not dirs or not (dirs[0] / "metrics.csv").exists():
        return -1
    return len((dirs[0] / "metrics.csv").read_text().splitlines()) - 1


def uninterrupted(jar, method, seed, work, train, cache):
    key = (method, seed)
    if key not in cache:
        d = work / "reference" / f"{method}-s{seed}"
        shutil.rmtree(d, ignore_errors=True)
        d.mkdir(parents=True)
        (d / "config.yaml").write_text(config(method, seed, d / "results", train))
        subprocess.run(["java", "-Xmx2g", "-jar", str(jar), "run", str(d / "config.yaml"), "--no-progress"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        run = next(x for x in (d / "results").iterdir() if x.is_dir())
        s = json.loads((run / "summary.json").read_text())
        cache[key] = (s["finalTestAccuracy"], s["steps"])
    return cache[key]


def inject(a, jar, work, i, rng, cache):
    method = rng.choice(list(METHODS))
    seed = rng.randrange(1, 4)
    d = work / f"{i:02d}-{method}"
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True)
    (d / "config.yaml").write_text(config(method, seed, d / "results", a.train))
    kill_at = rng.randrange(12, 80)
    victim = rng.randrange(K)
    cmd = ["java", "-Xmx256m", "-jar", str(jar), "launch", "--nproc", str(K), "--min-nproc", "2", "--max-restarts",
           "3", "--rejoin-after", str(a.rejoin), str(d / "config.yaml"), "--java-opts",
           "-Xmx768m -Dorg.bytedeco.javacpp.maxbytes=1G", "--no-progress"]
    log = d / "launch.log"
    started = time.time()
    with open(log, "w") as f:
        p = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT, env=dict(os.environ, OMP_NUM_THREADS="1"))
        killed_step = None
        while p.poll() is None and time.time() - started < a.timeout:
            if killed_step is None:
                done = steps_written(d / "results")
                if done >= kill_at:
                    target = [pid for pid, r in processes(p).items() if r == victim]
                    if target:
                        os.kill(target[0], signal.SIGKILL)
                        killed_step = done
            time.sleep(0.1)
        if p.poll() is None:
            p.kill()
            p.wait()
    text = log.read_text(errors="replace")
    ks = [K] + [int(k) for k in re.findall(r"(?:restart \d+ of \d+ at K = |every process again at K = )(\d+)", text)]
    resumed = [int(s) for s in re.findall(r"from the checkpoint after (\d+) steps", text)]
    redone = killed_step - resumed[0] if killed_step is not None and resumed else None
    runs = [x for x in (d / "results").iterdir() if x.is_dir()] if (d / "results").exists() else []
    summary = json.loads((runs[0] / "summary.json").read_text()) if runs and (runs[0] / "summary.json").exists() \
        else None
    ref_acc, ref_steps = uninterrupted(jar, method, seed, work, a.train, cache)
    return dict(injection=i, method=method, seed=seed, victim=f"rank {victim}", killed_after_step=killed_step,
                finished=p.returncode == 0 and summary is not None, exit=p.returncode,
                ks=" → ".join(map(str, ks)), redone=redone,
                steps=summary["steps"] if summary else None, accuracy=summary["finalTestAccuracy"] if summary else None,
                uninterrupted_steps=ref_steps, uninterrupted_accuracy=ref_acc,
                seconds=round(time.time() - started, 1), log=str(log))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--injections", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rejoin", type=int, default=8, help="seconds until a lost slot is back")
    ap.add_argument("--train", type=int, default=6400)
    ap.add_argument("--timeout", type=int, default=600)
    ap.add_argument("--out", default=str(ROOT / "docs/results/elastic/campaign"))
    ap.add_argument("--work", default="/tmp/lgc-elastic-campaign")
    ap.add_argument("--jar", default=str(ROOT / "lgc-cli/target/lgc.jar"))
    a = ap.parse_args()
    rng = random.Random(a.seed)
    work, out = Path(a.work), Path(a.out)
    work.mkdir(parents=True, exist_ok=True)
    out.mkdir(parents=True, exist_ok=True)
    rows, cache = [], {}
    for i in range(1, a.injections + 1):
        r = inject(a, Path(a.jar), work, i, rng, cache)
        rows.append(r)
        print(json.dumps(r), flush=True)
    with open(out / "runs.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=[k for k in rows[0] if k != "log"], extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    finished = [r for r in rows if r["finished"]]
    deltas = [r["accuracy"] - r["uninterrupted_accuracy"] for r in finished]
    redone = [r["redone"] for r in rows if r["redone"] is not None]
    lines = ["# Elastic launch under faults", "",
             f"{a.injections} injections (campaign seed {a.seed}): each SIGKILLs one random worker process of `lgc launch "
             f"--nproc {K} --min-nproc 2 --max-restarts 3 --rejoin-after {a.rejoin}` at a random step (12–79) of a "
             f"two-epoch run (Fashion-MNIST's first {a.train:,} images, tiny-cnn, b = 32, a checkpoint every {EVERY} "
             "steps; one of dense PS, dense ring, top-k on a ring, DGC and PowerSGD on a PS; data seed 1–3). "
             "Compared with the same config run uninterrupted at K = 4 in one JVM.", "",
             f"- **finished: {len(finished)} of {len(rows)}**",
             f"- steps done again per failure: " + (f"median {statistics.median(redone)}, max {max(redone)} "
                                                     f"(at most {EVERY - 1} + the steps before the kill was seen)"
                                                     if redone else "none"),
             "- final accuracy minus the uninterrupted run's: " + (f"mean {statistics.mean(deltas):+.4f}, min "
                                                                  f"{min(deltas):+.4f}, max {max(deltas):+.4f}"
                                                                  if deltas else "—"), "",
             "| # | method | victim | killed after step | K per attempt | redone | steps (uninterrupted) | accuracy "
             "(uninterrupted) | finished |", "| ---: | --- | --- | ---: | --- | ---: | --- | --- | --- |"]
    for r in rows:
        acc = f"{r['accuracy']:.4f}" if r["accuracy"] is not None else "—"
        lines.append(f"| {r['injection']} | {r['method']} (seed {r['seed']}) | {r['victim']} | "
                     f"{r['killed_after_step']} | {r['ks']} | {r['redone']} | {r['steps']} ({r['uninterrupted_steps']})"
                     f" | {acc} ({r['uninterrupted_accuracy']:.4f}) | {'yes' if r['finished'] else 'NO'} |")
    lines += ["", "Reproduce: `scripts/elastic-campaign.py --injections 20` (~25 min on 2 cores). Raw: "
              "[`runs.csv`](runs.csv).", ""]
    (out / "table.md").write_text("\n".join(lines))
    sys.exit(0 if len(finished) == len(rows) else 1)


if __name__ == "__main__":
    main()
