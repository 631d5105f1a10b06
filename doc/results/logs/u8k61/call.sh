#!/bin/sh
# #61, u8k61: `strip8` (bytes, short and wide, 512 rows or fewer: 4 rows x 16 columns a thread
# transposed with prmt, shared memory holding the output run). Builds nothing: run from the top
# of a tree that holds gpu61/tb-u8k (nvcc 13.0, SMS=90, built from the commit READY names) and
# gpu61/lib (libconfig.so.9). Everything lands in $OUT; about 200-300 s.
#  1. correctness, verify on, u8: strip8 over conf/gpu-check.cfg's sizes and blocks, then
#     every block its rule takes on the awkward shapes of the class and their transposes (the
#     tall ones are refused by its shape rule: `skipped` rows);
#  2. compute-sanitizer memcheck of strip8 on awkward shapes, four blocks;
#  3. `--kernels best` (every candidate over tune's blocks, memcpy beside) on the five target
#     cells, 61x100003 and 8191x12289, u8, two rounds;
#  4. Nsight Compute on strip8's best block of three cells, the GPU alone;
#  5. (added after run 1, for the next session) compute-sanitizer racecheck and synccheck on
#     four shapes, and one verified point over 2^31 bytes (3x715827885: 2,147,483,655 bytes).
set -u
START=$(date +%s)
G=gpu61
R=doc/results/logs/perf61-2026-12-07
export LD_LIBRARY_PATH=$PWD/$G/lib
TB=$G/tb-u8k
B=boards/desktop-h100.cfg
S=$OUT/summary.txt
L=/tmp/u8k61
rm -rf $L; mkdir -p $L
say() { echo "$*" | tee -a $S; }
el() { echo $(( $(date +%s) - START )); }
say "=== $(date -u +%FT%TZ)"
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv | tee -a $S
say "$TB: $($TB --version | tr '\n' ' ')"
$TB list 2>&1 | grep -E '^ *strip8' | tee -a $S

# 1. correctness
$TB run --device cuda -c conf/gpu-check.cfg -b $B --set power.source=none --set sweep.element=u8 \
  --kernels strip8 -o $L/chk-cfg > $L/chk-cfg.txt 2>&1
say "check cfg u8: exit $? $(grep -E '[0-9]+ ok, ' $L/chk-cfg.txt | tail -1) ($(el) s)"
BL=128x1,256x1,512x1,128x2,256x2,512x2
SZ=65x4099,65x100003,96x10007,100x100003,100x4096,127x12289,128x999,129x999,129x257,200x6000
SZ=$SZ,255x65536,257x65537,257x4096,300x40009,384x50000,500x30011,509x777,511x513,511x100003
SZ=$SZ,512x1000,512x512,61x100003,64x4099,1x1,3x5,4x17,13x1000,31x33,33x2049,7x300007,2x4194306
SZ=$SZ,4099x65,100003x100,65537x257,30011x500,513x511,1000x512,100003x61
$TB run --device cuda -c conf/gpu-check.cfg -b $B --set power.source=none --set sweep.element=u8 \
  --kernels strip8 --blocks $BL --sizes $SZ -o $L/chk-u8 > $L/chk-u8.txt 2>&1
say "check awkward u8: exit $? $(grep -E '[0-9]+ ok, ' $L/chk-u8.txt | tail -1) ($(el) s)"
grep -iE 'wrong|fail|mismatch' $L/chk-cfg.txt $L/chk-u8.txt | head -20 | tee -a $S

# 2. memcheck
compute-sanitizer --tool memcheck --print-limit 5 $TB run --device cuda -c conf/gpu-check.cfg -b $B \
  --set power.source=none --set sweep.element=u8 --kernels strip8 --blocks 128x1,256x1,256x2,512x2 \
  --sizes 65x4099,100x1003,100x4096,129x257,257x6553,300x4001,500x3011,511x513,512x1000,1x1,3x5,31x33,7x30007,61x1001 \
  -o $L/mem-u8 > $L/mem-u8.txt 2>&1
say "memcheck u8: exit $? $(grep 'ERROR SUMMARY' $L/mem-u8.txt | tail -1); $(grep -E '[0-9]+ ok, ' $L/mem-u8.txt | tail -1) ($(el) s)"

