#!/bin/sh
# #61's third device call (2026-12-07): the final strip (tb-c: the skewed writer and 64-byte
# segments over 128 rows, the #53 code at 128 or fewer): its correctness on every element and
# block, memcheck, and `--kernels best` on the class's six shapes and the two narrow ones of the
# table, two rounds. Run from the top of a tree that holds gpu61/ (tb-c, nvcc 13.0 SMS=90;
# lib/libconfig.so.9). Everything lands in $OUT.
set -u
G=gpu61
R=doc/results/logs/perf61-2026-12-07
export LD_LIBRARY_PATH=$PWD/$G/lib
TB=$G/tb-c
B=boards/desktop-h100.cfg
S=$OUT/summary.txt
L=/tmp/p61d
mkdir -p $L
say() { echo "$*" | tee -a $S; }
say "=== $(date -u +%FT%TZ)"
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv | tee -a $S
say "$TB: $($TB --version | tr '\n' ' ')"
BL=128x1,256x1,512x1,128x2,256x2,512x2,128x4,256x4
SZ=65x4099,4099x65,96x10007,10007x96,100x100003,100003x100,128x999,129x999,257x65537,65537x257,300x40009,40009x300,500x30011,30011x500,511x513,513x511,512x1000,1000x512,512x3,3x512,61x100003,100003x61,1x1,3x5,300007x7,7x300007
for e in u8 f16 float double; do
  $TB run --device cuda -c conf/gpu-check.cfg -b $B --set power.source=none --set sweep.element=$e \
    --kernels strip --blocks $BL --sizes $SZ -o $L/chk-$e > $L/chk-$e.txt 2>&1
  say "check $e: exit $? $(grep -E '[0-9]+ ok, ' $L/chk-$e.txt | tail -1)"
done
for e in u8 f16 float double; do
  compute-sanitizer --tool memcheck --print-limit 5 $TB run --device cuda -c conf/gpu-check.cfg -b $B \
    --set power.source=none --set sweep.element=$e --kernels strip --blocks 128x1,256x4,512x2 \
    --sizes 129x257,257x129,511x513,513x511,512x1000,1000x512,512x3,3x512,300x4001,4001x300,128x999,129x999 \
    -o $L/mem-$e > $L/mem-$e.txt 2>&1
  say "memcheck $e: exit $? $(grep 'ERROR SUMMARY' $L/mem-$e.txt | tail -1); $(grep -E '[0-9]+ ok, ' $L/mem-$e.txt | tail -1)"
done
W=100x100003,257x65537,500x30011,100003x100,65537x257,30011x500,61x100003,100003x61
for round in 1 2; do
  for e in u8 f16 float; do
    $TB run --device cuda -c $R/bench.cfg -b $B --set power.source=none --set sweep.element=$e \
      --kernels best --sizes $W -o $L/bt$round-$e > $L/bt$round-$e.txt 2>&1
    say "best $round $e: exit $?"
  done
done
for d in $L/bt*; do
  [ -d $d ] || continue
  $TB compare $d/*.csv.gz --format json | python3 -c '
import json, sys
for r in json.load(sys.stdin)["best"]:
    print("%s\t%sx%s\t%s\t%sx%s\t%.1f\t%s" % (sys.argv[1], r["rows"], r["cols"], r["kernel"], r.get("block_x"), r.get("block_y"), r.get("gbps") or 0, r.get("frac_copy")))' $(basename $d) >> $OUT/best.tsv
done
(cd $L && tar czf $OUT/logs.tgz *.txt bt* 2>/dev/null)
say "=== $(date -u +%FT%TZ) end"
