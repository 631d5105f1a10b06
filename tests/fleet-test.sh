#!/bin/bash
# fleet-test.sh: doc/fleet's playbooks run for real against six hosts made here. Each host is a
# network namespace with its own veth address (10.231.N.2), UTS (host name), mount namespace
# (its own /etc/machine-id, /tmp, /run and cron spool) and sshd, reached by key as its own user.
# The x86 `make dist` tarball (boards/desktop-h100.cfg) stands in for a board's. What it covers,
# host by host, is in tests/fleet/README.md. Not a unit test: it needs root, and says so (exit 2).
set -u
cd "$(dirname "$0")/.."
top=$(pwd)
if [ "$(id -u)" != 0 ]; then
    echo "fleet-test: NOT RUN: needs root (network namespaces, test users, sshd per host); run it as root or in CI"
    exit 2
fi
if ! ip netns list >/dev/null 2>&1; then
    echo "fleet-test: NOT RUN: 'ip netns' does not work here (no iproute2, or no namespaces in this sandbox)"
    exit 2
fi
scripts/ensure-deps.sh fleet || exit 1
# TB_PLAIN_SMS: as tests/dist-check.sh's plain build (.ci/run: all, build/ built once)
make --no-print-directory ${TB_PLAIN_SMS:+SMS=$TB_PLAIN_SMS} transpose-bench >/dev/null || exit 1
# the controller's script alone first: hostile files, no hosts
# (its output under a name of mktemp's: root never writes to a name another user could plant)
rt_out=$(mktemp "${TMPDIR:-/tmp}/tb-fleet-report-test.XXXXXX") || exit 1
tests/fleet/report-test.sh ./transpose-bench > "$rt_out" 2>&1
rt=$?
grep '^report-test: ' "$rt_out"; rm -f "$rt_out"
. tests/fleet/lib.sh
[ "$rt" = 0 ] && ok "tests/fleet/report-test.sh" || bad "tests/fleet/report-test.sh"

# ---- the hosts --------------------------------------------------------------------------
#   a shelf-a  Python 3.6 when one is here (JetPack 4); a real cron daemon fires its entry
#   b shelf-b  an interrupted transfer, a night cut short, a tarball whose list is rejected
#   c shelf-c  requires its GPU (none here): never scheduled; later unreachable (link down)
#   d, e       clones: both named shelf-twin with one /etc/machine-id (one SD image); e freezes
#   f shelf-f  set up by hand from doc/nightly.md before the first deploy
fleet_make_hosts "a b c d e f" || exit 1
fleet_make_inventory
sweep=$FLEET_SWEEP

# ---- a board type that does not build, and the tarball of the one that does ----------------
cat > "$T/broken.cfg" <<'EOF'
board:
{
    name = "broken-board";
    cpu = "sparc";
    gpu = true;
};
EOF
cat > "$T/odd.ini" <<EOF
[brokenboards]
shelf-odd ansible_host=10.231.2.2 ansible_user=tb-fleet-b board=$T/broken.cfg

[brokenboards:vars]
tb_make_args="TB_FLEET_MARK=group-setting"

[boards:children]
brokenboards
EOF
# built as deploy.yml builds it: when its sources' key (scripts/dist-key.sh) changed
tarball=dist/transpose-bench-h100-sxm.tar.gz
key=$(scripts/dist-key.sh boards/desktop-h100.cfg)
if [ ! -f "$tarball" ] || [ "$(cat "$tarball.key" 2>/dev/null)" != "$key" ]; then
    make --no-print-directory dist BOARD=boards/desktop-h100.cfg > "$T/dist.out" 2>&1 ||
        { bad "make dist BOARD=boards/desktop-h100.cfg"; tail "$T/dist.out"; exit 1; }
    echo "$key" > "$tarball.key"
fi

