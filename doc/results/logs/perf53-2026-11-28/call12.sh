#!/bin/sh
# #53's twelfth device call (2026-11-28): the A/B call 5 meant to run for halves (its f16 runs
# asked bperm16w, which takes bytes only, and stopped), and the cold 4K u8 frame, whose entry
# (256x1a_1) went from 39 to 41 registers on sm_90. old-transpose-bench: 824a40d's kernels
# (before round 4); transpose-bench: 99f8d25 (after). Everything lands in $OUT.
set -u
D=gpu-p53b
export LD_LIBRARY_PATH=$PWD/$D/lib
B=boards/desktop-h100.cfg
S=$OUT/summary.txt
L=/tmp/p53i
mkdir -p $L
say() { echo "$*" | tee -a $S; }
say "=== $(date -u +%FT%TZ)"
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm,power.limit,temperature.gpu --format=csv | tee -a $S
W=8191x12289,8192x12289,7681x4321,16384x16384,4096x65536,100003x61,8192x8192
for round in 1 2; do
  for v in old new; do
    bin=$D/transpose-bench; [ $v = old ] && bin=$D/old-transpose-bench
    $bin run --device cuda -c $D/bench.cfg -b $B --set power.source=none --set sweep.element=f16 \
      --kernels bperm16 --blocks 64x1,128x1,256x1,64x2,128x2,256x2 --sizes $W \
      -o $L/ab$round-$v-f16 > $L/ab$round-$v-f16.txt 2>&1
    say "ab $round $v f16: exit $?"
    $bin run --device cuda -c $D/bench.cfg -b $B --set power.source=none --set sweep.element=u8 \
      --set sweep.cache=cold --kernels bperm16,bperm16w --blocks 64x1,128x1,256x1,512x1,128x2,256x2 \
      --sizes 2160x3840 -o $L/ab$round-$v-u8cold > $L/ab$round-$v-u8cold.txt 2>&1
    say "ab $round $v u8 cold: exit $?"
  done
done
say "=== $(date -u +%FT%TZ) end"
cd $L && tar czf $OUT/logs.tgz *.txt ab* 2>/dev/null
