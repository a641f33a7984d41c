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

Fault campaign (issue 39): `--campaign N` draws N injections from --seed instead of running the cases above:

    scripts/resume-check.sh --campaign 50 --seed 5 --out /tmp/faults   # seed 5 draws every method x S x signal

each one the method uniformly from dense-ps, dense-ring, dgc-ps, lgc-ps, lgc-rar; for the PS methods S uniformly
from {1, K} (S = K: `lgc launch --servers K`, shards are ranks K..K+S-1); the signal uniformly from KILL (kill -9) and
STOP (SIGSTOP: the launcher kills a stopped process once another one has failed); the victim uniformly among the
job's K + S processes; the injection point a metrics.csv row count in a random stage (LGC: FULL / TOP_K / COMPRESSED
as above; the others: any of 5-26 rows). The uninterrupted reference of each distinct config runs once. Per injection
it records the seconds from the signal to the launcher's `X failed first` line (printed once every process of the
attempt has stopped; for STOP the launcher names the stopped process, which it kills at once, not the peer that
noticed the stall), the restart and its checkpoint, and the
comparison with the reference; OUT/README.md has the counts, a method x signal table and one row per injection,
OUT/results.json everything (rewritten after every injection).
"""
import argparse
import datetime
import hashlib
import json
import os
import pathlib
import platform
import random
import re
import shlex
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


# the campaign's draws
CAMPAIGN_METHODS = ["dense-ps", "dense-ring", "dgc-ps", "lgc-ps", "lgc-rar"]
SIGNALS = {"KILL": signal.SIGKILL, "STOP": signal.SIGSTOP}
LGC_STAGES = ["FULL", "TOP_K", "COMPRESSED"]
NAMED_WITHIN_S = 10


def config_text(method, out, servers=1):
    text = ("run: {name: rc-%s, seed: 5, outputDir: %s}\n"
            "data: {trainLimit: %d, testLimit: 500}\n"
            "training: {workers: %d, batchSizePerWorker: 16, epochs: 1, maxSteps: %d, evalEverySteps: 8,"
            " checkpointEverySteps: %d}\n" % (method, out, (STEPS + 1) * K * 16, K, STEPS, EVERY)) + METHODS[method]
    if servers > 1:  # the reference runs the same shards in process (bytes per endpoint: K + S endpoints)
        text = text.replace("topology: {type: ps}", "topology: {type: ps, servers: %d}" % servers)
    return text


def services(method, servers):
    """Processes of the parameter server: S for a PS method, none on a ring."""
    return servers if method.endswith("-ps") else 0


def endpoint_name(endpoint, servers):
    """The process as lgc launch names it: "rank r", "server" (one server) or "server s" (shard s = rank K + s)."""
    if endpoint < K:
        return "rank %d" % endpoint
    return "server" if servers == 1 else "server %d" % (endpoint - K)


def java():
    return shutil.which("java") or "java"


def env():
    return dict(os.environ, OMP_NUM_THREADS="1")


def only_run(d):
    runs = [p for p in pathlib.Path(d).iterdir() if p.is_dir()]
    if len(runs) != 1:
        raise RuntimeError("expected one run directory in %s, found %s" % (d, runs))
    return runs[0]


def reference(jar, work, method, servers=1, timeout=None):
    """The uninterrupted in-process run of the method's config (lgc run)."""
    name = "ref-" + method + ("-s%d" % servers if servers > 1 else "")
    out = work / name
    cfg = work / (name + ".yaml")
    cfg.write_text(config_text(method, out, servers))
    log = work / (name + ".log")
    with open(log, "w") as f:
        code = subprocess.call([java(), "-Xmx4g", "-Dorg.bytedeco.javacpp.maxbytes=6G",
                                "-Dorg.bytedeco.javacpp.maxphysicalbytes=10G", "-jar", str(jar), "run", str(cfg),
                                "--no-progress"], stdout=f, stderr=subprocess.STDOUT, env=env(), timeout=timeout)
    if code != 0:
        raise RuntimeError("reference run of %s failed (exit %d), see %s" % (method, code, log))
    return only_run(out)


