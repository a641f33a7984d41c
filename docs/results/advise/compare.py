#!/usr/bin/env python3
"""Predicted (lgc advise) against measured (the time-to-accuracy table) step times per candidate, stage and rate.

usage: compare.py ADVICE_DIR TTA_DIR [LEGS...] > comparison.md
ADVICE_DIR holds advice-<rate>-<legs>.csv as check.sh (legs idle, traced: a given link) and check-launch.sh (legs
probed: compressor: auto's advise session on the launched processes) write them; LEGS the settings to compare
(default: every one there is); TTA_DIR a time-to-accuracy table's directory
(table.csv, <rate>/runs/<id>-small-cnn/metrics.csv) whose suite ran the same methods
(configs/tables/time-to-accuracy-41.yaml). A measured step is a stage's steady step (its first step and evaluated steps
left out); times to 80 % are the table's.
"""
import csv
import sys
from pathlib import Path

# advise's default candidates -> the rows (label, run id) of configs/tables/time-to-accuracy-41.yaml with the same
# method sections
LABELS = {
    "dense-ring": ("Dense ring", "dense-ring"),
    "dense-ps": ("Dense PS (S = 1)", "dense-ps"),
    "dense-fp16": ("Dense fp16 (ring)", "dense-fp16"),
    "powersgd": ("PowerSGD r = 2 (ring)", "powersgd"),
    "scalecom-psgd-warmup": ("ScaleCom (ring), PowerSGD warm-up, small allreduces direct",
                             "scalecom-psgd-warmup-routed"),
    "lgc-ps-psgd-warmup": ("LGC-PS (S = 1), PowerSGD warm-up, direct support", "lgc-ps-psgd-warmup-direct"),
}


# a run's first steps are slow while the JIT compiles on the same 0.4-core quota (steps 1-25 1.5-2x steps 26-49 on
# the compute-bound rows): the advisor counts that as a one-off, so the steady step leaves them out
JIT_STEPS = 25


def steady_steps(metrics):
    """Per stage, rank 0's mean step (wall_ms less evaluate_ms) without the stage's first step, the run's first
    JIT_STEPS steps and evaluated steps: what StepModel predicts (the rest are TimeModel's one-offs)."""
    per = {}
    seen = set()
    for r in csv.DictReader(open(metrics)):
        stage = r["stage"]
        first = stage not in seen
        seen.add(stage)
        if first or int(r["step"]) < JIT_STEPS or float(r["evaluate_ms"] or 0) > 0:
            continue
        per.setdefault(stage, []).append(float(r["wall_ms"]) - float(r["evaluate_ms"] or 0))
    return {k: sum(v) / len(v) for k, v in per.items()}
RATES = ["unshaped", "100mbit", "10mbit"]
LEGS = ["idle", "traced", "probed"]


def main(advice_dir, tta_dir, legs_wanted):
    measured = {}
    for rate in RATES:
        for cid, (label, run) in LABELS.items():
            metrics = tta_dir / rate / "runs" / f"{run}-small-cnn" / "metrics.csv"
            for stage, ms in steady_steps(metrics).items():
                measured[(rate, label, stage)] = ms
    to_target = {(r["link"], r["method"]): float(r["time_to_target_s"]) for r in csv.DictReader(
        open(tta_dir / "table.csv")) if r["time_to_target_s"]}
    advice = {}
    for rate in RATES:
        for legs in legs_wanted or LEGS:
            f = advice_dir / f"advice-{rate}-{legs}.csv"
            if f.exists():
                advice[(rate, legs)] = list(csv.DictReader(open(f)))
    legs_there = [legs for legs in (legs_wanted or LEGS) if any(k[1] == legs for k in advice)]
    print("| rate | method | stage | measured ms (steady) | "
          + " | ".join(f"predicted, {legs} legs | error" for legs in legs_there) + " |")
    print("| --- | --- | --- | ---: | " + " | ".join("---: | ---:" for _ in legs_there) + " |")
    errors = {legs: [] for legs in legs_there}
    for rate in RATES:
        for cid, (label, _) in LABELS.items():
            rows = {legs: [r for r in advice.get((rate, legs), []) if r["candidate"] == cid and r["stage"] != "ALL"]
                    for legs in legs_there}
            longest = max(rows.values(), key=len)
            for i, row in enumerate(longest):
                m = measured.get((rate, label, row["stage"]))
                if m is None:
                    continue
                cells = [rate, label, row["stage"], f"{m:,.1f}"]
                for legs in legs_there:
                    if i < len(rows[legs]):
                        p = float(rows[legs][i]["step_ms"])
                        err = 100 * (p - m) / m
                        errors[legs].append(abs(err))
                        cells += [f"{p:,.1f}", f"{err:+.0f} %"]
                    else:
                        cells += ["", ""]
                print("| " + " | ".join(cells) + " |")
    print()
    for legs in legs_there:
        e = sorted(errors[legs])
        if e:
            within = sum(1 for x in e if x <= 20)
            print(f"- {legs} legs: {within} of {len(e)} stage predictions within 20 %, median |error| "
                  f"{e[len(e) // 2]:.0f} %, largest {e[-1]:.0f} %")
    print()
    print("| rate | legs | chosen (predicted time to 80 %) | its measured time | fastest measured candidate | within 10 %? |")
    print("| --- | --- | --- | ---: | --- | --- |")
    for rate in RATES:
        times = {cid: to_target.get((rate, label)) for cid, (label, _) in LABELS.items()}
        times = {k: v for k, v in times.items() if v is not None}
        if not times:
            continue
        fastest = min(times, key=times.get)
        for legs in legs_there:
            rows = [r for r in advice.get((rate, legs), []) if r["stage"] == "ALL" and r["chosen"] == "yes"]
            if not rows:
                continue
            chosen = rows[0]["candidate"]
            t = times.get(chosen)
            ok = "yes" if t is not None and t <= 1.10 * times[fastest] else "no"
            print(f"| {rate} | {legs} | {LABELS[chosen][0]} ({float(rows[0]['time_to_target_s']):.1f} s) | "
                  f"{t:.1f} s | {LABELS[fastest][0]} ({times[fastest]:.1f} s) | {ok} |")


    runs = advice_dir / "runs"
    if runs.is_dir():
        # compressor: auto's own run: the chosen method's predicted step beside the step it then took, same processes
        print()
        print("| rate | chosen | stage | predicted ms | measured in the same run, ms (steady) | error |")
        print("| --- | --- | --- | ---: | ---: | ---: |")
        for rate in RATES:
            dirs = sorted((runs / rate).glob("*/advice.csv")) if (runs / rate).is_dir() else []
            if not dirs:
                continue
            run = dirs[-1].parent
            rows = list(csv.DictReader(open(run / "advice.csv")))
            chosen = next(r["candidate"] for r in rows if r["stage"] == "ALL" and r["chosen"] == "yes")
            took = steady_steps(run / "metrics.csv")
            for r in rows:
                if r["candidate"] == chosen and r["stage"] != "ALL" and r["stage"] in took:
                    p, m = float(r["step_ms"]), took[r["stage"]]
                    print(f"| {rate} | {LABELS.get(chosen, (chosen,))[0]} | {r['stage']} | {p:,.1f} | {m:,.1f} | "
                          f"{100 * (p - m) / m:+.0f} % |")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3:])
