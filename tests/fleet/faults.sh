# faults.sh: the second half of tests/fleet-test.sh (sourced, after the first collect): an
# interrupted transfer, a frozen and an unreachable host, a full controller disk, a night cut
# short, and the upgrade path (a rejected tarball keeps the old one; a new one is deployed
# once). Uses lib.sh's hosts and the first half's $fl, $version, $tarball.

# ---- an interrupted transfer: shelf-b's link goes down mid-fetch ----------------------------
idb=$(host_id b)
big=shelf-b_h100-sxm_20260101T000000Z.csv.gz      # an older night, big enough to take seconds
first=$(ls "$T/home/tb-fleet-b/transpose-logs/" | head -n 1)
in_host b "cd ~/transpose-logs && { zcat $first | sed '\$d'; head -c 1200000 /dev/urandom | base64 -w 1000 | sed 's/^/# pad: /';
           zcat $first | tail -n 1; } | gzip -1 > .big.tmp && mv .big.tmp $big"
ip netns exec tbfleet-b tc qdisc add dev eth0 root tbf rate 2mbit burst 32kbit latency 400ms
start=$SECONDS
play cut-transfer doc/fleet/collect.yml -e "tb_fleet_logs=$fl" --limit shelf-b &
cut_pid=$!
for _ in $(seq 300); do
    [ -s "$fl/$idb/.incoming/$big" ] && break
    sleep 0.1
done
sleep 0.5
part=$(stat -c %s "$fl/$idb/.incoming/$big" 2>/dev/null)
ip link set tbf-b down
wait "$cut_pid"; rc=$?
took=$((SECONDS - start))
[ "$rc" != 0 ] && [ ! -e "$fl/$idb/$big" ] && grep -q 'shelf-b (.*): FAILED' "$T/cut-transfer.out" &&
    grep -q 'unreachable: ' "$fl/report.txt" &&
    ok "link down mid-fetch (${part:-?} of $(stat -c %s "$T/home/tb-fleet-b/transpose-logs/$big") bytes came): exit $rc after $took s, no log under its final name, shelf-b reported: $(grep -A1 '^shelf-b' "$fl/report.txt" | tail -n 1 | cut -c1-150)" ||
    { bad "interrupted transfer: exit $rc, final name $(ls "$fl/$idb/$big" 2>&1)"; sed -n '/The fleet.s night/,/PLAY RECAP/p' "$T/cut-transfer.out"; }
ip link set tbf-b up
ip netns exec tbfleet-b tc qdisc del dev eth0 root
play refetch doc/fleet/collect.yml -e "tb_fleet_logs=$fl" --limit shelf-b
rc=$?
cmp -s "$T/home/tb-fleet-b/transpose-logs/$big" "$fl/$idb/$big" && [ ! -e "$fl/$idb/.incoming/$big" ] &&
    ok "the next collect fetched it again, whole (exit $rc): $big" || { bad "not fetched again (exit $rc)"; show_failures refetch; }

# ---- a frozen host (shelf-e: every process stopped) and an unreachable one (shelf-c: link down)
for p in $(ip netns pids tbfleet-e); do kill -STOP "$p"; done
ip link set tbf-c down
start=$SECONDS
play frozen doc/fleet/collect.yml -e "tb_fleet_logs=$fl"
rc=$?
took=$((SECONDS - start))
for p in $(ip netns pids tbfleet-e); do kill -CONT "$p"; done
ip link set tbf-c up
rep=$(sed -n '/TASK \[tb_collect : The fleet.s night\]/,/^$/p' "$T/frozen.out")
[ "$rc" != 0 ] && [ "$took" -lt 150 ] && grep -q 'failed: shelf-c, shelf-e$' "$fl/report.txt" &&
    grep -q '^shelf-e (host name shelf-twin, .*): FAILED' "$fl/report.txt" && grep -A2 '^shelf-e' "$fl/report.txt" | grep -q 'unreachable' &&
    grep -q '^shelf-b (.*): ok' "$fl/report.txt" && grep -q '^shelf-d (.*): ok' "$fl/report.txt" &&
    ok "frozen shelf-e and unreachable shelf-c cost $took s; the others collected; exit $rc names both (shelf-e's recent log notwithstanding)" ||
    { bad "frozen/unreachable: exit $rc after $took s"; echo "$rep"; cat "$fl/report.txt"; }
