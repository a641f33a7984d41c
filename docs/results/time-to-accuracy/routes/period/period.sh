#!/bin/bash
# Routed ScaleCom at CFS periods of 100 and 10 ms, relayed at 10 ms: 10 Mbit/s, 0.4 cores per process, traced steps
# 30..129, three rotations. Run from the repository's root as root: period.sh OUT (the configs are ../ab/'s).
set -u
out=$1
mkdir -p "$out"
for i in 1 2 3; do
  for v in routed:100 routed:10 relay:10; do
    c=${v%%:*}; p=${v##*:}
    run=$out/out-$c-$p-$i
    OMP_NUM_THREADS=1 bin/lgc launch --nproc 4 --netns-rate 10mbit --cpu-share 0.4 --cpu-period-ms "$p" \
        --output-dir "$run" --trace "$run.trace.json" --trace-steps 30..129 \
        docs/results/time-to-accuracy/routes/ab/scalecom-$c.yaml > "$run.log" 2>&1
    bin/lgc trace summary --rate-mbit 9.6 --csv "$out/tl-$c-$p-$i.csv" "$run.trace.json"
  done
done
