#!/bin/sh
# Runs cmocka test programs and sums up. Three forms:
#   run-tests.sh --one PROG RESULT   runs one program (a job of `make test`, which runs them
#                                    side by side): its output whole when it ends, then one line
#                                    "== PROG: N passed, N failed, S s, C s CPU" (C: user+sys
#                                    of the program, which a busy machine does not inflate as it
#                                    does S); RESULT gets "N F RC S C";
#                                    exits non-zero when the program failed
#   run-tests.sh --sum [--since T] RESULT...   the total of those results: the slowest
#                                    programs, the wall time since T (date +%s.%N), the
#                                    failing programs, and last the plain "N passed, N failed"
#   run-tests.sh PROG...             one after the other, then the sum (the old way)
# TB_VALGRIND=1 runs each under valgrind (memory errors or leaks fail the test);
# TB_RUNNER runs each through a command (qemu-aarch64 for the cross-compiled suite).
# Under either, TB_TEST_QUICK=1 (unless set): the programs that cost minutes under a slower
# lens run their quick form, the same code paths with fewer nights, seeds or cycles (each reads
# it in one place: th_quick(), tests/helpers.h); plain runs take the full form.
# A program's output is kept in RESULT.log (printed when it fails or TB_TEST_OUTPUT=all).
set -u
# Leaks inside libconfig's own lexer on some syntax errors are not ours (doc/reliability.md);
# LeakSanitizer ignores that library only, so ours still fail the run under SAN=1.
top=$(cd "$(dirname "$0")/.." && pwd)
LSAN_OPTIONS="suppressions=$top/tests/fuzz/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export LSAN_OPTIONS

now() { date +%s.%N; }
# user+sys seconds of this shell's finished children, from a file `times` wrote (its second
# line: 0m1.23s 0m0.04s); `times` itself must run in this shell, not in a $(...) of its own
cpu_of() { awk 'NR == 2 { t = 0; for (k = 1; k <= 2; k++) { split($k, a, "m"); t += a[1] * 60 + a[2] } printf "%.2f", t }' "$1"; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

run_one() {   # PROG RESULT
    t=$1; result=$2; name=$(basename "$t")
    if [ "${TB_VALGRIND:-0}" = 1 ]; then
        # valgrind runs one thread at a time, and one waiting for its turn reads as asleep:
        # the fake clock's grace must outlast the turns (tests/fake_clock.h)
        export TB_FAKE_CLOCK_GRACE_MS="${TB_FAKE_CLOCK_GRACE_MS:-200}"
        export TB_TEST_QUICK="${TB_TEST_QUICK:-1}"
        set -- valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
            --suppressions="$top/tests/valgrind.supp" "$t"
    elif [ -n "${TB_RUNNER:-}" ]; then
        export TB_TEST_QUICK="${TB_TEST_QUICK:-1}"
        set -- $TB_RUNNER "$t"
    else
        set -- "$t"
    fi
    # programs run side by side: each its own lock file unless it names one (a test of the
    # lock itself sets TB_LOCK_FILE), so two programs' runs never meet at /tmp's
    lockdir=$(mktemp -d "${TMPDIR:-/tmp}/tb-test-lock-XXXXXX")
    times > "$result.cpu"; start=$(now); cpu0=$(cpu_of "$result.cpu")
    TB_LOCK_FILE=${TB_LOCK_FILE:-$lockdir/lock} CMOCKA_MESSAGE_OUTPUT=stdout "$@" \
        > "$result.log" 2>&1
    rc=$?
    took=$(secs "$start" "$(now)"); times > "$result.cpu"; used=$(secs "$cpu0" "$(cpu_of "$result.cpu")")
    rm -f "$result.cpu"
    rm -rf "$lockdir"
    n=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$result.log" | tail -n 1)
    f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$result.log" | tail -n 1)
    n=${n:-0}; f=${f:-0}
    [ "$rc" != 0 ] && [ "$f" = 0 ] && f=1   # died before cmocka's summary: one failure
    if [ "$rc" != 0 ] || [ "${TB_TEST_OUTPUT:-}" = all ]; then
        echo "== $name (output)"; cat "$result.log"
    fi
    echo "== $name: $n passed, $f failed, $took s, $used s CPU$([ "$rc" != 0 ] && echo " (exit $rc)")"
    echo "$n $f $rc $took $used" > "$result"
    [ "$rc" = 0 ]
}

sum() {   # [--since START] RESULT...
    since=""
    [ "${1:-}" = --since ] && { since=$2; shift 2; }
    passed=0; failed=0; failed_names=""; slow=""; cpus=""
    for r in "$@"; do
        name=$(basename "$r" .result)
        if [ -r "$r" ] && read -r n f rc took used < "$r"; then
            passed=$((passed + n)); failed=$((failed + f)); cpus="$cpus ${used:-0}"
            [ "$rc" != 0 ] && failed_names="$failed_names $name"
            slow="$slow$took $name
"
        else   # never ran, or its runner died
            failed=$((failed + 1)); failed_names="$failed_names $name"
        fi
    done
    echo "slowest: $(printf '%s' "$slow" | sort -rn | head -n 5 |
        awk '{ printf "%s%s %s s", (NR > 1 ? ", " : ""), $2, $1 }')"
    [ -n "$since" ] && echo "$# programs in $(secs "$since" "$(now)") s, $(echo "$cpus" |
        awk '{ t = 0; for (k = 1; k <= NF; k++) t += $k; printf "%.1f", t }') s CPU"
    [ -n "$failed_names" ] && echo "failing test programs:$failed_names"
    echo "$passed passed, $failed failed"
    [ -z "$failed_names" ]
}

case "${1:-}" in
--one) run_one "$2" "$3" ;;
--sum) shift; sum "$@" ;;
*)
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/tb-tests-XXXXXX")
    results=""
    for t in "$@"; do
        run_one "$t" "$tmp/$(basename "$t").result" || :
        results="$results $tmp/$(basename "$t").result"
    done
    sum $results; rc=$?
    rm -rf "$tmp"
    exit $rc ;;
esac
