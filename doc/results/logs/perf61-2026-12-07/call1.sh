#!/bin/sh
# #61's device call (2026-12-07): strip extended to a short side of 512 (ST_MAX 512), and
# #61's table twice. Run from the top of a tree that holds gpu61/ (built on the x86 host,
# nvcc 13.0 SMS=90): tb-a (this tree's kernels and launcher), tb-s (the same with the
# launcher built with -DST_SEG_MIN=64), lib/libconfig.so.9. Everything lands in $OUT; the
# logs are packed after each stage, so a call stopped at its limit keeps what it finished.
#  1. correctness of strip on the 65-512 class (and the old narrow shapes), every block its
#     rule takes, every element type (tb-a);
#  2. A/B round 1: `--kernels best` (every candidate, strip among them) with tb-a, then strip
#     alone with tb-s, on six shapes of the class, u8 / f16 / float, memcpy beside each;
#  3. #61's table by `--kernels best` (tb-a), warm and cold, u8 / f16 / float;
#  4. A/B round 2, then the table's round 2;
#  5. memcheck of strip (tb-a), tb-s's correctness, ncu of strip on two cells.
set -u
G=gpu61
R=doc/results/logs/perf61-2026-12-07
export LD_LIBRARY_PATH=$PWD/$G/lib
A=$G/tb-a
SB=$G/tb-s
B=boards/desktop-h100.cfg
S=$OUT/summary.txt
L=/tmp/p61
mkdir -p $L
say() { echo "$*" | tee -a $S; }
pack() {  # the best point per kernel and size of every run so far, and the logs
  rm -f $OUT/best.tsv
  for d in $L/ab* $L/t[12]-*; do
    [ -d $d ] || continue
    $A compare $d/*.csv.gz --format json | python3 -c '
import json, sys
for r in json.load(sys.stdin)["best"]:
    print("%s\t%sx%s\t%s\t%sx%s\t%.1f\t%s" % (sys.argv[1], r["rows"], r["cols"], r["kernel"], r.get("block_x"), r.get("block_y"), r.get("gbps") or 0, r.get("frac_copy")))' $(basename $d) >> $OUT/best.tsv
  done
  (cd $L && tar czf $OUT/logs.tgz *.txt ab* t[12]-* 2>/dev/null)
}
say "=== $(date -u +%FT%TZ)"
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv | tee -a $S
for b in $A $SB; do say "$b: $($b --version | tr '\n' ' ')"; done
BL=128x1,256x1,512x1,128x2,256x2,512x2,128x4,256x4
SZ=65x4099,4099x65,96x10007,10007x96,100x100003,100003x100,129x257,257x129,257x65537,65537x257,300x40009,40009x300,500x30011,30011x500,511x513,513x511,512x1000,1000x512,512x3,3x512,61x100003,100003x61,1x1,3x5,300007x7,7x300007
chk() {  # binary blocks
  for e in u8 f16 float double; do
    n=$(basename $1)
    $1 run --device cuda -c conf/gpu-check.cfg -b $B --set power.source=none --set sweep.element=$e \
      --kernels strip --blocks $2 --sizes $SZ -o $L/chk-$n-$e > $L/chk-$n-$e.txt 2>&1
    say "check $n $e: exit $? $(grep -E '[0-9]+ ok, ' $L/chk-$n-$e.txt | tail -1)"
  done
}
chk $A $BL
say "$(date -u +%T) check done"
W=100x100003,257x65537,500x30011,100003x100,65537x257,30011x500
ab() {
  for e in u8 f16 float; do
    $A run --device cuda -c $R/bench.cfg -b $B --set power.source=none --set sweep.element=$e \
      --kernels best --sizes $W -o $L/ab$1-a-$e > $L/ab$1-a-$e.txt 2>&1
    say "ab $1 a $e: exit $?"
    $SB run --device cuda -c $R/bench.cfg -b $B --set power.source=none --set sweep.element=$e \
      --kernels strip --blocks $BL --sizes $W -o $L/ab$1-s-$e > $L/ab$1-s-$e.txt 2>&1
    say "ab $1 s $e: exit $?"
  done
  pack
}
T=8191x12289,8192x12289,7681x4321,16384x16384,4096x65536,61x100003,100003x61,8192x8192
table() {
  for e in u8 f16 float; do
    for c in warm cold; do
      sz=$T; [ $c = cold ] && sz=2160x3840
      $A run --device cuda -c $R/bench.cfg -b $B --set power.source=none --set sweep.element=$e \
        --set sweep.cache=$c --kernels best --sizes $sz -o $L/t$1-$e-$c > $L/t$1-$e-$c.txt 2>&1
      say "table $1 $e $c: exit $?"
    done
  done
  pack
}
ab 1; say "$(date -u +%T) a/b 1 done"
table 1; say "$(date -u +%T) table 1 done"
ab 2; say "$(date -u +%T) a/b 2 done"
table 2; say "$(date -u +%T) table 2 done"
for e in u8 f16 float double; do
  compute-sanitizer --tool memcheck --print-limit 5 $A run --device cuda -c conf/gpu-check.cfg -b $B \
    --set power.source=none --set sweep.element=$e --kernels strip --blocks 128x1,256x4,512x2 \
    --sizes 65x4099,4099x65,129x257,257x129,511x513,513x511,512x1000,1000x512,512x3,3x512,300x4001,4001x300 \
    -o $L/mem-$e > $L/mem-$e.txt 2>&1
  say "memcheck $e: exit $? $(grep 'ERROR SUMMARY' $L/mem-$e.txt | tail -1); $(grep -E '[0-9]+ ok, ' $L/mem-$e.txt | tail -1)"
done
pack
chk $SB 128x1,256x4,512x2
pack
prof() {  # kernel element block size
  ncu --clock-control none --cache-control none -k regex:"tb_$1_" --launch-skip 2 --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section WarpStateStats \
    --metrics smsp__inst_executed.sum,dram__bytes.sum,lts__t_bytes.sum,gpu__time_duration.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio \
    $A run --device cuda -c $R/bench.cfg -b $B --set power.source=none --set sweep.element=$2 \
    --kernels $1 --blocks $3 --sizes $4 --set sweep.stop.min_reps=3 --set sweep.stop.max_reps=4 \
    --set sweep.warmup=1 -o $L/prof > $L/prof-$1-$2-$4-$3.txt 2>&1
  say "ncu $1 $2 $4 $3: exit $?"
}
prof strip u8 256x4 257x65537
prof strip u8 256x4 65537x257
pack
say "=== $(date -u +%FT%TZ) end"
