#!/bin/sh
# #53's tenth device call (2026-11-28): the Orin's image, clang 19.1.7's PTX sm_87 at ISA 7.4
# (`make SMS=87 PTX_ISA=7.4 KERNEL_CC=clang`), JIT-compiled by the H200's driver: bperm16 and
# bperm16w (changed this round) and strip (never run through an Orin image), bit for bit.
# Tree: gpu-p53b/orin-transpose-bench, lib/libconfig.so.9. Everything lands in $OUT.
set -u
D=gpu-p53b
export LD_LIBRARY_PATH=$PWD/$D/lib
TB=$D/orin-transpose-bench
B=boards/desktop-h100.cfg
S=$OUT/summary.txt
L=/tmp/p53g
mkdir -p $L
say() { echo "$*" | tee -a $S; }
say "=== $(date -u +%FT%TZ)"
nvidia-smi --query-gpu=name,uuid,driver_version,temperature.gpu --format=csv | tee -a $S
say "$TB: $($TB --version | tr '\n' ' ')"
$TB list | sed -n '/^kernel images/,+2p' | tee -a $S
BL=64x1,128x1,256x1,512x1,64x2,128x2,256x2,128x4,256x4
SZ=1x1,1x4099,4099x1,64x4099,31x33,33x31,1x70001,70001x1,300007x7,7x300007,8191x12289,30x34,4194306x2,2x4194306,8190x12290,7681x4321,61x100003,100003x61,2160x3840,129x257,257x129,3x5,64x65,65x64,17x1000003
for e in u8 f16 float double; do
  case $e in u8) k=bperm16,bperm16w,strip ;; f16) k=bperm16,strip ;; *) k=strip ;; esac
  $TB run --device cuda -c conf/gpu-check.cfg -b $B --set power.source=none --set sweep.element=$e \
    --kernels $k --blocks $BL --sizes $SZ -o $L/chk-orin-$e > $L/chk-orin-$e.txt 2>&1
  say "check orin $e: exit $? $(grep -E '[0-9]+ ok, ' $L/chk-orin-$e.txt | tail -1)"
done
say "=== $(date -u +%FT%TZ) end"
cd $L && tar czf $OUT/logs.tgz *.txt 2>/dev/null