class Launch:
    """lgc launch in its own process group, every output line stamped with the time it arrived."""

    def __init__(self, jar, cfg, out_dir, log_path, servers=1):
        cmd = [java(), "-Xmx512m", "-jar", str(jar), "launch", "--nproc", str(K), str(cfg), "--max-restarts", "1",
               "--java-opts", WORKER_JAVA_OPTS] + (["--servers", str(servers)] if servers > 1 else [])
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
    """One case of the default list: a worker (random rank) or the one server kill -9ed in the given stage."""
    lo, hi = KILL_ROWS[stage]
    kill_rows = rng.randint(lo, hi)
    endpoint = K if victim == "server" else rng.randrange(K)
    return inject(jar, work, "%s-%s-%s" % (method, victim, stage.lower()), method, 1, "KILL", endpoint, stage,
                  kill_rows, ref_dir, timeout)


def inject(jar, work, name, method, servers, sig, endpoint, stage, kill_rows, ref_dir, timeout):
    """Launches the method's config with S = servers, sends signal sig (KILL or STOP) to process LGC_RANK=endpoint
    once rank 0's metrics.csv holds kill_rows rows, and follows the launcher to its end: what it named, when, the
    restart, and the result against the reference run ref_dir."""
    out = work / ("launched-" + name)
    cfg = work / (name + ".yaml")
    cfg.write_text(config_text(method, out, servers))
    logs = work / "logs"
    logs.mkdir(exist_ok=True)
    started = time.monotonic()
    launch = Launch(jar, cfg, out, logs / (name + ".out"), max(1, services(method, servers)))  # *.log: git-ignored
    victim_name = endpoint_name(endpoint, servers)
    result = {"case": name, "method": method, "servers": services(method, servers), "signal": sig,
              "victim": victim_name, "endpoint": endpoint, "stage": stage, "kill_rows": kill_rows}
    deadline = started + timeout
    # wait for rank 0 to write kill_rows rows of metrics.csv, then signal the victim
    killed_at = None
    while time.monotonic() < deadline:
        rows = launch.metrics()
        if len(rows) - 1 >= kill_rows:
            pid = launch.endpoint_pid(endpoint)
            if pid is None:
                result["error"] = "no process with LGC_RANK=%d" % endpoint
                break
            os.kill(pid, SIGNALS[sig])
            killed_at = time.monotonic()
            result["pid"] = pid
            result["rows_at_kill"] = len(launch.metrics()) - 1
            result["last_row_at_kill"] = rows[-1]
            header = rows[0].split(",")
            last = rows[-1].split(",")
            if "step" in header and "stage" in header:
                result["last_row_step"] = int(last[header.index("step")])
                result["last_row_stage"] = last[header.index("stage")]
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
    result["wall_s"] = time.monotonic() - started
    text = [line for _, line in launch.lines]
    restart = next(((t, l) for t, l in launch.lines if "restart 1 of 1" in l), None)
    m = re.search(r"from the checkpoint after (?:step )?(\d+)", restart[1]) if restart else None
    result["resumed_from"] = int(m.group(1)) if m else None
    if restart and "from step 0" in restart[1]:
        result["resumed_from"] = 0
    result["restarted"] = restart is not None
    if killed_at is not None:
        result.update(first_failure(launch.lines, restart, killed_at, victim_name))
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


