#!/bin/sh
# #61's second device call (2026-12-07): strip's short-and-wide writer with the skewed
# staging (strip_geo.h: ST_SKEW), after call 1's profile of u8 257x65537 (3.7M shared-load
# bank conflicts a launch). Run from the top of a tree that holds gpu61/ (x86 builds, nvcc
# 13.0 SMS=90): tb-a (call 1's build), tb-b (this tree), tb-bs (tb-b's launcher built with
# -DST_SEG_MIN=64), lib/libconfig.so.9. Everything lands in $OUT, packed after each stage.
#  1. correctness of strip (tb-b) on call 1's sizes, every block, every element; memcheck;
#  2. A/B, two rounds: strip alone, tb-a / tb-b / tb-bs, the class's six shapes and the two
#     narrow ones of the table, u8 / f16 / float;
#  3. `--kernels best` (tb-b) on those eight shapes, two rounds; ncu of strip u8 257x65537;
#  4. the correctness matrix's parts (gpu-check.sh checkparts) while time is left, each
#     under the time left (the call's own limit is 10 minutes).
set -u
START=$(date +%s)
G=gpu61
R=doc/results/logs/perf61-2026-12-07
export LD_LIBRARY_PATH=$PWD/$G/lib
A=$G/tb-a
NB=$G/tb-b
NS=$G/tb-bs
B=boards/desktop-h100.cfg
S=$OUT/summary.txt
L=/tmp/p61c
mkdir -p $L
say() { echo "$*" | tee -a $S; }
left() { echo $(( ${BUDGET_S:-540} - ($(date +%s) - START) )); }
pack() {
  rm -f $OUT/best.tsv
  for d in $L/ab* $L/bt*; do
    [ -d $d ] || continue
    $NB compare $d/*.csv.gz --format json | python3 -c '
import json, sys
for r in json.load(sys.stdin)["best"]:
    print("%s\t%sx%s\t%s\t%sx%s\t%.1f\t%s" % (sys.argv[1], r["rows"], r["cols"], r["kernel"], r.get("block_x"), r.get("block_y"), r.get("gbps") or 0, r.get("frac_copy")))' $(basename $d) >> $OUT/best.tsv
  done
  (cd $L && tar czf $OUT/logs.tgz *.txt ab* bt* 2>/dev/null)
}
say "=== $(date -u +%FT%TZ)"
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv | tee -a $S
for b in $A $NB $NS; do say "$b: $($b --version | tr '\n' ' ')"; done
BL=128x1,256x1,512x1,128x2,256x2,512x2,128x4,256x4
SZ=65x4099,4099x65,96x10007,10007x96,100x100003,100003x100,129x257,257x129,257x65537,65537x257,300x40009,40009x300,500x30011,30011x500,511x513,513x511,512x1000,1000x512,512x3,3x512,61x100003,100003x61,1x1,3x5,300007x7,7x300007
for e in u8 f16 float double; do
  $NB run --device cuda -c conf/gpu-check.cfg -b $B --set power.source=none --set sweep.element=$e \
    --kernels strip --blocks $BL --sizes $SZ -o $L/chk-$e > $L/chk-$e.txt 2>&1
  say "check tb-b $e: exit $? $(grep -E '[0-9]+ ok, ' $L/chk-$e.txt | tail -1)"
done
for e in u8 f16 float double; do
  compute-sanitizer --tool memcheck --print-limit 5 $NB run --device cuda -c conf/gpu-check.cfg -b $B \
    --set power.source=none --set sweep.element=$e --kernels strip --blocks 128x1,256x4,512x2 \
    --sizes 65x4099,4099x65,129x257,257x129,511x513,513x511,512x1000,1000x512,512x3,3x512,300x4001,4001x300,61x1031,33x31 \
    -o $L/mem-$e > $L/mem-$e.txt 2>&1
  say "memcheck tb-b $e: exit $? $(grep 'ERROR SUMMARY' $L/mem-$e.txt | tail -1); $(grep -E '[0-9]+ ok, ' $L/mem-$e.txt | tail -1)"
done
say "$(date -u +%T) checks done"
W=100x100003,257x65537,500x30011,100003x100,65537x257,30011x500,61x100003,100003x61
for round in 1 2; do
  for e in u8 f16 float; do
    for b in $A $NB $NS; do
      n=$(basename $b)
      $b run --device cuda -c $R/bench.cfg -b $B --set power.source=none --set sweep.element=$e \
        --kernels strip --blocks $BL --sizes $W -o $L/ab$round-$n-$e > $L/ab$round-$n-$e.txt 2>&1
      say "ab $round $n $e: exit $?"
    done
  done
  pack
done
say "$(date -u +%T) a/b done"
for round in 1 2; do
  for e in u8 f16 float; do
    $NB run --device cuda -c $R/bench.cfg -b $B --set power.source=none --set sweep.element=$e \
      --kernels best --sizes $W -o $L/bt$round-$e > $L/bt$round-$e.txt 2>&1
    say "best $round $e: exit $?"
  done
  pack
done
say "$(date -u +%T) best done"
ncu --clock-control none --cache-control none -k regex:"tb_strip_" --launch-skip 2 --launch-count 1 \
  --section SpeedOfLight --section Occupancy --section WarpStateStats \
  --metrics smsp__inst_executed.sum,dram__bytes.sum,lts__t_bytes.sum,gpu__time_duration.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio \
  $NB run --device cuda -c $R/bench.cfg -b $B --set power.source=none --set sweep.element=u8 \
  --kernels strip --blocks 256x4 --sizes 257x65537 --set sweep.stop.min_reps=3 --set sweep.stop.max_reps=4 \
  --set sweep.warmup=1 -o $L/prof > $L/prof-strip-u8-257x65537-256x4.txt 2>&1
say "ncu strip u8 257x65537 256x4: exit $?"
pack
for part in u8 f16 double float-fast float-seeds; do
  t=$(left)
  if [ "$t" -lt 40 ]; then say "part $part: not run ($t s left)"; continue; fi
  say "part $part: limit $t s"
  OUT=$L/parts CHECK_PARTS=$part TB=$NB BOARD=$B STEPS=checkparts timeout -k 5 $t \
    sh contrib/gpu-lab/gpu-check.sh > $L/part-$part.txt 2>&1
  say "part $part: exit $? $(grep '^part' $L/part-$part.txt | tail -1)"
done
(cd $L && tar czf $OUT/parts.tgz part-*.txt parts/*.txt 2>/dev/null)
say "=== $(date -u +%FT%TZ) end"
