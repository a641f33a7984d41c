#!/usr/bin/env bash
# The two-host example of docs/manual.md ("One process per rank"), for real: two Linux network namespaces joined by a veth pair stand for two hosts
# (10.77.0.1 and 10.77.0.2); LGC-PS with K = 2 runs rank 0 on the first and rank 1 plus the parameter server on the
# second, each an `lgc worker` bound to its own address. Then the same config in one JVM; the two must agree bit for
# bit (replica checksums, bytes). Needs root (ip netns). Removes its namespaces and veth on exit, also on failure.
# Usage: scripts/two-hosts-netns.sh [STEPS]   (default 30)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
jar=${LGC_JAR:-$root/lgc-cli/target/lgc.jar}
steps=${1:-30}
[ "$(id -u)" = 0 ] || { echo "needs root (ip netns)" >&2; exit 1; }
[ -f "$jar" ] || { echo "no $jar: build with mvn -B -q -DskipTests package" >&2; exit 1; }
a=lgc-host-a-$$; b=lgc-host-b-$$
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]:-}"; do kill -9 "$p" 2>/dev/null || true; done
  pkill -9 -f "$work/two-hosts.yaml" 2>/dev/null || true
  ip netns del "$a" 2>/dev/null || true   # deleting a namespace deletes the veth end inside it, and so the pair
  ip netns del "$b" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
ip netns add "$a"; ip netns add "$b"
ip link add "va$$" type veth peer name "vb$$"
ip link set "va$$" netns "$a"; ip link set "vb$$" netns "$b"
ip -n "$a" addr add 10.77.0.1/24 dev "va$$"; ip -n "$b" addr add 10.77.0.2/24 dev "vb$$"
for ns in "$a" "$b"; do ip -n "$ns" link set lo up; done
ip -n "$a" link set "va$$" up; ip -n "$b" link set "vb$$" up

cat > "$work/two-hosts.yaml" <<EOF
run: {name: two-hosts, seed: 5}
data: {trainLimit: 6400, testLimit: 1000}
training: {workers: 2, batchSizePerWorker: 32, epochs: 1, maxSteps: $steps, evalEverySteps: 0}
topology: {type: ps}
compressor: {type: lgc, ratio: 0.01}
stages: {fullIterations: $((steps / 3)), aeTrainingIterations: $((steps / 3))}
EOF
umask 077; head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$work/job.token"
export OMP_NUM_THREADS=1 LGC_WORLD_SIZE=2 LGC_MASTER_ADDR=10.77.0.1 LGC_MASTER_PORT=29500 LGC_JOB_ID=two-hosts \
  LGC_TOKEN_FILE="$work/job.token"
opts=(-Xmx1g -Dorg.bytedeco.javacpp.maxbytes=2G -Dorg.bytedeco.javacpp.maxphysicalbytes=3G)
worker() {  # worker NAMESPACE RANK ADDRESS
  ip netns exec "$1" env LGC_RANK="$2" LGC_BIND_ADDR="$3" \
    java "${opts[@]}" -jar "$jar" worker "$work/two-hosts.yaml" --output-dir "$work/net" 2>&1 | sed "s/^/[host $3 rank $2] /"
}
worker "$a" 0 10.77.0.1 & pids+=("$!")
worker "$b" 1 10.77.0.2 & pids+=("$!")
worker "$b" 2 10.77.0.2 & pids+=("$!")
status=0
for p in "${pids[@]}"; do wait "$p" || status=1; done
pids=()
[ "$status" = 0 ] || { echo "the two-host run failed" >&2; exit 1; }
java "${opts[@]}" -jar "$jar" run "$work/two-hosts.yaml" --output-dir "$work/local" --no-progress | tail -1
python3 - "$work/net" "$work/local" <<'PY'
import json, pathlib, sys
net, local = (next(pathlib.Path(d).iterdir()) for d in sys.argv[1:3])
a, b = (json.loads((d / "summary.json").read_text()) for d in (net, local))
for key in ("replicaChecksums", "bytesSentPerEndpoint", "finalTestAccuracy", "finalLoss"):
    print("%-26s two hosts %s | one JVM %s | %s" % (key, a[key], b[key], "equal" if a[key] == b[key] else "DIFFER"))
cfg = (net / "config.yaml").read_text()
print("rank 0's config.yaml says runtime.type:", [l.split(":")[1].strip() for l in cfg.splitlines() if l.strip().startswith("type:")][-1])
sys.exit(0 if all(a[k] == b[k] for k in ("replicaChecksums", "bytesSentPerEndpoint", "finalLoss")) else 1)
PY
