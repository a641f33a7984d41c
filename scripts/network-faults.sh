#!/usr/bin/env bash
# Faults of the network runtime, each a real multi-process job on loopback, with the lines that show what happened:
#   kill -9 of a worker and of the parameter server mid-run, a stalled worker (SIGSTOP), a corrupted frame on the
#   wire (a proxy flips one byte), and peers that must be refused: a wrong token, a wrong job id, a certificate of
#   another CA (the job then completes with the right peer).
# Usage: scripts/network-faults.sh [OUT.md]   (default docs/results/network/faults.md; ~3 minutes)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
jar=${LGC_JAR:-$root/lgc-cli/target/lgc.jar}
out=${1:-$root/docs/results/network/faults.md}
[ -f "$jar" ] || { echo "no $jar: build with mvn -B -q -DskipTests package" >&2; exit 1; }
work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]:-}"; do kill -9 "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
export OMP_NUM_THREADS=1
opts=(-Xmx1g -Dorg.bytedeco.javacpp.maxbytes=2G -Dorg.bytedeco.javacpp.maxphysicalbytes=3G)
lgc() { java "${opts[@]}" -jar "$jar" "$@"; }

config() {  # config NAME TOPOLOGY COMPRESSOR STEPS
  cat > "$work/$1.yaml" <<EOF
run: {name: $1, seed: 3, outputDir: $work/results-$1}
data: {trainLimit: 60000, testLimit: 500}
training: {workers: 3, batchSizePerWorker: 16, epochs: 1, maxSteps: $4, evalEverySteps: 0}
topology: {type: $2}
compressor: {type: $3}
runtime: {peerIdleTimeoutMs: 4000, heartbeatMs: 1000}
EOF
  echo "$work/$1.yaml"
}

# the pid of the worker process of config $1 whose environment says LGC_RANK=$2
rank_pid() {
  for p in $(pgrep -f "worker $1"); do
    tr '\0' '\n' < /proc/$p/environ 2>/dev/null | grep -qx "LGC_RANK=$2" && { echo "$p"; return; }
  done
}

wait_steps() {  # wait until rank 0's metrics.csv has $2 rows under $1
  for _ in $(seq 600); do
    f=$(ls "$1"/*/metrics.csv 2>/dev/null | head -1 || true)
    [ -n "$f" ] && [ "$(wc -l < "$f")" -gt "$2" ] && return 0
    sleep 0.2
  done
  echo "training did not start" >&2; return 1
}

report=()
section() { report+=("" "## $1" "" "$2" "" '```'); }
quote() { report+=("$@"); }
endquote() { report+=('```'); }

kill_case() {  # kill_case TITLE NAME TOPOLOGY COMPRESSOR RANK SIGNAL
  local cfg log start end status
  cfg=$(config "$2" "$3" "$4" 100000)
  log="$work/$2.log"
  lgc launch --nproc 3 "$cfg" > "$log" 2>&1 &
  local launcher=$!; pids+=("$launcher")
  wait_steps "$work/results-$2" 3
  local victim; victim=$(rank_pid "$cfg" "$5")
  start=$(date +%s.%N)
  kill "-$6" "$victim"
  status=0; wait "$launcher" || status=$?
  end=$(date +%s.%N)
  sleep 0.5
  local left; left=$(pgrep -f "worker $cfg" | wc -l || true)
  section "$1" "$(printf 'kill -%s of LGC_RANK=%s (pid %s); the launcher exited with status %s %.1f s later; processes of the job left: %s.' \
    "$6" "$5" "$victim" "$status" "$(echo "$end - $start" | bc)" "$left")"
  quote "$(grep -E 'lgc launch|stopped at|lost|reports|failed|was stopped' "$log" | grep -v ' INFO: ' | cut -c1-400)"
  quote "--- failure.txt:"
  quote "$(cat "$work"/results-"$2"/*/failure.txt 2>/dev/null | cut -c1-400 || echo '(none)')"
  endquote
}

kill_case "A worker killed mid-run (kill -9)" kill-worker ps lgc 2 9
kill_case "The parameter server killed mid-run (kill -9)" kill-server ps topk 3 9
kill_case "A stalled worker (SIGSTOP)" stall ring none 1 STOP

