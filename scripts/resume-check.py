#!/usr/bin/env python3
"""Exact resume over `lgc launch`: a run with one process kill -9'ed at a random step, restarted by
`lgc launch --nproc K --max-restarts 1` from the last complete checkpoint, must end exactly where the same config run
uninterrupted in one JVM (`lgc run`) ends: metrics.csv's non-timing columns, summary.json's bytes (per endpoint and
per stage and kind), final accuracy and loss, and the replica checksums.

    scripts/resume-check.sh                          # every case below, K = 4 (~30 min on 2 cores)
    scripts/resume-check.sh --cases lgc-ps           # the cases of one method
    scripts/resume-check.sh --seed 7 --out /tmp/rc   # the random kill steps and victims are drawn from --seed

Each case: method (dense-ps, dense-ring, dgc-ps, lgc-ps, lgc-rar), the endpoint killed (a random worker rank, or the
parameter server), and for LGC the stage the kill lands in: with 8 FULL and 8 TOP_K steps and a checkpoint every 4
steps, the kill comes once rank 0 has written a random number of metrics.csv rows chosen so that the last complete
checkpoint is in that same stage (FULL: 5-6 rows, checkpoint after step 4; TOP_K: 13-14 rows, after step 12;
COMPRESSED: 21-26 rows, after step 20 or 24). Other methods: a random row count in 5-26.

Prints a table (method x killed endpoint x kill step x resumed from x equal?/differences) and the restart timings
(kill -> the launcher restarting -> rank 0 starting to train again -> the first resumed step's row in metrics.csv),
and writes OUT/README.md with the table and every case's launcher lines that say what failed and from which step it
resumed; OUT/logs/ keeps the launchers' whole output.
"""
import argparse
import datetime
import json
import os
import pathlib
import platform
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import fingerprint  # noqa: E402  (the refactoring guard's fingerprint and comparison of two runs)

ROOT = pathlib.Path(__file__).resolve().parent.parent
K = 4
STEPS = 32
EVERY = 4
FULL = 8
AE = 8
WORKER_JAVA_OPTS = "-Xmx1g -Dorg.bytedeco.javacpp.maxbytes=2G -Dorg.bytedeco.javacpp.maxphysicalbytes=3G"

METHODS = {
    "dense-ps": "topology: {type: ps}\n",
    "dense-ring": "topology: {type: ring}\n",
    "dgc-ps": "model: {updater: {type: sgd, learningRate: 0.05}}\ntopology: {type: ps}\n"
              "compressor: {type: dgc, ratio: 0.01}\nstages: {fullIterations: %d}\n" % FULL,
    "lgc-ps": "topology: {type: ps}\ncompressor: {type: lgc, ratio: 0.01}\n"
              "stages: {fullIterations: %d, aeTrainingIterations: %d}\n"
              "autoencoder: {checkEvery: 3}\n" % (FULL, AE),
    "lgc-rar": "topology: {type: ring}\ncompressor: {type: lgc, ratio: 0.01}\n"
               "stages: {fullIterations: %d, aeTrainingIterations: %d}\n"
               "autoencoder: {checkEvery: 3}\n" % (FULL, AE),
}

# metrics.csv rows written when the kill comes, per stage: the last complete checkpoint is then in the same stage
KILL_ROWS = {"FULL": (5, 6), "TOP_K": (13, 14), "COMPRESSED": (21, 26), "any": (5, 26)}

# (method, victim: "worker" or "server", stage of the kill)
CASES = [
    ("dense-ps", "worker", "any"),
    ("dense-ps", "server", "any"),
    ("dense-ring", "worker", "any"),
    ("dgc-ps", "worker", "any"),
    ("dgc-ps", "server", "any"),
    ("lgc-rar", "worker", "FULL"),
    ("lgc-rar", "worker", "TOP_K"),
    ("lgc-rar", "worker", "COMPRESSED"),
    ("lgc-ps", "worker", "FULL"),
    ("lgc-ps", "worker", "TOP_K"),
    ("lgc-ps", "worker", "COMPRESSED"),
    ("lgc-ps", "server", "COMPRESSED"),
]


