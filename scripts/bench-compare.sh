#!/bin/sh
# bench-compare.sh [BOARDS] [LOGS_PER_BOARD]: how fast `compare` and `compare --plot` read a
# fleet's logs. Makes one real CPU log, copies it as BOARDS boards x LOGS_PER_BOARD nights
# (board and device renamed per board), then times both and prints rows per second and the
# peak memory (GNU time). A benchmark, not a test: record its figures in doc/results/.
set -eu
boards=${1:-2}
per=${2:-400}
bin=${TB_BIN:-./transpose-bench}
dir=$(mktemp -d /tmp/tb-bench-compare-XXXXXX)
trap 'rm -rf "$dir"' EXIT
"$bin" run --quiet --device cpu -b boards/generic.cfg --set power.source=none \
    --sizes 256x256,128x128 --kernels copy_row,blocked,naive_row --blocks 16x16,32x8,8x8 \
    --set sweep.stop.min_time_ms=2 -o "$dir/seed"
seed=$(ls "$dir"/seed/*.csv.gz)
mkdir -p "$dir/logs"
b=0
while [ "$b" -lt "$boards" ]; do
    zcat "$seed" | sed "s/,generic,/,board$b,/; s/,$(zcat "$seed" | sed -n 's/^# device: //p'),/,gpu$b,/" |
        gzip > "$dir/one.csv.gz"
    i=0
    while [ "$i" -lt "$per" ]; do cp "$dir/one.csv.gz" "$dir/logs/b${b}_$i.csv.gz"; i=$((i + 1)); done
    b=$((b + 1))
done
rows=$(zcat "$dir"/logs/*.csv.gz | grep -vc '^#' || true)
logs=$((boards * per))
measure() {   # label, command...
    label=$1; shift
    /usr/bin/time -f "%e %M" -o "$dir/time" "$@" > /dev/null 2> "$dir/err" || { cat "$dir/err"; exit 1; }
    read -r secs kb < "$dir/time"
    awk -v l="$label" -v s="$secs" -v k="$kb" -v r="$rows" -v n="$logs" \
        'BEGIN { printf "%-22s %6d logs %8d rows %8.2f s %12.0f rows/s %8.1f MB peak\n", l, n, r, s, (s > 0 ? r / s : r / 0.01), k / 1024 }'
}
measure "compare" "$bin" compare "$dir"/logs/*.csv.gz
if command -v gnuplot > /dev/null 2>&1; then
    measure "compare --plot" "$bin" compare "$dir"/logs/*.csv.gz --plot "$dir/p.svg"
else
    echo "compare --plot: gnuplot not installed, not measured"
fi
