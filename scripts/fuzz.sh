#!/bin/sh
# Runs each libFuzzer target for FUZZ_SECONDS (default 20) from a seed corpus of real data
# taken from tests/fixtures (tegrastats lines, sysfs values, config files, logs), FUZZ_JOBS
# at a time (default: one a core). A crash
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
# one target: its run, its exit status into $B/fuzz-T.rc
fuzz_one() { # target
    LSAN_OPTIONS=suppressions=tests/fuzz/lsan.supp ./$B/fuzz/fuzz_$1 -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix=$B/crashes/$1- $B/corpus/$1 > $B/fuzz-$1.log 2>&1
    echo $? > $B/fuzz-$1.rc
}
# what one target found, said; 1 if it crashed
said() { # target
    r=$(cat $B/fuzz-$1.rc 2>/dev/null || echo 1)
    printf '%-11s %s\n' "$1" "$(grep -E '^#[0-9]+.*(DONE|pulse)' $B/fuzz-$1.log | tail -n 1 | cut -c1-90)"
    [ "$r" = 0 ] && return 0
    echo "fuzz_$1: found a crash (exit $r):"; grep -E 'ERROR|SUMMARY|artifact' $B/fuzz-$1.log | head -5
    return 1
}
# FUZZ_JOBS targets at a time (default: one a core), each for its full FUZZ_SECONDS: the
# same rounds as one after the other, in a third of the time on two cores (#59)
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
rc=0
batch=""
for t in tegrastats sysfs config compare report; do
    seed $t
    rm -f $B/fuzz-$t.rc
    fuzz_one $t &
    batch="$batch $t"
    [ $(echo $batch | wc -w) -lt "$jobs" ] && continue
    wait
    for b in $batch; do said $b || rc=1; done
    batch=""
done
wait
for b in $batch; do said $b || rc=1; done
exit $rc
