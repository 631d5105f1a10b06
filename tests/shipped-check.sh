#!/bin/sh
# shipped-check.sh TOOL HOOKS: the shipped tool carries no test machinery (#51): no fake clock
# (tests/fake_clock.c: the TB_FAKE_CLOCK switch and its scheduler), no fake INA3221 driver
# (TB_TEST_INA_DRIVER), no test-only kernel; counted as `strings TOOL | grep -c WORD` counts
# them. The test-only executable HOOKS must carry each, or this check could not see one.
# Exit 1 naming what is where it must not be.
set -eu
[ $# -eq 2 ] || { echo "usage: shipped-check.sh TOOL HOOKS" >&2; exit 2; }
tool=$1 hooks=$2
for f in "$tool" "$hooks"; do
    [ -f "$f" ] || { echo "shipped-check: no '$f' (build it first)" >&2; exit 2; }
done
count() {   # count WORD FILE: lines of the file's printable strings holding WORD
    if command -v strings >/dev/null 2>&1; then
        strings -a "$2" | grep -c -- "$1" || true
    else
        LC_ALL=C tr -c '[:print:]' '\n' < "$2" | grep -c -- "$1" || true
    fi
}
bad=0
for word in TB_FAKE_CLOCK TB_TEST_INA_DRIVER "TEST BUILD ONLY"; do
    n=$(count "$word" "$tool")
    h=$(count "$word" "$hooks")
    if [ "$n" -ne 0 ]; then
        echo "shipped-check: '$tool' holds '$word' $n times: test machinery in the shipped tool" >&2
        bad=1
    fi
    if [ "$h" -eq 0 ]; then
        echo "shipped-check: '$hooks' holds no '$word': this check would not see it" >&2
        bad=1
    fi
done
[ $bad -eq 0 ] || exit 1
echo "shipped-check: ok: no fake clock, fake driver or test kernel in $tool"
