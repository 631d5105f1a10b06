# lib.sh: the hosts of tests/fleet-test.sh, sourced by it (bash). Each host h is a network
# namespace tbfleet-h (veth tbf-h, 10.231.N.2), a mount and UTS namespace around its sshd (its
# own host name, /etc/machine-id, /tmp, /run and cron spool) and a user tb-fleet-h with its
# home under $T. Everything it makes is undone by fleet_cleanup, crontabs before users, and a
# run killed half-way is cleaned up by the next one. Not the checks themselves (fleet-test.sh).

fails=0; passes=0
ok() { passes=$((passes + 1)); echo "fleet-test: ok: $*"; }
bad() { fails=$((fails + 1)); echo "fleet-test: FAILED: $*"; }

# the test's own temporary tree: not under /tmp, which each host replaces with its own
T=$(mktemp -d /var/tmp/tb-fleet-XXXXXX)
chmod 755 "$T"      # the test users reach their homes through it
FLEET_HOSTS=""
FLEET_SWEEP="--device cpu --sizes 256x256,192x320 --kernels copy_row,blocked,naive_row --blocks 16x16,32x8 --set sweep.stop.min_time_ms=2 --set power.source=none"

host_n() { printf '%d' "$(( $(printf '%d' "'$1") - 96 ))"; }     # a -> 1, b -> 2, ...
host_name() { case $1 in d|e) echo shelf-twin ;; *) echo "shelf-$1" ;; esac; }
host_pid() { cat "$T/sshd-$1.pid" 2>/dev/null; }
# a shell command as the host's user, inside all of the host's namespaces
in_host() {
    local h=$1; shift
    nsenter --target "$(host_pid "$h")" --net --uts --mount \
        runuser -u "tb-fleet-$h" -- env -i HOME="$T/home/tb-fleet-$h" LOGNAME="tb-fleet-$h" \
        USER="tb-fleet-$h" SHELL=/bin/sh PATH=/usr/bin:/bin sh -c "$*"
}
# the host's installed nightly entry run as cron runs it, on the host's own lock; extra args
night() {
    local h=$1; shift
    local job
    job=$(in_host "$h" 'crontab -l' | grep -A1 '^#Ansible: transpose-bench nightly' | tail -n 1 | cut -d' ' -f6-)
    in_host "$h" "TB_LOCK_FILE=$T/tmp-$h/night.lock $job $*"
}
# the host's folder in fleet-logs: its inventory name (host name and machine-id can be cloned)
host_id() { echo "shelf-$1"; }

# A Python 3.6 for shelf-a (JetPack 4's): TB_FLEET_PY36, a system one, or pyenv's under /root
# (shown to shelf-a's user by a tmpfs over /root in its mount namespace only).
FLEET_PY36=${TB_FLEET_PY36:-}
if [ -z "$FLEET_PY36" ]; then
    for p in /usr/bin/python3.6 /usr/local/bin/python3.6 /root/.pyenv/versions/3.6*/bin/python3.6; do
        [ -x "$p" ] && "$p" -c 'import sys; assert sys.version_info[:2] == (3, 6)' 2>/dev/null && { FLEET_PY36=$p; break; }
    done
fi

