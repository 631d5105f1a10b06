#!/bin/bash
# fleet-test.sh: doc/fleet's playbooks run for real against three hosts made here (issue: a
# fleet of boards with Ansible). Each host is a network namespace with its own address
# (10.231.N.2, a veth to this machine), its own host name (a UTS namespace) and its own sshd
# (Debian's openssh-server), reached by key as its own user (tb-fleet-N; the namespaces share
# this machine's disk, so a user of its own gives each host its own home and crontab). The x86
# `make dist` tarball (boards/desktop-h100.cfg) stands in for a board's.
#   shelf-a, shelf-b: GPU not required (tb_require_gpu=false), a short CPU sweep in the entry
#   shelf-c: GPU required; there is none here, so deploy must fail it, naming list's reason
# Then: one sweep on shelf-a and shelf-b as cron would start it (the command of the installed
# entry, sh -c, cron's minimal environment, inside the host's namespaces), collect (logs
# arrive byte for byte, history and compare read them, shelf-c named as missing its night),
# collect again (nothing fetched twice), deploy again (nothing changes).
# Needs root (namespaces, users, sshd); says so and exits 2 where it cannot run.
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
make --no-print-directory transpose-bench >/dev/null || exit 1

fails=0; passes=0
ok() { passes=$((passes + 1)); echo "fleet-test: ok: $*"; }
bad() { fails=$((fails + 1)); echo "fleet-test: FAILED: $*"; }

T=$(mktemp -d /tmp/tb-fleet-XXXXXX)
chmod 755 "$T"      # the test users reach their homes through it
hosts="a b c"
cleanup() {
    pkill -f -- "$T/" 2>/dev/null           # ssh control masters, sshds of this test
    for h in $hosts; do
        pkill -u "tb-fleet-$h" 2>/dev/null   # the hosts' sessions
        [ -f "$T/sshd-$h.pid" ] && kill "$(cat "$T/sshd-$h.pid")" 2>/dev/null
        ip netns del "tbfleet-$h" 2>/dev/null
        id "tb-fleet-$h" >/dev/null 2>&1 && userdel "tb-fleet-$h" 2>/dev/null
        crontab -r -u "tb-fleet-$h" 2>/dev/null
    done
    rm -rf "$T"
}
trap cleanup EXIT

# ---- the hosts ------------------------------------------------------------------------
mkdir -p /run/sshd "$T/home"
ssh-keygen -q -t ed25519 -N '' -f "$T/id" -C fleet-test
ssh-keygen -q -t ed25519 -N '' -f "$T/hostkey" -C fleet-test-host
n=0
for h in $hosts; do
    n=$((n + 1))
    user=tb-fleet-$h
    if id "$user" >/dev/null 2>&1; then   # left by a run that was killed
        pkill -u "$user"; sleep 0.5; crontab -r -u "$user" 2>/dev/null; userdel "$user"
    fi
    useradd -m -d "$T/home/$user" -s /bin/sh "$user" || { bad "useradd $user"; exit 1; }
    usermod -p '*' "$user"                      # no password, not locked: key login only
    install -d -m 700 -o "$user" -g "$user" "$T/home/$user/.ssh"
    install -m 600 -o "$user" -g "$user" "$T/id.pub" "$T/home/$user/.ssh/authorized_keys"
    ns=tbfleet-$h
    ip netns del "$ns" 2>/dev/null
    ip link del "tbf-$h" 2>/dev/null
    ip netns add "$ns"
    ip link add "tbf-$h" type veth peer name eth0 netns "$ns"
    ip addr add "10.231.$n.1/24" dev "tbf-$h"
    ip link set "tbf-$h" up
    ip -n "$ns" addr add "10.231.$n.2/24" dev eth0
    ip -n "$ns" link set eth0 up
    ip -n "$ns" link set lo up
    cat > "$T/sshd-$h.conf" <<EOF
ListenAddress 10.231.$n.2
HostKey $T/hostkey
PidFile $T/sshd-$h.pid
AllowUsers $user
AuthorizedKeysFile .ssh/authorized_keys
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin no
UsePAM no
Subsystem sftp /usr/lib/openssh/sftp-server
EOF
    ip netns exec "$ns" unshare --uts sh -c "hostname shelf-$h && exec /usr/sbin/sshd -D -e -f '$T/sshd-$h.conf'" \
        > "$T/sshd-$h.log" 2>&1 &
done
ssh_to() {   # host, command...
    h=$1; shift
    case $h in a) n=1 ;; b) n=2 ;; *) n=3 ;; esac
    ssh -i "$T/id" -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null \
        -o LogLevel=ERROR "tb-fleet-$h@10.231.$n.2" "$@"
}
for h in $hosts; do
    up=""
    for _ in $(seq 50); do
        up=$(ssh_to "$h" 'echo "$(hostname) $(id -un)"' 2>/dev/null) && break
        sleep 0.2
    done
    [ "$up" = "shelf-$h tb-fleet-$h" ] && ok "host shelf-$h: its own sshd, key login as tb-fleet-$h" ||
        { bad "host shelf-$h: ssh said '$up'"; cat "$T/sshd-$h.log"; exit 1; }