def first_failure(lines, restart, killed_at, victim):
    """What the launcher said about attempt 0 after the signal at killed_at: the process it says failed first and
    when (`lgc launch: X failed first (...)`, printed once every process of the attempt has stopped), the stopped
    processes it killed (`lgc launch: X was stopped (state T) and was killed`), the processes it killed after the
    grace period, and which peer the processes themselves said they lost. The victim is named when the failed-first
    line names it (for STOP too: the launcher names a stopped process it found as the one that failed first)."""
    attempt0 = [(t, l) for t, l in lines if t >= killed_at and (restart is None or t <= restart[0])]
    r = {}
    first = next(((t, m) for t, l in attempt0 for m in [re.match(r"lgc launch: (.+?) failed first \((.*?)\)", l)]
                  if m), None)
    r["failed_first"] = first[1].group(1) if first else None
    r["failed_first_status"] = first[1].group(2) if first else None
    r["failed_first_s"] = first[0] - killed_at if first else None
    grace = next((m.group(1) for _, l in attempt0 for m in [re.search(r"failed first .*; killed after \d+ s: (.*)$", l)]
                  if m), None)
    r["killed_after_grace"] = grace.split(", ") if grace else []
    stopped = [(t, m.group(1)) for t, l in attempt0
               for m in [re.match(r"lgc launch: (.+?) was stopped \(state T\) and was killed", l)] if m]
    r["stopped_and_killed"] = [n for _, n in stopped]
    named = first[0] if first and first[1].group(1) == victim else None
    r["named_line"] = "%s failed first" % victim
    r["named_victim"] = named is not None
    r["named_s"] = named - killed_at if named is not None else None
    r["stopped_within"] = (named is not None and first is not None
                           and first[0] - killed_at <= NAMED_WITHIN_S)
    lost = []
    for _, l in attempt0:
        for m in re.finditer(r"aborts the job: lost (rank \d+|the server|server (?:shard )?\d+)", l):
            who = m.group(1).replace("the server", "server").replace("server shard", "server")
            if who not in lost:
                lost.append(who)
    r["processes_say_lost"] = lost
    at = next((m for _, l in attempt0 for m in [re.search(r"stopped at step (\d+) \((\w+)\)", l)] if m), None)
    r["stopped_at_step"] = int(at.group(1)) if at else None
    r["stopped_at_stage"] = at.group(2) if at else None
    return r


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


def draw_campaign(rng, n):
    """N injections, every choice uniform: the method; S in {1, K} for a PS method; the signal; the victim among the
    job's K + S processes; the stage (LGC) and the metrics.csv row count in it."""
    injections = []
    for i in range(n):
        method = rng.choice(CAMPAIGN_METHODS)
        servers = rng.choice([1, K]) if method.endswith("-ps") else 0
        sig = rng.choice(sorted(SIGNALS))
        endpoint = rng.randrange(K + servers)
        stage = rng.choice(LGC_STAGES) if method.startswith("lgc") else "any"
        lo, hi = KILL_ROWS[stage]
        injections.append({"index": i + 1, "method": method, "servers": servers, "signal": sig, "endpoint": endpoint,
                           "stage": stage, "kill_rows": rng.randint(lo, hi)})
    return injections


def injection_name(inj):
    return "%02d-%s%s-%s-%s-%s" % (inj["index"], inj["method"], "-s%d" % inj["servers"] if inj["servers"] else "",
                                  inj["signal"].lower(), endpoint_name(inj["endpoint"], inj["servers"]).replace(" ", ""),
                                  inj["stage"].lower())


def equal(r):
    return r.get("diffs") == []


def campaign_counts(results):
    return {"injections": len(results),
            "stopped_within_%d_s_naming_the_victim" % NAMED_WITHIN_S: sum(bool(r.get("stopped_within")) for r in results),
            "named_the_victim": sum(bool(r.get("named_victim")) for r in results),
            "restarted": sum(bool(r.get("restarted")) for r in results),
            "restarted_runs_equal_to_uninterrupted": sum(equal(r) for r in results),
            "errors": sum("error" in r for r in results)}


def method_signal_table(results):
    """Per method (and S) x signal: stopped within 10 s naming the victim / equal to the uninterrupted run."""
    lines = ["| method | S | KILL: stopped ≤ %d s naming the victim | KILL: equal | STOP: stopped ≤ %d s naming the"
             " victim | STOP: equal | all: named | all: equal |" % (NAMED_WITHIN_S, NAMED_WITHIN_S),
             "|---|---|---:|---:|---:|---:|---:|---:|"]

    def frac(rs, f):
        return "%d/%d" % (sum(bool(f(r)) for r in rs), len(rs)) if rs else "–"

    groups = [(m, s) for m in CAMPAIGN_METHODS for s in ([1, K] if m.endswith("-ps") else [0])]
    for method, servers in groups + [(None, None)]:
        rs = [r for r in results if method is None or (r["method"] == method and r["servers"] == servers)]
        if not rs:
            continue
        kill = [r for r in rs if r["signal"] == "KILL"]
        stop = [r for r in rs if r["signal"] == "STOP"]
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
            "**all**" if method is None else method, "" if method is None else (servers or "–"),
            frac(kill, lambda r: r.get("stopped_within")), frac(kill, equal),
            frac(stop, lambda r: r.get("stopped_within")), frac(stop, equal),
            frac(rs, lambda r: r.get("stopped_within")), frac(rs, equal)))
    return lines


