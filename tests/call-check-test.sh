#!/bin/sh
# call-check-test.sh: scripts/call-check.sh on throwaway trees compiled here (cc -c): calls
# down the floors pass; a circle of calls that no include shows (a header both sides share)
# fails naming the modules and the symbols, inside a folder and across folders; a call up a
# floor (the include check's floors) and one to a folder on the same floor fail; an
# allow-list entry lets its offender pass, one that no longer offends fails (the list only
# shrinks), a bad line is a usage error; an object older than its source is skipped; no
# object: skipped, said. A seam (-s SEAMS, "seam FOLDER PREFIX FUNCTION..."): a call of the
# prefix's symbols from the function it names passes, one planted in another function of the
# folder fails naming that function (in the same object and in another, built plain and with
# -O2 -ffunction-sections), so does a pointer to one kept in data; a seam naming a function
# or a folder no longer there fails, a bad line is a usage error; and the project's own
# seams hold on its own objects. And the project's own scripts/call-allow.txt holds no entry beyond
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
    : > "$d/seams.txt"
}
build() {   # TREE [CFLAGS...]: every .c of src/ into build/src/...o
    d=$t/$1; shift
    for c in $(cd "$d" && find src -name '*.c'); do
        mkdir -p "$d/build/$(dirname "$c")"
        (cd "$d" && $CC "$@" -c -Isrc -o "build/${c%.c}.o" "$c") || bad "$d: cc $c"
    done
}
run() {   # TREE [ARGS...]
    d=$1; shift
    out=$(cd "$t/$d" && "$check" -a allow.txt -s seams.txt "$@" -B build src 2>&1); rc=$?
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

# 8. a seam: src/lo (a sampler: lo_feed, lo_window) under src/hi (plan.c's hi_make takes the
#    feed, the one function the seam lets call lo_*; hi_read reads through what it got)
seam_tree() {   # TREE
    d=$t/$1; rm -rf "$d"; mkdir -p "$d"
    put "$d" src/lo/lo.h 'struct lo; int *lo_feed(struct lo *s); int lo_window(struct lo *s);'
    put "$d" src/lo/lo.c '#include "lo/lo.h"' 'struct lo { int f; };' \
        'int *lo_feed(struct lo *s) { return &s->f; }' 'int lo_window(struct lo *s) { return s->f; }'
    put "$d" src/hi/plan.h '#include "lo/lo.h"' 'int *hi_make(struct lo *s); int hi_read(int *f);'
    put "$d" src/hi/plan.c '#include "hi/plan.h"' 'int *hi_make(struct lo *s) { return lo_feed(s); }' \
        'int hi_read(int *f) { return *f; }'
    put "$d" src/hi/meter.c '#include "hi/plan.h"' 'int meter_f(int *f) { return hi_read(f); }'
    : > "$d/allow.txt"
    printf '%s\n' '# the one door' 'seam src/hi lo_ hi_make   # the plan' > "$d/seams.txt"
}
seam_tree seam
build seam
run seam
expect "a seam kept" 0 "seams: 1 rule(s), 1 function(s) taking a symbol one guards" "call-check: ok"
for opt in "" "-O2 -ffunction-sections"; do
    seam_tree planted
    put "$t/planted" src/hi/plan.c '#include "hi/plan.h"' 'int *hi_make(struct lo *s) { return lo_feed(s); }' \
        'int hi_read(int *f) { return *f; }' 'int hi_again(struct lo *s) { return lo_window(s) + 1; }'
    put "$t/planted" src/hi/meter.c '#include "hi/plan.h"' \
        'static __attribute__((noinline)) int ask(struct lo *s) { return lo_window(s) * 3; }' \
        'int meter_f(int *f, struct lo *s) { return hi_read(f) + ask(s); }'
    # shellcheck disable=SC2086
    build planted $opt
    run planted
    expect "a seam crossed, in the same object and another (cc ${opt:-plain})" 1 \
        "seams.txt:2: src/hi/plan.c: hi_again() takes lo_window, and only hi_make of src/hi/ may call lo_*" \
        "seams.txt:2: src/hi/meter.c: ask() takes lo_window" "seams crossed"
    has "$out" "hi_make() takes" && bad "the seam's own function named as a breach: $out"
done
seam_tree table
put "$t/table" src/hi/meter.c '#include "hi/plan.h"' 'int (*const meter_door)(struct lo *) = lo_window;'
build table
run table
expect "a pointer to a guarded symbol in data" 1 \
    "src/hi/meter.c: data or code outside any function takes lo_window"
seam_tree stale
printf '%s\n' 'seam src/hi lo_ hi_make hi_gone' 'seam src/nowhere lo_ hi_make' > "$t/stale/seams.txt"
build stale
run stale
expect "a seam naming what is not there" 1 \
    "seams.txt:1: hi_gone is no function of src/hi/" "seams.txt:2: seam of 'src/nowhere': no such folder"
printf '%s\n' 'seam src/hi' > "$t/stale/seams.txt"
run stale
expect "a bad seam line" 2 'seams.txt:1: expected "seam FOLDER PREFIX FUNCTION...", got "seam src/hi"'

# 9. the project's seams on its own objects, where a build is there (make structure-check
#    runs this after the build): energy asks the sampler in tb_energy_plan_make alone
if [ -d "$top/build/src/energy" ]; then
    out=$(cd "$top" && "$check" -I kernels -B build src 2>&1)
    if has "$out" "no current object"; then
        ok "the project's seams: skipped (no current object under build/)"
    elif ! has "$out" "seams: 1 rule(s)" || printf '%s\n' "$out" | grep -q "error: .*call-seams.txt"; then
        bad "the project's seams: $out"
    else
        ok "the project's seams hold (energy calls the sampler from tb_energy_plan_make alone)"
    fi
fi

# 10. the project's allow-list only shrinks: every entry is one of the baseline's (#59: the
#    circles and upward calls found when the check came; each owner removed its own: energy's
#    circle, the CUDA row's two calls and power/'s two circles are gone, so it holds none)
baseline=''
extra=$(sed 's/#.*//; s/^[ \t]*//; s/[ \t]*$//; s/[ \t][ \t]*/ /g' "$top/scripts/call-allow.txt" | grep . |
    while read -r l; do printf '%s\n' "$baseline" | grep -qxF -- "$l" || echo "$l"; done)
[ -z "$extra" ] && ok "scripts/call-allow.txt holds only baseline entries ($(grep -c '^[a-z]' "$top/scripts/call-allow.txt"))" ||
    bad "scripts/call-allow.txt grew beyond its baseline: $extra (break the circle instead)"

done_tests
