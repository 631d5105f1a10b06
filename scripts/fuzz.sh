#!/bin/sh
# Runs each libFuzzer target for FUZZ_SECONDS (default 20) from a seed corpus of real data
# taken from tests/fixtures (tegrastats lines, sysfs values, config files, logs). A crash
# leaves its input in build-fuzz/crashes/ and fails the run: make it a regression test.
set -u
secs=${FUZZ_SECONDS:-20}
B=build-fuzz
mkdir -p $B/corpus $B/crashes
seed() { # target
    d=$B/corpus/$1; mkdir -p "$d"
    case $1 in
    tegrastats) i=0; grep -hv '^#' tests/fixtures/tegrastats/*.txt | while IFS= read -r l; do
                    i=$((i + 1)); printf '%s' "$l" > "$d/line$i"; done ;;
    sysfs) i=0; grep -h '^/' tests/fixtures/ina3221/*.txt | cut -d'|' -f2 | while IFS= read -r v; do
               i=$((i + 1)); printf '%s\n' "$v" | sed 's/^ //; s/ $//' > "$d/value$i"; done ;;
    config) cp tests/fixtures/config/*.cfg conf/*.cfg "$d/"; for b in boards/*.cfg; do cp "$b" "$d/board-$(basename "$b")"; done ;;
    compare) cp tests/fixtures/logs/* "$d/" ;;
    report) # charts of 2x3 values: ordinary, huge, tiny, infinite, NaN, negative (raw doubles)
        python3 -c 'import struct,sys; sys.stdout.buffer.write(bytes([1,2,0]) + struct.pack("<6d", 12.5, 1e308, 5e-324, float("inf"), float("nan"), -1.0))' > "$d/extreme-linear"
        python3 -c 'import struct,sys; sys.stdout.buffer.write(bytes([1,2,1]) + struct.pack("<6d", 12.5, 1e308, 5e-324, float("inf"), float("nan"), -1.0))' > "$d/extreme-log" ;;
    esac
}
rc=0
for t in tegrastats sysfs config compare report; do
    seed $t
    LSAN_OPTIONS=suppressions=tests/fuzz/lsan.supp ./$B/fuzz/fuzz_$t -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix=$B/crashes/$t- $B/corpus/$t > $B/fuzz-$t.log 2>&1
    r=$?
    printf '%-11s %s\n' "$t" "$(grep -E '^#[0-9]+.*(DONE|pulse)' $B/fuzz-$t.log | tail -n 1 | cut -c1-90)"
    if [ $r != 0 ]; then
        echo "fuzz_$t: found a crash (exit $r):"; grep -E 'ERROR|SUMMARY|artifact' $B/fuzz-$t.log | head -5
        rc=1
    fi
done
exit $rc