grep -q 'shelf-c: unreachable' "$T/frozen.out" && grep -q 'shelf-e: unreachable' "$T/frozen.out" &&
    ! grep -E '^fatal: \[shelf-[abdf]' "$T/frozen.out" | grep -q . &&
    ok "the per-host failures name shelf-c and shelf-e only, each with why" || { bad "per-host failures"; show_failures frozen; }

# ---- the controller's disk is full ------------------------------------------------------------
small=$T/small
mkdir -p "$small"
mount -t tmpfs -o size=256k tbfleet-small "$small"
in_host f "TB_LOCK_FILE=$T/tmp-f/night.lock $(in_host f 'crontab -l' | grep -A1 '^#Ansible' | tail -n 1 | cut -d' ' -f6-)" >/dev/null 2>&1
dd if=/dev/zero of="$small/filler" bs=4k 2>/dev/null
play full-disk doc/fleet/collect.yml -e "tb_fleet_logs=$small" --limit shelf-f
rc=$?
idf=$(host_id f)
rep=$(sed -n '/TASK \[tb_collect : The fleet.s night\]/,/^$/p' "$T/full-disk.out")
[ "$rc" != 0 ] && ! ls "$small/$idf/"*.csv.gz >/dev/null 2>&1 &&
    printf '%s\n' "$rep" | grep -q "controller: its disk is full" &&
    printf '%s\n' "$rep" | grep -q "not collected: the controller's disk is full" &&
    ! printf '%s\n' "$rep" | grep -qi 'regression\|all well\|slowdown' &&
    ok "a full controller disk: exit $rc, no log under its final name, the controller named: $(printf '%s\n' "$rep" | grep -o 'controller: [^"]*' | head -n 2 | tr '\n' ' ')" ||
    { bad "full disk: exit $rc"; echo "$rep"; show_failures full-disk; ls -la "$small" "$small/$idf" 2>&1; }
rm -f "$small/filler"
play full-disk2 doc/fleet/collect.yml -e "tb_fleet_logs=$small" --limit shelf-f
rc=$?
same=1
for f in "$T/home/tb-fleet-f/transpose-logs/"*.csv.gz; do cmp -s "$f" "$small/$idf/$(basename "$f")" || same=0; done
[ "$rc" = 0 ] && [ "$same" = 1 ] && ok "space again: the next collect brought every log of shelf-f whole" ||
    { bad "after the full disk: exit $rc, identical=$same"; show_failures full-disk2; }
umount "$small"

# ---- a night cut short on shelf-b: the next collect says how it ended ---------------------------
night b --sizes 4096x4096 --set sweep.stop.min_time_ms=5000 > "$T/night-b2.out" 2>&1 &
cut_pid=$!
for _ in $(seq 100); do   # until its temporary log exists, then as a shutdown would
    ls -a "$T/home/tb-fleet-b/transpose-logs" | grep -q '\.part$' && break
    sleep 0.1
done
sleep 1
for p in $(ip netns pids tbfleet-b); do
    tr '\0' ' ' < "/proc/$p/cmdline" 2>/dev/null | grep -q '^[^ ]*/transpose-bench run' && kill -TERM "$p"
done
wait "$cut_pid"
play collect3 doc/fleet/collect.yml -e "tb_fleet_logs=$fl" --limit shelf-b
cut=$(grep -o 'last night failed: [^"]*' "$T/collect3.out" | head -n 1)
case $cut in
*"# end: interrupted by Terminated"*) ok "collect names the cut night: $cut" ;;
*) bad "the cut night was not named: '$cut'"; cat "$T/night-b2.out" ;;
esac

