#!/bin/sh
# #53's fourth device call: strip's tall-and-narrow variant writing whole chunks (a 16-byte halo),
# checked again (both images, memcheck), the narrow shapes timed with --kernels best, twice,
# and the profiler's stall reasons for the cells that miss. Same layout as call.sh.
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
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw,temperature.gpu --format=csv | tee -a $S
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
for e in u8 f16 float double; do
  compute-sanitizer --tool memcheck --print-limit 5 $TB run --device cuda -c conf/gpu-check.cfg -b $B \
    --set power.source=none --set sweep.element=$e --kernels strip --blocks 128x1,256x2,512x2,128x4 \
    --sizes 1x1,1x4099,4099x1,31x33,33x31,30x34,300007x7,7x300007,61x100003,100003x61,64x65,65x64,3x5 \
    -o $L/mem-$e > $L/mem-$e.txt 2>&1
  say "memcheck $e: exit $? $(grep 'ERROR SUMMARY' $L/mem-$e.txt | tail -1); $(grep -E '[0-9]+ ok, ' $L/mem-$e.txt | tail -1)"
done
for round in 1 2; do
  for e in u8 f16 float; do
    $TB run --device cuda -c $D/bench.cfg -b $B --set power.source=none --set sweep.element=$e \
      --kernels best --sizes 61x100003,100003x61 -o $L/best$round-$e > $L/best$round-$e.txt 2>&1
    say "best round $round $e: exit $?"
  done
done
prof() {
  ncu --clock-control none -k regex:"$1" --launch-skip 3 --launch-count 1 \
    --section SpeedOfLight --section WarpStateStats --section Occupancy \
    --metrics smsp__inst_executed.sum,dram__bytes.sum,lts__t_bytes.sum,regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio \
    $TB run --device cuda -c $D/bench.cfg -b $B --set power.source=none --set sweep.element=$2 \
    --kernels $3 --blocks $4 --sizes $5 --set sweep.stop.min_reps=5 --set sweep.stop.max_reps=8 \
    --set sweep.warmup=4 --set sweep.cache=$6 -o $L/prof > $L/prof-$3-$2-$5.txt 2>&1
  say "ncu $3 $2 $5 $4 $6: exit $?"
}
prof strip u8 strip 512x2 100003x61 warm
prof strip f16 strip 256x4 100003x61 warm
say "=== $(date -u +%FT%TZ) end"
cd $L && tar czf $OUT/logs.tgz *.txt best1-* best2-* 2>/dev/null
