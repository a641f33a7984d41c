#!/usr/bin/env python3
"""Issue 17's evidence for the sharded parameter server (seeds/002, Herring): balance and equality, then step time.

    scripts/sharded-ps.py balance --out docs/results/sharded-ps     # in-process, K = 4: bytes per shard, S = 1..4
    scripts/sharded-ps.py tcp     --out docs/results/sharded-ps     # lgc launch, K = 4: ring vs PS S = 1 vs S = 4

balance: the small CNN on Fashion-MNIST, K = 4 x 32, 24 steps (8 FULL, then 16 compressed at 0.1%) for dense and
every compressor a sharded server carries (topk, dgc, scalecom, randomk), at S = 1, 2, 3, 4 with Herring's balanced
fusion buffers (default 1 MiB), at S = 2 and 4 with every parameter block split evenly (shardBy: blocks) and, for
contrast, at S = 2 and 4 with every layer whole on one shard (shardBy: layers). For each run:
the bytes every shard received and sent per stage (from metrics.csv, the meter's per-endpoint columns), max/min over
the shards, and whether the run equals the S = 1 run (replica checksum, every step's loss).

tcp: lgc launch --nproc 4 (one process per rank and per shard, loopback TCP, unshaped), 40 dense steps of the small CNN:
dense ring, dense PS S = 1, S = 4 by buffers, S = 4 by layers; the mean step time, rank 0's communicate time, and the
bytes per step on every link end (each worker, each shard). All processes share this machine's two cores.

Writes <out>/balance.md|csv and <out>/tcp.md|csv with the configs; resumable (a run whose summary.json exists is kept).
"""
import argparse
import csv
import json
import os
import pathlib
import platform
import subprocess
import sys
import time

import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent
JAR = ROOT / "lgc-cli/target/lgc.jar"

BASE = {
    "run": {"seed": 1},
    "data": {"testLimit": 1000, "preprocessing": "standardize"},
    "model": {"name": "small-cnn", "updater": {"type": "sgd", "learningRate": 0.05}},
    "training": {"workers": 4, "batchSizePerWorker": 32, "epochs": 1, "maxSteps": 24, "evalEverySteps": 24},
    "stages": {"fullIterations": 8},
}

METHODS = {
    "dense": {"type": "none"},
    "topk": {"type": "topk", "ratio": 0.001},
    "dgc": {"type": "dgc", "ratio": 0.001},
    "scalecom": {"type": "scalecom", "ratio": 0.001},
    "randomk": {"type": "randomk", "ratio": 0.001},
    "lgc": {"type": "lgc", "ratio": 0.001},
}


def config(name, compressor, servers, shard_by="buffers", steps=24, full=8):
    c = json.loads(json.dumps(BASE))
    c["run"]["name"] = name
    c["training"]["maxSteps"] = steps
    c["training"]["evalEverySteps"] = steps
    c["stages"]["fullIterations"] = full
    if compressor["type"] == "lgc":
        c["stages"]["aeTrainingIterations"] = 8  # 8 FULL, 8 TOP_K, 8 COMPRESSED
        c["model"]["updater"] = {"type": "nesterovs", "learningRate": 0.05, "momentum": 0.9}
        c["autoencoder"] = {"optimizer": "adam", "learningRate": 0.001, "lambdaSim": 0.0}
    c["topology"] = {"type": "ps", "servers": servers, "shardBy": shard_by}
    c["compressor"] = compressor
    return c


def run_dir(base):
    dirs = [d for d in base.iterdir() if d.is_dir()] if base.exists() else []
    done = [d for d in dirs if (d / "summary.json").exists()]
    return done[0] if done else None


