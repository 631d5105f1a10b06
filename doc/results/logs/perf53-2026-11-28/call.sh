#!/bin/sh
# The device call of #53 (doc/results/h200-2026-11-28-perf53.md): run from the root of a tree
# that holds gpu-perf53/ (this file, the x86 executables built on the host: nvcc's sm_90 image
# and the Nano's, PTX sm_53 ISA 6.5 by clang, and libconfig.so.9). Everything lands in $OUT.
set -u
D=gpu-perf53
export LD_LIBRARY_PATH=$PWD/$D/lib
TB=$D/transpose-bench
NANO=$D/nano-transpose-bench
B=boards/desktop-h100.cfg
S=$OUT/summary.txt
L=/tmp/p53
mkdir -p $L
say() { echo "$*" | tee -a $S; }
say "=== $(date -u +%FT%TZ)"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv | tee -a $S
$TB list | sed -n '/^kernel images/,/^GPU/p' | head -8 | tee -a $S
# 1. correctness: strip, every block its rule takes, the matrix's sizes and the narrow ones
BL=128x1,256x1,512x1,128x2,256x2,512x2,128x4,256x4
SZ=1x1,1x4099,4099x1,64x4099,31x33,33x31,1x70001,70001x1,300007x7,7x300007,30x34,4194306x2,2x4194306,61x100003,100003x61,64x64,64x65,65x64,64x1031,1031x64,3x5,17x1000003,8191x12289
for img in nvcc nano; do
  bin=$TB; [ $img = nano ] && bin=$NANO
  for e in u8 f16 float double; do
    $bin run --device cuda -c conf/gpu-check.cfg -b $B --set power.source=none --set sweep.element=$e \
      --kernels strip --blocks $BL --sizes $SZ -o $L/chk-$img-$e > $L/chk-$img-$e.txt 2>&1
    say "check $img $e: exit $? $(grep -E '[0-9]+ ok, ' $L/chk-$img-$e.txt | tail -1)"
  done
done
# 2. memcheck on the awkward shapes
for e in u8 f16 float double; do
  compute-sanitizer --tool memcheck --print-limit 5 $TB run --device cuda -c conf/gpu-check.cfg -b $B \
    --set power.source=none --set sweep.element=$e --kernels strip --blocks 128x1,256x2,512x2,128x4 \
    --sizes 1x1,1x4099,4099x1,31x33,33x31,30x34,300007x7,7x300007,61x100003,100003x61,64x65,65x64,3x5 \
    -o $L/mem-$e > $L/mem-$e.txt 2>&1
  say "memcheck $e: exit $? $(grep 'ERROR SUMMARY' $L/mem-$e.txt | tail -1); $(grep -E '[0-9]+ ok, ' $L/mem-$e.txt | tail -1)"
done
# 3. the table of #53: --kernels best (tune's blocks), memcpy beside, each element one run
W=8191x12289,8192x12289,7681x4321,16384x16384,4096x65536,61x100003,100003x61,8192x8192
for e in u8 f16 float; do
  for c in warm cold; do
    sz=$W; [ $c = cold ] && sz=2160x3840
    $TB run --device cuda -c $D/bench.cfg -b $B --set power.source=none --set sweep.element=$e \
      --set sweep.cache=$c --kernels best --sizes $sz -o $L/best-$e-$c > $L/best-$e-$c.txt 2>&1
    say "best $e $c: exit $?"
  done
done
say "$(date -u +%T) timing done"
# 4. tune over the same kernels and blocks, to compare with best (each element 40 s)
for e in u8 f16 float; do
  case $e in u8) k=tiled,vec16,bperm16,bperm16w,strip ;; f16) k=tiled,vec16,bperm16,strip ;;
    float) k=tiled,aligned64,tile2x2,vec16,vec16d,vec16w,strip ;; esac
  $TB tune --device cuda -c $D/bench.cfg -b $B --set power.source=none --set sweep.element=$e \
    --kernels $k --sizes $W --seconds 40 --out $L/tuned-$e.cfg -o $L/tune-$e > $L/tune-$e.txt 2>&1
  say "tune $e: exit $? $(grep -o 'measured.*' $L/tune-$e.txt | head -1)"
done
# 5. profiles of strip (u8, both narrow shapes) and bperm16w u8 8191x12289
prof() {
  ncu --clock-control none -k regex:"$1" --launch-skip 3 --launch-count 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy \
    --section LaunchStats --metrics smsp__inst_executed.sum,dram__bytes.sum,sm__cycles_elapsed.avg \
    $TB run --device cuda -c $D/bench.cfg -b $B --set power.source=none --set sweep.element=$2 \
    --kernels $3 --blocks $4 --sizes $5 --set sweep.stop.min_reps=5 --set sweep.stop.max_reps=8 \
    --set sweep.warmup=4 -o $L/prof > $L/prof-$3-$2-$5.txt 2>&1
  say "ncu $3 $2 $5 $4: exit $?"
}
prof strip u8 strip 128x2 61x100003
prof strip u8 strip 128x2 100003x61
prof strip float strip 256x2 61x100003
prof bperm16w u8 bperm16w 512x1 8191x12289
prof vec16w float vec16w 256x2 8191x12289
say "=== $(date -u +%FT%TZ) end"
cd $L && tar czf $OUT/logs.tgz *.txt best-* tune-* tuned-*.cfg 2>/dev/null