def injection_table(results):
    lines = ["| # | method | S | signal | victim | rows at injection (last row: step, stage) | processes stopped at"
             " | launcher named | named s | failed first / all stopped s | stopped ≤ %d s naming the victim"
             " | processes said they lost | resumed from step | restart line s | equal | wall s | differences / error |"
             % NAMED_WITHIN_S,
             "|---:|---|---|---|---|---|---|---|---:|---:|---|---|---:|---:|---|---:|---|"]
    for r in results:
        diffs = r.get("diffs")
        detail = r.get("error", "") if diffs is None else "; ".join(diffs[:4]) + (
            " (+%d more)" % (len(diffs) - 4) if len(diffs) > 4 else "")
        named = []
        if r.get("failed_first"):
            named.append("%s failed first (%s)" % (r["failed_first"], r.get("failed_first_status")))
        named += ["%s was stopped and killed" % n for n in r.get("stopped_and_killed", [])]
        if r.get("killed_after_grace"):
            named.append("killed after grace: " + ", ".join(r["killed_after_grace"]))
        at = ("%s (%s, %s)" % (r["rows_at_kill"], r.get("last_row_step", "?"), r.get("last_row_stage", "?"))
              if "rows_at_kill" in r else "–")
        lines.append("| %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["index"], r["method"], r["servers"] or "–", r["signal"], r["victim"], at,
            "%s (%s)" % (r["stopped_at_step"], r["stopped_at_stage"]) if r.get("stopped_at_step") is not None else "–",
            "; ".join(named) or "–", fmt_s(r.get("named_s")), fmt_s(r.get("failed_first_s")),
            "yes" if r.get("stopped_within") else "**no**", ", ".join(r.get("processes_say_lost", [])) or "–",
            "–" if r.get("resumed_from") is None else r["resumed_from"], fmt_s(r.get("restart_line_s")),
            "error" if diffs is None else ("yes" if not diffs else "**no**"), fmt_s(r.get("wall_s")),
            detail or "–"))
    return lines


