#!/bin/bash
# drive.sh NAME EPOCHS KILL_AT_STEP(0: no kill) PORT: Digits.java under lgc launch --nnodes 1:2, two launchers on this
# machine (the first runs the store), host b's launcher and its processes killed with SIGKILL once the checkpoint
# after KILL_AT_STEP steps exists, started again once rank 0 has restored the checkpoint at K = 1.
set -u
name=$1; epochs=$2; killat=$3; port=$4
dir=${PROJECT:-/tmp/user/hosts}/$name; rm -rf $dir; mkdir -p $dir; cd $dir
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > job.token; chmod 600 job.token
CP="$(cat ${PROJECT:-/tmp/user/hosts}/target/classpath.txt):${PROJECT:-/tmp/user/hosts}/target/classes"
DATA=/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz
host() {
  LGC_TOKEN_FILE=$dir/job.token LGC_JOB_ID=digits setsid java -Xmx512m -jar ${LGC_JAR:-/work/main/lgc-cli/target/lgc.jar} launch \
    --nproc 1 --nnodes 1:2 --rdzv 127.0.0.1:$port --host-name $1 --max-restarts 2 \
    -- java -Xmx512m -Dorg.bytedeco.javacpp.maxbytes=1G -cp "$CP" my.Digits $DATA $epochs > $2 2>&1 &
  pid=$!
}
start=$(date +%s.%N)
host a a.log; a=$pid; sleep 2; host b b.log; b=$pid
if [ "$killat" -gt 0 ]; then
  until ls results/*/checkpoints 2>/dev/null | grep -q "step-$(printf %06d $killat)"; do sleep 0.05; done
  kill -9 -- -$b; echo "killed b at $(date +%T.%N)"
  until grep -q "of K = 2 at K = 1" a.log; do sleep 0.05; done  # rank 0 restored the checkpoint at K = 1
  host b b2.log; b=$pid; echo "b back at $(date +%T.%N)"
fi
wait $a; echo "a exit $?"; wait $b; echo "b exit $?"
echo "wall $(echo "$(date +%s.%N) - $start" | bc) s"
grep "^lgc launch: \(round\|lost\|the job\|host\)" a.log
grep -h "test accuracy" a.log | tail -1