def config_text(method, out):
    return ("run: {name: rc-%s, seed: 5, outputDir: %s}\n"
            "data: {trainLimit: %d, testLimit: 500}\n"
            "training: {workers: %d, batchSizePerWorker: 16, epochs: 1, maxSteps: %d, evalEverySteps: 8,"
            " checkpointEverySteps: %d}\n" % (method, out, (STEPS + 1) * K * 16, K, STEPS, EVERY)) + METHODS[method]


def java():
    return shutil.which("java") or "java"


def env():
    return dict(os.environ, OMP_NUM_THREADS="1")


def only_run(d):
    runs = [p for p in pathlib.Path(d).iterdir() if p.is_dir()]
    if len(runs) != 1:
        raise RuntimeError("expected one run directory in %s, found %s" % (d, runs))
    return runs[0]


def reference(jar, work, method):
    """The uninterrupted in-process run of the method's config (lgc run)."""
    out = work / ("ref-" + method)
    cfg = work / ("ref-" + method + ".yaml")
    cfg.write_text(config_text(method, out))
    log = work / ("ref-" + method + ".log")
    with open(log, "w") as f:
        code = subprocess.call([java(), "-Xmx4g", "-Dorg.bytedeco.javacpp.maxbytes=6G",
                                "-Dorg.bytedeco.javacpp.maxphysicalbytes=10G", "-jar", str(jar), "run", str(cfg),
                                "--no-progress"], stdout=f, stderr=subprocess.STDOUT, env=env())
    if code != 0:
        raise RuntimeError("reference run of %s failed (exit %d), see %s" % (method, code, log))
    return only_run(out)


