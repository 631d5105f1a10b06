#!/bin/sh
# #53's fifth device call (2026-11-28, evening): bperm16 and bperm16w with the checks taken out
# of interior tiles' loads and the writer's row carried by an add (fewer instructions a byte).
# Run from a tree that holds gpu-p53b/: transpose-bench (nvcc sm_90, the change),
# nano-transpose-bench (clang PTX sm_53 ISA 6.5, the change), old-transpose-bench (nvcc sm_90,
# 27d38b9, before it), lib/libconfig.so.9, bench.cfg (this folder's). Everything lands in $OUT.
set -u
D=gpu-p53b
export LD_LIBRARY_PATH=$PWD/$D/lib
TB=$D/transpose-bench
NANO=$D/nano-transpose-bench
OLD=$D/old-transpose-bench
B=boards/desktop-h100.cfg
S=$OUT/summary.txt
L=/tmp/p53b
mkdir -p $L
say() { echo "$*" | tee -a $S; }
say "=== $(date -u +%FT%TZ)"
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv | tee -a $S
# 1. correctness: bperm16 and bperm16w, every block their rules take, gpu-check's sizes and #53's
BL=64x1,128x1,256x1,64x2,128x2,256x2,512x1
SZ=1x1,1x4099,4099x1,64x4099,31x33,33x31,1x70001,70001x1,300007x7,7x300007,8191x12289,4096x65536,65536x4096,30x34,4194306x2,2x4194306,8190x12290,8192x12289,7681x4321,16384x16384,61x100003,100003x61,2160x3840,8192x8192,129x257,257x129,3x5,8193x8191
for img in nvcc nano; do
  bin=$TB; [ $img = nano ] && bin=$NANO
  for e in u8 f16; do
    $bin run --device cuda -c conf/gpu-check.cfg -b $B --set power.source=none --set sweep.element=$e \
      --kernels bperm16,bperm16w --blocks $BL --sizes $SZ -o $L/chk-$img-$e > $L/chk-$img-$e.txt 2>&1
    say "check $img $e: exit $? $(grep -E '[0-9]+ ok, ' $L/chk-$img-$e.txt | tail -1)"
  done
done
# 2. memcheck on the awkward shapes and one interior-heavy one
for e in u8 f16; do
  compute-sanitizer --tool memcheck --print-limit 5 $TB run --device cuda -c conf/gpu-check.cfg -b $B \
    --set power.source=none --set sweep.element=$e --kernels bperm16,bperm16w --blocks 64x1,256x2,512x1 \
    --sizes 1x1,1x4099,4099x1,31x33,33x31,30x34,300007x7,7x300007,61x100003,100003x61,129x257,257x129,3x5,1031x4099 \
    -o $L/mem-$e > $L/mem-$e.txt 2>&1
  say "memcheck $e: exit $? $(grep 'ERROR SUMMARY' $L/mem-$e.txt | tail -1); $(grep -E '[0-9]+ ok, ' $L/mem-$e.txt | tail -1)"
done
say "$(date -u +%T) checks done"
# 3. A/B, old and new in turn, twice: the blocks #53's table chose
W=8191x12289,8192x12289,7681x4321,16384x16384,4096x65536,100003x61,8192x8192
for round in 1 2; do
  for v in old new; do
    bin=$TB; [ $v = old ] && bin=$OLD
    for e in u8 f16; do
      $bin run --device cuda -c $D/bench.cfg -b $B --set power.source=none --set sweep.element=$e \
        --kernels bperm16,bperm16w --blocks 128x1,256x1,256x2,512x1 --sizes $W \
        -o $L/ab$round-$v-$e > $L/ab$round-$v-$e.txt 2>&1
      say "ab $round $v $e: exit $?"
    done
  done
done
say "$(date -u +%T) a/b done"
# 4. the table of #53 by --kernels best (the change), memcpy beside
W=8191x12289,8192x12289,7681x4321,16384x16384,4096x65536,61x100003,100003x61,8192x8192
for e in u8 f16 float; do
  for c in warm cold; do
    sz=$W; [ $c = cold ] && sz=2160x3840
    $TB run --device cuda -c $D/bench.cfg -b $B --set power.source=none --set sweep.element=$e \
      --set sweep.cache=$c --kernels best --sizes $sz -o $L/best-$e-$c > $L/best-$e-$c.txt 2>&1
    say "best $e $c: exit $?"
  done
done
say "=== $(date -u +%FT%TZ) end"
cd $L && tar czf $OUT/logs.tgz *.txt ab* best-* 2>/dev/null
