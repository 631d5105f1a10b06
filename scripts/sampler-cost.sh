#!/bin/sh
# sampler-cost.sh [BIN] [SECONDS]: what the power sampler costs, as doc/power.md ("What the
# sampler costs") measures it: `BIN power` (default ./transpose-bench) on a fake Orin NX tree
# (tests/fixtures/ina3221/orin-nx.txt: three rails, the crit alarm; three soctherm_oc
# counters; the board file's 50 ms poll) for SECONDS (default 20) after 2 s of start, the CPU
# time of its process tree (the tool, its safeio spawner and readers: /proc/PID/task/TID/
# schedstat) less its main thread (which prints the rows). Prints each thread's CPU seconds
# and time slices, then the total as % of a core, CPU seconds per hour, slices per second and
# the load average. Writes only under a temporary folder, removed at the end.
set -eu
BIN=${1:-./transpose-bench}
S=${2:-20}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
r=$tmp/root
scripts/fixture-root.sh tests/fixtures/ina3221/orin-nx.txt "$r"
hw=$r/sys/bus/i2c/drivers/ina3221/1-0040/hwmon/hwmon1
echo 5100 > "$hw/in2_input"   # the fixture has no voltage for rails 2 and 3 (its notes: ~5.1 V)
echo 5100 > "$hw/in3_input"
echo 430 > "$hw/update_interval"
echo 512 > "$hw/samples"
oc=$r/sys/class/hwmon/hwmon3
mkdir -p "$oc"
echo soctherm_oc > "$oc/name"
for k in 1 2 3; do echo 0 > "$oc/oc${k}_event_cnt"; done

"$BIN" power -b boards/jetson-orin-nx.cfg --seconds $((S + 4)) --format csv \
    --set power.sysfs_root="$r" > "$tmp/out.csv" 2> "$tmp/err.txt" &
pid=$!
tree() {   # the process and all under it
    echo "$1"
    for c in $(cat /proc/"$1"/task/*/children 2> /dev/null); do tree "$c"; done
}
snap() {   # PID/TID, CPU ns, time slices
    for p in $(tree $pid); do
        for t in /proc/"$p"/task/*; do
            echo "$p/${t##*/} $(cut -d' ' -f1,3 "$t/schedstat" 2> /dev/null)"
        done
    done | sort
}
sleep 2
snap > "$tmp/a"
t0=$(date +%s.%N)
sleep "$S"
snap > "$tmp/b"
t1=$(date +%s.%N)
wait $pid || { cat "$tmp/err.txt" >&2; exit 1; }
load=$(cut -d' ' -f1-3 /proc/loadavg)
join "$tmp/a" "$tmp/b" | awk -v t0="$t0" -v t1="$t1" -v main="$pid/$pid" -v load="$load" '
    { d = ($4 - $2) / 1e9; sw = $5 - $3
      if ($1 != main) { cpu += d; slices += sw }
      printf "  %s%s %.4f s CPU, %d slices\n", $1, $1 == main ? " (main, left out)" : "", d, sw }
    END { w = t1 - t0
          printf "sampler: %.4f s CPU over %.2f s: %.3f%% of a core, %.1f CPU s per hour, " \
                 "%d slices/s (load %s)\n", cpu, w, 100 * cpu / w, 3600 * cpu / w,
                 slices / w, load }'