# ---- upgrades: a tarball whose list rejects the GPU keeps the old one; a new one deployed once ----
cp -p "$tarball" "$T/orig.tar.gz"
mkdir -p "$T/repack" && tar xzf "$tarball" -C "$T/repack" && echo "fleet-test upgrade" > "$T/repack/transpose-bench-h100-sxm/NOTE"
tar czf "$tarball" -C "$T/repack" transpose-bench-h100-sxm       # its sources' key unchanged: no rebuild
old_entry=$(in_host b 'crontab -l' | grep -A1 '^#Ansible' | tail -n 1)
play upgrade-rejected doc/fleet/deploy.yml --limit shelf-b -e tb_require_gpu=true
rc=$?
new=$(grep -o 'h100-sxm-[0-9a-f]\{12\} is not scheduled' "$T/upgrade-rejected.out" | head -n 1 | cut -d' ' -f1)
[ "$rc" != 0 ] && [ -n "$new" ] && [ "$new" != "$version" ] && [ "$(in_host b 'crontab -l' | grep -A1 '^#Ansible' | tail -n 1)" = "$old_entry" ] &&
    grep -q "The cron entry still runs: .*$version" "$T/upgrade-rejected.out" &&
    ok "new tarball $new rejected by its list on shelf-b: not scheduled, $version still is, the host reported (exit $rc)" ||
    { bad "rejected upgrade: exit $rc, new '$new'"; show_failures upgrade-rejected; }
play upgrade doc/fleet/deploy.yml --limit shelf-b,shelf-d
rc=$?
[ "$rc" = 0 ] && in_host d 'crontab -l' | grep -q "/$new/" && in_host b 'crontab -l' | grep -q "/$new/" &&
    [ -x "$T/home/tb-fleet-d/.transpose-bench/$version/transpose-bench-h100-sxm/transpose-bench" ] &&
    [ -f "$T/home/tb-fleet-d/.transpose-bench/$new/transpose-bench-h100-sxm/NOTE" ] &&
    ok "the changed tarball (checksum) deployed on shelf-b and shelf-d: entry runs $new, $version kept" ||
    { bad "upgrade: exit $rc"; show_failures upgrade; in_host d 'crontab -l'; }
play upgrade2 doc/fleet/deploy.yml --limit shelf-b,shelf-d
rc=$?
[ "$rc" = 0 ] && recap upgrade2 shelf-b | grep -q 'changed=0' && recap upgrade2 shelf-d | grep -q 'changed=0' &&
    ok "deploying it again changes nothing" || { bad "upgrade again: $(recap upgrade2 shelf-b) / $(recap upgrade2 shelf-d)"; grep -B3 '^changed' "$T/upgrade2.out"; }

# ---- old versions pruned (keep 1): never the scheduled one, never one running a night ------------
vdir() { echo "$T/home/tb-fleet-$1/.transpose-bench/$2"; }
# a night from the old version that lasts until it is stopped (10^7 timed repetitions of a
# 2048x2048 copy: hours)
in_host b "TB_LOCK_FILE=$T/tmp-b/old.lock ~/.transpose-bench/$version/transpose-bench-h100-sxm/transpose-bench run --quiet -o ~/old-night $FLEET_SWEEP --sizes 2048x2048 --set sweep.stop.min_reps=10000000 --set sweep.stop.max_reps=10000000 --set sweep.stop.min_time_ms=600000 --set sweep.stop.max_time_ms=600000" > /dev/null 2>&1 &
old_pid=$!
old_running=""
for _ in $(seq 100); do
    for p in $(ip netns pids tbfleet-b); do
        readlink "/proc/$p/exe" 2>/dev/null | grep -q "/$version/" && { old_running=$p; break 2; }
    done
    sleep 0.1
done
play prune doc/fleet/deploy.yml --limit shelf-b,shelf-d -e tb_keep_versions=1
rc=$?
[ -n "$old_running" ] && [ -d "/proc/$old_running" ] || bad "the old version's night was not running during the prune (pid '$old_running')"
[ "$rc" = 0 ] && [ ! -e "$(vdir d "$version")" ] && [ -x "$(vdir d "$new")/transpose-bench-h100-sxm/transpose-bench" ] &&
    grep -q "shelf-d: ok, $new was there, pruned: $version" "$T/prune.out" &&
    [ -d "$(vdir b "$version")" ] && grep -q "shelf-b: ok, $new was there, kept, running: $version" "$T/prune.out" &&
    ok "keep 1: shelf-d's $version pruned, the scheduled $new kept; shelf-b's $version kept while a night runs from it" ||
    { bad "prune: exit $rc"; grep -o 'shelf-[bd]: [^"]*' "$T/prune.out"; ls "$(vdir b '')" "$(vdir d '')"; }