def train(work, name, cfg, launch=0, extra=()):
    base = work / name
    found = run_dir(base)
    if found:
        return found
    base.mkdir(parents=True, exist_ok=True)
    path = base / (name + ".yaml")
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    env = dict(os.environ, OMP_NUM_THREADS="1")
    if launch:
        cmd = ["java", "-Xmx1g", "-jar", str(JAR), "launch", "--nproc", str(launch), str(path),
               "--output-dir", str(base), *extra]
    else:
        cmd = ["java", "-Xmx4g", "-Dorg.bytedeco.javacpp.maxbytes=6G", "-Dorg.bytedeco.javacpp.maxphysicalbytes=10G",
               "-jar", str(JAR), "run", str(path), "--output-dir", str(base), "--no-progress"]
    with open(base / "log.txt", "w") as log:
        code = subprocess.call(cmd, stdout=log, stderr=subprocess.STDOUT, env=env)
    if code != 0:
        sys.exit("%s failed (exit %d), see %s" % (name, code, base / "log.txt"))
    return run_dir(base)


def metrics(d):
    with open(d / "metrics.csv") as f:
        return list(csv.DictReader(f))


def shard_bytes(rows, shards, stage, direction):
    return [sum(int(r["bytes_%s_s%d" % (direction, s)]) for r in rows if r["stage"] == stage) for s in range(shards)]


def ratio(values):
    return max(values) / min(values) if min(values) > 0 else float("inf")


def balance(out, work):
    rows = []
    references = {}
    plan = [(m, s, "buffers") for m in METHODS for s in (1, 2, 3, 4)]
    plan += [(m, s, "layers") for m in ("dense", "topk", "dgc") for s in (2, 4)]
    plan += [(m, s, "blocks") for m in ("dense", "topk", "dgc", "scalecom", "lgc") for s in (2, 4)]
    for method, servers, shard_by in plan:
        name = "%s-s%d-%s" % (method, servers, shard_by)
        d = train(work, name, config(name, METHODS[method], servers, shard_by))
        summary = json.loads((d / "summary.json").read_text())
        m = metrics(d)
        losses = [r["loss"] for r in m]
        if servers == 1:
            references[method] = (summary["replicaChecksums"][0], losses, summary["finalTestAccuracy"])
        ref = references[method]
        same = summary["replicaChecksums"][0] == ref[0] and losses == ref[1]
        row = {"method": method, "S": servers, "placement": shard_by}
        for stage in ("FULL", "TOP_K", "COMPRESSED"):
            steps = sum(1 for r in m if r["stage"] == stage)
            received = shard_bytes(m, servers, stage, "received")
            row[stage + " received per shard (B/step)"] = " / ".join("%d" % (b / steps) for b in received) \
                if steps else "-"
            row[stage + " max/min"] = "%.3f" % ratio(received) if steps else "-"
        row["test accuracy"] = "%.4f" % summary["finalTestAccuracy"]
        row["equals S = 1"] = "yes" if same else "NO"
        rows.append(row)
        print(name, row["FULL max/min"], row["TOP_K max/min"], row["COMPRESSED max/min"], row["equals S = 1"],
              flush=True)
    write(out, "balance", rows, "Bytes per shard, in process, K = 4 (small CNN, Fashion-MNIST, 8 FULL + 16 compressed"
          " steps at 0.1% — LGC: 8 TOP_K + 8 COMPRESSED —, seed 1)")