def write_campaign_readme(out, meta, results):
    counts = campaign_counts(results)
    n = counts["injections"]
    summary = ["stopped within %d s naming the victim: %d/%d" % (
                   NAMED_WITHIN_S, counts["stopped_within_%d_s_naming_the_victim" % NAMED_WITHIN_S], n),
               "restarted runs equal to uninterrupted: %d/%d" % (counts["restarted_runs_equal_to_uninterrupted"], n)]
    walls = [r["wall_s"] for r in results if r.get("wall_s")]
    md = ["# Fault campaign over `lgc launch --max-restarts 1`: %d randomized injections" % n, "",
          "Command: `%s` (%s; commit %s%s; jar %s, sha256 %s…, built %s; %s; %s, %d CPUs, %s; %s; load average"
          " %.2f at the start, %s at the end; OMP_NUM_THREADS=1)." % (
              meta["command"], meta["started"], meta["commit"], " + uncommitted changes" if meta["dirty"] else "",
              meta["jar"], meta["jar_sha256"][:12], meta["jar_mtime"], meta["platform"], meta["cpu_model"],
              meta["cpus"], meta["memory"], meta["java"], meta["load_start"],
              "%.2f" % meta["load_end"] if meta.get("load_end") is not None else "–"),
          "",
          "Every injection: `lgc launch --nproc %d --max-restarts 1` (with `--servers %d` when S = %d) of a config"
          " (K = %d, batch 16 per worker, %d steps, evaluation every 8 steps on 500 test images,"
          " `training.checkpointEverySteps: %d`; DGC and LGC: %d FULL steps, LGC then %d TOP_K steps and COMPRESSED),"
          " drawn from seed %d: the method uniformly from %s; for a PS method S uniformly from {1, %d}; the signal"
          " uniformly from KILL (`kill -9`) and STOP (`kill -STOP`); the victim uniformly among the job's K + S"
          " processes (`LGC_RANK` in /proc/PID/environ; shard s is rank K + s); the injection once rank 0's"
          " metrics.csv holds a random number of rows in a random stage (LGC: FULL 5-6, TOP_K 13-14, COMPRESSED"
          " 21-26 rows, so the last complete checkpoint is in that stage; others 5-26). The reference is `lgc run`"
          " of the same config (same S) in one JVM, run once per config." % (
              K, K, K, K, STEPS, EVERY, FULL, AE, meta["seed"], ", ".join(CAMPAIGN_METHODS), K),
          "",
          "*Named*: the launcher's `X failed first` line names the victim (for STOP too: the launcher kills a stopped"
          " process at once and names it as the one that failed first, not the peer that noticed the stall)."
          " *Stopped ≤ %d s naming the victim*: named, and the launcher's `failed first` line (printed once every"
          " process of the attempt has stopped) came at most %d s after the signal, wall time measured by this"
          " script (time.monotonic at the signal; a thread stamps each line of the launcher's output as it"
          " arrives). *Equal*: metrics.csv's non-timing columns, summary.json's final accuracy and loss, bytes per"
          " endpoint, per stage and kind, and the replica checksums (all %d equal) are identical to the reference."
          % (NAMED_WITHIN_S, NAMED_WITHIN_S, K),
          "", "**" + summary[0] + "; " + summary[1] + ".**", "",
          "Per method and signal:", ""] + method_signal_table(results) + [
          "", "Every injection (times in seconds after the signal):", ""] + injection_table(results) + [
          "", "Wall time per injection: mean %.0f s, max %.0f s; reference runs: %s." % (
              sum(walls) / len(walls) if walls else 0, max(walls) if walls else 0,
              ", ".join("%s %.0f s" % (k, v) for k, v in meta.get("reference_s", {}).items()) or "–"), ""]
    for r in results:
        md += ["## %d. %s%s, %s of %s at %s rows (%s)" % (
            r["index"], r["method"], ", S = %d" % r["servers"] if r["servers"] else "", r["signal"], r["victim"],
            r.get("rows_at_kill", "–"), r["stage"]), "", "```"] + readme_log(r.get("log", [])) + ["```", ""]
    md += ["Whole launcher output of each injection (every process's lines, each stamped with a monotonic time):"
           " `logs/<NN-case>.out`.", ""]
    (out / "README.md").write_text("\n".join(md))
    return summary + [""] + method_signal_table(results) + [""] + injection_table(results)


def machine_meta(jar):
    def first(cmd):
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
            return ((r.stdout or "") + (r.stderr or "")).strip().splitlines()[0]
        except (OSError, IndexError, subprocess.TimeoutExpired):
            return "unknown"
    cpu = next((l.split(":", 1)[1].strip() for l in pathlib.Path("/proc/cpuinfo").read_text().splitlines()
                if l.startswith("model name")), "unknown")
    mem = next((l.split(":", 1)[1].strip() for l in pathlib.Path("/proc/meminfo").read_text().splitlines()
                if l.startswith("MemTotal")), "unknown")
    return {"cpu_model": cpu, "memory": "MemTotal " + mem, "java": first([java(), "-version"]),
            "jar": str(jar), "jar_sha256": hashlib.sha256(jar.read_bytes()).hexdigest(),
            "jar_mtime": datetime.datetime.fromtimestamp(jar.stat().st_mtime, datetime.timezone.utc)
            .strftime("%Y-%m-%dT%H:%MZ")}


