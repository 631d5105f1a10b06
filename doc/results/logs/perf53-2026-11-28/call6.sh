#!/bin/sh
# #53's sixth device call (2026-11-28): bperm16 and bperm16w whose block takes BP_TILES tile
# rows in turn and loads the next while it writes this one. Run from a tree that holds
# gpu-p53b/: transpose-bench (BP_TILES 2, the default), t1-transpose-bench (1: one tile row a
# block, as before), t4-transpose-bench (4), nano-transpose-bench (clang PTX sm_53 ISA 6.5,
# BP_TILES 2), lib/libconfig.so.9, bench.cfg. The kernel images of the three nvcc builds are
# the same bytes (BP_TILES is the launcher's). Everything lands in $OUT.
set -u
D=gpu-p53b
export LD_LIBRARY_PATH=$PWD/$D/lib
TB=$D/transpose-bench
NANO=$D/nano-transpose-bench
B=boards/desktop-h100.cfg
S=$OUT/summary.txt
L=/tmp/p53c
mkdir -p $L
say() { echo "$*" | tee -a $S; }
say "=== $(date -u +%FT%TZ)"
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv | tee -a $S
for b in $TB $D/t1-transpose-bench $D/t4-transpose-bench $NANO; do say "$b: $($b --version | tr '\n' ' ')"; done
# 1. correctness: every block the rules take, gpu-check's sizes and #53's (bperm16w: u8 only)
BL=64x1,128x1,256x1,64x2,128x2,256x2,512x1
SZ=1x1,1x4099,4099x1,64x4099,31x33,33x31,1x70001,70001x1,300007x7,7x300007,8191x12289,4096x65536,65536x4096,30x34,4194306x2,2x4194306,8190x12290,8192x12289,7681x4321,16384x16384,61x100003,100003x61,2160x3840,8192x8192,129x257,257x129,3x5,8193x8191
for img in nvcc nano t4; do
  bin=$TB; [ $img = nano ] && bin=$NANO; [ $img = t4 ] && bin=$D/t4-transpose-bench
  for e in u8 f16; do
    k=bperm16,bperm16w; [ $e = f16 ] && k=bperm16
    $bin run --device cuda -c conf/gpu-check.cfg -b $B --set power.source=none --set sweep.element=$e \
      --kernels $k --blocks $BL --sizes $SZ -o $L/chk-$img-$e > $L/chk-$img-$e.txt 2>&1
    say "check $img $e: exit $? $(grep -E '[0-9]+ ok, ' $L/chk-$img-$e.txt | tail -1)"
  done
done
for e in u8 f16; do
  k=bperm16,bperm16w; [ $e = f16 ] && k=bperm16
  compute-sanitizer --tool memcheck --print-limit 5 $TB run --device cuda -c conf/gpu-check.cfg -b $B \
    --set power.source=none --set sweep.element=$e --kernels $k --blocks 64x1,256x2,512x1 \
    --sizes 1x1,1x4099,4099x1,31x33,33x31,30x34,300007x7,7x300007,61x100003,100003x61,129x257,257x129,3x5,1031x4099,8191x12289 \
    -o $L/mem-$e > $L/mem-$e.txt 2>&1
  say "memcheck $e: exit $? $(grep 'ERROR SUMMARY' $L/mem-$e.txt | tail -1); $(grep -E '[0-9]+ ok, ' $L/mem-$e.txt | tail -1)"
done
say "$(date -u +%T) checks done"
# 2. A/B/C: one, two and four tile rows a block, in turn, twice
W=8191x12289,8192x12289,7681x4321,16384x16384,4096x65536,8192x8192
for round in 1 2; do
  for v in t1 t2 t4; do
    bin=$D/$v-transpose-bench; [ $v = t2 ] && bin=$TB
    for e in u8 f16; do
      k=bperm16,bperm16w; [ $e = f16 ] && k=bperm16
      $bin run --device cuda -c $D/bench.cfg -b $B --set power.source=none --set sweep.element=$e \
        --kernels $k --blocks 128x1,256x1,128x2,256x2,512x1 --sizes $W \
        -o $L/ab$round-$v-$e > $L/ab$round-$v-$e.txt 2>&1
      say "ab $round $v $e: exit $?"
    done
  done
done
say "=== $(date -u +%FT%TZ) end"
cd $L && tar czf $OUT/logs.tgz *.txt ab* 2>/dev/null
