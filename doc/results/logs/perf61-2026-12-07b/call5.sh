#!/bin/sh
# #61's fifth device call (2026-12-07, second session of the day): the kernels of eabfcd2
# (unchanged since but for a comment), built from main at 5002032. Run from the top of a tree
# that holds gpu61/ (x86 builds made on the host: tb-main, nvcc 13.0 SMS=90; tb-nano and
# tb-xavier, clang 19's PTX for sm_53 and sm_72 at ISA 6.5, the boards' images, JIT-compiled
# here by the driver; lib/libconfig.so.9). Everything lands in $OUT, packed as it goes.
# PHASES (default "table prof parallel"): which parts run, in this order, so that they may
# be split over calls.
#  0. #61's table twice (`--kernels best`, warm and cold, u8 / f16 / float), the GPU alone;
#  1. Nsight Compute on the cells the last call left unprofiled, the GPU alone;
#  2. side by side (the verification is host work: 16 cores), each under what is left of the
#     call: the correctness matrix in its five parts (gpu-check.sh checkparts, one process a
#     part, each its own lock file), compute-sanitizer memcheck of every kernel on the awkward
#     shapes (memall), and the Nano's and Xavier's images on the awkward shapes, every element.
set -u
START=$(date +%s)
G=gpu61
R=doc/results/logs/perf61-2026-12-07
export LD_LIBRARY_PATH=$PWD/$G/lib
TB=$G/tb-main
B=boards/desktop-h100.cfg
S=$OUT/summary.txt
L=/tmp/p61f
mkdir -p $L
say() { echo "$*" | tee -a $S; }
left() { echo $(( ${BUDGET_S:-550} - ($(date +%s) - START) )); }
pack() {
  rm -f $OUT/best.tsv
  for d in $L/t[12]-*; do
    [ -d $d ] || continue
    $TB compare $d/*.csv.gz --format json | python3 -c '
import json, sys
for r in json.load(sys.stdin)["best"]:
    print("%s\t%sx%s\t%s\t%sx%s\t%.1f\t%s" % (sys.argv[1], r["rows"], r["cols"], r["kernel"], r.get("block_x"), r.get("block_y"), r.get("gbps") or 0, r.get("frac_copy")))' $(basename $d) >> $OUT/best.tsv
  done
  (cd $L && tar czf $OUT/logs.tgz *.txt t[12]-* 2>/dev/null)
}
say "=== $(date -u +%FT%TZ)"
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv | tee -a $S
for b in $TB $G/tb-nano $G/tb-xavier; do say "$b: $($b --version | tr '\n' ' ')"; done
T=8191x12289,8192x12289,7681x4321,16384x16384,4096x65536,61x100003,100003x61,8192x8192
table() {
  for e in u8 f16 float; do
    for c in warm cold; do
      sz=$T; [ $c = cold ] && sz=2160x3840
      $TB run --device cuda -c $R/bench.cfg -b $B --set power.source=none --set sweep.element=$e \
        --set sweep.cache=$c --kernels best --sizes $sz -o $L/t$1-$e-$c > $L/t$1-$e-$c.txt 2>&1
      say "table $1 $e $c: exit $?"
    done
  done
  pack
}
case " ${PHASES:-table prof parallel} " in *" table "*)
table 1; say "$(date -u +%T) table 1 done"
table 2; say "$(date -u +%T) table 2 done" ;;
esac
case " ${PHASES:-table prof parallel} " in *" prof "*)
prof() {  # kernel element block size cache
  cc=none; [ $5 = cold ] && cc=all
  timeout 40 ncu --clock-control none --cache-control $cc -k regex:"tb_$1_" --launch-skip 2 --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section WarpStateStats \
    --metrics smsp__inst_executed.sum,dram__bytes.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,gpu__time_duration.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio \
    $TB run --device cuda -c $R/bench.cfg -b $B --set power.source=none --set sweep.element=$2 \
    --kernels $1 --blocks $3 --sizes $4 --set sweep.stop.min_reps=3 --set sweep.stop.max_reps=4 \
    --set sweep.warmup=1 --set sweep.cache=$5 -o $L/prof > $L/prof-$1-$2-$4-$3-$5.txt 2>&1
  say "ncu $1 $2 $4 $3 $5: exit $?"
}
prof bperm16w u8 512x1 8191x12289 warm
prof vec16w float 512x2 8191x12289 warm
prof bperm16 f16 128x2 8192x12289 warm
prof bperm16w u8 512x1 8192x8192 warm
prof vec16 f16 256x1 16384x16384 warm
prof strip f16 128x4 61x100003 warm
prof bperm16 f16 256x2 100003x61 warm
prof strip u8 128x4 61x100003 warm
prof strip u8 256x1 257x65537 warm
prof strip u8 256x4 100x100003 warm
prof bperm16 u8 256x1 500x30011 warm
prof memcpy u8 256x1 8191x12289 warm
(cd $L && tar czf $OUT/prof.tgz prof-*.txt)
say "$(date -u +%T) profiles done" ;;
esac
case " ${PHASES:-table prof parallel} " in *" parallel "*)
t=$(left)
say "side by side, each under $t s"
for part in ${PARTS:-float-seeds float-fast double u8 f16}; do
  mkdir -p $OUT/parts-$part
  ( TB_LOCK_FILE=$L/lock-$part OUT=$OUT/parts-$part CHECK_PARTS=$part TB=$TB BOARD=$B STEPS=checkparts \
      timeout -k 5 $t sh contrib/gpu-lab/gpu-check.sh > $OUT/parts-$part/out.txt 2>&1
    say "part $part: exit $? $(grep -E '^part ' $OUT/parts-$part/out.txt | tail -1)" ) &
done
[ -n "${PARTS_ONLY:-}" ] || ( mkdir -p $OUT/memall
  TB_LOCK_FILE=$L/lock-memall OUT=$OUT/memall TB=$TB BOARD=$B STEPS=memall \
    timeout -k 5 $t sh contrib/gpu-lab/gpu-check.sh > $OUT/memall/out.txt 2>&1
  say "memall: exit $?"; grep -E '^memcheck' $OUT/memall/out.txt | tee -a $S ) &
for img in $([ -n "${PARTS_ONLY:-}" ] || echo nano xavier); do
  ( for e in u8 f16 float double; do
      TB_LOCK_FILE=$L/lock-$img timeout -k 5 $(( $t / 4 )) $G/tb-$img run --device cuda -c conf/gpu-check.cfg -b $B \
        --set power.source=none --set sweep.element=$e \
        --sizes 1x1,1x4099,4099x1,64x4099,31x33,33x31,30x34,300007x7,7x300007,1031x2053,129x257,257x65537 \
        -o $L/img-$img-$e > $L/img-$img-$e.txt 2>&1
      c=$?
      say "$img images, $e: exit $c; $(grep -E '[0-9]+ ok, ' $L/img-$img-$e.txt | tail -1)"
    done
    zcat $L/img-$img-u8/*.csv.gz | grep -E '^# (kernel_images|kernel_image|kernel_load|jit_cache):' | head -5 >> $S ) &
done
wait
(cd $L && tar czf $OUT/img.tgz img-*.txt)
for p in $OUT/parts-*; do tar czf $p.tgz -C $p . && rm -rf $p; done
[ -d $OUT/memall ] && tar czf $OUT/memall.tgz -C $OUT memall && rm -rf $OUT/memall ;;
esac
say "=== $(date -u +%FT%TZ) end"
