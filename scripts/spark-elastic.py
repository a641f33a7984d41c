#!/usr/bin/env python3
"""An elastic Spark fit losing an executor: local-cluster[3,1,1024], DGC on a ring of 3 ranks, 2 epochs of 40 steps;
the driver kills the executor of rank 1 once the checkpoint after KILL steps is complete, and the fit goes on at K = 2
(ElasticClusterProgram, the test's driver). For each seed: the uninterrupted fit and one per kill point.

Writes OUT/runs.csv and OUT/README.md's table. Needs `mvn -o install -DskipTests` first (the test classes).

    scripts/spark-elastic.py [--seeds 1,2,3] [--kills 8,24,48]
"""
import argparse
import csv
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SPARK = ROOT / "lgc-spark"


def classpath():
    out = Path(tempfile.mkdtemp()) / "cp.txt"
    subprocess.run(["mvn", "-B", "-q", "-o", "dependency:build-classpath", "-Dmdep.includeScope=test",
                    f"-Dmdep.outputFile={out}"], cwd=SPARK, check=True)
    return f"{SPARK / 'target/test-classes'}:{SPARK / 'target/classes'}:{out.read_text().strip()}"


MODULES = ["--add-exports=java.base/sun.nio.ch=ALL-UNNAMED", "--add-opens=java.base/java.nio=ALL-UNNAMED",
           "--add-opens=java.base/java.lang.invoke=ALL-UNNAMED", "--add-opens=java.base/java.util=ALL-UNNAMED",
           "--add-opens=java.base/java.lang=ALL-UNNAMED"]


def run(cp, work, kill, seed):
    """One fit; returns its key=value lines as a dict."""
    home = work / "spark-home"
    (home / "jars").mkdir(parents=True, exist_ok=True)
    (home / "RELEASE").touch()
    out = work / f"s{seed}-kill-{kill}"
    env = dict(os.environ, SPARK_HOME=str(home), SPARK_SCALA_VERSION="2.12", SPARK_LOCAL_IP="127.0.0.1",
               OMP_NUM_THREADS="1")
    executor = " ".join(MODULES) + " -Dorg.bytedeco.javacpp.maxbytes=1G"
    cmd = ["java", *MODULES, "-Xmx1g", f"-Dspark.executor.extraClassPath={cp}",
           f"-Dspark.executor.extraJavaOptions={executor}", "-Dspark.executor.memory=900m", "-cp", cp,
           "io.lgc4j.spark.ElasticClusterProgram", "local-cluster[3,1,1024]", str(out), str(kill), str(seed)]
    started = time.time()
    with open(work / f"s{seed}-kill-{kill}.log", "w") as log:
        p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=log, text=True, timeout=600)
    said = dict(line.split("=", 1) for line in p.stdout.splitlines() if "=" in line)
    said["rc"] = p.returncode
    said["driver_seconds"] = round(time.time() - started, 1)
    return said


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seeds", default="1,2,3")
    p.add_argument("--kills", default="8,24,48", help="kill rank 1's executor after these checkpoints")
    p.add_argument("--out", default=str(ROOT / "docs/results/elastic/spark"))
    p.add_argument("--work", default="/tmp/lgc-spark-elastic")
    a = p.parse_args()
    out, work = Path(a.out), Path(a.work)
    out.mkdir(parents=True, exist_ok=True)
    work.mkdir(parents=True, exist_ok=True)
    cp = classpath()
    rows = []
    for seed in [int(s) for s in a.seeds.split(",")]:
        for kill in ["never"] + a.kills.split(","):
            said = run(cp, work, kill, seed)
            rows.append(dict(seed=seed, kill_after=kill, rc=said["rc"], attempts=said.get("attempts", ""),
                             resumed_from=said.get("resumedFrom", ""), workers=said.get("workers", ""),
                             steps=said.get("steps", ""), accuracy=said.get("accuracy", ""),
                             fit_seconds=said.get("seconds", ""), driver_seconds=said["driver_seconds"]))
            print(rows[-1], flush=True)
    with open(out / "runs.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    table = ["| killed after checkpoint | finished | attempts | K at the end | resumed from | steps | accuracy "
             "| Δ vs uninterrupted (pp) | fit (s) |", "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    base = {r["seed"]: float(r["accuracy"]) for r in rows if r["kill_after"] == "never" and r["accuracy"]}
    for kill in ["never"] + a.kills.split(","):
        rs = [r for r in rows if r["kill_after"] == kill]
        done = [r for r in rs if r["rc"] == 0 and r["accuracy"]]
        acc = [float(r["accuracy"]) for r in done]
        delta = [100 * (float(r["accuracy"]) - base[r["seed"]]) for r in done if r["seed"] in base]
        cell = lambda key: "/".join(sorted({str(r[key]) for r in done}))
        sd = lambda v: statistics.stdev(v) if len(v) > 1 else 0.0
        table.append(f"| {kill if kill != 'never' else 'none (K = 3 throughout)'} | {len(done)} of {len(rs)} "
                     f"| {cell('attempts')} | {cell('workers')} | {cell('resumed_from')} | {cell('steps')} "
                     f"| {statistics.mean(acc):.4f} ± {sd(acc):.4f} | "
                     + (f"{statistics.mean(delta):+.2f} ± {sd(delta):.2f}" if kill != "never" else "—")
                     + f" | {statistics.mean(float(r['fit_seconds']) for r in done):.1f} |")
    (out / "table.md").write_text("\n".join(table) + "\n")
    print("\n".join(table))


if __name__ == "__main__":
    main()
