#!/usr/bin/env python3
"""Refactoring guard: what every shipped config computes on a short budget that crosses all stages.

Runs each config in configs/ (and variants that reach the other code paths: every compressor on both topologies,
LGC-PS with its own support and with a drift guard that trips, LGC's control runs, both models) for 60 steps with
20 FULL and 20 TOP_K steps, then writes one fingerprint per run: the non-timing columns of metrics.csv, the bytes per
endpoint and per stage and kind from summary.json, and the replica checksums. Two fingerprint directories compare
with --compare.

    scripts/fingerprint.py run  --jar lgc-cli/target/lgc.jar --out /tmp/fp-before
    scripts/fingerprint.py run  --jar lgc-cli/target/lgc.jar --out /tmp/fp-after
    scripts/fingerprint.py compare /tmp/fp-before /tmp/fp-after [--header-bytes-per-frame 20:32]
    scripts/fingerprint.py run  --launch 4 --parallel 1 --out /tmp/fp-tcp    # one process per rank over TCP
    scripts/fingerprint.py run  --set model.compute.oneDnn=false --set model.compute.cacheMode=none --out /tmp/fp-dl4j
        # DL4J's own compute path: what every run computed before the oneDNN path was the default (0 differ)

--header-bytes-per-frame OLD:NEW allows exactly one difference: every frame's header growing from OLD to NEW bytes
(a frame header change); every other byte and every other column must be identical.
"""
import argparse
import concurrent.futures
import json
import os
import pathlib
import subprocess
import sys
import shutil
import tempfile

import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent

# variant name -> (base config, changes merged into it)
VARIANTS = {
    "sparse-gd-ring": ("sparse-gd", {"topology": {"type": "ring"}}),
    "dgc-ring": ("dgc", {"topology": {"type": "ring"}}),
    "scalecom-ps": ("scalecom", {"topology": {"type": "ps"}}),
    "s2-ps": ("s2", {"topology": {"type": "ps"}}),
    "randomk-ps": ("randomk", {"topology": {"type": "ps"}}),
    "powersgd-ps": ("powersgd", {"topology": {"type": "ps"}}),
    "dense-ps-4-shards": ("dense-ps", {"topology": {"servers": 4}}),
    "dgc-3-shards": ("dgc", {"topology": {"servers": 3}}),
    "scalecom-ps-2-shards": ("scalecom", {"topology": {"type": "ps", "servers": 2}}),
    "sparse-gd-learned-ratio": ("sparse-gd", {"compressor": {"learnedRatio": 0.004}}),
    "topk-rice-ps": ("sparse-gd", {"compressor": {"codec": "rice"}}),
    "lgc-ps-own": ("lgc-ps", {"topology": {"support": "own"}}),
    "lgc-ps-guard-trips": ("lgc-ps", {"autoencoder": {"driftBound": 0.05, "driftWindow": 1, "checkEvery": 5}}),
    "lgc-rar-guard-trips": ("lgc-rar", {"autoencoder": {"driftBound": 0.05, "driftWindow": 1, "checkEvery": 5}}),
    "lgc-ps-guard-recovers": ("lgc-ps", {"autoencoder": {"driftBound": 0.7, "driftWindow": 1, "checkEvery": 5}}),
    "lgc-rar-guard-recovers": ("lgc-rar", {"autoencoder": {"driftBound": 0.7, "driftWindow": 1, "checkEvery": 5}}),
    "lgc-ps-resnet": ("lgc-ps", {"model": {"name": "small-resnet"}}),
    "lgc-rar-resnet": ("lgc-rar", {"model": {"name": "small-resnet"}}),
    "lgc-rar-feedback": ("lgc-rar", {"autoencoder": {"reconstructionFeedback": True}}),
    "lgc-ps-innovation-only": ("lgc-ps", {"autoencoder": {"ablation": "innovation-only"}}),
    "lgc-ps-latent-only": ("lgc-ps", {"autoencoder": {"ablation": "latent-only"}}),
    "lgc-rar-zero-latent": ("lgc-rar", {"autoencoder": {"ablation": "zero-latent"}}),
}

SHORT = {
    "training": {"maxSteps": 60, "evalEverySteps": 30},
    "data": {"testLimit": 1000},
    "stages": {"fullIterations": 20, "aeTrainingIterations": 20},
}