# ---- shelf-f: set up by hand as doc/nightly.md says ----------------------------------------
hand_line="30 2 * * *  \$HOME/transpose-bench-h100-sxm/transpose-bench run --quiet -o \$HOME/transpose-logs --set output.keep_days=60"
# through $T: a checkout under /tmp is not seen from the host, which has a /tmp of its own
cp "$tarball" "$T/hand.tar.gz" && chmod 644 "$T/hand.tar.gz"
in_host f "cd ~ && tar xzf $T/hand.tar.gz && mkdir -p ~/transpose-logs && printf '%s\n' '# m h dom mon dow  command' '$hand_line' | crontab -"
[ "$(in_host f 'crontab -l' | grep -c 'transpose-bench run')" = 1 ] && ok "shelf-f: set up by hand (doc/nightly.md's line)" ||
    bad "shelf-f: hand set-up: $(in_host f 'crontab -l' 2>&1)"

# ---- --check --diff on fresh hosts ----------------------------------------------------------
play check-fresh doc/fleet/deploy.yml --check --diff
rc=$?
[ "$rc" = 0 ] && ! in_host a 'test -e ~/.transpose-bench' &&
    ok "deploy --check --diff on fresh hosts: exit 0, nothing made on the boards" ||
    { bad "deploy --check on fresh hosts exited $rc"; show_failures check-fresh; }

# ---- first deploy: a broken board type fails alone ------------------------------------------
play deploy1 doc/fleet/deploy.yml -i "$T/odd.ini"
rc=$?
echo "--- first deploy (exit $rc): PLAY RECAP"; sed -n '/PLAY RECAP/,$p' "$T/deploy1.out"
[ "$rc" != 0 ] && ok "first deploy exits $rc (shelf-c's GPU, the broken board type)" || bad "first deploy exited 0"
for h in a b d e f; do
    case $(recap deploy1 "shelf-$h") in
    *"failed=0"*) ok "shelf-$h deployed: $(recap deploy1 "shelf-$h" | tr -s ' ')" ;;
    *) bad "shelf-$h: $(recap deploy1 "shelf-$h")"; show_failures deploy1 ;;
    esac
done
grep -q 'shelf-odd: board type broken-board .*did not build on the controller (make dist BOARD=.*broken.cfg TB_FLEET_MARK=group-setting' "$T/deploy1.out" &&
    ok "the broken board type fails only shelf-odd, its group's tb_make_args on the make line" ||
    { bad "shelf-odd's build failure not reported"; grep -n 'shelf-odd' "$T/deploy1.out" | head; }
grep -q 'shelf-c: h100-sxm-[0-9a-f]* is not scheduled: the GPU cannot be used' "$T/deploy1.out" &&
    ! in_host c 'crontab -l' 2>/dev/null | grep -q 'transpose-bench' &&
    ok "shelf-c: its list rejects the GPU: not scheduled, reported" || bad "shelf-c: $(recap deploy1 shelf-c)"
version=$(ls -d "$T/home/tb-fleet-a/.transpose-bench/h100-sxm-"* 2>/dev/null | head -n 1 | xargs -r basename)
want_job="\$HOME/.transpose-bench/$version/transpose-bench-h100-sxm/transpose-bench run --quiet -o \$HOME/transpose-logs --set output.keep_days=60 $sweep"
for h in a b d e f; do
    entry=$(in_host "$h" 'crontab -l' | grep -A1 '^#Ansible: transpose-bench nightly' | tail -n 1)
    [ "$entry" = "30 2 * * * $want_job" ] && ok "shelf-$h: the nightly entry runs $version" ||
        bad "shelf-$h: crontab: $(in_host "$h" 'crontab -l')"
done
tab=$(in_host f 'crontab -l')
[ "$(printf '%s\n' "$tab" | grep -v '^#' | grep -c 'transpose-bench run')" = 1 ] &&
    printf '%s\n' "$tab" | grep -qF "#replaced by doc/fleet deploy: $hand_line" &&
    ok "shelf-f: the hand-installed line replaced (kept as a comment), one nightly entry" ||
    bad "shelf-f: crontab after deploy: $tab"