def run_campaign(args, jar, out, work, meta, rng):
    injections = draw_campaign(rng, args.campaign)
    meta.update(machine_meta(jar))
    meta["command"] = "scripts/resume-check.sh " + shlex.join(sys.argv[1:])
    meta["commit"] = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True,
                                    text=True).stdout.strip() or "unknown"
    meta["reference_s"] = {}
    print("resume-check: campaign of %d injections, seed %d, K = %d, %d steps, checkpoint every %d, runs in %s" % (
        len(injections), meta["seed"], K, STEPS, EVERY, work), flush=True)
    missing = ["%s%s %s" % (m, " S=%d" % sv if sv else "", g) for m in CAMPAIGN_METHODS
               for sv in ([1, K] if m.endswith("-ps") else [0]) for g in sorted(SIGNALS)
               if not any((i["method"], i["servers"], i["signal"]) == (m, sv, g) for i in injections)]
    if missing:
        print("resume-check: warning: seed %d draws no injection of %s" % (meta["seed"], ", ".join(missing)),
              flush=True)
    refs = {}  # config text (without its output directory) -> the reference run's directory, or the error
    results = []
    for inj in injections:
        name = injection_name(inj)
        key = config_text(inj["method"], "OUT", inj["servers"])
        if key not in refs:
            label = inj["method"] + (" S=%d" % inj["servers"] if inj["servers"] else "")
            print("resume-check: reference run of %s (in process)" % label, flush=True)
            t0 = time.monotonic()
            try:
                refs[key] = reference(jar, work, inj["method"], max(1, inj["servers"]), args.timeout)
            except (RuntimeError, subprocess.TimeoutExpired) as e:
                refs[key] = e
            meta["reference_s"][label] = time.monotonic() - t0
        print("resume-check: %d/%d %s: %s of %s at %d rows" % (
            inj["index"], len(injections), name, inj["signal"], endpoint_name(inj["endpoint"], inj["servers"]),
            inj["kill_rows"]), flush=True)
        if isinstance(refs[key], Exception):
            r = dict(inj, case=name, victim=endpoint_name(inj["endpoint"], inj["servers"]),
                     error="reference run failed: %s" % refs[key])
        else:
            r = inject(jar, work, name, inj["method"], inj["servers"], inj["signal"], inj["endpoint"], inj["stage"],
                       inj["kill_rows"], refs[key], args.timeout)
            r["index"] = inj["index"]
        results.append(r)
        print("  " + injection_table([r])[2], flush=True)
        shutil.copytree(work / "logs", out / "logs", dirs_exist_ok=True)
        for run in work.glob("launched-*"):  # the runs are compared; only their logs stay
            if not args.keep:
                shutil.rmtree(run, ignore_errors=True)
        (out / "results.json").write_text(json.dumps({"meta": meta, "campaign": campaign_counts(results),
                                                      "results": results}, indent=1) + "\n")
        write_campaign_readme(out, meta, results)
    meta["load_end"] = os.getloadavg()[0]
    (out / "results.json").write_text(json.dumps({"meta": meta, "campaign": campaign_counts(results),
                                                  "results": results}, indent=1) + "\n")
    print("\n".join(write_campaign_readme(out, meta, results)))
    print("resume-check: wrote %s" % (out / "README.md"))
    counts = campaign_counts(results)
    ok = (counts["stopped_within_%d_s_naming_the_victim" % NAMED_WITHIN_S] == len(results)
          and counts["restarted_runs_equal_to_uninterrupted"] == len(results))
    return 0 if ok else 1


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--jar", default=str(ROOT / "lgc-cli/target/lgc.jar"))
    p.add_argument("--out", default=None, help="where README.md, results.json and logs/ go (default: a temp dir)")
    p.add_argument("--cases", nargs="*", help="methods to run (default: every case)")
    p.add_argument("--seed", type=int, default=None, help="seed of the kill steps and victims (default: random)")
    p.add_argument("--timeout", type=int, default=600, help="seconds per launched case")
    p.add_argument("--keep", action="store_true", help="keep the run directories")
    p.add_argument("--report-from", metavar="DIR", help="only rewrite DIR/README.md from DIR/results.json")
    p.add_argument("--campaign", type=int, metavar="N", help="a fault campaign of N random injections (KILL or STOP"
                   " of a random worker or shard, every method, S = 1 and S = K) instead of the cases")
    args = p.parse_args()
    if args.report_from:
        d = pathlib.Path(args.report_from)
        saved = json.loads((d / "results.json").read_text())
        write = write_campaign_readme if "campaign" in saved else write_readme
        print("\n".join(write(d, saved["meta"], saved["results"])))
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
    if args.campaign:
        try:
            return run_campaign(args, jar, out, work, meta, rng)
        finally:
            if not args.keep:
                shutil.rmtree(work, ignore_errors=True)
            else:
                print("resume-check: runs kept in %s" % work)
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