fleet_cleanup() {
    local h s
    for s in "$T"/cp/*; do [ -S "$s" ] && ssh -O exit -o ControlPath="$s" x >/dev/null 2>&1; done
    for h in $FLEET_HOSTS; do
        rm -f "$T/spool-$h/tb-fleet-$h"                   # its crontab first, then the user
        ip link set "tbf-$h" up 2>/dev/null
        tc qdisc del dev "tbf-$h" root 2>/dev/null
        for p in $(ip netns pids "tbfleet-$h" 2>/dev/null); do kill -CONT "$p" 2>/dev/null; kill "$p" 2>/dev/null; done
    done
    sleep 0.5
    for h in $FLEET_HOSTS; do
        for p in $(ip netns pids "tbfleet-$h" 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done
        ip netns del "tbfleet-$h" 2>/dev/null
        ip link del "tbf-$h" 2>/dev/null
        id "tb-fleet-$h" >/dev/null 2>&1 && userdel "tb-fleet-$h" 2>/dev/null
    done
    [ -f "$T/orig.tar.gz" ] && cp -p "$T/orig.tar.gz" dist/transpose-bench-h100-sxm.tar.gz
    grep -o " $T/[^ ]*" /proc/mounts | sort -r | while read -r m; do umount "$m"; done
    rm -rf "$T"
}
trap fleet_cleanup EXIT

# Leftovers of a run that was killed: its namespaces' processes, users, links and mounts.
fleet_leftovers() {
    local h u p
    for h in a b c d e f; do
        for p in $(ip netns pids "tbfleet-$h" 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done
        ip netns del "tbfleet-$h" 2>/dev/null
        ip link del "tbf-$h" 2>/dev/null
        u=tb-fleet-$h
        if id "$u" >/dev/null 2>&1; then
            crontab -r -u "$u" 2>/dev/null       # a round-1 run left it in the real spool
            userdel "$u"
        fi
    done
    grep -o ' /var/tmp/tb-fleet-[^ ]*' /proc/mounts | sort -r | while read -r m; do umount "$m"; done
    for d in /var/tmp/tb-fleet-*; do          # the killed run's files (none mounted now)
        [ "$d" != "$T" ] && [ -d "$d/home" ] && rm -rf "$d"
    done
}

fleet_make_hosts() {   # "a b ...": users, namespaces, sshds
    local h n user ns home
    fleet_leftovers
    mkdir -p "$T/home" "$T/cp"
    ssh-keygen -q -t ed25519 -N '' -f "$T/id" -C fleet-test
    ssh-keygen -q -t ed25519 -N '' -f "$T/hostkey" -C fleet-test-host
    FLEET_HOSTS=$1
    for h in $1; do
        n=$(host_n "$h"); user=tb-fleet-$h; ns=tbfleet-$h; home=$T/home/$user
        useradd -m -d "$home" -s /bin/sh "$user" || { bad "useradd $user"; return 1; }
        usermod -p '*' "$user"                      # no password, not locked: key login only
        install -d -m 700 -o "$user" -g "$user" "$home/.ssh"
        install -m 600 -o "$user" -g "$user" "$T/id.pub" "$home/.ssh/authorized_keys"
        # what makes it a machine of its own; e is a clone of d (one SD image copied after its
        # first boot): the same host name and the same /etc/machine-id
        if [ "$h" = e ] && [ -f "$T/machine-id-d" ]; then cp "$T/machine-id-d" "$T/machine-id-e"
        else od -An -N16 -tx1 /dev/urandom | tr -d ' \n' > "$T/machine-id-$h"; echo >> "$T/machine-id-$h"; fi
        chmod 644 "$T/machine-id-$h"
        install -d -m 1777 "$T/tmp-$h"
        install -d -m 755 "$T/run-$h" "$T/run-$h/sshd"
        install -d -m 1730 -o root -g crontab "$T/spool-$h"
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
        py=""
        if [ "$h" = a ] && [ -n "$FLEET_PY36" ]; then
            case $FLEET_PY36 in
            /root/*) pyroot=$(dirname "$(dirname "$FLEET_PY36")")
                     mkdir -p "$T/py36"
                     py="mount --bind '$pyroot' '$T/py36' && mount -t tmpfs -o mode=755,size=1m tbfleet /root &&
                         mkdir -p '$pyroot' && mount --bind '$T/py36' '$pyroot' &&" ;;
            esac
        fi
        ip netns exec "$ns" unshare --uts --mount --propagation private sh -c "
            hostname '$(host_name "$h")' &&
            mount --bind '$T/machine-id-$h' /etc/machine-id && mount --bind '$T/tmp-$h' /tmp &&
            mount --bind '$T/run-$h' /run && mount --bind '$T/spool-$h' /var/spool/cron/crontabs && $py
            exec /usr/sbin/sshd -D -e -f '$T/sshd-$h.conf'" > "$T/sshd-$h.log" 2>&1 &
    done
    for h in $1; do
        up=""
        for _ in $(seq 50); do
            up=$(fleet_ssh "$h" 'echo "$(hostname) $(id -un) $(cat /etc/machine-id)"' 2>/dev/null) && break
            sleep 0.2
        done
        [ "$up" = "$(host_name "$h") tb-fleet-$h $(cat "$T/machine-id-$h")" ] &&
            ok "host $(host_name "$h") ($h): its own sshd, host name $(host_name "$h"), machine-id $(cut -c1-12 "$T/machine-id-$h"), key login as tb-fleet-$h" ||
            { bad "host $h: ssh said '$up'"; cat "$T/sshd-$h.log"; return 1; }
    done
}
fleet_ssh() {
    local h=$1; shift
    ssh -i "$T/id" -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null \
        -o LogLevel=ERROR -o ConnectTimeout=5 "tb-fleet-$h@10.231.$(host_n "$h").2" "$@"
}

# The inventory, as doc/fleet/inventory.example.ini, for these hosts. Shorter ssh limits than
# the roles' defaults (10 s, 3 x 10 s) keep the frozen and unreachable cases quick.
fleet_make_inventory() {
    local h line py
    {
        echo "[boards]"
        for h in $FLEET_HOSTS; do
            line="shelf-$h ansible_host=10.231.$(host_n "$h").2 ansible_user=tb-fleet-$h board=boards/desktop-h100.cfg"
            [ "$h" = c ] || line="$line tb_require_gpu=false"
            if [ "$h" = a ]; then py=${FLEET_PY36:-/usr/bin/python3}; line="$line ansible_python_interpreter=$py"; fi
            echo "$line"
        done
        cat <<EOF

[boards:vars]
ansible_python_interpreter=/usr/bin/python3
ansible_ssh_private_key_file=$T/id
ansible_ssh_common_args='-o UserKnownHostsFile=$T/known_hosts -o StrictHostKeyChecking=accept-new'
ansible_ssh_timeout=5
ansible_ssh_extra_args='-o ServerAliveInterval=2 -o ServerAliveCountMax=2'
tb_task_timeout=60
tb_run_args="$FLEET_SWEEP"
EOF
    } > "$T/inventory.ini"
}
export ANSIBLE_HOST_KEY_CHECKING=True ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=0 \
       ANSIBLE_LOCAL_TEMP="$T/ansible-local" ANSIBLE_REMOTE_TEMP="~/.ansible/tmp" \
       ANSIBLE_SSH_CONTROL_PATH_DIR="$T/cp" ANSIBLE_PYTHON_INTERPRETER=auto_silent
play() {   # name, playbook args...: output in $T/NAME.out, exit code returned, seconds noted
    local name=$1 rc start=$SECONDS; shift
    ansible-playbook -i "$T/inventory.ini" "$@" > "$T/$name.out" 2>&1
    rc=$?
    FLEET_TIMES="$FLEET_TIMES $name=$((SECONDS - start))s"
    return $rc
}
FLEET_TIMES=""
recap() {   # name host: the PLAY RECAP line of that host
    grep -E "^$2 +:" "$T/$1.out" | tail -n 1
}
show_failures() { grep -A6 'fatal:\|FAILED!\|^failed:' "$T/$1.out" | head -60; }

fleet_start_cron() {   # h: Debian's cron daemon inside the host's namespaces (its own spool)
    nsenter --target "$(host_pid "$1")" --net --uts --mount /usr/sbin/cron -f -L 15 > "$T/cron-$1.log" 2>&1 &
    echo $! > "$T/cron-$1.pid"
}
