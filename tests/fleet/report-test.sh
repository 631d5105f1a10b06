#!/bin/bash
# report-test.sh: doc/fleet's controller script (tb_fleet.py) fed hostile files directly, no
# hosts, no root: `land` with a cut gzip, a log without its end line, a name already taken, a
# name that is a path; `report` with a corrupt older log, a host silent for nights, an
# unreachable host with a recent log, a full disk. Run by tests/fleet-test.sh first.
#   tests/fleet/report-test.sh BIN   (BIN: a built transpose-bench)
set -u
cd "$(dirname "$0")/../.."
bin=$(realpath "${1:-./transpose-bench}")
py=$(command -v python3)
tbf=doc/fleet/roles/tb_collect/files/tb_fleet.py
fails=0; passes=0
ok() { passes=$((passes + 1)); echo "report-test: ok: $*"; }
bad() { fails=$((fails + 1)); echo "report-test: FAILED: $*"; }
R=$(mktemp -d)
trap 'rm -rf "$R"' EXIT

# a real log to start from
TB_LOCK_FILE=$R/lock "$bin" run --quiet -o "$R/src" --device cpu --sizes 64x64 --kernels copy_row \
    --blocks 16x16 --set sweep.stop.min_time_ms=1 --set power.source=none || { bad "no log to start from"; exit 1; }
