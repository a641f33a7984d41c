#!/usr/bin/env bash
# A real standalone Spark cluster on this machine, from the Maven jars alone: a Master and a Worker JVM, executors as
# separate JVMs (1 core each), the job submitted with SparkSubmit in client mode. K = 4 barrier tasks, one per rank.
# Then the same config in one JVM (lgc run), and the two compared: metrics' non-timing columns, bytes, checksums.
#
# Usage: scripts/spark-standalone.sh run   [CONFIG] [--max-steps N]   the config on the cluster, then in-process
#        scripts/spark-standalone.sh kill  [CONFIG] [--max-steps N]   checkpoints every 50 steps; one executor JVM
#                                                                     killed (-9) once the first checkpoint is on disk:
#                                                                     Spark retries the stage, which resumes from it
#        scripts/spark-standalone.sh slots [CONFIG]                   K = 5 on 4 cores: a clear error within seconds
#        scripts/spark-standalone.sh example                          examples-spark's TrainOnDataFrame (LgcEstimator on
#                                                                     a DataFrame of MakeCsv's files, K = 2); how long
#                                                                     the driver JVM lives after main returns
# CONFIG defaults to configs/quickstart.yaml. OUT (default /tmp/lgc-spark-standalone) keeps logs and results; the
# driver's record of each run is OUT/spark/<run-id>/spark.json. Build first: mvn -B -q -DskipTests install
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mode=${1:-run}; shift || true
config=configs/quickstart.yaml
if [ $# -gt 0 ] && [[ $1 != --* ]]; then config=$1; shift; fi
extra=("$@")
out=${OUT:-/tmp/lgc-spark-standalone}
app=${LGC_SPARK_DIR:-$root/lgc-spark/target}   # lgc-spark.jar and lib/ (a copy: a rebuild cannot change a long run)
[ -f "$app/lgc-spark.jar" ] || { echo "no $app/lgc-spark.jar: build with mvn -B -q -DskipTests install" >&2; exit 1; }
mkdir -p "$out"
cores=4

# SPARK_HOME: a jars/ of links to Spark's own jars (the provided dependencies), as a Spark install would have
spark_home=$out/spark-home
if [ ! -d "$spark_home/jars" ]; then
  mkdir -p "$spark_home/jars" "$spark_home/conf"
  (cd "$root" && mvn -B -q -o dependency:build-classpath -pl lgc-spark -Dmdep.includeScope=provided \
      -Dmdep.outputFile="$out/spark-classpath.txt" >/dev/null)
  # Spark and what it needs, not LGC4J, DL4J or ND4J: the application brings those in lib/ (a copy, which a rebuild
  # cannot change under a running JVM)
  tr ':' '\n' < "$out/spark-classpath.txt" | while read -r jar; do
    case $jar in */io/lgc4j/*|*/org/deeplearning4j/*|*/org/nd4j/*|*/org/bytedeco/*) ;; *) ln -sf "$jar" "$spark_home/jars/" ;; esac
  done
fi
java17=(-XX:+IgnoreUnrecognizedVMOptions --add-opens=java.base/java.lang=ALL-UNNAMED
  --add-opens=java.base/java.lang.invoke=ALL-UNNAMED --add-opens=java.base/java.lang.reflect=ALL-UNNAMED
  --add-opens=java.base/java.io=ALL-UNNAMED --add-opens=java.base/java.net=ALL-UNNAMED
  --add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/java.util=ALL-UNNAMED
  --add-opens=java.base/java.util.concurrent=ALL-UNNAMED --add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED
  --add-opens=java.base/sun.nio.ch=ALL-UNNAMED --add-opens=java.base/sun.nio.cs=ALL-UNNAMED
  --add-opens=java.base/sun.security.action=ALL-UNNAMED --add-opens=java.base/sun.util.calendar=ALL-UNNAMED)
export SPARK_HOME=$spark_home SPARK_LOCAL_IP=127.0.0.1 SPARK_SCALA_VERSION=2.12 OMP_NUM_THREADS=1
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
master_port=$(free_port)
pids=()
executors() {  # the executor JVMs this script's worker started (they run in its work directory)
  for p in $(pgrep -f CoarseGrainedExecutorBackend || true); do
    [[ $(readlink "/proc/$p/cwd" 2>/dev/null) == "$out/work/"* ]] && echo "$p"
  done
}
cleanup() {
  for p in "${pids[@]:-}"; do kill "$p" 2>/dev/null || true; done
  sleep 1
  for p in "${pids[@]:-}" $(executors); do kill -9 "$p" 2>/dev/null || true; done
}
trap cleanup EXIT
java -Xmx512m -cp "$spark_home/jars/*" org.apache.spark.deploy.master.Master --host 127.0.0.1 --port "$master_port" \
  --webui-port 0 > "$out/master.log" 2>&1 & pids+=("$!")
java -Xmx512m -cp "$spark_home/jars/*" org.apache.spark.deploy.worker.Worker --host 127.0.0.1 --cores "$cores" \
  --memory 16g --webui-port 0 --work-dir "$out/work" "spark://127.0.0.1:$master_port" > "$out/worker.log" 2>&1 &
pids+=("$!")
for _ in $(seq 1 60); do grep -q "Successfully registered with master" "$out/worker.log" && break; sleep 1; done
grep -q "Successfully registered with master" "$out/worker.log" || { echo "the worker did not register" >&2; exit 1; }

submit() {  # submit LOG ARGS...: the job through SparkSubmit (client mode: the driver is this JVM)
  local log=$1; shift
  java "${java17[@]}" -Xmx2g -Dorg.bytedeco.javacpp.maxbytes=2G \
    -cp "$spark_home/jars/*:$app/lgc-spark.jar:$app/lib/*" org.apache.spark.deploy.SparkSubmit \
    --master "spark://127.0.0.1:$master_port" --deploy-mode client --class io.lgc4j.spark.LgcSparkMain \
    --conf spark.executor.cores=1 --conf spark.cores.max=$cores --conf spark.executor.memory=1500m \
    --conf spark.ui.enabled=false --conf spark.executorEnv.OMP_NUM_THREADS=1 \
    --conf "spark.executor.extraClassPath=$app/lgc-spark.jar:$app/lib/*" \
    --conf "spark.executor.extraJavaOptions=-Dorg.bytedeco.javacpp.maxbytes=2G -Dorg.bytedeco.javacpp.maxphysicalbytes=4G" \
    "$app/lgc-spark.jar" "$@" 2>&1 | tee "$log" | grep -E "^lgc-spark|test accuracy|ERROR|Exception" || true
}
compare() {  # compare SPARK_RUN_DIR IN_PROCESS_RUN_DIR
  python3 - "$1" "$2" <<'PY'
import csv, json, pathlib, sys
a, b = (pathlib.Path(p) for p in sys.argv[1:3])
def rows(d):
    with open(d / "metrics.csv") as f:
        r = list(csv.reader(f))
    keep = [i for i, h in enumerate(r[0]) if not h.endswith("_ms")]
    return [[row[i] for i in keep] for row in r]
sa, sb = (json.loads((d / "summary.json").read_text()) for d in (a, b))
print("%-26s %s" % ("metrics.csv (non-timing)", "equal" if rows(a) == rows(b) else "DIFFER"))
for key in ("finalTestAccuracy", "finalLoss", "bytesSentPerEndpoint", "replicaChecksums"):
    print("%-26s spark %s | one JVM %s | %s" % (key, sa[key], sb[key], "equal" if sa[key] == sb[key] else "DIFFER"))
s = json.loads((a / "spark.json").read_text())
print("spark: %d stage attempt(s), resumed from %s; wall %.1f s = until tasks ran %.1f s, preparing %.1f s,"
      " rendezvous %.1f s, training %.1f s" % (s["stageAttempts"], s["resumedFrom"], s["wallMs"] / 1e3,
      s["untilTasksMs"] / 1e3, s["preparingMs"] / 1e3, s["rendezvousMs"] / 1e3, s["trainingMs"] / 1e3))
PY
}
newest() { ls -td "$1"/*/ | head -1; }
in_process() {  # the same config in one JVM, for the comparison
  local cfg=$1; shift
  OMP_NUM_THREADS=1 java -Xmx4g -Dorg.bytedeco.javacpp.maxbytes=6G -jar "${LGC_JAR:-$root/lgc-cli/target/lgc.jar}" run "$cfg" \
    --output-dir "$out/in-process" --no-progress "$@" | tail -1
}