class Launch:
    """lgc launch in its own process group, every output line stamped with the time it arrived."""

    def __init__(self, jar, cfg, out_dir, log_path):
        cmd = [java(), "-Xmx512m", "-jar", str(jar), "launch", "--nproc", str(K), str(cfg), "--max-restarts", "1",
               "--java-opts", WORKER_JAVA_OPTS]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env(),
                                     start_new_session=True, text=True, bufsize=1)
        self.lines = []  # (monotonic time, line)
        self.log_path = log_path
        self.out_dir = out_dir
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        with open(self.log_path, "w") as log:
            for line in self.proc.stdout:
                now = time.monotonic()
                self.lines.append((now, line.rstrip("\n")))
                log.write("%.3f %s" % (now, line))
                log.flush()

    def endpoint_pid(self, endpoint, attempt=0):
        """The pid of the launcher's child whose environment says LGC_RANK=endpoint, LGC_ATTEMPT=attempt."""
        for proc in pathlib.Path("/proc").iterdir():
            if not proc.name.isdigit():
                continue
            try:
                stat = (proc / "stat").read_text()
                ppid = int(stat[stat.rindex(")") + 2:].split()[1])
                if ppid != self.proc.pid:
                    continue
                environ = (proc / "environ").read_bytes().split(b"\0")
            except (OSError, ValueError):
                continue
            if b"LGC_RANK=%d" % endpoint in environ and b"LGC_ATTEMPT=%d" % attempt in environ:
                return int(proc.name)
        return None

    def metrics(self):
        try:
            run = next(p for p in self.out_dir.iterdir() if p.is_dir())
            return (run / "metrics.csv").read_text().splitlines()
        except (StopIteration, OSError):
            return []

    def stop(self):
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def run_case(jar, work, method, victim, stage, rng, ref_dir, timeout):
    name = "%s-%s-%s" % (method, victim, stage.lower())
    out = work / ("launched-" + name)
    cfg = work / (name + ".yaml")
    cfg.write_text(config_text(method, out))
    logs = work / "logs"
    logs.mkdir(exist_ok=True)
    launch = Launch(jar, cfg, out, logs / (name + ".out"))  # *.log is git-ignored
    lo, hi = KILL_ROWS[stage]
    kill_rows = rng.randint(lo, hi)
    endpoint = K if victim == "server" else rng.randrange(K)
    victim_name = "server" if victim == "server" else "rank %d" % endpoint
    result = {"case": name, "method": method, "victim": victim_name, "stage": stage, "kill_rows": kill_rows}
    deadline = time.monotonic() + timeout
    # wait for rank 0 to write kill_rows rows of metrics.csv, then SIGKILL the victim
    killed_at = None
    while time.monotonic() < deadline:
        rows = launch.metrics()
        if len(rows) - 1 >= kill_rows:
            pid = launch.endpoint_pid(endpoint)
            if pid is None:
                result["error"] = "no process with LGC_RANK=%d" % endpoint
                break
            os.kill(pid, signal.SIGKILL)
            killed_at = time.monotonic()
            result["rows_at_kill"] = len(launch.metrics()) - 1
            result["last_row_at_kill"] = rows[-1]
            break
        if launch.proc.poll() is not None:
            result["error"] = "the launch ended before the kill (exit %s)" % launch.proc.returncode
            break
        time.sleep(0.02)
    # then watch metrics.csv: once the launcher names the checkpoint R it restarts from, the first resumed row is a
    # row for step R that was not there at the kill (a new row, or the old one rewritten: its timings differ)
    first_resumed_at = None
    before = launch.metrics() if killed_at is not None else []
    while killed_at is not None and launch.proc.poll() is None and time.monotonic() < deadline:
        restart = next((l for _, l in list(launch.lines) if "restart 1 of 1" in l), None)
        if restart is not None and first_resumed_at is None:
            m = re.search(r"from the checkpoint after (?:step )?(\d+)", restart)
            r = int(m.group(1)) if m else 0
            rows = launch.metrics()
            if len(rows) > r + 1 and (len(before) <= r + 1 or rows[r + 1] != before[r + 1]):
                first_resumed_at = time.monotonic()
                result["first_resumed_row"] = rows[r + 1]
        time.sleep(0.02)
    if launch.proc.poll() is None:
        launch.stop()
        result.setdefault("error", "timeout after %d s" % timeout)
    launch.proc.wait()
    launch.reader.join(5)
    result["exit"] = launch.proc.returncode
    text = [line for _, line in launch.lines]
    restart = next(((t, l) for t, l in launch.lines if "restart 1 of 1" in l), None)
    m = re.search(r"from the checkpoint after (?:step )?(\d+)", restart[1]) if restart else None
    result["resumed_from"] = int(m.group(1)) if m else None
    if restart and "from step 0" in restart[1]:
        result["resumed_from"] = 0
    if killed_at is not None:
        result["restart_line_s"] = restart[0] - killed_at if restart else None
        start = next((t for t, l in launch.lines if restart and t > restart[0]
                      and l.startswith("[rank 0] training:")), None)
        result["training_again_s"] = start - killed_at if start else None
        result["first_resumed_row_s"] = first_resumed_at - killed_at if first_resumed_at else None
    result["log"] = [l for l in text if re.search(r"lgc launch|lgc worker|stopped at|lost|failed|resum|"
                                                  r"was stopped|test accuracy", l) and " INFO: " not in l]
    if result.get("exit") == 0 and "error" not in result:
        launched = only_run(out)
        result["diffs"] = differences(ref_dir, launched)
        result["restart_step_ms"] = step_ms(launched, result["resumed_from"])
    return result


def step_ms(run_dir, step):
    """wall_ms of the resumed step and of the one after it (a PS run writes step s's row when step s + 1 ends)."""
    if step is None:
        return None
    lines = (run_dir / "metrics.csv").read_text().splitlines()
    header = lines[0].split(",")
    col = next((i for i, c in enumerate(header) if c in ("wall_ms", "step_ms")), None)
    if col is None:
        return None
    rows = [line.split(",") for line in lines[1:]]
    return [float(r[col]) for r in rows if int(r[0]) in (step, step + 1)]