# --- refused peers, then the right one: one job of K = 2 started by hand ---------------------------------------
refusal_case() {  # refusal_case TITLE NAME TLS(yes|no)
  local cfg port token bad log0
  cfg=$(config "$2" ring none 20)
  sed -i 's/workers: 3/workers: 2/' "$cfg"
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  umask 077
  head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$work/token"
  head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$work/bad-token"
  local common=(LGC_WORLD_SIZE=2 LGC_MASTER_ADDR=127.0.0.1 LGC_MASTER_PORT=$port)
  local tls0=() tlsbad=()
  if [ "$3" = yes ]; then
    lgc keys "$work/keys" > /dev/null; lgc keys "$work/other-ca" > /dev/null
    tls0=(LGC_TLS_CERT="$work/keys/localhost.crt" LGC_TLS_KEY="$work/keys/localhost.key" LGC_TLS_CA="$work/keys/ca.crt")
    tlsbad=(LGC_TLS_CERT="$work/other-ca/localhost.crt" LGC_TLS_KEY="$work/other-ca/localhost.key" LGC_TLS_CA="$work/other-ca/ca.crt")
  fi
  log0="$work/$2-rank0.log"
  env "${common[@]}" "${tls0[@]}" LGC_RANK=0 LGC_JOB_ID=job-a LGC_TOKEN_FILE="$work/token" \
    java "${opts[@]}" -jar "$jar" worker "$cfg" > "$log0" 2>&1 &
  local r0=$!; pids+=("$r0")
  sleep 4
  section "$1" "Rank 0 of a K = 2 job waits; impostors claiming rank 1 try first, then the right rank 1 joins and the job runs to its end."
  if [ "$3" = yes ]; then
    quote "\$ rank 1 with a certificate of another CA:"
    quote "$(env "${common[@]}" "${tlsbad[@]}" LGC_RANK=1 LGC_JOB_ID=job-a LGC_TOKEN_FILE="$work/token" \
      java "${opts[@]}" -jar "$jar" worker "$cfg" 2>&1 | grep -E 'lgc worker' | cut -c1-300 || true)"
  else
    quote "\$ rank 1 with the wrong token:"
    quote "$(env "${common[@]}" LGC_RANK=1 LGC_JOB_ID=job-a LGC_TOKEN_FILE="$work/bad-token" \
      java "${opts[@]}" -jar "$jar" worker "$cfg" 2>&1 | grep -E 'lgc worker' | cut -c1-300 || true)"
    quote "\$ rank 1 with the wrong job id:"
    quote "$(env "${common[@]}" LGC_RANK=1 LGC_JOB_ID=job-b LGC_TOKEN_FILE="$work/token" \
      java "${opts[@]}" -jar "$jar" worker "$cfg" 2>&1 | grep -E 'lgc worker' | cut -c1-300 || true)"
  fi
  quote "\$ the right rank 1:"
  quote "$(env "${common[@]}" "${tls0[@]}" LGC_RANK=1 LGC_JOB_ID=job-a LGC_TOKEN_FILE="$work/token" \
    java "${opts[@]}" -jar "$jar" worker "$cfg" 2>&1 | tail -1 | cut -c1-300; echo "exit status $?")"
  wait "$r0" || true
  quote "--- rank 0:"
  quote "$(grep -iE 'refused|certificate|tls|test accuracy' "$log0" | cut -c1-300)"
  endquote
}

refusal_case "Wrong token and wrong job id: refused, then the right peer joins" refuse-plain no
refusal_case "A certificate of another CA: refused, then the right peer joins" refuse-tls yes

# --- a corrupted frame: rank 2 reaches rank 0 through a proxy that flips one byte after 3 MB ---------------------
cfg=$(config corrupt ring none 100000)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
proxy=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
python3 - "$proxy" "$port" > "$work/proxy.log" 2>&1 <<'PY' &
import socket, sys, threading
listen, target = int(sys.argv[1]), int(sys.argv[2])
srv = socket.socket(); srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); srv.bind(("127.0.0.1", listen)); srv.listen(4)
def pipe(a, b, flip_at):
    seen = 0
    while True:
        try:
            data = a.recv(65536)
        except OSError:
            data = b""
        if not data:
            b.close(); return
        if flip_at is not None and seen <= flip_at < seen + len(data):
            i = flip_at - seen
            data = data[:i] + bytes([data[i] ^ 0x40]) + data[i + 1:]
            print("flipped byte %d of the stream" % flip_at, flush=True)
        seen += len(data)
        try:
            b.sendall(data)
        except OSError:
            a.close(); return
while True:
    c, _ = srv.accept()
    u = socket.create_connection(("127.0.0.1", target))
    threading.Thread(target=pipe, args=(c, u, 3_000_000), daemon=True).start()
    threading.Thread(target=pipe, args=(u, c, None), daemon=True).start()
PY
pids+=("$!"); disown "$!"   # killed by the cleanup, without a notice
token="$work/corrupt-token"; umask 077; head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$token"
for r in 0 1 2; do
  mp=$port; [ "$r" = 2 ] && mp=$proxy
  env LGC_WORLD_SIZE=3 LGC_MASTER_ADDR=127.0.0.1 LGC_MASTER_PORT=$mp LGC_RANK=$r LGC_JOB_ID=corrupt \
    LGC_TOKEN_FILE="$token" java "${opts[@]}" -jar "$jar" worker "$cfg" > "$work/corrupt-$r.log" 2>&1 &
  pids+=("$!"); eval "c$r=$!"
done
start=$(date +%s)
s0=0; wait "$c0" || s0=$?; s1=0; wait "$c1" || s1=$?; s2=0; wait "$c2" || s2=$?
section "A corrupted frame on the wire" "Rank 2 reaches rank 0 through a proxy that flips one bit 3,000,000 bytes into the stream from rank 2 to rank 0 (dense ring, K = 3). Exit statuses: rank 0 $s0, rank 1 $s1, rank 2 $s2, $(( $(date +%s) - start )) s after start."
quote "$(cat "$work/proxy.log")"
for r in 0 1 2; do quote "--- rank $r:"; quote "$(grep -E 'lgc worker|CRC|corrupt' "$work/corrupt-$r.log" | grep -v ' INFO: ' | cut -c1-400 | head -3)"; done
endquote

{
  echo "# Network runtime: faults, each a real multi-process job"
  echo
  echo "Made by \`scripts/network-faults.sh\` on $(date -u +%Y-%m-%d) at commit $(git -C "$root" rev-parse --short HEAD)"
  echo "($(getconf _NPROCESSORS_ONLN) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(java -version 2>&1 | head -1)). Loopback TCP, one JVM"
  echo "per rank (and the server), \`runtime.peerIdleTimeoutMs: 4000\`, heartbeats every 1000 ms."
  printf '%s\n' "${report[@]}"
} > "$out"
echo "wrote $out"
