#!/usr/bin/env bash
# Memory per worker process, streamed data beside the in-memory source (issue 40): K = 4 processes through
# `lgc launch`, LeNet-5 (small-cnn) on Fashion-MNIST with top-k 1 % over the ring, MAX_STEPS steps each. For every run,
# per worker: peak heap before a collection (from -Xlog:gc), peak resident set (VmHWM), ms per step, replica
# checksums. Runs:
#   memory-idx      data.source: memory (every process reads the 60,000 images)          -Xmx1g
#   memory-idx-256m the same at -Xmx256m                                                   (expected to fail)
#   files-idx       data.source: files, the uncompressed IDX files (same data, same order) -Xmx256m
#   files-csv-12x   data.source: files, 12 copies as CSV, pixels / 255 (720,000 rows, 3.9 GB) -Xmx256m
#
#   scripts/fmnist-csv.py /tmp/lgc-data/csv-12x --copies 12 --scale   # once: the CSV and the uncompressed IDX
#   scripts/data-memory.sh --jar lgc-cli/target/lgc.jar --out /tmp/data-memory
#   scripts/data-memory.sh --runs files-csv-12x --steps 0 --out /tmp/data-memory-epoch   # a whole epoch: 5,625 steps
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
JAR=lgc-cli/target/lgc.jar
OUT=/tmp/data-memory
DATA=/tmp/lgc-data
MAX_STEPS=300
RUNS=memory-idx,memory-idx-256m,files-idx,files-csv-12x
while [ $# -gt 0 ]; do
  case "$1" in
    --jar) JAR=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --data) DATA=$2; shift 2 ;;
    --steps) MAX_STEPS=$2; shift 2 ;;
    --runs) RUNS=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$OUT"
LIB="$(dirname "$JAR")/lib"
CP="$JAR:$LIB/*"

config() { # NAME DATA_SECTION
  cat > "$OUT/$1.yaml" <<YAML
run: {name: $1, seed: 42, outputDir: $OUT/$1/results}
data: $2
model: {name: small-cnn}
training: {workers: 4, batchSizePerWorker: 32, epochs: 1, maxSteps: $MAX_STEPS, evalEverySteps: 0}
topology: {type: ring}
compressor: {type: topk, ratio: 0.01}
YAML
}

run() { # NAME HEAP DATA_SECTION
  local name=$1 heap=$2 dir="$OUT/$1"
  rm -rf "$dir"; mkdir -p "$dir"
  config "$name" "$3"
  echo "== $name (-Xmx$heap)"
  OMP_NUM_THREADS=1 java -Xmx256m -cp "$CP" io.lgc4j.cli.LgcCommand launch "$OUT/$name.yaml" --nproc 4 \
      --java-opts "-Xmx$heap -Dorg.bytedeco.javacpp.maxbytes=1500M -Xlog:gc:file=$dir/gc-%p.log" \
      > "$dir/launch.log" 2>&1 &
  local launcher=$!
  : > "$dir/rss.txt"
  while kill -0 "$launcher" 2>/dev/null; do
    for pid in $(pgrep -f "worker $OUT/$name.yaml" || true); do
      # a worker may end between pgrep and the read: its files are then gone, and so is it from the table
      rank=$({ tr '\0' '\n' < "/proc/$pid/environ"; } 2>/dev/null | sed -n 's/^LGC_RANK=//p' || true)
      hwm=$(sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$pid/status" 2>/dev/null || true)
      [ -n "$rank" ] && [ -n "$hwm" ] && echo "$pid $rank $hwm" >> "$dir/rss.txt"
    done
    sleep 1
  done
  wait "$launcher" && echo ok > "$dir/status" || echo "failed ($?)" > "$dir/status"
  cat "$dir/status"
}

wanted() { [[ ",$RUNS," == *",$1,"* ]]; }
MEMORY="{dataset: fashion-mnist, path: /usr/share/datasets/fashion-mnist, source: memory}"
! wanted memory-idx || run memory-idx 1g "$MEMORY"
! wanted memory-idx-256m || run memory-idx-256m 256m "$MEMORY"
! wanted files-idx || run files-idx 256m "{dataset: fashion-mnist, path: $DATA/idx, source: files}"
! wanted files-csv-12x || run files-csv-12x 256m \
    "{dataset: csv, path: $DATA/csv-12x, source: files, csv: {labelColumn: 784, classes: 10}}"

python3 - "$OUT" "$RUNS" <<'PY'
import glob, json, os, re, sys
out = sys.argv[1]
rows = []
for name in sys.argv[2].split(","):
    d = os.path.join(out, name)
    status = open(os.path.join(d, "status")).read().strip()
    heap = {}
    for log in glob.glob(os.path.join(d, "gc-*.log")):
        pid = re.search(r"gc-(\d+)\.log", log).group(1)
        peak = 0
        for line in open(log):
            m = re.search(r"(\d+)M->(\d+)M\((\d+)M\)", line)
            if m:
                peak = max(peak, int(m.group(1)))
        heap[pid] = peak
    rss = {}
    for line in open(os.path.join(d, "rss.txt")):
        pid, rank, hwm = line.split()
        rss[(pid, int(rank))] = max(rss.get((pid, int(rank)), 0), int(hwm))
    ranks = sorted(rss, key=lambda k: k[1])
    summaries = glob.glob(os.path.join(d, "results", "*", "summary.json"))
    steps, ms, compute, checksums = "", "", "", ""
    if summaries:
        s = json.load(open(summaries[0]))
        steps = str(s["steps"])
        ms = "%.0f" % (s["wall_ms"] / max(1, s["steps"]))
        compute = "%.0f" % s["meanPhaseTimesPerStep"]["compute_ms"]
        checksums = ",".join(sorted(set(s.get("replicaChecksums", []))))
    rows.append((name, status, [heap.get(p, 0) for p, _ in ranks], [rss[k] // 1024 for k in ranks], steps, ms,
                 compute, checksums))
with open(os.path.join(out, "table.md"), "w") as f:
    f.write("| run | status | peak heap per rank (MB, before a GC) | peak RSS per rank (MB) | steps | ms/step |"
            " compute ms/step | replica checksum |\n")
    f.write("| --- | --- | --- | --- | --- | --- | --- | --- |\n")
    for name, status, heap, rss, steps, ms, compute, checksums in rows:
        f.write("| %s | %s | %s | %s | %s | %s | %s | %s |\n" % (name, status, " / ".join(map(str, heap)),
                " / ".join(map(str, rss)), steps, ms, compute, checksums))
print(open(os.path.join(out, "table.md")).read())
PY
