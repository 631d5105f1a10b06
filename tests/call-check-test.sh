#!/bin/sh
# call-check-test.sh: scripts/call-check.sh on throwaway trees compiled here (cc -c): calls
# down the floors pass; a circle of calls that no include shows (a header both sides share)
# fails naming the modules and the symbols, inside a folder and across folders; a call up a
# floor (the include check's floors) and one to a folder on the same floor fail; an
# allow-list entry lets its offender pass, one that no longer offends fails (the list only
# shrinks), a bad line is a usage error; an object older than its source is skipped; no
# object: skipped, said. And the project's own scripts/call-allow.txt holds no entry beyond
# the baseline below (#59): an entry leaves when its circle is broken, none comes in. Run by
# `make structure-check` (a few seconds: it compiles a dozen small files).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
check=$top/scripts/call-check.sh
name=call-check-test
. "$top/tests/check-test-lib.sh"
CC=${CC:-cc}

put() {   # TREE PATH LINE...
    f=$1/$2; shift 2
    mkdir -p "$(dirname "$f")"
    printf '%s\n' "$@" > "$f"
}
# a tree: src/util (floor 2: shared.h, floor 1, is included by all), src/sub/x (floor 3), src/top (4:
# includes sub/x.h); top calls x, x calls util; shared.h declares everything, included by no
# one the include check would follow back (each .c includes its own header and shared.h)
base() {
    d=$t/$1; rm -rf "$d"; mkdir -p "$d"
    put "$d" src/shared.h 'int util_f(void); int x_f(void); int top_f(void); int y_f(void);'
    put "$d" src/util.h '/* util */'
    put "$d" src/util.c '#include "util.h"' '#include "shared.h"' 'int util_f(void) { return 1; }'
    put "$d" src/sub/x.h '#include "util.h"'
    put "$d" src/sub/x.c '#include "sub/x.h"' '#include "shared.h"' 'int x_f(void) { return util_f(); }'
    put "$d" src/top.h '#include "sub/x.h"'
    put "$d" src/top.c '#include "top.h"' '#include "shared.h"' 'int top_f(void) { return x_f(); }'
    : > "$d/allow.txt"
}
build() {   # TREE: every .c of src/ into build/src/...o
    d=$t/$1
    for c in $(cd "$d" && find src -name '*.c'); do
        mkdir -p "$d/build/$(dirname "$c")"
        (cd "$d" && $CC -c -Isrc -o "build/${c%.c}.o" "$c") || bad "$1: cc $c"
    done
}
run() {   # TREE [ARGS...]
    d=$1; shift
    out=$(cd "$t/$d" && "$check" -a allow.txt "$@" -B build src 2>&1); rc=$?
}

# 1. no object: skipped, said
base empty
run empty
expect "no object" 0 "no current object of src under build (0 found, 0 stale): skipped"

# 2. calls down the floors
base clean
build clean
run clean
expect "calls down the floors" 0 "3 modules, 2 edges between them; 0 circles, 0 calls not down a floor" "call-check: ok"

# 3. a circle by calls inside a folder, which the include check does not see
base inside
put "$t/inside" src/sub/y.c '#include "shared.h"' 'int y_f(void) { return x_f(); }'
put "$t/inside" src/sub/x.c '#include "sub/x.h"' '#include "shared.h"' 'int x_f(void) { return util_f() + y_f(); }'
build inside
run inside
expect "a circle by calls inside a folder" 1 "a circle by calls: src/sub/x src/sub/y" \
    "src/sub/x -> src/sub/y: y_f" "src/sub/y -> src/sub/x: x_f"
out_inc=$(cd "$t/inside" && "$top/scripts/structure-check.sh" src 2>&1)
has "$out_inc" "structure-check: ok" && ok "the include check passes the same tree (it cannot see it)" ||
    bad "the include check on the planted tree: $out_inc"

# 4. across folders: util calls top (a circle through three folders' nodes), and that call
#    goes up two floors
base across
put "$t/across" src/util.c '#include "util.h"' '#include "shared.h"' 'int util_f(void) { return 1; }' \
    'int util_g(void) { return top_f(); }'
build across
run across
expect "a circle across folders, a call up" 1 "a circle by calls: src/sub/x src/top src/util" \
    "src/util -> src/top: top_f" "a call up a floor, src/util (floor 2) -> src/top (floor 4)"

# 5. a call to a folder on the same floor
base side
put "$t/side" src/side/s.h '#include "util.h"'
put "$t/side" src/side/s.c '#include "side/s.h"' '#include "shared.h"' 'int y_f(void) { return x_f(); }'
build side
run side
expect "a call on one floor" 1 "a call on one floor, src/side/ -> src/sub/ (both floor 3)" \
    "src/side/s -> src/sub/x: x_f"

# 6. the allow-list: both offenders of 4 allowed; then one entry that no longer offends;
#    then a bad line
printf '%s\n' '# known, #59' 'circle src/util src/top src/sub/x   # sorted when read' \
    'call src/util -> src/top' > "$t/across/allow.txt"
run across
expect "offenders allowed" 0 "allowed for now (allow.txt:2): a circle by calls" \
    "allowed for now (allow.txt:3): a call up a floor" "(2 allowed for now)" "call-check: ok"
printf '%s\n' 'circle src/sub/x src/sub/y' > "$t/clean/allow.txt"
run clean
expect "an entry that no longer offends" 1 'allow.txt:1: "circle src/sub/x src/sub/y" no longer offends: remove it'
printf '%s\n' 'src/a -> src/b' > "$t/clean/allow.txt"
run clean
expect "a bad allow-list line" 2 'allow.txt:1: expected "circle MODULE MODULE..." or "call NODE -> NODE"'

# 7. an object older than its source is skipped (make rebuilds it)
base stale
build stale
touch -d '2 hours ago' "$t/stale/build/src/sub/x.o"
run stale
expect "a stale object" 0 "2 modules" "1 stale objects skipped"

# 8. the project's allow-list only shrinks: every entry is one of the baseline's (#59: the
#    circles and upward calls found when the check came; each owner removed its own: energy's
#    circle, the CUDA row's two calls and power/'s two circles are gone, so it holds none)
baseline=''
extra=$(sed 's/#.*//; s/^[ \t]*//; s/[ \t]*$//; s/[ \t][ \t]*/ /g' "$top/scripts/call-allow.txt" | grep . |
    while read -r l; do printf '%s\n' "$baseline" | grep -qxF -- "$l" || echo "$l"; done)
[ -z "$extra" ] && ok "scripts/call-allow.txt holds only baseline entries ($(grep -c '^[a-z]' "$top/scripts/call-allow.txt"))" ||
    bad "scripts/call-allow.txt grew beyond its baseline: $extra (break the circle instead)"

done_tests