def tcp(out, work):
    rows = []
    runs = [("dense-ring", {"type": "ring"}, []), ("dense-ps-s1", {"type": "ps", "servers": 1}, []),
            ("dense-ps-s4", {"type": "ps", "servers": 4}, []),
            ("dense-ps-s4-colocated", {"type": "ps", "servers": 4}, ["--colocate"]),
            ("dense-ps-s4-layers", {"type": "ps", "servers": 4, "shardBy": "layers"}, [])]
    for name, topology, extra in runs:
        cfg = config(name, {"type": "none"}, 1, steps=40, full=40)
        cfg["topology"] = topology
        d = train(work, name, cfg, launch=4, extra=extra)
        summary = json.loads((d / "summary.json").read_text())
        m = metrics(d)[5:]  # the first steps warm the JVMs up
        steps = len(m)
        endpoints = len(summary["bytesSentPerEndpoint"])
        per_end = []
        for e in range(endpoints):
            tag = "w%d" % e if e < 4 else "s%d" % (e - 4)
            per_end.append("%s %.2f/%.2f" % (tag, sum(int(r["bytes_sent_" + tag]) for r in m) / steps / 1e6,
                                            sum(int(r["bytes_received_" + tag]) for r in m) / steps / 1e6))
        rows.append({
            "run": name, "endpoints": endpoints, "processes": 4 if "--colocate" in extra else endpoints,
            "step wall (ms, mean)": "%.0f" % (sum(float(r["wall_ms"]) for r in m) / steps),
            "rank 0 compute (ms)": "%.0f" % (sum(float(r["compute_ms"]) for r in m) / steps),
            "rank 0 communicate (ms)": "%.0f" % (sum(float(r["communicate_ms"]) for r in m) / steps),
            "MB sent/received per step, by endpoint": ", ".join(per_end),
            "replica checksum": summary["replicaChecksums"][0][:12],
        })
        print(name, rows[-1]["step wall (ms, mean)"], rows[-1]["rank 0 communicate (ms)"], flush=True)
    # LGC-PS on 2 shard processes over TCP against the in-process one-server run of the balance table
    lgc = train(work, "lgc-tcp-s2", config("lgc-tcp-s2", METHODS["lgc"], 2), launch=4)
    one = run_dir(work / "lgc-s1-buffers")
    if one:
        a = json.loads((lgc / "summary.json").read_text())
        b = json.loads((one / "summary.json").read_text())
        same = a["replicaChecksums"] == b["replicaChecksums"] and a["finalLoss"] == b["finalLoss"]
        print("lgc-ps over TCP on 2 shards equals in-process one server:", same, a["replicaChecksums"][0],
              b["replicaChecksums"][0], flush=True)
        (out / "lgc-tcp.txt").write_text("LGC-PS, K = 4, 2 shard processes over TCP (lgc launch --nproc 4) against the"
                                         " in-process one-server run: replica checksums %s vs %s, final loss %r vs %r:"
                                         " %s\n" % (a["replicaChecksums"][0], b["replicaChecksums"][0], a["finalLoss"],
                                                     b["finalLoss"], "equal" if same else "DIFFERENT"))
    write(out, "tcp", rows, "Dense step over loopback TCP, lgc launch --nproc 4 (small CNN, 40 FULL steps, the first 5"
          " dropped; every process on this machine's 2 cores)")


def write(out, name, rows, title):
    out.mkdir(parents=True, exist_ok=True)
    with open(out / (name + ".csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout
    dirty = subprocess.run(["git", "status", "--porcelain"], cwd=ROOT, capture_output=True, text=True).stdout
    lines = ["# " + title, "",
             "| " + " | ".join(rows[0]) + " |", "|" + " --- |" * len(rows[0])]
    lines += ["| " + " | ".join(str(v) for v in r.values()) + " |" for r in rows]
    lines += ["", "Provenance: commit %s%s, %s, %s cores, load average %s at the end, %s; `scripts/sharded-ps.py %s`." % (
        commit.strip(), " (dirty)" if dirty.strip() else "", platform.platform(), os.cpu_count(),
        " ".join("%.2f" % x for x in os.getloadavg()), time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), name)]
    (out / (name + ".md")).write_text("\n".join(lines) + "\n")


def main():
    global JAR
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("what", choices=["balance", "tcp"])
    p.add_argument("--out", default=str(ROOT / "docs/results/sharded-ps"))
    p.add_argument("--work", default="/tmp/sharded-ps-runs")
    p.add_argument("--jar", default=str(JAR), help="the lgc jar (default: this tree's; a copy keeps a rebuild out)")
    a = p.parse_args()
    JAR = pathlib.Path(a.jar)
    if not JAR.exists():
        sys.exit("build first: mvn -B -q -DskipTests package (or run bin/lgc once)")
    {"balance": balance, "tcp": tcp}[a.what](pathlib.Path(a.out), pathlib.Path(a.work))


if __name__ == "__main__":
    main()
