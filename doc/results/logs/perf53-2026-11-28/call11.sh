#!/bin/sh
# #53's eleventh device call (2026-11-28): the profiler's account of the cells call 8 missed
# that call 7 met (f16 7681x4321, u8 61x100003) and of call 8's choice for floats 8191x12289
# and 8192x12289 (vec16w, where call 8 profiled call 7's vec16d). Same tree and ncu settings as
# call8.sh. Everything lands in $OUT.
set -u
D=gpu-p53b
export LD_LIBRARY_PATH=$PWD/$D/lib
TB=$D/transpose-bench
B=boards/desktop-h100.cfg
S=$OUT/summary.txt
L=/tmp/p53h
mkdir -p $L
say() { echo "$*" | tee -a $S; }
say "=== $(date -u +%FT%TZ)"
nvidia-smi --query-gpu=name,uuid,driver_version,temperature.gpu --format=csv | tee -a $S
say "$TB: $($TB --version | tr '\n' ' ')"
prof() {  # kernel element block size
  ncu --clock-control none --cache-control none -k regex:"tb_$1_" --launch-skip 2 --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section WarpStateStats \
    --metrics smsp__inst_executed.sum,dram__bytes.sum,lts__t_bytes.sum,gpu__time_duration.sum,sm__warps_active.avg.per_cycle_active,regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio \
    $TB run --device cuda -c $D/bench.cfg -b $B --set power.source=none --set sweep.element=$2 \
    --kernels $1 --blocks $3 --sizes $4 --set sweep.stop.min_reps=3 --set sweep.stop.max_reps=4 \
    --set sweep.warmup=1 -o $L/prof > $L/prof-$1-$2-$4.txt 2>&1
  say "ncu $1 $2 $4 $3: exit $?"
}
prof bperm16 f16 128x2 7681x4321
prof strip u8 128x4 61x100003
prof vec16w float 256x2 8191x12289
prof vec16w float 256x2 8192x12289
say "=== $(date -u +%FT%TZ) end"
cd $L && tar czf $OUT/logs.tgz *.txt 2>/dev/null
