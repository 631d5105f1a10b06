#!/bin/sh
# gpu-jobs.sh JOBFILE: gpu-check steps on several GPUs of one machine at once, in one call of
# the lent device. Each line of JOBFILE is one segment, "NAME GPU LIMIT_S VAR=VALUE...": run
# as `contrib/gpu-lab/gpu-check.sh` with those variables (STEPS, TB, CHECK_ARGS, ...; quoted as in
# sh), CUDA_VISIBLE_DEVICES=GPU and OUT=$WORK/NAME, under `timeout` LIMIT_S (cut to what is
# left before DEADLINE_S, default 520 s after the start; a segment with under 15 s left is
# not started). Segments of one NAME run in file order, the NAMEs side by side. Then each
# NAME's folder goes to $OUT/NAME.tgz and $OUT/summary.txt says what ran, its exit status
# and seconds ('124': stopped at its limit). Not here: building (carry the executables, or
# give a segment STEPS=build before the others), choosing GPUs ('#' lines are comments).
#   OUT    where the .tgz files and summary.txt go (the device's $OUT)
#   WORK   where the jobs write (default /tmp/gpu-jobs)
set -u
jobs=${1:?usage: gpu-jobs.sh JOBFILE}
OUT=${OUT:?set OUT}
WORK=${WORK:-/tmp/gpu-jobs}
DEADLINE_S=${DEADLINE_S:-520}
start=$(date +%s)
# the board file by the card's name, unless BOARD says (its peak gives frac_peak)
if [ -z "${BOARD:-}" ]; then
    BOARD=boards/desktop-nvml.cfg
    nvidia-smi -L 2>/dev/null | grep -q 'H100 80GB HBM3' && BOARD=boards/desktop-h100.cfg
fi
export BOARD
mkdir -p "$OUT" "$WORK"
sum="$OUT/summary.txt"

# the card and the builds, once: every result below is read against these
{
    echo "started $(date -u +%FT%TZ); deadline ${DEADLINE_S} s"
    nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,clocks.max.sm,power.draw,temperature.gpu \
        --format=csv 2>&1
    nvcc --version 2>/dev/null | tail -1
    compute-sanitizer --version 2>/dev/null | tail -1
    echo "board file: $BOARD"
    for b in $(grep -v '^[[:space:]]*#' "$jobs" | grep -oE '(TB|CLANG_BIN|NANO_BIN)=[^ ]+' | cut -d= -f2 | sort -u); do
        [ -x "$b" ] && echo "$b: $("$b" --version | head -1);" \
            "$("$b" list 2>&1 | sed -n '/^kernel images/,/^GPU/p' | grep image | tr -s ' ' | paste -sd';')"
    done
} > "$sum" 2>&1

# One NAME's segments in order, each one line of the summary.
run_job() {
    name=$1
    mkdir -p "$WORK/$name"
    grep -v '^[[:space:]]*#' "$jobs" | while read -r n gpu limit vars; do
        [ "$n" = "$name" ] || continue
        left=$(( DEADLINE_S - ($(date +%s) - start) ))
        [ "$limit" -gt "$left" ] && limit=$left
        if [ "$limit" -lt 15 ]; then
            echo "$name gpu $gpu: not run (out of time): $vars" >> "$WORK/$name.sum"
            continue
        fi
        t0=$(date +%s)
        # each job its own run lock: the tool's one lock per machine would let one job run
        ( eval "export $vars"; export CUDA_VISIBLE_DEVICES=$gpu OUT="$WORK/$name" \
              TB_LOCK_FILE="$WORK/$name.lock"
          timeout -k 10 "$limit" sh contrib/gpu-lab/gpu-check.sh ) >> "$WORK/$name/job.log" 2>&1 < /dev/null
        echo "$name gpu $gpu: exit $? after $(( $(date +%s) - t0 )) s (limit $limit): $vars" \
            >> "$WORK/$name.sum"
    done
}

names=$(grep -v '^[[:space:]]*#' "$jobs" | awk 'NF { print $1 }' | awk '!seen[$0]++')
for name in $names; do
    run_job "$name" &
done
wait
for name in $names; do
    cat "$WORK/$name.sum" >> "$sum"
    tar czf "$OUT/$name.tgz" -C "$WORK" "$name"
done
echo "ended after $(( $(date +%s) - start )) s" >> "$sum"
# the jobs' own lines first, the summary last (a caller that keeps the end keeps it)
for name in $names; do
    printf '\n##### %s\n' "$name"
    grep -v '^$' "$WORK/$name/job.log" | tail -40
done
cat "$sum"
