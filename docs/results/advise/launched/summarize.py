#!/usr/bin/env python3
"""The repetitions of check-launch.sh side by side: per rate, candidate and stage the predicted step of each
repetition beside the table's measured one, and per rate each repetition's choice.

usage: summarize.py TTA_DIR REP_DIR... > summary.md   (TTA_DIR: ../../time-to-accuracy/rerun-41)
"""
import csv
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from compare import LABELS, RATES, steady_steps  # noqa: E402


def main(tta, reps):
    measured = {}
    for rate in RATES:
        for cid, (label, run) in LABELS.items():
            for stage, ms in steady_steps(tta / rate / "runs" / f"{run}-small-cnn" / "metrics.csv").items():
                measured[(rate, cid, stage)] = ms
    to_target = {(r["link"], r["method"]): float(r["time_to_target_s"]) for r in csv.DictReader(
        open(tta / "table.csv")) if r["time_to_target_s"]}
    advice = {(i, rate): list(csv.DictReader(open(rep / f"advice-{rate}-probed.csv")))
              for i, rep in enumerate(reps) for rate in RATES}
    print("| rate | method | stage | measured ms | " + " | ".join(f"rep {i + 1}" for i in range(len(reps)))
          + " | errors |")
    print("| --- | --- | --- | ---: | " + " | ".join("---:" for _ in reps) + " | --- |")
    errs = []
    for rate in RATES:
        for cid, (label, _) in LABELS.items():
            stages = [r["stage"] for r in advice[(0, rate)] if r["candidate"] == cid and r["stage"] != "ALL"]
            for stage in stages:
                m = measured.get((rate, cid, stage))
                if m is None:
                    continue
                preds = [next(float(r["step_ms"]) for r in advice[(i, rate)] if r["candidate"] == cid
                              and r["stage"] == stage) for i in range(len(reps))]
                e = [100 * (p - m) / m for p in preds]
                errs += [abs(x) for x in e]
                print(f"| {rate} | {label} | {stage} | {m:,.1f} | " + " | ".join(f"{p:,.1f}" for p in preds)
                      + " | " + ", ".join(f"{x:+.0f} %" for x in e) + " |")
    errs.sort()
    print()
    print(f"- {sum(1 for x in errs if x <= 20)} of {len(errs)} predictions within 20 %, median |error| "
          f"{errs[len(errs) // 2]:.0f} %, largest {errs[-1]:.0f} %")
    print()
    print("| rate | fastest measured | " + " | ".join(f"rep {i + 1}: chosen (measured, x fastest)"
                                                  for i in range(len(reps))) + " |")
    print("| --- | --- | " + " | ".join("---" for _ in reps) + " |")
    for rate in RATES:
        times = {cid: to_target.get((rate, label)) for cid, (label, _) in LABELS.items()}
        times = {k: v for k, v in times.items() if v is not None}
        fastest = min(times, key=times.get)
        cells = []
        for i in range(len(reps)):
            chosen = next(r["candidate"] for r in advice[(i, rate)] if r["stage"] == "ALL" and r["chosen"] == "yes")
            cells.append(f"{chosen} ({times[chosen]:.1f} s, {times[chosen] / times[fastest]:.2f})")
        print(f"| {rate} | {fastest} ({times[fastest]:.1f} s) | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(Path(sys.argv[1]), [Path(p) for p in sys.argv[2:]])