def differences(a_dir, b_dir):
    fa, fb = fingerprint.fingerprint(a_dir), fingerprint.fingerprint(b_dir)
    diffs = []
    for key in ("finalTestAccuracy", "finalLoss", "replicaChecksums", "bytesSentPerEndpoint",
                "bytesReceivedPerEndpoint"):
        if fa[key] != fb[key]:
            diffs.append("%s %s -> %s" % (key, fa[key], fb[key]))
    diffs += fingerprint.compare_metrics(fa["metrics"], fb["metrics"], 0, 0)
    diffs += fingerprint.compare_stage_bytes(fa["bytesByStage"], fb["bytesByStage"], 0, 0)
    sums = fb["replicaChecksums"]
    if len(set(sums)) != 1 or len(sums) != K:
        diffs.append("replica checksums of the launched run: %s" % sums)
    return diffs


def fmt_s(x):
    return "–" if x is None else "%.1f" % x


def resumed_step_start(r):
    """Seconds from the kill to the start of the first resumed step: its row's time minus the wall time of the steps
    rank 0 ran until it wrote that row (the resumed step; on a PS also the next one)."""
    walls = r.get("restart_step_ms")
    if r.get("first_resumed_row_s") is None or not walls:
        return None
    ps = r["method"].endswith("-ps")
    return r["first_resumed_row_s"] - sum(walls[:2] if ps else walls[:1]) / 1000


def table(results):
    lines = ["| method | killed | kill stage | rows at kill | resumed from step | exit | kill → restart line s"
             " | kill → rank 0 training s | kill → first resumed step starts s | first resumed step s"
             " | kill → its row s | equal to in-process | differences |",
             "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|"]
    for r in results:
        diffs = r.get("diffs")
        equal = "error" if diffs is None else ("yes" if not diffs else "**no**")
        detail = r.get("error", "") if diffs is None else "; ".join(diffs[:6]) + (
            " (+%d more)" % (len(diffs) - 6) if len(diffs) > 6 else "")
        walls = r.get("restart_step_ms")
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["method"], r["victim"], r["stage"], r.get("rows_at_kill", "–"),
            "–" if r.get("resumed_from") is None else r["resumed_from"], r.get("exit"),
            fmt_s(r.get("restart_line_s")), fmt_s(r.get("training_again_s")), fmt_s(resumed_step_start(r)),
            fmt_s(walls[0] / 1000 if walls else None), fmt_s(r.get("first_resumed_row_s")), equal, detail or "–"))
    return lines


def readme_log(lines):
    """The launcher's lines that say what failed and from which step it resumed, and each process's last word."""
    return [l for l in lines if l.startswith("lgc launch:") or "] lgc worker:" in l
            or l.startswith("[rank 0] test accuracy")]


