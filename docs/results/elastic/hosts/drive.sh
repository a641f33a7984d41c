#!/bin/bash
# drive.sh NAME EPOCHS KILL_AT_STEP(0: no kill) PORT
set -u
name=$1; epochs=$2; killat=$3; port=$4
dir=${PROJECT:-/tmp/user/hosts}/$name; rm -rf $dir; mkdir -p $dir; cd $dir
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > job.token; chmod 600 job.token
CP="$(cat ${PROJECT:-/tmp/user/hosts}/target/classpath.txt):${PROJECT:-/tmp/user/hosts}/target/classes"
DATA=/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz
host() {
  LGC_TOKEN_FILE=$dir/job.token LGC_JOB_ID=digits java -Xmx512m -jar ${LGC_JAR:-/work/main/lgc-cli/target/lgc.jar} launch \
    --nproc 1 --nnodes 1:2 --rdzv 127.0.0.1:$port --host-name $1 --max-restarts 2 \
    -- java -Xmx512m -Dorg.bytedeco.javacpp.maxbytes=1G -cp "$CP" my.Digits $DATA $epochs > $2 2>&1 &
  pid=$!
}
host a a.log; a=$pid; sleep 2; host b b.log; b=$pid
if [ "$killat" -gt 0 ]; then
  until ls results/*/checkpoints 2>/dev/null | grep -q "step-$(printf %06d $killat)"; do sleep 0.2; done
  kill -9 $b; echo "killed b at $(date +%T)"
  until grep -q "round 1 at K = 1" a.log; do sleep 0.2; done
  host b b2.log; b=$pid; echo "b back at $(date +%T)"
fi
wait $a; echo "a exit $?"; wait $b; echo "b exit $?"
grep "^lgc launch: \(round\|lost\|the job\|host\)" a.log
grep -h "test accuracy" a.log | tail -1
