#!/bin/sh
# #53's seventh device call (2026-11-28): vec16, vec16d and vec16w with call 5's two changes
# (interior tiles load without checks; the writer carries its output row), bperm16/bperm16w
# as in call 5 (call 6's tile rows a block left out again). Run from a tree that holds
# gpu-p53b/: transpose-bench (this commit's kernels, nvcc sm_90), nano-transpose-bench (clang
# PTX sm_53 ISA 6.5), t1-transpose-bench (call 6's BP_TILES 1 build: vec16 as before),
# lib/libconfig.so.9, bench.cfg. Everything lands in $OUT.
set -u
D=gpu-p53b
export LD_LIBRARY_PATH=$PWD/$D/lib
TB=$D/transpose-bench
NANO=$D/nano-transpose-bench
OLD=$D/t1-transpose-bench
B=boards/desktop-h100.cfg
S=$OUT/summary.txt
L=/tmp/p53d
mkdir -p $L
say() { echo "$*" | tee -a $S; }
say "=== $(date -u +%FT%TZ)"
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv | tee -a $S
for b in $TB $NANO $OLD; do say "$b: $($b --version | tr '\n' ' ')"; done
# 1. correctness: every block the rules take, gpu-check's sizes and #53's
BL=64x1,128x1,256x1,512x1,64x2,128x2,256x2,512x2,64x4,128x4,256x4
SZ=1x1,1x4099,4099x1,64x4099,31x33,33x31,1x70001,70001x1,300007x7,7x300007,8191x12289,4096x65536,65536x4096,30x34,4194306x2,2x4194306,8190x12290,8192x12289,7681x4321,16384x16384,61x100003,100003x61,2160x3840,8192x8192,129x257,257x129,3x5,8193x8191
for img in nvcc nano; do
  bin=$TB; [ $img = nano ] && bin=$NANO
  for e in u8 f16 float double; do
    case $e in u8) k=vec16,bperm16,bperm16w ;; f16) k=vec16,bperm16 ;; *) k=vec16,vec16d,vec16w ;; esac
    $bin run --device cuda -c conf/gpu-check.cfg -b $B --set power.source=none --set sweep.element=$e \
      --kernels $k --blocks $BL --sizes $SZ -o $L/chk-$img-$e > $L/chk-$img-$e.txt 2>&1
    say "check $img $e: exit $? $(grep -E '[0-9]+ ok, ' $L/chk-$img-$e.txt | tail -1)"
  done
done
for e in u8 f16 float double; do
  case $e in u8) k=vec16,bperm16,bperm16w ;; f16) k=vec16,bperm16 ;; *) k=vec16,vec16d,vec16w ;; esac
  compute-sanitizer --tool memcheck --print-limit 5 $TB run --device cuda -c conf/gpu-check.cfg -b $B \
    --set power.source=none --set sweep.element=$e --kernels $k --blocks 128x1,512x1,64x2,256x2,128x4 \
    --sizes 1x1,1x4099,4099x1,31x33,33x31,30x34,300007x7,7x300007,61x100003,100003x61,129x257,257x129,3x5,1031x4099,8191x12289 \
    -o $L/mem-$e > $L/mem-$e.txt 2>&1
  say "memcheck $e: exit $? $(grep 'ERROR SUMMARY' $L/mem-$e.txt | tail -1); $(grep -E '[0-9]+ ok, ' $L/mem-$e.txt | tail -1)"
done
say "$(date -u +%T) checks done"
# 2. A/B: vec16 family before and after, twice
W=8191x12289,8192x12289,7681x4321,16384x16384,4096x65536,8192x8192
for round in 1 2; do
  for v in old new; do
    bin=$TB; [ $v = old ] && bin=$OLD
    for e in float u8 f16; do
      case $e in float) k=vec16,vec16d,vec16w; bl=128x1,256x1,512x1,64x2,128x2,256x2 ;; *) k=vec16; bl=256x1,512x1 ;; esac
      $bin run --device cuda -c $D/bench.cfg -b $B --set power.source=none --set sweep.element=$e \
        --kernels $k --blocks $bl --sizes $W -o $L/ab$round-$v-$e > $L/ab$round-$v-$e.txt 2>&1
      say "ab $round $v $e: exit $?"
    done
  done
done
say "$(date -u +%T) a/b done"
# 3. the table of #53 by --kernels best, memcpy beside
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
