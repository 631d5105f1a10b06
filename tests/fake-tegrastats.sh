#!/bin/sh
# A stand-in for tegrastats: replays the lines of a fixture file (comments skipped) at the
# interval given with --interval MS, as the real one does, forever.
#   TB_FAKE_TEGRASTATS_FILE   fixture to replay (required)
#   TB_FAKE_TEGRASTATS_EXIT   exit after this many lines (a tegrastats that dies mid-run)
#   TB_FAKE_TEGRASTATS_GARBAGE=1  print a garbage line between real ones
#   TB_FAKE_TEGRASTATS_STALL=N    after N lines, print nothing more but stay alive (hung)
#   TB_FAKE_TEGRASTATS_ONCE=1     print the file once, as it is (cat: a megabyte line in
#                                 milliseconds, where the loop below reads it a byte at a
#                                 time), then stay alive and silent: what the reader gets does
#                                 not hang on when it reads
#   TB_FAKE_TEGRASTATS_NOTERM=F   write its pid to F, and on SIGTERM append "term" to F and go
#                                 on (a tegrastats that does not exit when asked)
#   TB_FAKE_CLOCK=1   the tool keeps virtual time (src/lib/clock.h): the lines go out at once,
#                     without sleeping, and the tool takes one per tick of its clock
interval=1000
if [ -n "${TB_FAKE_TEGRASTATS_NOTERM:-}" ]; then
    echo $$ > "$TB_FAKE_TEGRASTATS_NOTERM"
    trap 'echo term >> "$TB_FAKE_TEGRASTATS_NOTERM"' TERM
fi
if [ "${TB_FAKE_TEGRASTATS_ONCE:-0}" = 1 ]; then
    cat "$TB_FAKE_TEGRASTATS_FILE"
    exec sleep 3600
fi
while [ $# -gt 0 ]; do
    case "$1" in --interval) interval=$2; shift 2;; *) shift;; esac
done
secs=$(awk "BEGIN { printf \"%.3f\", $interval / 1000 }")
case "${TB_FAKE_CLOCK:-0}" in ''|0) ;; *) secs=0 ;; esac
stall=${TB_FAKE_TEGRASTATS_STALL:-0}
n=0; k=0   # passes done, lines printed
while :; do
    text=$(grep -v '^#' "$TB_FAKE_TEGRASTATS_FILE" | grep -v '^[[:space:]]*$')
    while IFS= read -r line; do
        [ -n "$line" ] || continue
        k=$((k + 1))
        if [ "$stall" -gt 0 ] && [ "$k" -gt "$stall" ]; then
            while :; do sleep 60; done
        fi
        printf '%s\n' "$line"
        [ "${TB_FAKE_TEGRASTATS_GARBAGE:-0}" = 1 ] && printf '%s\n' '@@@ not a tegrastats line 12/34mW ~~'
        [ "$secs" = 0 ] || sleep "$secs"
    done <<EOF
$text
EOF
    n=$((n + 1))
    [ -n "${TB_FAKE_TEGRASTATS_EXIT:-}" ] && [ "$n" -ge 1 ] && exit 3
done