def merge(base, changes):
    out = dict(base)
    for key, value in changes.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge(out[key], value)
        else:
            out[key] = value
    return out


def configs():
    runs = {}
    for path in sorted((ROOT / "configs").glob("*.yaml")):
        runs[path.stem] = yaml.safe_load(path.read_text())
    for name, (base, changes) in VARIANTS.items():
        runs[name] = merge(runs[base], changes)
    return runs


def fingerprint(run_dir):
    lines = (run_dir / "metrics.csv").read_text().splitlines()
    header = lines[0].split(",")
    keep = [i for i, col in enumerate(header) if not col.endswith("_ms")]
    rows = [",".join(line.split(",")[i] for i in keep) for line in lines]
    summary = json.loads((run_dir / "summary.json").read_text())
    by_stage = {}
    for stage, values in summary["bytesByStage"].items():
        by_stage[stage] = {k: v for k, v in values.items() if k != "meanPhaseTimesPerStep"}
    return {
        "metrics": rows,
        "finalTestAccuracy": summary["finalTestAccuracy"],
        "finalLoss": summary["finalLoss"],
        "bytesSentPerEndpoint": summary["bytesSentPerEndpoint"],
        "bytesReceivedPerEndpoint": summary["bytesReceivedPerEndpoint"],
        "bytesByStage": by_stage,
        "replicaChecksums": summary["replicaChecksums"],
    }


def dotted(assignments):
    """--set key.path=value (value read as YAML) as a nested dict to merge into every config."""
    out = {}
    for a in assignments or []:
        key, _, value = a.partition("=")
        node = out
        parts = key.split(".")
        for part in parts[:-1]:
            node = node.setdefault(part, {})
        node[parts[-1]] = yaml.safe_load(value)
    return out


def run_one(jar, out, name, config, launch=0, extra=None):
    config = merge(merge(config, SHORT), extra or {})
    config["run"] = dict(config.get("run", {}), name=name)
    work = pathlib.Path(tempfile.mkdtemp(prefix="fp-" + name + "-"))
    cfg = work / (name + ".yaml")
    cfg.write_text(yaml.safe_dump(config, sort_keys=False))
    env = dict(os.environ, OMP_NUM_THREADS=os.environ.get("OMP_NUM_THREADS", "1"))
    if launch:
        # one OS process per rank (and the server) over loopback TCP; the workers count comes from --nproc
        cmd = ["java", "-Xmx1g", "-jar", str(jar), "launch", "--nproc", str(launch), str(cfg),
               "--output-dir", str(work / "results")]
    else:
        cmd = ["java", "-Xmx4g", "-Dorg.bytedeco.javacpp.maxbytes=6G", "-Dorg.bytedeco.javacpp.maxphysicalbytes=10G",
               "-jar", str(jar), "run", str(cfg), "--output-dir", str(work / "results"), "--no-progress"]
    log = out / (name + ".log")
    with open(log, "w") as f:
        code = subprocess.call(cmd, stdout=f, stderr=subprocess.STDOUT, env=env)
    if code != 0:
        return name, "exit %d, see %s (its files kept in %s)" % (code, log, work)
    run_dir = next((work / "results").iterdir())
    (out / (name + ".json")).write_text(json.dumps(fingerprint(run_dir), indent=1, sort_keys=True) + "\n")
    shutil.rmtree(work)
    return name, "ok"


def run(args):
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    todo = {k: v for k, v in configs().items() if not args.only or k in args.only}
    failed = False
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.parallel) as pool:
        futures = [pool.submit(run_one, pathlib.Path(args.jar).resolve(), out, k, v, args.launch, dotted(args.set))
                   for k, v in todo.items()]
        for fut in concurrent.futures.as_completed(futures):
            name, status = fut.result()
            failed |= status != "ok"
            print("%-22s %s" % (name, status), flush=True)
    return 1 if failed else 0