case $mode in
  run)
    start=$(date +%s)
    submit "$out/driver-run.log" "$root/$config" --output-dir "$out/spark" "${extra[@]}"
    echo "submitted to done: $(( $(date +%s) - start )) s"
    in_process "$root/$config" "${extra[@]}"
    compare "$(newest "$out/spark")" "$(newest "$out/in-process")"
    ;;
  kill)
    cfg=$out/checkpointed.yaml
    python3 - "$root/$config" "$cfg" <<'PY'
import sys, re, pathlib
s = pathlib.Path(sys.argv[1]).read_text(); p = pathlib.Path(sys.argv[2])
s = re.sub(r"(\ntraining:\n)", r"\1  checkpointEverySteps: 50\n", s, count=1)
s = re.sub(r"name: (\S+)", r"name: \1-checkpointed", s, count=1)
p.write_text(s)
PY
    mkdir -p "$out/spark"
    submit "$out/driver-kill.log" "$cfg" --output-dir "$out/spark" "${extra[@]}" &
    driver=$!
    # once the first checkpoint is complete, kill -9 one executor JVM (whichever rank it runs)
    for _ in $(seq 1 900); do
      d=$(ls -td "$out"/spark/*/ 2>/dev/null | head -1 || true)
      [ -n "$d" ] && [ -f "$d/checkpoints/step-000050/manifest.lgcc" ] && break
      sleep 1
    done
    victim=$(executors | tail -1)
    echo "killing executor JVM $victim (kill -9) after the checkpoint of step 50"
    kill -9 "$victim"
    wait "$driver" || true
    grep -h "lgc-spark: stage attempt" "$out"/work/*/*/stderr 2>/dev/null | head -2 || true
    in_process "$cfg" "${extra[@]}"
    compare "$(newest "$out/spark")" "$(newest "$out/in-process")"
    ;;
  slots)
    start=$(date +%s)
    submit "$out/driver-slots.log" "$root/$config" --workers 5 --slot-wait-seconds 30 --output-dir "$out/spark-slots" \
      || true
    echo "refused after $(( $(date +%s) - start )) s (JVM and SparkContext start included)"
    ;;
  example)
    (cd "$root" && mvn -B -q -o dependency:build-classpath -pl examples-spark -DincludeScope=runtime \
        -Dmdep.outputFile="$out/example-classpath.txt" >/dev/null)
    cp=$(echo "$root"/examples-spark/target/lgc-examples-spark-*.jar):$(cat "$out/example-classpath.txt")
    java -cp "$cp" io.lgc4j.examples.MakeCsv "$out/example-data" 20000 4000
    start=$(date +%s%N)
    java "${java17[@]}" -Xmx2g -Dorg.bytedeco.javacpp.maxbytes=2G -cp "$spark_home/jars/*:$cp" \
      org.apache.spark.deploy.SparkSubmit --master "spark://127.0.0.1:$master_port" --deploy-mode client \
      --class io.lgc4j.examples.spark.TrainOnDataFrame \
      --conf spark.executor.cores=1 --conf spark.cores.max=2 --conf spark.executor.memory=1500m \
      --conf spark.ui.enabled=false --conf spark.executorEnv.OMP_NUM_THREADS=1 \
      --conf "spark.executor.extraClassPath=$cp" \
      --conf "spark.executor.extraJavaOptions=-Dorg.bytedeco.javacpp.maxbytes=2G" \
      "$(echo "$root"/examples-spark/target/lgc-examples-spark-*.jar)" "$out/example-data" 3 2>&1 \
      | while IFS= read -r line; do echo "$(date +%s%N) $line"; done > "$out/driver-example.log"
    end=$(date +%s%N)
    grep "test accuracy" "$out/driver-example.log" | cut -d' ' -f2-
    printed=$(grep "test accuracy" "$out/driver-example.log" | cut -d' ' -f1)
    echo "submitted to exit: $(( (end - start) / 1000000000 )) s; the driver JVM ended $(( (end - printed) / 1000000 ))" \
      "ms after main printed its result (and stopped Spark)"
    ;;
  *) echo "usage: $0 run|kill|slots|example [CONFIG] [--max-steps N]" >&2; exit 2 ;;
esac
