#!/bin/sh
# #53's eighth device call (2026-11-28): the final kernels (bperm16/bperm16w as call 5, the
# rest as 246969e): #53's table by --kernels best once more, then the profiler's account of
# every cell that misses its goal, each with the kernel and block best chose in call 7.
# Run from a tree that holds gpu-p53b/ (transpose-bench of this commit, nvcc sm_90;
# lib/libconfig.so.9; bench.cfg). Everything lands in $OUT.
set -u
D=gpu-p53b
export LD_LIBRARY_PATH=$PWD/$D/lib
TB=$D/transpose-bench
B=boards/desktop-h100.cfg
S=$OUT/summary.txt
L=/tmp/p53e
mkdir -p $L
say() { echo "$*" | tee -a $S; }
say "=== $(date -u +%FT%TZ)"
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv | tee -a $S
say "$TB: $($TB --version | tr '\n' ' ')"
W=8191x12289,8192x12289,7681x4321,16384x16384,4096x65536,61x100003,100003x61,8192x8192
for e in u8 f16 float; do
  for c in warm cold; do
    sz=$W; [ $c = cold ] && sz=2160x3840
    $TB run --device cuda -c $D/bench.cfg -b $B --set power.source=none --set sweep.element=$e \
      --set sweep.cache=$c --kernels best --sizes $sz -o $L/best-$e-$c > $L/best-$e-$c.txt 2>&1
    say "best $e $c: exit $?"
  done
done
say "$(date -u +%T) table done"
# ncu: one launch after two; warm cells with the caches as the run leaves them, cold flushed
prof() {  # kernel element block size cache
  cc=none; [ $5 = cold ] && cc=all
  ncu --clock-control none --cache-control $cc -k regex:"tb_$1_" --launch-skip 2 --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section WarpStateStats \
    --metrics smsp__inst_executed.sum,dram__bytes.sum,lts__t_bytes.sum,gpu__time_duration.sum,sm__warps_active.avg.per_cycle_active,regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio \
    $TB run --device cuda -c $D/bench.cfg -b $B --set power.source=none --set sweep.element=$2 \
    --kernels $1 --blocks $3 --sizes $4 --set sweep.stop.min_reps=3 --set sweep.stop.max_reps=4 \
    --set sweep.warmup=1 --set sweep.cache=$5 -o $L/prof > $L/prof-$1-$2-$4.txt 2>&1
  say "ncu $1 $2 $4 $3 $5: exit $?"
}
prof bperm16w u8 512x1 8191x12289 warm
prof bperm16w u8 512x1 8192x12289 warm
prof bperm16w u8 512x1 7681x4321 warm
prof bperm16 u8 128x2 16384x16384 warm
prof bperm16 u8 256x2 4096x65536 warm
prof bperm16 u8 128x2 8192x8192 warm
prof bperm16 u8 256x1 2160x3840 cold
prof bperm16 f16 256x2 8191x12289 warm
prof bperm16 f16 256x2 8192x12289 warm
prof vec16 f16 256x1 16384x16384 warm
prof vec16 f16 256x1 4096x65536 warm
prof tiled f16 32x4 61x100003 warm
prof tiled f16 32x4 100003x61 warm
prof vec16 f16 256x1 8192x8192 warm
prof vec16d float 256x2 8191x12289 warm
prof vec16d float 256x2 8192x12289 warm
prof vec16 float 256x1 7681x4321 warm
prof tile2x2 float 32x8 16384x16384 warm
prof tile2x2 float 32x16 4096x65536 warm
prof tile2x2 float 32x4 8192x8192 warm
say "=== $(date -u +%FT%TZ) end"
cd $L && tar czf $OUT/logs.tgz *.txt best-* 2>/dev/null
