#!/bin/sh
# Run every cmocka test binary given as an argument and sum up. Each binary prints
# cmocka's own summary; the last line is the plain "N passed, N failed" total.
# TB_VALGRIND=1 runs each under valgrind (memory errors or leaks fail the test);
# TB_RUNNER runs each through a command (qemu-aarch64 for the cross-compiled suite).
set -u
# Leaks inside libconfig's own lexer on some syntax errors are not ours (doc/reliability.md);
# LeakSanitizer ignores that library only, so ours still fail the run under SAN=1.
top=$(cd "$(dirname "$0")/.." && pwd)
LSAN_OPTIONS="suppressions=$top/tests/fuzz/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export LSAN_OPTIONS
passed=0; failed=0; failed_names=""
for t in "$@"; do
    name=$(basename "$t")
    if [ "${TB_VALGRIND:-0}" = 1 ]; then
        set -- valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
            --suppressions="$top/tests/valgrind.supp" "$t"
    elif [ -n "${TB_RUNNER:-}" ]; then
        set -- $TB_RUNNER "$t"
    else
        set -- "$t"
    fi
    # named as it starts, its output shown as it comes (a slow program is not a hang)
    echo "== $name"
    log=$(mktemp "${TMPDIR:-/tmp}/tb-test-XXXXXX")
    { CMOCKA_MESSAGE_OUTPUT=stdout "$@" 2>&1; echo $? > "$log.rc"; } | tee "$log"
    rc=$(cat "$log.rc" 2>/dev/null || echo 1)
    out=$(cat "$log"); rm -f "$log" "$log.rc"
    n=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | tail -n 1)
    f=$(printf '%s\n' "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | tail -n 1)
    passed=$((passed + ${n:-0})); failed=$((failed + ${f:-0}))
    if [ "$rc" != 0 ]; then
        [ -z "$f" ] && failed=$((failed + 1))
        failed_names="$failed_names $name"
    fi
done
[ -n "$failed_names" ] && echo "failing test programs:$failed_names"
echo "$passed passed, $failed failed"
[ -z "$failed_names" ]