# ---- a real cron daemon in shelf-a's namespaces fires a near-future entry -------------------
read -r fire_h fire_m < <(date -d '+2 min' '+%-H %-M')
play cron-a doc/fleet/deploy.yml --limit shelf-a --tags cron -e "tb_cron_hour=$fire_h tb_cron_minute=$fire_m"
rc=$?
[ "$rc" = 0 ] && grep -q '^changed: \[shelf-a\]' "$T/cron-a.out" &&
    in_host a 'crontab -l' | grep -q "^$fire_m $fire_h \* \* \* " &&
    ok "deploy --tags cron moved shelf-a's entry to $fire_h:$fire_m" || { bad "--tags cron: exit $rc"; show_failures cron-a; }
fleet_start_cron a

# ---- deploy again: idempotent; --check --diff on deployed hosts --------------------------------
play deploy2 doc/fleet/deploy.yml --limit 'all:!shelf-c:!shelf-a'
for h in b d e f; do
    case $(recap deploy2 "shelf-$h") in
    *"changed=0"*"failed=0"*) ok "second deploy changed nothing on shelf-$h" ;;
    *) bad "second deploy on shelf-$h: $(recap deploy2 "shelf-$h")"; grep -B3 '^changed' "$T/deploy2.out" ;;
    esac
done
play check-deployed doc/fleet/deploy.yml --check --diff --limit 'all:!shelf-c:!shelf-a'
rc=$?
[ "$rc" = 0 ] && ! grep -q '^changed' "$T/check-deployed.out" && ok "deploy --check --diff on deployed hosts: exit 0, changed=0" ||
    { bad "--check on deployed hosts: exit $rc"; show_failures check-deployed; grep -B3 '^changed' "$T/check-deployed.out"; }

# ---- nights, started as cron starts them, each on its own lock --------------------------------
for h in b d e f; do
    night "$h" > "$T/night-$h.out" 2>&1
    rc=$?
    logs=$(ls "$T/home/tb-fleet-$h/transpose-logs/" 2>/dev/null)
    [ "$rc" = 0 ] && [ -n "$logs" ] && ok "shelf-$h: a night as cron runs it (its own TB_LOCK_FILE): $logs" ||
        { bad "shelf-$h: the night exited $rc, logs: '$logs'"; cat "$T/night-$h.out"; }
done

# ---- Python 3.6: what ansible found on shelf-a -----------------------------------------------
if [ -n "$FLEET_PY36" ]; then
    ansible -i "$T/inventory.ini" shelf-a -m ansible.builtin.setup -a 'gather_subset=!all filter=ansible_python_version' \
        > "$T/py36.out" 2>&1
    grep -q '"ansible_python_version": "3\.6\.' "$T/py36.out" &&
        ok "shelf-a is driven through Python $(grep -o '"3\.6\.[0-9]*"' "$T/py36.out") by ansible-core $(ansible --version 2>/dev/null | sed -n '1s/[^0-9]*\([0-9.]*\).*/\1/p')" ||
        { bad "shelf-a's Python: $(cat "$T/py36.out")"; }
else
    echo "fleet-test: NOT COVERED: no Python 3.6 here (TB_FLEET_PY36=/path/to/python3.6 to give one): shelf-a uses the system python3"
fi

# ---- the cron-fired night on shelf-a ----------------------------------------------------------
for _ in $(seq 200); do
    ls "$T/home/tb-fleet-a/transpose-logs/" 2>/dev/null | grep -q 'csv.gz$' && break
    sleep 1
done
logs=$(ls "$T/home/tb-fleet-a/transpose-logs/" 2>/dev/null)
[ -n "$logs" ] && [ -e "$T/home/tb-fleet-a/.local/state/transpose-bench/lock" ] &&
    ok "cron (pid $(cat "$T/cron-a.pid")) in shelf-a's namespaces fired the deployed entry at $fire_h:$fire_m (lock in the user's state folder, #58): $logs" ||
    bad "no night from cron on shelf-a by $(date +%H:%M:%S) (entry for $fire_h:$fire_m)"

