#!/bin/sh
# alert-rules-check: the Prometheus alerting rules of doc/fleet/prometheus/ through
# `promtool check rules` and `promtool test rules` (their unit tests beside them), then a
# real `history --metrics` file of 23 nights (a board named in Latin-1, one series 3% slower
# from its 21st night) through `promtool check metrics`, which must accept it without a word
# and find the regression in it. Needs promtool (scripts/ensure-deps.sh metrics).
#   BIN=./transpose-bench
set -u
BIN=${BIN:-./transpose-bench}
case $BIN in */*) ;; *) BIN=./$BIN ;; esac
R=doc/fleet/prometheus
command -v promtool >/dev/null 2>&1 ||
    { echo "alert-rules-check: no promtool; run: scripts/ensure-deps.sh metrics"; exit 1; }
out=$(promtool check rules "$R/transpose-bench-rules.yml" 2>&1) ||
    { echo "alert-rules-check: promtool check rules: $out"; exit 1; }
out=$(cd "$R" && promtool test rules transpose-bench-rules.test.yml 2>&1) ||
    { echo "alert-rules-check: promtool test rules: $out"; exit 1; }
T=$(mktemp -d /tmp/tb-alerts-XXXXXX)
trap 'rm -rf "$T"' EXIT
d=1
while [ $d -le 23 ]; do
    g=$(awk -v d=$d 'BEGIN { x = (d > 20 ? 97 : 100) + ((d * 7919) % 11 - 5) * 0.08; printf "%.2f", x }')
    n=$(printf '202611%02d' $d)
    # \351: e-acute in Latin-1, no UTF-8
    printf '# log_format: 1\nrun_id,board,device,kernel,elem,rows,cols,block_x,block_y,gbps,rel_sem,status,power_mode\norin1_b_%sT023000Z,orin-caf\351,Orin,blocked,float,4096,4096,32,8,%s,0.002,ok,15W\n# end: complete, 1 rows\n' "$n" "$g" > "$T/orin1_b_${n}T023000Z.csv"
    d=$((d + 1))
done
"$BIN" history "$T"/*.csv --metrics "$T/h.prom" > "$T/out" 2>&1
rc=$?
[ $rc = 1 ] || { echo "alert-rules-check: history exited $rc, wanted 1 (a regression):"; cat "$T/out"; exit 1; }
grep -q '^transpose_bench_regression{.*figure="gbps"} 1$' "$T/h.prom" ||
    { echo "alert-rules-check: no regression in the metrics file:"; cat "$T/h.prom"; exit 1; }
out=$(promtool check metrics < "$T/h.prom" 2>&1); rc=$?
if [ $rc != 0 ] || [ -n "$out" ]; then
    echo "alert-rules-check: promtool check metrics (rc $rc): $out"
    cat "$T/h.prom"
    exit 1
fi
echo "alert-rules-check: ok: promtool $(promtool --version 2>&1 | sed -n 's/^promtool, version \([^ ]*\).*/\1/p'): $(grep -c '^ *- alert:' "$R/transpose-bench-rules.yml") rules checked and unit-tested; history's file with a Latin-1 board name accepted, its regression in it"