done

# ---- the inventory: as doc/fleet/inventory.example.ini, for these hosts ----------------
sweep="--device cpu --sizes 256x256,192x320 --kernels copy_row,blocked,naive_row --blocks 16x16,32x8 --set sweep.stop.min_time_ms=2 --set power.source=none"
cat > "$T/inventory.ini" <<EOF
[boards]
shelf-a ansible_host=10.231.1.2 ansible_user=tb-fleet-a board=boards/desktop-h100.cfg tb_require_gpu=false
shelf-b ansible_host=10.231.2.2 ansible_user=tb-fleet-b board=boards/desktop-h100.cfg tb_require_gpu=false
shelf-c ansible_host=10.231.3.2 ansible_user=tb-fleet-c board=boards/desktop-h100.cfg

[boards:vars]
ansible_python_interpreter=/usr/bin/python3
ansible_ssh_private_key_file=$T/id
ansible_ssh_common_args='-o UserKnownHostsFile=$T/known_hosts -o StrictHostKeyChecking=accept-new'
tb_run_args="$sweep"
EOF
export ANSIBLE_HOST_KEY_CHECKING=True ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=0 \
       ANSIBLE_LOCAL_TEMP="$T/ansible-local" ANSIBLE_REMOTE_TEMP="~/.ansible/tmp" \
       ANSIBLE_SSH_CONTROL_PATH_DIR="$T/cp"
play() {   # name, playbook args...: output in $T/NAME.out, exit code returned
    name=$1; shift
    ansible-playbook -i "$T/inventory.ini" "$@" > "$T/$name.out" 2>&1
}
recap() {   # name host: the PLAY RECAP line of that host
    grep -E "^$2 +:" "$T/$1.out" | tail -n 1
}

# ---- deploy ----------------------------------------------------------------------------
play deploy1 doc/fleet/deploy.yml
rc=$?
echo "--- first deploy (exit $rc): PLAY RECAP"
sed -n '/PLAY RECAP/,$p' "$T/deploy1.out"
[ "$rc" != 0 ] && ok "first deploy exits $rc: shelf-c failed" || bad "first deploy exited 0 with shelf-c's GPU unusable"
for h in a b; do
    case $(recap deploy1 "shelf-$h") in
    *"failed=0"*) ok "shelf-$h deployed: $(recap deploy1 "shelf-$h" | tr -s ' ')" ;;
    *) bad "shelf-$h: $(recap deploy1 "shelf-$h")"; sed -n '/fatal\|FAILED/,+5p' "$T/deploy1.out" | head -40 ;;
    esac
done
case $(recap deploy1 shelf-c) in
*"failed=1"*) ok "shelf-c failed as it must: $(grep -o 'shelf-c: the GPU cannot be used[^"]*usable[^";]*' "$T/deploy1.out" | head -n 1)" ;;
*) bad "shelf-c was not failed: $(recap deploy1 shelf-c)" ;;
esac
want_job='$HOME/transpose-bench-h100-sxm/transpose-bench run --quiet -o $HOME/transpose-logs --set output.keep_days=60'
for h in a b; do
    tab=$(crontab -l -u "tb-fleet-$h" 2>&1)
    entry=$(printf '%s\n' "$tab" | grep -A1 '^#Ansible: transpose-bench nightly' | tail -n 1)
    case $entry in
    "30 2 * * * $want_job $sweep") ok "shelf-$h: the cron entry of doc/nightly.md (plus the test's sweep): $entry" ;;
    *) bad "shelf-$h: crontab is: $tab" ;;
    esac
    [ -x "$T/home/tb-fleet-$h/transpose-bench-h100-sxm/transpose-bench" ] &&
        ok "shelf-$h: unpacked in its home" || bad "shelf-$h: not unpacked"
done
crontab -l -u tb-fleet-c >/dev/null 2>&1 && bad "shelf-c got a cron entry" || ok "shelf-c got no cron entry"

# ---- one night, started as cron starts it ------------------------------------------------
for h in a b; do
    job=$(crontab -l -u "tb-fleet-$h" | grep -A1 '^#Ansible: transpose-bench nightly' | tail -n 1 | cut -d' ' -f6-)
    pid=$(cat "$T/sshd-$h.pid")
    nsenter --target "$pid" --net --uts runuser -u "tb-fleet-$h" -- \
        env -i HOME="$T/home/tb-fleet-$h" LOGNAME="tb-fleet-$h" USER="tb-fleet-$h" SHELL=/bin/sh \
        PATH=/usr/bin:/bin sh -c "$job" > "$T/night-$h.out" 2>&1
    rc=$?
    logs=$(ls "$T/home/tb-fleet-$h/transpose-logs/" 2>/dev/null)
    [ "$rc" = 0 ] && [ -n "$logs" ] && ok "shelf-$h: a night as cron runs it: exit 0, $logs" ||
        { bad "shelf-$h: the night exited $rc, logs: '$logs'"; cat "$T/night-$h.out"; }
done

