#!/bin/sh
# bench-compare.sh [BOARDS] [LOGS_PER_BOARD]: how fast `compare` and `compare --plot` read a
# fleet's logs. Makes one real CPU log, copies it as BOARDS boards x LOGS_PER_BOARD nights
# (board and device renamed per board), then times both and prints rows per second and the
# peak memory (GNU time). A benchmark, not a test: record its figures in doc/results/.
# bench-compare.sh --one-log MB: one log of about MB megabytes uncompressed instead (the seed's
# rows repeated over 100 sizes), timed as .csv.gz and as .csv, with compare, compare --plot,
# compare --html and history.
set -eu
one_mb=""
if [ "${1:-}" = --one-log ]; then one_mb=${2:-100}; set -- 1 1; fi
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
if [ -n "$one_mb" ]; then   # the metadata, then the rows again and again over 100 sizes
    rm -f "$dir"/logs/*
    big=$dir/logs/big_generic_20261122T000000Z.csv
    zcat "$seed" | grep '^#' | grep -v '^# end:' > "$big"
    zcat "$seed" | grep -v '^#' | head -n 1 >> "$big"
    zcat "$seed" | grep -v '^#' | tail -n +2 > "$dir/rows"
    per_copy=$(wc -c < "$dir/rows")
    copies=$((one_mb * 1000000 / per_copy + 1))
    awk -F, -v OFS=, -v n="$copies" 'NR == FNR { r[++k] = $0; next }
        END { for (i = 0; i < n; i++) for (j = 1; j <= k; j++) {
                  $0 = r[j]; $10 = $10 + (i % 100); print } }' "$dir/rows" /dev/null >> "$big"
    echo "# end: complete, $((copies * $(wc -l < "$dir/rows"))) rows" >> "$big"
    gzip -k "$big"
    echo "one log: $(du -m "$big" | cut -f1) MB as .csv, $(du -m "$big.gz" | cut -f1) MB as .csv.gz"
fi
rows=$(zcat -f "$dir"/logs/*.csv* | grep -vc '^#' || true)
logs=$((boards * per))
measure() {   # label, command...
    label=$1; shift
    /usr/bin/time -f "%e %M" -o "$dir/time" "$@" > /dev/null 2> "$dir/err" || { cat "$dir/err"; exit 1; }
    read -r secs kb < "$dir/time"
    awk -v l="$label" -v s="$secs" -v k="$kb" -v r="$rows" -v n="$logs" \
        'BEGIN { printf "%-22s %6d logs %8d rows %8.2f s %12.0f rows/s %8.1f MB peak\n", l, n, r, s, (s > 0 ? r / s : r / 0.01), k / 1024 }'
}
if [ -n "$one_mb" ]; then
    rows=$((rows / 2))   # the same rows, counted in .csv and .csv.gz
    measure "compare (.csv)" "$bin" compare "$big"
    measure "compare (.csv.gz)" "$bin" compare "$big.gz"
    measure "compare --html (.gz)" "$bin" compare "$big.gz" --html "$dir/p.html"
    command -v gnuplot > /dev/null 2>&1 &&
        measure "compare --plot (.gz)" "$bin" compare "$big.gz" --plot "$dir/p.svg"
    measure "history (.csv.gz)" "$bin" history "$big.gz"
    exit 0
fi
measure "compare" "$bin" compare "$dir"/logs/*.csv.gz
measure "compare --html" "$bin" compare "$dir"/logs/*.csv.gz --html "$dir/p.html"
measure "history" "$bin" history "$dir"/logs/*.csv.gz
if command -v gnuplot > /dev/null 2>&1; then
    measure "compare --plot" "$bin" compare "$dir"/logs/*.csv.gz --plot "$dir/p.svg"
    measure "history --plot" "$bin" history "$dir"/logs/*.csv.gz --plot "$dir/h.svg"
else
    echo "compare --plot: gnuplot not installed, not measured"
fi
