#!/usr/bin/env python3
"""The fault campaign: randomized faults injected into launched runs, and whether `lgc launch` names the process whose
own failure came first and every process stops within 10 s.

Each injection draws a launch mode (program: `lgc launch -- java ... FaultProgram`; config: `lgc launch CONFIG`), a
method (dense PS, DGC, LGC-PS, LGC-RAR), where the parameter server runs (inside the workers, or a process of its own)
and a fault:
  kill9   SIGKILL of one process (a worker, or the server process) 1-5 s into training
  sigstop SIGSTOP of one process 1-5 s into training (the launcher must kill it)
  badrow  a row that is not a number in one rank's share of the CSV files (refused before step 0 by the data check)
  throw   program mode: the model throws on one rank at a random step
and records who the launcher named, the expected process, and the seconds from the fault (or the culprit's exit) to the
launcher's exit. Data: 4,096 rows of Fashion-MNIST as CSV (784 features, label last), written once.

    scripts/fault-campaign.py --out /tmp/faults --n 56 --seed 1
    scripts/fault-campaign.py --out /tmp/faults --n 4 --only-mode program   # a quick look

Writes OUT/campaign.csv (one row per injection) and OUT/campaign.md (the table by mode and fault); each injection's
launcher output is kept in OUT/logs/.
"""
import argparse
import csv
import gzip
import os
import pathlib
import random
import re
import shutil
import signal
import struct
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
ROWS = 4096
K = 2


def write_csv(out_dir, source="/usr/share/datasets/fashion-mnist"):
    """ROWS rows of Fashion-MNIST's training split as CSV: 784 pixels / 255 with 4 decimals, then the label."""
    path = out_dir / "good" / "part-0.csv"
    if path.exists():
        return path.parent
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(os.path.join(source, "train-images-idx3-ubyte.gz"), "rb") as f:
        _, n, rows, cols = struct.unpack(">IIII", f.read(16))
        images = f.read(ROWS * rows * cols)
    with gzip.open(os.path.join(source, "train-labels-idx1-ubyte.gz"), "rb") as f:
        f.read(8)
        labels = f.read(ROWS)
    with open(path, "w") as out:
        for i in range(ROWS):
            px = images[i * 784:(i + 1) * 784]
            out.write(",".join("%.4f" % (b / 255) for b in px) + "," + str(labels[i]) + "\n")
    return path.parent


def bad_copy(good, out_dir, rank, rng):
    """A copy of the data whose row in rank's share (of K, by row number) has a field that is not a number."""
    bad = out_dir / "bad"
    shutil.rmtree(bad, ignore_errors=True)
    bad.mkdir(parents=True)
    lines = (good / "part-0.csv").read_text().splitlines()
    row = rng.randrange(ROWS * rank // K, ROWS * (rank + 1) // K)
    fields = lines[row].split(",")
    column = rng.randrange(784)
    fields[column] = "0.1x"
    lines[row] = ",".join(fields)
    (bad / "part-0.csv").write_text("\n".join(lines) + "\n")
    return bad, row, column


def config_yaml(path, data_dir, method, separate):
    compressor = {
        "dense-ps": "",
        "dgc": "compressor: {type: dgc, ratio: 0.01, momentum: 0.9}\nstages: {fullIterations: 4}\n",
        "lgc-ps": "compressor: {type: lgc, ratio: 0.05}\nstages: {fullIterations: 4, aeTrainingIterations: 8}\n",
        "lgc-rar": "compressor: {type: lgc, ratio: 0.05}\nstages: {fullIterations: 4, aeTrainingIterations: 8}\n",
    }[method]
    topology = "ring" if method == "lgc-rar" else "ps"
    path.write_text(
        "run: {name: fault, seed: 42, outputDir: %s}\n" % (path.parent / "results")
        + "data: {dataset: csv, path: %s, source: files, csv: {labelColumn: 784, classes: 10}}\n" % data_dir
        + "model: {name: tiny-cnn, updater: {type: sgd, learningRate: 0.05}}\n"
        + "training: {workers: %d, batchSizePerWorker: 32, epochs: 1000, evalEverySteps: 0}\n" % K
        + "topology: {type: %s}\n" % topology + compressor)


def processes(launcher):
    """pid -> LGC_RANK of the launcher's descendants that have one."""
    found = {}
    try:
        out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(launcher.pid)], capture_output=True, text=True).stdout
    except OSError:
        return found
    for pid in [int(p) for p in out.split()]:
        try:
            env = pathlib.Path("/proc/%d/environ" % pid).read_bytes().split(b"\0")
        except OSError:
            continue
        for e in env:
            if e.startswith(b"LGC_RANK="):
                found[pid] = int(e[len(b"LGC_RANK="):])
    return found


