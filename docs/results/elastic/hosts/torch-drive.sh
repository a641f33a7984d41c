#!/bin/bash
# torch-drive.sh NAME EPOCHS KILL_AT_STEP(0: no kill) PORT: the PyTorch peer of drive.sh under torchrun's elastic
# agent, two agents on this machine (c10d rendezvous; the first hosts the store), host b's agent and its workers
# killed with SIGKILL once the checkpoint after KILL_AT_STEP steps exists, started again once the survivor resumed.
set -u
name=$1; epochs=$2; killat=$3; port=$4
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
dir=${PROJECT:-/tmp/user/torch}/$name; rm -rf $dir; mkdir -p $dir/ckpt; cd $dir
DATA=/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz
host() {
  OMP_NUM_THREADS=1 setsid /usr/bin/python3 -m torch.distributed.run --nnodes 1:2 --nproc_per_node 1 \
    --rdzv_backend c10d --rdzv_endpoint 127.0.0.1:$port --rdzv_id digits --rdzv_conf last_call_timeout=3 --max_restarts 3 --monitor_interval 1 --redirects 1 --tee 1 --log_dir $dir/logs-$1 \
    $here/torch_digits.py $DATA $epochs $dir/ckpt > $1 2>&1 &
  pid=$!
}
start=$(date +%s.%N)
host a.log; a=$pid; sleep 2; host b.log; b=$pid
if [ "$killat" -gt 0 ]; then
  until [ -e ckpt/step-$(printf %06d $killat) ]; do sleep 0.05; done
  kill -9 -- -$b; echo "killed b at $(date +%T.%N)"
  until grep -q '"resumed"' a.log; do sleep 0.05; done  # rank 0 restored the checkpoint at world 1
  host b2.log; b=$pid; echo "b back at $(date +%T.%N)"
fi
wait $a; echo "a exit $?"; wait $b; echo "b exit $?"
echo "wall $(echo "$(date +%s.%N) - $start" | bc) s"
grep -h '"resumed"\|"steps"' a.log b.log b2.log 2>/dev/null