log=$(ls "$R/src"/*.csv.gz)
now=$(date -u +%Y%m%dT%H%M%SZ)
d=$R/fl/h-1/.incoming
mkdir -p "$d"
cp "$log" "$d/h_b_${now}.csv.gz"                                      # whole
head -c 300 "$log" > "$d/h_b_20260101T000000Z.csv.gz"                    # cut short
zcat "$log" | sed '$d' | gzip > "$d/h_b_20260102T000000Z.csv.gz"         # no end line
cp "$log" "$d/h_b_20260103T000000Z.csv.gz"; echo taken > "$R/fl/h-1/h_b_20260103T000000Z.csv.gz"
out=$("$py" "$tbf" land "$R/fl/h-1" "h_b_${now}.csv.gz" h_b_20260101T000000Z.csv.gz \
      h_b_20260102T000000Z.csv.gz h_b_20260103T000000Z.csv.gz ../x.csv.gz)
echo "land: $out"
cmp -s "$log" "$R/fl/h-1/h_b_${now}.csv.gz" && [ ! -e "$d/h_b_${now}.csv.gz" ] &&
    ok "a whole log gets its final name, its temporary one gone" || bad "the whole log was not landed"
[ ! -e "$R/fl/h-1/h_b_20260101T000000Z.csv.gz" ] && [ -e "$d/h_b_20260101T000000Z.csv.gz" ] &&
    printf '%s' "$out" | grep -q '"h_b_20260101T000000Z.csv.gz", "why": "not a whole gzip file' &&
    ok "a cut gzip stays under its temporary name, named as not whole" || bad "cut gzip"
[ ! -e "$R/fl/h-1/h_b_20260102T000000Z.csv.gz" ] && printf '%s' "$out" | grep -q '20260102T000000Z.csv.gz", "why": "no end line' &&
    ok "a log without its end line is not kept" || bad "no end line"
[ "$(cat "$R/fl/h-1/h_b_20260103T000000Z.csv.gz")" = taken ] && printf '%s' "$out" | grep -q 'already here' &&
    ok "a name already here is never replaced" || bad "a collected log was replaced"
printf '%s' "$out" | grep -q '"../x.csv.gz", "why": "not a log name"' && ok "a name with a path is refused" || bad "path name"

# the report: h-1 has a corrupt older log (planted), h-2 a log 3 days old, h-3 is unreachable
# with a recent log, h-4 could not be stored (the disk)
cp "$d/h_b_20260101T000000Z.csv.gz" "$R/fl/h-1/h_b_20251231T000000Z.csv.gz"
mkdir -p "$R/fl/h-2" "$R/fl/h-3"
old=$(date -u -d '-3 days -2 hours' +%Y%m%dT%H%M%SZ)
cp "$log" "$R/fl/h-2/h_b_${old}.csv.gz"
cp "$log" "$R/fl/h-3/h_b_${now}.csv.gz"
rm -f "$R/fl/h-1/h_b_20260103T000000Z.csv.gz"
# h-5: fourteen nights, the last three at half the GB/s (a lasting slowdown for history's
# alarm: it judges a series from its 11th night and flags a change on its third night)
mkdir -p "$R/fl/h-5"
run_id=$(basename "$log" .csv.gz)
for i in $(seq 1 14); do
    day=$(printf %02d "$i")
    zcat "$log" | sed "s/$run_id/h_b_202501${day}T020000Z/g; s/[0-9]\{4\}-[0-9][0-9]-[0-9][0-9]T/2025-01-${day}T/g" |
        awk -F, -v OFS=, -v i=$i -v id="h_b_202501${day}T020000Z" '$1 == id && i >= 12 { $25 = $25 / 2 } { print }' |
        gzip > "$R/fl/h-5/h_b_202501${day}T020000Z.csv.gz"
done
state='{"fleet_logs": "'$R/fl'", "tool": "'$bin'", "night_hours": 26, "hosts": [
 {"name": "one", "state": "collected", "id": "h-1", "seen": "shelf-twin 0123456789ab"},
 {"name": "two", "state": "collected", "id": "h-2"},
 {"name": "three", "state": "unreachable", "why": "Connection timed out during banner exchange", "id": "h-3"},
 {"name": "four", "state": "failed", "why": "[Errno 28] No space left on device", "id": "h-4"},
 {"name": "five", "state": "collected", "id": "h-5", "seen": "shelf-twin 0123456789ab"}]}'
out=$(printf '%s' "$state" | base64 -w0 | "$py" "$tbf" report)
text=$(printf '%s' "$out" | "$py" -c 'import json, sys; print("\n".join(json.load(sys.stdin)["text"]))')
echo "$text"
printf '%s\n' "$text" | grep -q '^    corrupt log(s) here: h_b_20251231T000000Z.csv.gz: not a whole gzip file' &&
    ok "a corrupt older log is flagged" || bad "corrupt older log not flagged"
printf '%s\n' "$text" | grep -q "^    no log for 3 night(s) (latest h_b_$old.csv.gz)" && ok "no log for 3 nights" || bad "nights"
printf '%s\n' "$text" | grep -q '^three (not seen yet): FAILED' && printf '%s\n' "$text" | grep -q '^    unreachable: Connection timed out' &&
    ok "an unreachable host with a recent log is named" || bad "unreachable host with a recent log"
printf '%s\n' "$text" | grep -q "^    not collected: the controller's disk is full" &&
    printf '%s\n' "$text" | grep -q '^controller: its disk is full' && ! printf '%s\n' "$text" | grep -A1 '^four' | grep -q 'no log' &&
    ok "a full disk here is the controller's, not the board's" || bad "full disk attribution"
printf '%s\n' "$text" | sed -n 1p | grep -q 'failed: one, two, three, four, five, the controller$' &&
    ok "the summary line names every failed host and the controller" || bad "summary line"
printf '%s\n' "$text" | grep -q '^    regression: 1 series slower on the latest night (history/h-5.txt)' &&
    grep -q 'SLOWER from here' "$R/fl/history/h-5.txt" && ok "a lasting slowdown is the regression of its own host" ||
    bad "regression not reported"
[ -s "$R/fl/report.txt" ] && [ -s "$R/fl/report.html" ] && [ -s "$R/fl/history/h-2.txt" ] &&
    ok "report.txt, report.html, history per host written" || bad "report files"
# one and five look the same (host name and machine-id cloned): named, each kept in its folder
printf '%s\n' "$text" | grep -qx 'look-alikes (same host name and machine-id; kept apart by inventory name): five, one' &&
    printf '%s\n' "$text" | grep -A1 '^one (host name shelf-twin, machine-id 0123456789ab)' | grep -q '^    looks identical to five (same host name and machine-id: cloned from one image?): kept apart by inventory name, fleet-logs/h-1/' &&
    printf '%s\n' "$text" | grep -A1 '^five (host name shelf-twin' | grep -q 'looks identical to one' &&
    ! printf '%s\n' "$text" | grep -A1 '^two' | grep -q 'looks identical' &&
    ok "two hosts with one host name and machine-id are named as look-alikes, each in its own folder" ||
    bad "look-alikes not named"
grep -q '"one": "shelf-twin 0123456789ab"' "$R/fl/hosts-seen.json" && ok "how each host looked is kept (hosts-seen.json)" || bad "hosts-seen.json"
echo "report-test: $passes passed, $fails failed"
[ "$fails" = 0 ]