def compare(args):
    a, b = pathlib.Path(args.before), pathlib.Path(args.after)
    old, new = (int(x) for x in args.header_bytes_per_frame.split(":")) if args.header_bytes_per_frame else (0, 0)
    names = sorted(p.stem for p in a.glob("*.json"))
    bad = 0
    for name in names:
        pb = b / (name + ".json")
        if not pb.exists():
            print("%-22s MISSING in %s" % (name, b))
            bad += 1
            continue
        fa, fb = json.loads((a / (name + ".json")).read_text()), json.loads(pb.read_text())
        diffs = []
        for key in ("finalTestAccuracy", "finalLoss", "replicaChecksums"):
            if fa[key] != fb[key]:
                diffs.append("%s %s -> %s" % (key, fa[key], fb[key]))
        diffs += compare_metrics(fa["metrics"], fb["metrics"], old, new)
        diffs += compare_stage_bytes(fa["bytesByStage"], fb["bytesByStage"], old, new)
        if not old and (fa["bytesSentPerEndpoint"] != fb["bytesSentPerEndpoint"]
                        or fa["bytesReceivedPerEndpoint"] != fb["bytesReceivedPerEndpoint"]):
            diffs.append("bytes per endpoint %s -> %s" % (fa["bytesSentPerEndpoint"], fb["bytesSentPerEndpoint"]))
        if diffs:
            bad += 1
            print("%-22s DIFFERS" % name)
            for d in diffs[:12]:
                print("    " + d)
        else:
            sent_a, sent_b = sum(fa["bytesSentPerEndpoint"]), sum(fb["bytesSentPerEndpoint"])
            print("%-22s identical%s" % (name, "" if sent_a == sent_b else
                                         " but headers: total bytes sent %d -> %d (%+.3f%%)"
                                         % (sent_a, sent_b, 100.0 * (sent_b - sent_a) / sent_a)))
    print("%d of %d differ" % (bad, len(names)))
    return 1 if bad else 0


def compare_metrics(ra, rb, old, new):
    if len(ra) != len(rb):
        return ["metrics rows %d -> %d" % (len(ra), len(rb))]
    header = ra[0].split(",")
    if rb[0] != ra[0]:
        return ["metrics columns %s -> %s" % (ra[0], rb[0])]
    diffs = []
    hcol = header.index("header_bytes_sent_w0") if "header_bytes_sent_w0" in header else -1
    for i in range(1, len(ra)):
        va, vb = ra[i].split(","), rb[i].split(",")
        for j, col in enumerate(header):
            if va[j] == vb[j]:
                continue
            if old and col.startswith("bytes_") or old and j == hcol:
                continue  # checked through the summary's per-kind bytes
            diffs.append("step %d %s %s -> %s" % (i - 1, col, va[j], vb[j]))
    if old and hcol >= 0:
        for i in range(1, len(ra)):
            ha, hb = ra[i].split(",")[hcol], rb[i].split(",")[hcol]
            if ha and int(ha) * new != int(hb) * old:
                diffs.append("step %d header bytes %s -> %s, not %d:%d" % (i - 1, ha, hb, old, new))
    return diffs


def compare_stage_bytes(sa, sb, old, new):
    diffs = []
    for stage in sorted(set(sa) | set(sb)):
        xa, xb = flatten(sa.get(stage, {})), flatten(sb.get(stage, {}))
        for key in sorted(set(xa) | set(xb)):
            va, vb = xa.get(key), xb.get(key)
            if va == vb:
                continue
            if old and va is not None and vb is not None and "HEADER" in key and abs(va * new - vb * old) < 1e-6 * max(1, vb):
                continue
            if old and key.endswith("total") or old and key.endswith("SentPerStep") or old and key.endswith("ReceivedPerStep"):
                continue  # totals move with the headers
            diffs.append("%s %s %s -> %s" % (stage, key, va, vb))
    return diffs


def flatten(d, prefix=""):
    out = {}
    for k, v in d.items():
        if isinstance(v, dict):
            out.update(flatten(v, prefix + k + "."))
        else:
            out[prefix + k] = v
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--jar", default=str(ROOT / "lgc-cli/target/lgc.jar"))
    r.add_argument("--out", required=True)
    r.add_argument("--parallel", type=int, default=2)
    r.add_argument("--only", nargs="*")
    r.add_argument("--set", action="append", metavar="KEY=VALUE",
                   help="merge a dotted key into every config, e.g. model.compute.oneDnn=false (repeatable)")
    r.add_argument("--launch", type=int, default=0, metavar="NPROC",
                   help="run each config as NPROC worker processes (lgc launch) instead of in-process (lgc run)")
    c = sub.add_parser("compare")
    c.add_argument("before")
    c.add_argument("after")
    c.add_argument("--header-bytes-per-frame")
    args = p.parse_args()
    sys.exit(run(args) if args.cmd == "run" else compare(args))


if __name__ == "__main__":
    main()
