# .ci/pair.sh: a stage run beside the next ones (bg_stage, bg_wait), and its end when CI is
# interrupted (bg_traps), sourced by .ci/run and by tests/ci-pair-test.sh, which interrupts
# two stand-in stages run through these same functions. Not a script of its own: it reads and
# sets the sourcing shell's `failed` (the stage that failed) and `stages` (the time table).
#
# A stage beside the others, where the two together fill the 2 cores better than one after
# the other: its output into a file, printed whole when it is waited for; its wall time its
# own ("beside" in the table); its CPU counted in the stage during which the shell reaps it,
# which is when it ends, not when it is waited for (`times` counts a child once reaped). Its
# failure fails CI there, as any stage's.
#
# An interrupt: sh starts a background job with SIGINT ignored, so a Ctrl-C (SIGINT to the
# terminal's foreground process group) ended the stage in front and left the one beside
# running. So the stage beside runs in a session of its own (setsid: its process group's id
# is its pid, $!), and on SIGINT, SIGTERM or SIGHUP this shell ends that group and exits
# 128+N. Only a group it can prove it made: the pid is still its own child (not yet waited
# for, so the kernel has given the number to no one else) and leads its own session; a stage
# already waited for is not signalled. In a session of its own it no longer gets a terminal's
# hangup either: hence SIGHUP here too (a .ci/run started under nohup keeps ignoring it: sh
# cannot trap a signal ignored at its start). Said, not handled: a signal sent to .ci/run's pid
# alone (not its group) does not reach the stage in front, and sh runs the trap only when that
# stage has ended; the stage beside is ended then.
bg_name=""; bg_pid=""; bg_log=""
bg_stage() {   # TITLE COMMAND...
    bg_name=$(printf '%s' "$1" | cut -d'(' -f1 | sed 's/ *$//'); shift
    bg_log=$(mktemp "${TMPDIR:-/tmp}/tb-ci-bg-XXXXXX")
    echo "=== beside the next stages: $bg_name"
    # setsid: a background job is no group leader, so setsid(2) succeeds in place (no fork):
    # the session's, and its group's, id is $!
    setsid sh -c 't0=$(date +%s.%N); rc=0; "$@" || rc=$?
        echo "=== $0: exit $rc after $(awk -v a="$t0" -v b="$(date +%s.%N)" "BEGIN { printf \"%.0f\", b - a }") s wall"
        exit $rc' "$bg_name" "$@" > "$bg_log" 2>&1 &
    bg_pid=$!
}
# Whether bg_pid is still the session bg_stage made: this shell's child, its own session's
# and process group's leader (/proc/PID/stat: after the command's name, state ppid pgrp
# session).
bg_ours() {
    [ -n "$bg_pid" ] && [ -r "/proc/$bg_pid/stat" ] || return 1
    # shellcheck disable=SC2046
    set -- $(sed 's/^.*) //' "/proc/$bg_pid/stat" 2>/dev/null)
    [ "${2:-}" = "$$" ] && [ "${3:-}" = "$bg_pid" ] && [ "${4:-}" = "$bg_pid" ]
}
bg_wait() {
    [ -n "$bg_pid" ] || return 0
    bg_rc=0; wait "$bg_pid" || bg_rc=$?
    bg_pid=""
    echo "=== $bg_name (run beside the stages above), its output:"
    cat "$bg_log"
    bw=$(tail -1 "$bg_log" | sed -n 's/.* after \([0-9]*\) s wall$/\1/p'); rm -f "$bg_log"
    [ "$bg_rc" = 0 ] || failed=${failed:-$bg_name}
    stages="$stages$(printf '%6s s %6s    %s' "${bw:-?}" "-" "$bg_name (beside the stages before it)$([ "$bg_rc" = 0 ] || echo ": FAILED, exit $bg_rc")")
"
    return "$bg_rc"
}
bg_interrupted() {   # SIGNAL NUMBER: the stage beside ended (SIGTERM to its group), exit 128+N
    trap - INT TERM HUP
    if bg_ours; then
        echo "=== interrupted (SIG$1): ending $bg_name (process group $bg_pid), run beside"
        kill -s TERM -- "-$bg_pid" 2>/dev/null || true
    else
        echo "=== interrupted (SIG$1)"
    fi
    failed=${failed:-interrupted by SIG$1}
    exit $((128 + $2))
}
bg_traps() {
    trap 'bg_interrupted INT 2' INT
    trap 'bg_interrupted TERM 15' TERM
    trap 'bg_interrupted HUP 1' HUP
}
