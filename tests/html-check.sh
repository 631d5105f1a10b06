#!/bin/sh
# html-check: renders the pages of `compare --html` and `history --html` in headless Chromium
# (Debian's package) and checks what they show: the text as printed (PDF -> pdftotext), the
# charts as drawn (SVG elements in the rendered DOM), the hostile names shown as text and
# never run, no network fetch. Thirteen nights of two boards, one with a planted regression.
#   BIN=./transpose-bench  OUT=DIR (default: a temporary folder; the screenshots stay there)
set -u
BIN=${BIN:-./transpose-bench}
case $BIN in */*) ;; *) BIN=./$BIN ;; esac
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT/logs"
fail=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fail=1; }
for tool in chromium pdftotext; do
    command -v $tool >/dev/null 2>&1 || { echo "html-check: $tool not found (apt-get install chromium poppler-utils)"; exit 1; }
done
# Thirteen nights: tiled on the Orin drops 30% on the 11th and stays down (a change from its
# third night: report/alarm.c); the second board's
# name and device carry markup, quotes and a script (quotes doubled, as CSV writes them).
night() {   # day board device kernel gbps memcpy
    f="$OUT/logs/$(printf 'host_%s_202611%02dT023000Z.csv' "$(echo "$2" | tr -c 'a-z\n' _)" "$1")"
    {
        echo "# log_format: 1"
        echo "run_id,board,device,kernel,elem,rows,cols,block_x,block_y,gbps,rel_sem,status,power_mode,frac_copy,gbps_per_w"
        printf 'h_%s_202611%02dT023000Z,%s,"%s",%s,float,4096,4096,32,8,%s,0.002,ok,15W (0),%s,%s\n' \
            "$2" "$1" "$2" "$3" "$4" "$5" "$6" "$7"
        printf 'h_%s_202611%02dT023000Z,%s,"%s",memcpy,float,4096,4096,0,0,%s,0.002,ok,15W (0),1.0,%s\n' \
            "$2" "$1" "$2" "$3" "$8" "$9"
        echo "# end: complete, 2 rows"
    } > "$f"
    gzip -f "$f"
}
d=1
for g in 100 101 99 100.5 99.5 100 101 99.8 100.2 100.1 70 71 70.5; do
    night $d jetson-orin-nano "Orin" tiled "$g" "$(echo "$g / 110" | bc -l | cut -c1-5)" 2.5 110 2.9
    night $d "bob's-<b>nano</b>" "GPU \"\"<script>alert(1)</script>\"\"" tiled 2600 0.9 5.1 2900 5.9
    d=$((d + 1))
done
"$BIN" history --html "$OUT/history.html" "$OUT"/logs/*.csv.gz > "$OUT/history.txt"
[ $? = 1 ] && ok "history exits 1 (the latest night is inside a slowdown)" || bad "history exit"
"$BIN" compare --html "$OUT/compare.html" "$OUT"/logs/*.csv.gz > "$OUT/compare.txt" \
    && ok "compare --html exits 0" || bad "compare exit"
for p in history compare; do
    grep -q '<script' "$OUT/$p.html" && bad "$p: a raw <script> in the page" || ok "$p: no raw <script>"
    grep -Eq '(src|href)="(http|//)' "$OUT/$p.html" && bad "$p: fetches" || ok "$p: no fetch"
    timeout 120 chromium --headless --no-sandbox --disable-gpu --print-to-pdf="$OUT/$p.pdf" \
        "file://$(cd "$OUT" && pwd)/$p.html" > "$OUT/$p.chromium.log" 2>&1
    timeout 120 chromium --headless --no-sandbox --disable-gpu --window-size=1100,1400 \
        --screenshot="$OUT/$p.png" "file://$(cd "$OUT" && pwd)/$p.html" >> "$OUT/$p.chromium.log" 2>&1
    timeout 120 chromium --headless --no-sandbox --disable-gpu --dump-dom \
        "file://$(cd "$OUT" && pwd)/$p.html" > "$OUT/$p.dom" 2>> "$OUT/$p.chromium.log"
    pdftotext -layout "$OUT/$p.pdf" "$OUT/$p.txt-shown" 2>/dev/null || bad "$p: Chromium printed no PDF"
    [ -s "$OUT/$p.png" ] && ok "$p: screenshot $OUT/$p.png" || bad "$p: no screenshot"
done
shown() {   # page, text that must be shown
    grep -qF -- "$2" "$OUT/$1.txt-shown" && ok "$1 shows: $2" || bad "$1 does not show: $2"
}
shown history "tiled, 4096x4096 float, 15W (0)"
shown history "SLOWER from here"
shown history "still slower"
shown history "1 series regressed on the latest night"
shown history "bob's-<b>nano</b>"
shown history 'GPU "<script>alert('
shown history "night (UTC)"
shown history "relative to each board's median night"
shown compare "4096x4096 float"
shown compare "Fraction of memcpy"
shown compare "GB/s (log scale)"
shown compare "GB/s per watt"
shown compare "bob's-<b>nano</b>"
n=$(grep -o '<polyline' "$OUT/history.dom" | wc -l)
[ "$n" -ge 2 ] && ok "history draws $n lines" || bad "history draws $n lines"
n=$(grep -o '<rect[^>]*fill="#[0-9a-f]*"><title>' "$OUT/compare.dom" | wc -l)
[ "$n" -ge 4 ] && ok "compare draws $n bars" || bad "compare draws $n bars"
grep -q 'alert' "$OUT/history.chromium.log" && bad "a script ran" || ok "no script ran"
# a page that cannot be written: exit 1, no file, no partial file
"$BIN" compare --html "$OUT/no/such/dir/c.html" "$OUT"/logs/*.csv.gz > /dev/null 2>&1
[ $? = 1 ] && ok "unwritable page: exit 1" || bad "unwritable page: exit"
ls "$OUT"/*.part > /dev/null 2>&1 && bad "a .part left" || ok "no partial page left"
# --html draws best points: with --baseline it is a usage error, and no page is written
"$BIN" compare --html "$OUT/b.html" --baseline "$OUT"/logs/host_jet*01T*.csv.gz "$OUT"/logs/*.csv.gz > /dev/null 2>&1
[ $? = 2 ] && [ ! -e "$OUT/b.html" ] && ok "--html with --baseline: exit 2, no page" || bad "--html with --baseline"
# the page path before a glob of logs (issue 22: the first log became the page): refused, exit 2,
# the log untouched
first=$(ls "$OUT"/logs/*.csv.gz | head -n 1)
sum=$(cksum < "$first")
"$BIN" compare --html "$OUT"/logs/*.csv.gz > /dev/null 2>&1
[ $? = 2 ] && [ "$(cksum < "$first")" = "$sum" ] && ok "compare --html *.csv.gz: exit 2, log untouched" \
    || bad "compare --html *.csv.gz"
# figures of 1e308, 5e-324, inf and negative GB/s: the page comes at once, small, and renders
mkdir -p "$OUT/extreme"
{
    echo "run_id,board,device,kernel,elem,rows,cols,block_x,block_y,gbps,rel_sem,status"
    for g in 1e308 5e-324 inf -5 12.5; do
        echo "h_x_20261101T023000Z,x,d,k$g,float,64,64,8,8,$g,0.01,ok"
    done
} > "$OUT/extreme/h_x_20261101T023000Z.csv"
timeout 20 "$BIN" compare --html "$OUT/extreme.html" "$OUT/extreme/h_x_20261101T023000Z.csv" > /dev/null 2>&1
[ $? = 0 ] && [ "$(wc -c < "$OUT/extreme.html")" -lt 200000 ] && ok "extreme figures: a small page, at once" \
    || bad "extreme figures: the page"
timeout 120 chromium --headless --no-sandbox --disable-gpu --print-to-pdf="$OUT/extreme.pdf" \
    "file://$(cd "$OUT" && pwd)/extreme.html" > /dev/null 2>&1
pdftotext -layout "$OUT/extreme.pdf" "$OUT/extreme.txt-shown" 2>/dev/null || bad "extreme: Chromium printed no PDF"
shown extreme "k12.5"
grep -qF "k1e308" "$OUT/extreme.txt-shown" && bad "extreme: an impossible row shown as a result" \
    || ok "extreme: impossible rows left out"
[ $fail = 0 ] && echo "html-check: all passed ($OUT)" || echo "html-check: FAILED ($OUT)"
exit $fail