# ---- collect ------------------------------------------------------------------------------
fl=$T/fleet-logs
play collect1 doc/fleet/collect.yml -e "tb_fleet_logs=$fl"
rc=$?
echo "--- first collect (exit $rc): its report"
sed -n '/TASK \[The fleet.s night\]/,/^$/p; /PLAY RECAP/,$p' "$T/collect1.out"
for h in a b; do
    src=$T/home/tb-fleet-$h/transpose-logs
    same=1
    for f in "$src"/*.csv.gz; do cmp -s "$f" "$fl/shelf-$h/$(basename "$f")" || same=0; done
    nb=$(ls "$src" | wc -l); nc=$(ls "$fl/shelf-$h" 2>/dev/null | wc -l)
    [ "$same" = 1 ] && [ "$nb" = "$nc" ] && [ "$nc" -gt 0 ] &&
        ok "shelf-$h: $nc log(s) collected into fleet-logs/shelf-$h/, byte for byte: $(ls "$fl/shelf-$h")" ||
        bad "shelf-$h: board has $nb, collected $nc, identical=$same"
done
[ "$rc" != 0 ] && grep -q 'shelf-c: no log at all' "$T/collect1.out" &&
    ok "collect exits $rc and names the host without a night: shelf-c: no log at all" ||
    bad "collect exit $rc, missing host not named"
grep -q 'generic (.*) on shelf-a, blocked, 256x256 float' "$fl/history.txt" &&
grep -q 'generic (.*) on shelf-b, blocked, 256x256 float' "$fl/history.txt" &&
    ok "history read both hosts' logs, one series per host" ||
    { bad "history.txt:"; cat "$fl/history.txt"; }
grep -q 'shelf-a' "$fl/history.html" && [ -s "$fl/compare.html" ] && grep -q 'blocked' "$fl/compare.txt" &&
    ok "compare.txt, compare.html and history.html written" || bad "compare or the pages missing"
echo "--- fleet-logs/history.txt"
cat "$fl/history.txt"

# ---- collect again: nothing fetched twice, nothing overwritten -----------------------------
stamp_before=$(stat -c '%n %Y %s' "$fl"/shelf-*/*.csv.gz)
play collect2 doc/fleet/collect.yml -e "tb_fleet_logs=$fl"
stamp_after=$(stat -c '%n %Y %s' "$fl"/shelf-*/*.csv.gz)
[ "$stamp_before" = "$stamp_after" ] && ! grep -q '^changed:.*csv.gz' "$T/collect2.out" &&
    ok "second collect fetched nothing again, the logs here untouched" || bad "second collect touched logs"
[ "$(ls "$T/home/tb-fleet-a/transpose-logs" | wc -l)" -gt 0 ] && ok "the board's logs are still on the board" ||
    bad "logs vanished from shelf-a"

# ---- a night cut short on shelf-b: the next collect says how it ended -------------------
job=$(crontab -l -u tb-fleet-b | grep -A1 '^#Ansible: transpose-bench nightly' | tail -n 1 | cut -d' ' -f6-)
nsenter --target "$(cat "$T/sshd-b.pid")" --net --uts runuser -u tb-fleet-b -- \
    env -i HOME="$T/home/tb-fleet-b" LOGNAME=tb-fleet-b SHELL=/bin/sh PATH=/usr/bin:/bin \
    sh -c "$job --sizes 4096x4096 --set sweep.stop.min_time_ms=5000" > "$T/night-b2.out" 2>&1 &
cut_pid=$!
for _ in $(seq 100); do   # until its temporary log exists, then as a shutdown would
    ls -a "$T/home/tb-fleet-b/transpose-logs" | grep -q '\.part$' && break
    sleep 0.1
done
sleep 1
pkill -TERM -u tb-fleet-b -f 'transpose-bench run'
wait "$cut_pid"
play collect3 doc/fleet/collect.yml -e "tb_fleet_logs=$fl"
cut=$(grep -o 'shelf-b: latest night [^"]*' "$T/collect3.out" | head -n 1)
case $cut in
*"ended: # end: interrupted by Terminated"*) ok "collect names the cut night: $cut" ;;
*) bad "the cut night was not named: '$cut'"; cat "$T/night-b2.out" ;;
esac

# ---- deploy again: idempotent -------------------------------------------------------------
play deploy2 doc/fleet/deploy.yml --limit shelf-a,shelf-b
rc=$?
echo "--- second deploy (exit $rc): PLAY RECAP"
sed -n '/PLAY RECAP/,$p' "$T/deploy2.out"
for h in a b; do
    case $(recap deploy2 "shelf-$h") in
    *"changed=0"*"failed=0"*) ok "second deploy changed nothing on shelf-$h" ;;
    *) bad "second deploy on shelf-$h: $(recap deploy2 "shelf-$h")"; grep -B2 '^changed' "$T/deploy2.out" ;;
    esac
done
[ "$(crontab -l -u tb-fleet-a | grep -c 'transpose-bench run')" = 1 ] && ok "still one cron entry on shelf-a" ||
    bad "cron entries on shelf-a: $(crontab -l -u tb-fleet-a)"

echo "fleet-test: $passes passed, $fails failed"
[ "$fails" = 0 ]