kill -TERM "$old_pid" 2>/dev/null
for p in $(ip netns pids tbfleet-b); do readlink "/proc/$p/exe" 2>/dev/null | grep -q "/$version/" && kill -TERM "$p"; done
wait "$old_pid" 2>/dev/null
play prune2 doc/fleet/deploy.yml --limit shelf-b -e tb_keep_versions=1
[ ! -e "$(vdir b "$version")" ] && [ -d "$(vdir b "$new")" ] && ok "its night over, shelf-b's $version pruned by the next deploy" ||
    { bad "prune2: $(ls "$(vdir b '')")"; grep -o 'shelf-b: [^"]*' "$T/prune2.out"; }

# ---- a host frozen in the middle of a deploy: it times out alone, the others upgrade, it is named --
echo "fleet-test upgrade 2" > "$T/repack/transpose-bench-h100-sxm/NOTE"
tar czf "$tarball" -C "$T/repack" transpose-bench-h100-sxm
new2=h100-sxm-$(sha256sum < "$tarball" | cut -c1-12)
start=$SECONDS
play frozen-deploy doc/fleet/deploy.yml --limit shelf-b,shelf-d,shelf-e &
fd_pid=$!
for _ in $(seq 600); do [ -d "$(vdir e "$new2")" ] && break; sleep 0.1; done
froze=$((SECONDS - start))
for p in $(ip netns pids tbfleet-e); do kill -STOP "$p"; done
wait "$fd_pid"; rc=$?
took=$((SECONDS - start))
for p in $(ip netns pids tbfleet-e); do kill -CONT "$p"; done
[ "$rc" != 0 ] && [ "$took" -lt 150 ] && recap frozen-deploy shelf-e | grep -qE 'unreachable=1|failed=1' &&
    recap frozen-deploy shelf-b | grep -q 'failed=0' && recap frozen-deploy shelf-d | grep -q 'failed=0' &&
    in_host b 'crontab -l' | grep -q "/$new2/" && in_host d 'crontab -l' | grep -q "/$new2/" &&
    grep -q '"shelf-e: unreachable' "$T/frozen-deploy.out" &&
    ok "shelf-e frozen ${froze} s into a deploy (its $new2 folder made): exit $rc after $took s, shelf-b and shelf-d upgraded to $new2, the summary names shelf-e unreachable" ||
    { bad "frozen deploy: exit $rc after $took s (froze at ${froze} s)"; sed -n '/PLAY RECAP/,$p' "$T/frozen-deploy.out"; grep -o '"shelf-[bde]: [^"]*' "$T/frozen-deploy.out"; }
play after-freeze doc/fleet/deploy.yml --limit shelf-e
rc=$?
[ "$rc" = 0 ] && in_host e 'crontab -l' | grep -q "/$new2/" && [ -f "$(vdir e "$new2")/transpose-bench-h100-sxm/NOTE" ] &&
    ok "thawed, shelf-e takes $new2 at the next deploy (exit 0)" || { bad "after the freeze: exit $rc"; show_failures after-freeze; }
cp -p "$T/orig.tar.gz" "$tarball"

# ---- --tags report: the report alone, from what is here, contacting no board ---------------------
ip link set tbf-d down
play report-only doc/fleet/collect.yml -e "tb_fleet_logs=$fl" --tags report --limit shelf-d,shelf-f
rc=$?
ip link set tbf-d up
grep -q 'shelf-d (host name shelf-twin, .*): ok' "$fl/report.txt" && grep -q 'not contacted by this run' "$fl/report.txt" &&
    ! grep -q '^shelf-b' "$fl/report.txt" && ok "--tags report (shelf-d's link down): exit $rc, from the logs here, shelf-d and shelf-f only" ||
    { bad "--tags report: exit $rc"; cat "$fl/report.txt"; show_failures report-only; }