def inject(args, cp, data_good, out_dir, i, rng):
    mode = rng.choice(args.modes)
    method = rng.choice(["dense-ps", "dgc", "lgc-ps", "lgc-rar"])
    separate = method != "lgc-rar" and rng.random() < 0.5
    faults = ["kill9", "sigstop", "badrow"] + (["throw"] if mode == "program" else [])
    fault = rng.choice(faults)
    endpoints = K + (1 if separate else 0)
    victim = rng.randrange(endpoints) if fault in ("kill9", "sigstop") else rng.randrange(K)
    data = data_good
    detail = ""
    if fault == "badrow":
        data, row, column = bad_copy(data_good, out_dir, victim, rng)
        detail = "row %d column %d" % (row, column)
    java = shutil.which("java") or "java"
    launch = [java, "-Xmx256m", "-cp", cp, "io.lgc4j.cli.LgcCommand", "launch", "--nproc", str(K)]
    if mode == "program":
        if separate:
            launch += ["--servers", "1"]
        program = [java, "-Xmx384m", "-Dorg.bytedeco.javacpp.maxbytes=1G", "-cp", cp,
                   "io.lgc4j.cli.faults.FaultProgram", str(data), method, "1000"]
        if fault == "throw":
            step = rng.randrange(5, 40)
            program += [str(victim), str(step)]
            detail = "step %d" % step
        launch += ["--"] + program
    else:
        cfg = out_dir / "configs" / ("fault-%d.yaml" % i)
        cfg.parent.mkdir(parents=True, exist_ok=True)
        config_yaml(cfg, data, method, separate)
        launch += [str(cfg), "--java-opts", "-Xmx384m -Dorg.bytedeco.javacpp.maxbytes=1G"]
        if not separate and method != "lgc-rar":
            launch += ["--colocate"]
    log_path = out_dir / "logs" / ("%02d-%s-%s-%s-%s.log" % (i, mode, method, "separate" if separate else "inside",
                                                              fault))
    log_path.parent.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, OMP_NUM_THREADS="1")
    with open(log_path, "w") as log:
        started = time.time()
        p = subprocess.Popen(launch, stdout=log, stderr=subprocess.STDOUT, env=env)
        injected_at = None
        exits = {}
        last_seen = {}
        while p.poll() is None and time.time() - started < args.timeout:
            for pid, rank in processes(p).items():
                last_seen[rank] = pid
            if fault in ("kill9", "sigstop") and injected_at is None:
                text = log_path.read_text(errors="replace")
                if text.count(" joined job ") >= endpoints:
                    time.sleep(rng.uniform(1, 5))
                    pid = processes(p)
                    target = [q for q, r in pid.items() if r == victim]
                    if target and p.poll() is None:
                        os.kill(target[0], signal.SIGKILL if fault == "kill9" else signal.SIGSTOP)
                        injected_at = time.time()
            for rank, pid in last_seen.items():
                if rank not in exits and not os.path.exists("/proc/%d" % pid):
                    exits[rank] = time.time()
            time.sleep(0.05)
        if p.poll() is None:
            p.kill()
            p.wait()
        ended = time.time()
    text = log_path.read_text(errors="replace")
    named = re.search(r"lgc launch: (rank \d+|server(?: \d+)?) failed first", text)
    named = named.group(1) if named else ("(none: timed out)" if ended - started >= args.timeout else "(none)")
    if separate and victim == K:
        expected = "server"
    else:
        expected = "rank %d" % victim
    if fault in ("kill9", "sigstop"):
        since = injected_at
    else:
        since = exits.get(victim, ended)
    stop_s = ended - since if since else float("nan")
    server = "none (ring)" if method == "lgc-rar" else "own process" if separate else "in the workers"
    return dict(injection=i, mode=mode, method=method, server=server, fault=fault,
                victim=expected, detail=detail, named=named, right=named == expected,
                stopped_s="%.1f" % stop_s, within_10s=stop_s <= 10, exit=p.returncode, log=str(log_path))


def table(rows):
    lines = ["| mode | fault | injections | named right | stopped <= 10 s | slowest stop (s) |",
             "| --- | --- | ---: | ---: | ---: | ---: |"]
    keys = sorted({(r["mode"], r["fault"]) for r in rows})
    for mode, fault in keys + [("all", "all")]:
        sel = [r for r in rows if (mode == "all" or r["mode"] == mode) and (fault == "all" or r["fault"] == fault)]
        slow = max(float(r["stopped_s"]) for r in sel)
        lines.append("| %s | %s | %d | %d | %d | %.1f |" % (mode, fault, len(sel), sum(r["right"] for r in sel),
                                                        sum(r["within_10s"] for r in sel), slow))
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=56)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--jar", default=str(ROOT / "lgc-cli/target/lgc.jar"))
    ap.add_argument("--only-mode", choices=["program", "config"])
    args = ap.parse_args()
    args.modes = [args.only_mode] if args.only_mode else ["program", "config"]
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    jar = pathlib.Path(args.jar)
    cp = "%s:%s/*" % (jar, jar.parent / "lib")
    good = write_csv(out)
    rng = random.Random(args.seed)
    rows = []
    for i in range(args.n):
        r = inject(args, cp, good, out, i, rng)
        rows.append(r)
        print("%2d %-7s %-8s %-13s %-7s expected %-7s named %-9s %s stop %5s s" % (
            i, r["mode"], r["method"], r["server"], r["fault"], r["victim"], r["named"],
            "right" if r["right"] else "WRONG", r["stopped_s"]), flush=True)
    with open(out / "campaign.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    (out / "campaign.md").write_text(table(rows))
    print(table(rows))


if __name__ == "__main__":
    sys.exit(main())
