#!/bin/sh
# #53's ninth device call (2026-11-28): `--kernels best` against `tune` for bytes and halves
# (the elements whose kernels changed in call 5), each element's best run followed at once by
# its tune. Same tree as call8.sh. Everything lands in $OUT.
set -u
D=gpu-p53b
export LD_LIBRARY_PATH=$PWD/$D/lib
TB=$D/transpose-bench
B=boards/desktop-h100.cfg
S=$OUT/summary.txt
L=/tmp/p53f
mkdir -p $L
say() { echo "$*" | tee -a $S; }
say "=== $(date -u +%FT%TZ)"
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,power.draw,temperature.gpu --format=csv | tee -a $S
W=8191x12289,8192x12289,7681x4321,16384x16384,4096x65536,61x100003,100003x61,8192x8192
for e in u8 f16; do
  case $e in u8) k=tiled,vec16,bperm16,bperm16w,strip ;; f16) k=tiled,vec16,bperm16,strip ;; esac
  $TB run --device cuda -c $D/bench.cfg -b $B --set power.source=none --set sweep.element=$e \
    --kernels best --sizes $W -o $L/best-$e > $L/best-$e.txt 2>&1
  say "best $e: exit $?"
  $TB tune --device cuda -c $D/bench.cfg -b $B --set power.source=none --set sweep.element=$e \
    --kernels $k --sizes $W --seconds 40 --out $L/tuned-$e.cfg -o $L/tune-$e > $L/tune-$e.txt 2>&1
  say "tune $e: exit $?"
done
say "=== $(date -u +%FT%TZ) end"
cd $L && tar czf $OUT/logs.tgz *.txt best-* tune-* tuned-*.cfg 2>/dev/null