def write_readme(out, meta, results):
    rows = table(results)
    md = ["# Exact resume over `lgc launch`: a process killed, the job restarted, the result unchanged", "",
          "Command: `scripts/resume-check.sh --seed %d --out %s` (code of commit %s%s; %s; %s, %d CPUs; load average"
          " %.2f at the start, %.2f at the end; OMP_NUM_THREADS=1)." % (
              meta["seed"], meta["out"], meta["commit"], " + uncommitted changes" if meta["dirty"] else "",
              meta["started"], meta["platform"], meta["cpus"], meta["load_start"], meta["load_end"]),
          "",
          "Every case: `lgc launch --nproc %d --max-restarts 1` of a config (K = %d, batch 16 per worker, %d steps,"
          " evaluation every 8 steps on 500 test images, `training.checkpointEverySteps: %d`; DGC and LGC: %d FULL"
          " steps, LGC then %d TOP_K steps and COMPRESSED; LGC's drift guard checks every 3 steps), one endpoint"
          " `kill -9`ed once rank 0's metrics.csv holds the given number of rows, against `lgc run` of the same"
          " config in one JVM. *Equal* = metrics.csv's non-timing columns (every row), summary.json's final accuracy"
          " and loss, bytes sent and received per endpoint, bytes per stage and kind, and the replica checksums (all"
          " %d equal) are identical. *Resumed from step* = the launcher's checkpoint (`step-NNNNNN`, the next step"
          " to run). Timings are seconds after the kill: the launcher's restart line (once the other processes"
          " stopped); rank 0's `training:` line of attempt 1 (5 JVMs up, data read, connected; before the"
          " restore); the first resumed step's start (its row's time minus the wall time of the steps in it: a PS"
          " run writes step s's row when step s + 1 ends); that step's own wall time (the first step of a process"
          " is slow: JIT, workspaces); and its row in metrics.csv." % (K, K, STEPS, EVERY, FULL, AE, K), ""]
    md += rows + [""]
    for r in results:
        md += ["## %s, %s killed (%s), at %s rows" % (r["method"], r["victim"], r["stage"], r.get("rows_at_kill")),
               "", "```"] + readme_log(r["log"]) + ["```", ""]
    md += ["Whole launcher output of each case (every process's lines, each stamped with a monotonic time): `logs/<case>.out`.",
           ""]
    (out / "README.md").write_text("\n".join(md))
    return rows


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--jar", default=str(ROOT / "experiments/target/lgc.jar"))
    p.add_argument("--out", default=None, help="where README.md, results.json and logs/ go (default: a temp dir)")
    p.add_argument("--cases", nargs="*", help="methods to run (default: every case)")
    p.add_argument("--seed", type=int, default=None, help="seed of the kill steps and victims (default: random)")
    p.add_argument("--timeout", type=int, default=600, help="seconds per launched case")
    p.add_argument("--keep", action="store_true", help="keep the run directories")
    p.add_argument("--report-from", metavar="DIR", help="only rewrite DIR/README.md from DIR/results.json")
    args = p.parse_args()
    if args.report_from:
        d = pathlib.Path(args.report_from)
        saved = json.loads((d / "results.json").read_text())
        print("\n".join(write_readme(d, saved["meta"], saved["results"])))
        return 0
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 30)
    rng = random.Random(seed)
    out = pathlib.Path(args.out) if args.out else pathlib.Path(tempfile.mkdtemp(prefix="resume-check-"))
    out.mkdir(parents=True, exist_ok=True)
    work = pathlib.Path(tempfile.mkdtemp(prefix="resume-check-runs-"))
    jar = pathlib.Path(args.jar).resolve()
    cases = [c for c in CASES if not args.cases or c[0] in args.cases]
    meta = {"seed": seed, "out": args.out or str(out), "cpus": os.cpu_count(), "platform": platform.platform(),
            "started": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%MZ"),
            "load_start": os.getloadavg()[0],
            "commit": subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short=12", "HEAD"], capture_output=True,
                                     text=True).stdout.strip() or "unknown",
            "dirty": bool(subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"],
                                         capture_output=True, text=True).stdout.strip())}
    print("resume-check: seed %d, %d cases, K = %d, %d steps, checkpoint every %d, runs in %s" % (
        seed, len(cases), K, STEPS, EVERY, work), flush=True)
    refs = {}
    results = []
    for method, victim, stage in cases:
        if method not in refs:
            print("resume-check: reference run of %s (in process)" % method, flush=True)
            refs[method] = reference(jar, work, method)
        print("resume-check: %s, %s killed (%s)" % (method, victim, stage), flush=True)
        r = run_case(jar, work, method, victim, stage, rng, refs[method], args.timeout)
        results.append(r)
        print("  " + table([r])[2], flush=True)
        shutil.copytree(work / "logs", out / "logs", dirs_exist_ok=True)
    meta["load_end"] = os.getloadavg()[0]
    (out / "results.json").write_text(json.dumps({"meta": meta, "results": results}, indent=1) + "\n")
    print("\n".join(write_readme(out, meta, results)))
    print("resume-check: wrote %s" % (out / "README.md"))
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    else:
        print("resume-check: runs kept in %s" % work)
    bad = [r for r in results if r.get("diffs") != []]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
