#!/bin/sh
# metrics-check: a real CPU-backend night's `run --metrics` file through promtool check
# metrics (Debian's prometheus package: the parser and linter of node_exporter's textfile
# format), which must accept it without a word, each series' regression state in it; and
# the file the fleet playbook drops into the collector's folder is the same file. Needs promtool (scripts/ensure-deps.sh metrics).
#   BIN=./transpose-bench
set -u
BIN=${BIN:-./transpose-bench}
case $BIN in */*) ;; *) BIN=./$BIN ;; esac
command -v promtool >/dev/null 2>&1 ||
    { echo "metrics-check: no promtool; run: scripts/ensure-deps.sh metrics"; exit 1; }
T=$(mktemp -d /tmp/tb-metrics-XXXXXX)
trap 'rm -rf "$T"' EXIT
export TB_LOCK_FILE="$T/lock"
"$BIN" run --device cpu -b boards/generic.cfg --set power.source=none --quiet \
    --set sweep.stop.min_time_ms=2 --sizes 128x128,96x160 --kernels copy_row,naive_row,blocked \
    --set sweep.element=u8 -o "$T/logs" --metrics "$T/transpose_bench.prom" ||
    { echo "metrics-check: the night failed"; exit 1; }
[ -s "$T/transpose_bench.prom" ] || { echo "metrics-check: no metrics file written"; exit 1; }
ls -a "$T" | grep -q '\.part$' && { echo "metrics-check: a temporary was left: $(ls -a "$T")"; exit 1; }
n=$(grep -c '^transpose_bench_bandwidth_bytes_per_second{' "$T/transpose_bench.prom")
[ "$n" = 6 ] || { echo "metrics-check: $n bandwidth series, wanted 6 (3 kernels x 2 sizes):"; cat "$T/transpose_bench.prom"; exit 1; }
# each series' regression state (#60): a first night has no change, every state 0
n=$(grep -c '^transpose_bench_regression{.*figure="gbps"} 0$' "$T/transpose_bench.prom")
[ "$n" = 6 ] || { echo "metrics-check: $n regression states of GB/s at 0, wanted 6:"; cat "$T/transpose_bench.prom"; exit 1; }
out=$(promtool check metrics < "$T/transpose_bench.prom" 2>&1); rc=$?
if [ $rc != 0 ] || [ -n "$out" ]; then
    echo "metrics-check: promtool check metrics (rc $rc): $out"
    cat "$T/transpose_bench.prom"
    exit 1
fi
echo "metrics-check: ok: promtool $(promtool --version 2>&1 | sed -n 's/^promtool, version \([^ ]*\).*/\1/p') accepts a CPU night's file ($(grep -c '^# TYPE' "$T/transpose_bench.prom") families, $(grep -vc '^#' "$T/transpose_bench.prom") samples)"
