#!/usr/bin/env bash
# lgc advise on configs/quickstart.yaml at the time-to-accuracy table's conditions (docs/results/time-to-accuracy/,
# configs/tables/time-to-accuracy-41.yaml): this JVM in a cgroup of 0.4 cores (CFS quota 40 ms per 100 ms, as
# lgc launch --cpu-share 0.4 gives each process), each link's probed rate, and two settings of the legs:
#   idle:   0.05 ms a leg, no straggler (an idle loopback's 1 KB round trip, docs/results/bench/transport.md)
#   traced: 3.5 ms a leg, straggler 31 ms (ScaleCom's routed TOP_K steps at 10 Mbit/s and 0.4 cores, traced in
#           docs/results/time-to-accuracy/routes/: chained 1.1 + latency 12.9 ms over 4 legs; straggler 31.2 ms)
# One ND4J thread (OMP_NUM_THREADS=1, as bin/lgc and lgc launch give every process). Then compare.py puts every
# prediction beside the table's measured step. Needs root (cgroup v1 cpu) and the jar.
#   usage: docs/results/advise/check.sh OUT_DIR [UNSHAPED_MBIT]
set -euo pipefail
out=${1:?usage: check.sh OUT_DIR [UNSHAPED_MBIT]}
unshaped=${2:-4000}
jar=${JAR:-experiments/target/lgc.jar}
mkdir -p "$out"
cg=/sys/fs/cgroup/cpu/lgc-advise-$$
mkdir "$cg"
trap 'rmdir "$cg" 2>/dev/null || true' EXIT
echo 100000 > "$cg/cpu.cfs_period_us"
echo 40000 > "$cg/cpu.cfs_quota_us"
for rate in unshaped:$unshaped 100mbit:95.6 10mbit:9.6; do
  name=${rate%%:*} mbit=${rate#*:}
  for legs in idle:0.05:0 traced:3.5:31; do
    IFS=: read -r lname hop straggler <<< "$legs"
    echo "== $name ($mbit Mbit/s), $lname legs" | tee -a "$out/advise.txt"
    OMP_NUM_THREADS=1 sh -c "echo \$\$ > $cg/tasks; exec java -Xmx4g -jar $jar advise configs/quickstart.yaml --rate-mbit $mbit \
      --hop-ms $hop --straggler-ms $straggler --output $out/advice-$name-$lname.csv" >> "$out/advise.txt" 2>&1
  done
done
