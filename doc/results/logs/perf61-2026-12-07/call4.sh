#!/bin/sh
# #61's fourth device call (2026-12-07): Nsight Compute on cells that missed in calls 1 and 3,
# one launch after two, the kernel and block `best` chose there. Run from the top of a tree
# that holds gpu61/ (tb-c, nvcc 13.0 SMS=90; lib/libconfig.so.9). Everything lands in $OUT.
set -u
G=gpu61
R=doc/results/logs/perf61-2026-12-07
export LD_LIBRARY_PATH=$PWD/$G/lib
TB=$G/tb-c
B=boards/desktop-h100.cfg
S=$OUT/summary.txt
L=/tmp/p61e
mkdir -p $L
say() { echo "$*" | tee -a $S; }
say "=== $(date -u +%FT%TZ)"
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv | tee -a $S
prof() {  # kernel element block size cache
  cc=none; [ $5 = cold ] && cc=all
  timeout 40 ncu --clock-control none --cache-control $cc -k regex:"tb_$1_" --launch-skip 2 --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section WarpStateStats \
    --metrics smsp__inst_executed.sum,dram__bytes.sum,lts__t_bytes.sum,gpu__time_duration.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio \
    $TB run --device cuda -c $R/bench.cfg -b $B --set power.source=none --set sweep.element=$2 \
    --kernels $1 --blocks $3 --sizes $4 --set sweep.stop.min_reps=3 --set sweep.stop.max_reps=4 \
    --set sweep.warmup=1 --set sweep.cache=$5 -o $L/prof > $L/prof-$1-$2-$4-$3-$5.txt 2>&1
  say "ncu $1 $2 $4 $3 $5: exit $?"
}
prof bperm16 u8 256x1 65537x257 warm
prof strip f16 512x1 257x65537 warm
prof vec16 f16 256x1 257x65537 warm
prof vec16 u8 256x1 2160x3840 cold
prof bperm16 u8 128x2 16384x16384 warm
prof bperm16 f16 256x2 8191x12289 warm
say "=== $(date -u +%FT%TZ) end"
(cd $L && tar czf $OUT/prof.tgz prof-*.txt)