# ---- collect: every log whole, by inventory name; shelf-c named; the clones named -------------
fl=$T/fleet-logs
play collect1 doc/fleet/collect.yml -e "tb_fleet_logs=$fl"
rc=$?
echo "--- first collect (exit $rc): its report"; cat "$fl/report.txt" 2>/dev/null
for h in a b d e f; do
    id=$(host_id "$h")
    src=$T/home/tb-fleet-$h/transpose-logs
    same=1
    for f in "$src"/*.csv.gz; do cmp -s "$f" "$fl/$id/$(basename "$f")" || same=0; done
    nb=$(ls "$src" | wc -l); nc=$(ls "$fl/$id" 2>/dev/null | grep -c 'csv.gz$')
    [ "$same" = 1 ] && [ "$nb" = "$nc" ] && [ "$nc" -gt 0 ] &&
        ok "shelf-$h: $nc log(s) in fleet-logs/$id/, byte for byte" || bad "shelf-$h: board has $nb, $id has $nc, identical=$same"
done
twin_id=$(cut -c1-12 "$T/machine-id-d")
[ "$(cat "$T/machine-id-d")" = "$(cat "$T/machine-id-e")" ] && [ -d "$fl/shelf-d" ] && [ -d "$fl/shelf-e" ] &&
    grep -q "^shelf-d (host name shelf-twin, machine-id $twin_id): ok" "$fl/report.txt" &&
    grep -q "^shelf-e (host name shelf-twin, machine-id $twin_id): ok" "$fl/report.txt" &&
    grep -qx 'look-alikes (same host name and machine-id; kept apart by inventory name): shelf-d, shelf-e' "$fl/report.txt" &&
    grep -A1 '^shelf-d ' "$fl/report.txt" | grep -q 'looks identical to shelf-e' &&
    [ "$(grep -cE 'on shelf-twin( \([0-9a-f]+\))?, blocked, 256x256 float' "$fl/history/shelf-d.txt")" = 1 ] &&
    [ "$(grep -cE 'on shelf-twin( \([0-9a-f]+\))?, blocked, 256x256 float' "$fl/history/shelf-e.txt")" = 1 ] &&
    ok "two clones (host name shelf-twin, machine-id $twin_id both) stay apart: fleet-logs/shelf-d and shelf-e, a history each, named as look-alikes" ||
    { bad "the clones: $(ls "$fl")"; cat "$fl/report.txt"; }
[ "$rc" != 0 ] && grep -q 'failed: shelf-c$' "$fl/report.txt" && grep -q 'shelf-c: no log at all' "$T/collect1.out" &&
    ok "collect exits $rc, naming only shelf-c (no log at all)" || { bad "collect exit $rc"; show_failures collect1; }
[ -z "$(find "$fl" -path '*/.incoming/*')" ] && ok "nothing left under a temporary name" || bad "left in .incoming: $(find "$fl" -path '*/.incoming/*')"
grep -q 'blocked' "$fl/compare.txt" && [ -s "$fl/compare.html" ] && [ -s "$fl/report.html" ] &&
    ok "compare.txt, compare.html, report.html written" || bad "compare or the pages missing"

# ---- collect again: nothing fetched twice -------------------------------------------------------
stamp_before=$(stat -c '%n %Y %s' "$fl"/*/*.csv.gz)
play collect2 doc/fleet/collect.yml -e "tb_fleet_logs=$fl" --limit 'all:!shelf-c'
rc=$?
[ "$rc" = 0 ] && [ "$stamp_before" = "$(stat -c '%n %Y %s' "$fl"/*/*.csv.gz)" ] &&
    grep -q 'host(s): all well' "$T/collect2.out" && ! grep -q 'shelf-c' "$fl/report.txt" &&
    ok "second collect (--limit without shelf-c): exit 0, nothing fetched again, shelf-c not in the report" ||
    { bad "second collect: exit $rc"; show_failures collect2; }

. tests/fleet/faults.sh

echo "fleet-test: playbook runs:$FLEET_TIMES"
echo "fleet-test: $passes passed, $fails failed ($SECONDS s)"
[ "$fails" = 0 ]
