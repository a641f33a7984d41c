#!/bin/bash
# compare.sh EPOCHS KILL_AT REPEATS: LGC4J (drive.sh) and the PyTorch peer under torchrun (torch-drive.sh), each run
# uninterrupted and with host b lost after KILL_AT steps and back, REPEATS times, alternating; one CSV line per run.
set -u
epochs=$1; killat=$2; repeats=$3
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
echo "tool,run,repeat,killed_at,kill_to_resume_s,wall_s,steps,test_accuracy,rounds"
for r in $(seq 1 $repeats); do
  for tool in lgc torch; do
    for k in 0 $killat; do
      off=0; [ $tool = torch ] && off=5
      name=$tool-$k-$r; port=$((29500 + r * 10 + (k > 0 ? 1 : 0) + off))
      if [ $tool = lgc ]; then out=$($here/drive.sh $name $epochs $k $port 2>&1); dir=${PROJECT:-/tmp/user/hosts}/$name
      else out=$(PROJECT=${TORCH_PROJECT:-/tmp/user/torch} $here/torch-drive.sh $name $epochs $k $port 2>&1); fi
      wall=$(echo "$out" | sed -n 's/^wall \([0-9.]*\) s/\1/p')
      killed=$(echo "$out" | sed -n 's/^killed b at \(.*\)/\1/p'); back=$(echo "$out" | sed -n 's/^b back at \(.*\)/\1/p')
      gap=""; [ -n "$killed" ] && gap=$(echo "$(date -d "$back" +%s.%N) - $(date -d "$killed" +%s.%N)" | bc)
      if [ $tool = lgc ]; then
        steps=$(echo "$out" | sed -n 's/.*steps \([0-9]*\) test accuracy \([0-9.]*\).*/\1/p' | tail -1)
        acc=$(echo "$out" | sed -n 's/.*steps \([0-9]*\) test accuracy \([0-9.]*\).*/\2/p' | tail -1)
        rounds=$(echo "$out" | grep -c "^lgc launch: round . at K")
      else
        steps=$(echo "$out" | sed -n 's/.*"steps": \([0-9]*\), "test_accuracy": \([0-9.]*\).*/\1/p' | tail -1)
        acc=$(echo "$out" | sed -n 's/.*"steps": \([0-9]*\), "test_accuracy": \([0-9.]*\).*/\2/p' | tail -1)
        rounds=$(( $(echo "$out" | grep -c '"resumed"') + 1 ))
      fi
      echo "$tool,$([ $k = 0 ] && echo uninterrupted || echo lost-and-back),$r,$k,$gap,$wall,$steps,$acc,$rounds"
    done
  done
done
