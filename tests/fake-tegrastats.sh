#!/bin/sh
# A stand-in for tegrastats: replays the lines of a fixture file (comments skipped) at the
# interval given with --interval MS, as the real one does, forever.
#   TB_FAKE_TEGRASTATS_FILE   fixture to replay (required)
#   TB_FAKE_TEGRASTATS_EXIT   exit after this many lines (a tegrastats that dies mid-run)
#   TB_FAKE_TEGRASTATS_GARBAGE=1  print a garbage line between real ones
interval=1000
while [ $# -gt 0 ]; do
    case "$1" in --interval) interval=$2; shift 2;; *) shift;; esac
done
secs=$(awk "BEGIN { printf \"%.3f\", $interval / 1000 }")
n=0
while :; do
    grep -v '^#' "$TB_FAKE_TEGRASTATS_FILE" | grep -v '^[[:space:]]*$' | while IFS= read -r line; do
        printf '%s\n' "$line"
        [ "${TB_FAKE_TEGRASTATS_GARBAGE:-0}" = 1 ] && printf '%s\n' '@@@ not a tegrastats line 12/34mW ~~'
        sleep "$secs"
    done
    n=$((n + 1))
    [ -n "${TB_FAKE_TEGRASTATS_EXIT:-}" ] && [ "$n" -ge 1 ] && exit 3
done
