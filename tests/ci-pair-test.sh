#!/bin/sh
# ci-pair-test.sh: .ci/run's stages side by side (.ci/pair.sh, sourced here as .ci/run sources
# it), interrupted: a driver shell runs one stand-in stage beside (bg_stage) and one in front,
# each a process that would run for 10 minutes, as .ci/run runs fleet-test beside the
# valgrind pass; then its process group gets SIGINT (what a terminal's Ctrl-C sends), SIGTERM
# or SIGHUP. Both stand-ins must end, the driver exit 128+N saying what it ended, the stage
# beside's output still shown. Before bg_traps the stage beside (started by sh with SIGINT
# ignored) outlived a Ctrl-C. Also a pair that is not interrupted: the stage beside waited for,
# its exit and output shown. Every wait is on a file or a process, bounded (60 s), never a
# sleep that stands for a duration. Run by test_e2e_commands (make test).
set -u
top=$(cd -P "$(dirname "$0")/.." && pwd -P)
name=ci-pair-test
. "$top/tests/check-test-lib.sh"

# the driver starts with SIGINT, SIGTERM and SIGHUP at their defaults, as .ci/run typed at a
# terminal does (a job this script puts in the background would start with SIGINT ignored, a
# make test run under nohup, as CI may be, with SIGHUP ignored, and sh cannot trap a signal
# ignored at its start: CI under nohup failed the SIGHUP case before this): env's
# --default-signal (coreutils 8.31), else python3's; each an exec, so that the driver's pid is
# the background job's, $!
if env --default-signal=INT,TERM,HUP true 2>/dev/null; then
    printf '%s\n' '#!/bin/sh' 'exec env --default-signal=INT,TERM,HUP "$@"' > "$t/defsig"
elif command -v python3 >/dev/null; then
    printf '%s\n' '#!/bin/sh' "exec python3 -c 'import os, signal, sys; [signal.signal(g, signal.SIG_DFL) for g in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)]; os.execvp(sys.argv[1], sys.argv[1:])' \"\$@\"" > "$t/defsig"
else
    bad "neither env --default-signal nor python3: the driver cannot start as from a terminal"; done_tests; exit
fi
chmod 755 "$t/defsig"

# DRIVER MODE: the pairing as .ci/run uses it (bg_traps, bg_stage, bg_wait in its EXIT trap);
# its stand-ins carry TB_CI_PAIR_TEST=$t in their environment, how this test knows them
cat > "$t/driver.sh" <<'EOF'
set -eu
. "$TOP/.ci/pair.sh"
failed=""; stages=""
bg_traps
trap 'rc=$?; bg_wait || true; echo "driver: exit $rc${failed:+, failed: $failed}"' EXIT
if [ "$1" = hold ]; then
    bg_stage "beside (a stand-in, 10 minutes)" sh -c 'echo $$ > "$TB_CI_PAIR_TEST/beside.pid"; echo "beside: started"; exec sleep 600'
    sh -c 'echo $$ > "$TB_CI_PAIR_TEST/front.pid"; exec sleep 600'
else
    bg_stage "beside (a stand-in that ends)" sh -c 'echo "beside: said this"; exit 3'
    echo "driver: the stage in front ran"
fi
echo "driver: not interrupted"
EOF

# whether PID is a live process of this test's (its environment carries the mark; a zombie's
# environment reads empty)
ours() { [ -n "$1" ] && grep -qzxF "TB_CI_PAIR_TEST=$t" "/proc/$1/environ" 2>/dev/null; }
until_true() {   # COMMAND...: true within 60 s (polled every 0.1 s), else false
    ut_n=0
    while ! "$@"; do
        ut_n=$((ut_n + 1)); [ "$ut_n" -le 600 ] || return 1
        sleep 0.1
    done
}
gone() { ! ours "$1"; }
pid_in() { [ -s "$t/$1" ] && pid=$(cat "$t/$1") && [ -n "$pid" ]; }
driver_gone() { ! kill -0 "$driver" 2>/dev/null || grep -q '^State:.*zombie' "/proc/$driver/status" 2>/dev/null; }
# the end of one case: whatever of it still runs ended (each proven ours), the driver reaped
cleanup() {
    for f in beside.pid front.pid; do
        p=$(cat "$t/$f" 2>/dev/null) && ours "$p" && kill -s KILL "$p" 2>/dev/null
    done
    kill -0 "$driver" 2>/dev/null && kill -s KILL "$driver" 2>/dev/null
    wait "$driver" 2>/dev/null
    rm -f "$t/beside.pid" "$t/front.pid"
}

for sig in INT TERM HUP; do
    case $sig in INT) n=2 ;; TERM) n=15 ;; HUP) n=1 ;; esac
    TOP=$top TB_CI_PAIR_TEST=$t "$t/defsig" setsid sh "$t/driver.sh" hold > "$t/out" 2>&1 &
    driver=$!   # setsid in place (a background job leads no group): the driver's group is $!
    if ! until_true pid_in beside.pid || ! until_true pid_in front.pid; then
        bad "SIG$sig: the stand-ins did not start within 60 s: $(cat "$t/out")"; cleanup; continue
    fi
    beside=$(cat "$t/beside.pid"); front=$(cat "$t/front.pid")
    ours "$beside" && ours "$front" || bad "SIG$sig: the stand-ins are not running"
    kill -s "$sig" -- "-$driver"   # the driver's process group: itself and the stage in front
    until_true driver_gone || bad "SIG$sig: the driver still runs after 60 s"
    until_true gone "$front" || bad "SIG$sig: the stage in front still runs"
    until_true gone "$beside" && ok "SIG$sig to the group: the stage beside ended too" ||
        bad "SIG$sig to the group: the stage beside still runs"
    rc=0; wait "$driver" || rc=$?
    out=$(cat "$t/out")
    expect "SIG$sig: the driver exits 128+$n, saying what it ended, the beside's output shown" $((128 + n)) \
        "=== interrupted (SIG$sig): ending beside (process group " "beside: started" \
        "driver: exit $((128 + n)), failed: interrupted by SIG$sig"
    has "$out" "driver: not interrupted" && bad "SIG$sig: the driver went on after the signal"
    cleanup
done

# not interrupted: the stage beside waited for, its output and its exit shown, CI failed by it
TOP=$top TB_CI_PAIR_TEST=$t "$t/defsig" setsid sh "$t/driver.sh" end > "$t/out" 2>&1 &
driver=$!
until_true driver_gone || bad "a pair not interrupted: the driver still runs after 60 s"
rc=0; wait "$driver" || rc=$?
out=$(cat "$t/out")
expect "a pair not interrupted: the stage beside waited for, its output and exit shown" 0 \
    "driver: the stage in front ran" "=== beside (run beside the stages above), its output:" \
    "beside: said this" "=== beside: exit 3 after " "driver: exit 0, failed: beside"
cleanup
done_tests