# 3. A/B: every candidate, memcpy beside, two rounds
W=100x100003,257x65537,500x30011,65537x257,30011x500,61x100003,8191x12289
for round in 1 2; do
  $TB run --device cuda -c $R/bench.cfg -b $B --set power.source=none --set sweep.element=u8 \
    --kernels best --sizes $W -o $L/bt$round-u8 > $L/bt$round-u8.txt 2>&1
  say "best $round u8: exit $? ($(el) s)"
done
for d in $L/bt*; do
  [ -d $d ] || continue
  $TB compare $d/*.csv.gz --format json | python3 -c '
import json, sys
for r in json.load(sys.stdin)["best"]:
    print("%s\t%sx%s\t%s\t%sx%s\t%.1f\t%s" % (sys.argv[1], r["rows"], r["cols"], r["kernel"], r.get("block_x"), r.get("block_y"), r.get("gbps") or 0, r.get("frac_copy")))' $(basename $d) >> $OUT/best.tsv
done
grep -E 'strip8|memcpy' $OUT/best.tsv | tee -a $S
# every strip8 block, each size (the block A/B), round 1
for d in $L/bt1-u8; do
  for f in $d/*.csv.gz; do
    zcat $f | python3 -c '
import csv, sys
rows = [l for l in sys.stdin if not l.startswith("#")]
for r in csv.DictReader(rows):
    if r.get("kernel") in ("strip8", "strip", "bperm16", "bperm16w", "memcpy"):
        print("\t".join(str(r.get(k)) for k in ("kernel", "rows", "cols", "block_x", "block_y", "gbps", "frac_copy", "verified", "status")))' >> $OUT/blocks.tsv 2>/dev/null
  done
done

# 4. profiles: strip8 on three cells (its best block of round 1, else 256x1)
prof() {  # size block
  timeout 60 ncu --clock-control none --cache-control none -k regex:"tb_strip8_" --launch-skip 2 --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats \
    --metrics smsp__inst_executed.sum,dram__bytes.sum,lts__t_bytes.sum,gpu__time_duration.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio \
    $TB run --device cuda -c $R/bench.cfg -b $B --set power.source=none --set sweep.element=u8 \
    --kernels strip8 --blocks $2 --sizes $1 --set sweep.stop.min_reps=3 --set sweep.stop.max_reps=4 \
    --set sweep.warmup=1 -o $L/prof > $L/prof-$1-$2.txt 2>&1
  say "ncu strip8 $1 $2: exit $? ($(el) s)"
}
for sz in 257x65537 100x100003 500x30011; do
  blk=$(awk -F'\t' -v s=$sz '$1 == "bt1-u8" && $2 == s && $3 == "strip8" { print $4 }' $OUT/best.tsv | head -1)
  [ -n "$blk" ] || blk=256x1
  [ $(el) -lt 420 ] && prof $sz $blk
done
# 5. racecheck / synccheck (shared memory and the block's barrier), then the 2^31 point
for tool in racecheck synccheck; do
  compute-sanitizer --tool $tool --print-limit 5 $TB run --device cuda -c conf/gpu-check.cfg -b $B \
    --set power.source=none --set sweep.element=u8 --kernels strip8 --blocks 128x1,512x2 \
    --sizes 100x1003,257x6553,511x513,7x30007 -o $L/$tool-u8 > $L/$tool-u8.txt 2>&1
  say "$tool u8: exit $? $(grep 'ERROR SUMMARY' $L/$tool-u8.txt | tail -1) ($(el) s)"
done
$TB run --device cuda -c conf/gpu-check.cfg -b $B --set power.source=none --set sweep.element=u8 \
  --kernels strip8 --blocks 256x1 --sizes 3x715827885 -o $L/big-u8 > $L/big-u8.txt 2>&1
say "verify 3x715827885 u8: exit $? $(grep -E '[0-9]+ ok, ' $L/big-u8.txt | tail -1) ($(el) s)"
(cd $L && tar czf $OUT/logs.tgz *.txt chk-* mem-* bt* racecheck-* synccheck-* big-* 2>/dev/null)
say "=== $(date -u +%FT%TZ) end ($(el) s)"
