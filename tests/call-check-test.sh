#!/bin/sh
# call-check-test.sh [BUILD]: scripts/call-check.sh on throwaway trees compiled here (cc -c):
# calls down the floors pass; a circle of calls that no include shows (a header both sides
# share) fails naming the modules and the symbols, inside a folder and across folders; a call
# up a floor (the include check's floors) and one to a folder on the same floor fail; an
# allow-list entry lets its offender pass, one that no longer offends fails (the list only
# shrinks), a bad line is a usage error; an object older than its source, or than a header
# its .d lists, is skipped outside a seam's folder; no object: skipped, said. Seams (-s
# SEAMS, "seam FOLDER PREFIX WHO...", WHO a function or an object NAME.c): a take of the
# prefix's symbols from what WHO names passes; one planted in another function of the
# folder fails naming that function (in the same object and in another, built plain and with
# -O2 -ffunction-sections), so does a read of a feed's symbol from an object other than the
# one named, and a pointer to one kept in data; a seam naming a function, object or folder no
# longer there fails, so does one whose WHO takes nothing (it would guard nothing); a stale
# object in a seam's folder (by its source, by a header its .d lists) fails naming it; an
# LTO object, readelf missing or failing and nm failing stop with exit 2; a bad line is a
# usage error. With BUILD (make structure-check gives its $(BUILD)), the project's own seams
# judged on its objects there by the exit status ("skipped: no objects" where there are
# none). And the project's own scripts/call-allow.txt holds no entry beyond the baseline
# below (#59): an entry leaves when its circle is broken, none comes in. Run by `make
# structure-check` (a few seconds: it compiles a few dozen small files).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
check=$top/scripts/call-check.sh
name=call-check-test
. "$top/tests/check-test-lib.sh"
CC=${CC:-cc}
build_dir=${1:-}

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

# 7. an object older than its source is skipped (make rebuilds it), and one older than a
#    header its .d file lists (gcc -MMD -MP), outside any seam's folder
base stale
build stale
touch -d '2 hours ago' "$t/stale/build/src/sub/x.o"
run stale
expect "a stale object" 0 "2 modules" "1 stale objects skipped"
base staleh
build staleh -MMD -MP
touch -d '2 hours ago' "$t/staleh/build/src/sub/x.o"
touch -d '3 hours ago' "$t/staleh/src/sub/x.c"
run staleh
expect "an object older than a header it read (its .d)" 0 "2 modules" "1 stale objects skipped"

# 8. seams: src/lo (a sampler: lo_feed, lo_window; its feed: feed_poll, feed_read) under
#    src/hi, whose plan.c's hi_make takes the sampler's feed (the one function the first
#    rule lets take lo_*) and whose plan.c alone reads the feed (the second rule, by object)
seam_tree() {   # TREE
    d=$t/$1; rm -rf "$d"; mkdir -p "$d"
    put "$d" src/lo/lo.h 'struct lo; int *lo_feed(struct lo *s); int lo_window(struct lo *s);' \
        'int feed_poll(int *f); int feed_read(int *f);'
    put "$d" src/lo/lo.c '#include "lo/lo.h"' 'struct lo { int f; };' \
        'int *lo_feed(struct lo *s) { return &s->f; }' 'int lo_window(struct lo *s) { return s->f; }'
    put "$d" src/lo/feed.c '#include "lo/lo.h"' 'int feed_poll(int *f) { return *f; }' \
        'int feed_read(int *f) { return *f + 1; }'
    put "$d" src/hi/plan.h '#include "lo/lo.h"' 'int *hi_make(struct lo *s); int hi_read(int *f);'
    put "$d" src/hi/plan.c '#include "hi/plan.h"' 'int *hi_make(struct lo *s) { return lo_feed(s); }' \
        'int hi_read(int *f) { return feed_read(f); }'
    put "$d" src/hi/meter.c '#include "hi/plan.h"' 'int meter_f(int *f) { return hi_read(f); }'
    : > "$d/allow.txt"
    printf '%s\n' '# the one door' 'seam src/hi lo_ hi_make   # the plan' \
        'seam src/hi feed_ plan.c   # the feed is the plan'"'"'s' > "$d/seams.txt"
}
seam_tree seam
build seam
run seam
expect "seams kept" 0 "seams: 2 rule(s), 2 function(s) taking a symbol one guards" "call-check: ok"
for opt in "" "-O2 -ffunction-sections"; do
    seam_tree planted
    put "$t/planted" src/hi/plan.c '#include "hi/plan.h"' 'int *hi_make(struct lo *s) { return lo_feed(s); }' \
        'int hi_read(int *f) { return feed_read(f); }' 'int hi_again(struct lo *s) { return lo_window(s) + 1; }'
    put "$t/planted" src/hi/meter.c '#include "hi/plan.h"' \
        'static __attribute__((noinline)) int ask(struct lo *s) { return lo_window(s) * 3; }' \
        'int meter_f(int *f, struct lo *s) { return hi_read(f) + ask(s); }'
    # shellcheck disable=SC2086
    build planted $opt
    run planted
    expect "a seam crossed, in the same object and another (cc ${opt:-plain})" 1 \
        "seams.txt:2: src/hi/plan.c: hi_again() takes lo_window, and only hi_make of src/hi/ may take lo_*" \
        "seams.txt:2: src/hi/meter.c: ask() takes lo_window" "seams crossed"
    has "$out" "hi_make() takes" && bad "the seam's own function named as a breach: $out"
    # the feed's timing read block by block from a meter (meter.c's blocks), not the plan
    seam_tree polled
    put "$t/polled" src/hi/meter.c '#include "hi/plan.h"' \
        'int meter_block(int *f) { return hi_read(f) + feed_poll(f); }'
    # shellcheck disable=SC2086
    build polled $opt
    run polled
    expect "the feed read outside the object the seam names (cc ${opt:-plain})" 1 \
        "seams.txt:3: src/hi/meter.c: meter_block() takes feed_poll, and only plan.c of src/hi/ may take feed_*"
    has "$out" "plan.c: hi_read() takes" && bad "the seam's own object named as a breach: $out"
done
seam_tree table
put "$t/table" src/hi/meter.c '#include "hi/plan.h"' 'int (*const meter_door)(struct lo *) = lo_window;'
build table
run table
expect "a pointer to a guarded symbol in data" 1 \
    "src/hi/meter.c: data or code outside any function takes lo_window"
seam_tree gone
printf '%s\n' 'seam src/hi lo_ hi_make hi_gone' 'seam src/nowhere lo_ hi_make' 'seam src/hi feed_ gone.c' > "$t/gone/seams.txt"
build gone
run gone
expect "a seam naming what is not there" 1 "seams.txt:1: hi_gone is no function of src/hi/" \
    "seams.txt:2: seam of 'src/nowhere': no such folder" "seams.txt:3: gone.c is no object of src/hi/"
printf '%s\n' 'seam src/hi lo_ hi_make meter_f' > "$t/gone/seams.txt"
run gone
expect "a seam that guards nothing (its function takes no guarded symbol)" 1 \
    "seams.txt:1: meter_f takes no lo_* symbol: the seam guards nothing"
printf '%s\n' 'seam src/hi' > "$t/gone/seams.txt"
run gone
expect "a bad seam line" 2 'seams.txt:1: expected "seam FOLDER PREFIX FUNCTION-OR-FILE.c...", got "seam src/hi"'
# a stale object in a seam's folder: an error naming it (older than its source; older than
# a header its .d lists), not a skip
seam_tree stale
build stale -MMD -MP
touch -d '2 hours ago' "$t/stale/build/src/hi/meter.o"
run stale
expect "a stale object in a seam's folder (its source)" 1 \
    "build/src/hi/meter.o is older than src/hi/meter.c: a seam's folder is read from fresh objects only"
touch -d '3 hours ago' "$t/stale/src/hi/meter.c"
run stale
expect "a stale object in a seam's folder (a header its .d lists)" 1 "build/src/hi/meter.o is older than src/hi/plan.h"
# an LTO object: no machine code to place a call in; stop, naming it
seam_tree lto
build lto -flto
run lto
expect "an LTO object in a seam's folder" 2 "build/src/hi/meter.o is an LTO object"
# readelf missing, or failing on an object: stop, said (exit 2); nm failing likewise
seam_tree tools
build tools
mkdir -p "$t/bin-noelf" "$t/bin-bad"
for tool in sh awk find sort mktemp rm cat wc head grep sed cut dirname nm mkdir tr; do
    p=$(command -v "$tool") && ln -sf "$p" "$t/bin-noelf/$tool"
done
out=$(cd "$t/tools" && PATH=$t/bin-noelf "$check" -a allow.txt -s seams.txt -B build src 2>&1); rc=$?
expect "no readelf" 2 "call-check: no readelf (binutils) on PATH"
printf '%s\n' '#!/bin/sh' 'echo "readelf: Error: not an ELF file" >&2' 'exit 1' > "$t/bin-bad/readelf"
chmod +x "$t/bin-bad/readelf"
out=$(cd "$t/tools" && PATH=$t/bin-bad:$PATH "$check" -a allow.txt -s seams.txt -B build src 2>&1); rc=$?
expect "readelf failing" 2 "call-check: readelf failed on build/src/hi/" "not an ELF file"
rm "$t/bin-bad/readelf"
printf '%s\n' '#!/bin/sh' 'echo "nm: a broken object" >&2' 'exit 1' > "$t/bin-bad/nm"
chmod +x "$t/bin-bad/nm"
: > "$t/tools/seams.txt"
out=$(cd "$t/tools" && PATH=$t/bin-bad:$PATH "$check" -a allow.txt -s seams.txt -B build src 2>&1); rc=$?
expect "nm failing" 2 "call-check: nm failed: nm: a broken object"

# 9. the project's seams on its own objects, where BUILD (this test's argument: make
#    structure-check gives its $(BUILD)) holds them: energy asks the sampler in
#    tb_energy_plan_make alone and reads the feed in plan.c alone; judged by the exit status
if [ -n "$build_dir" ] && [ -d "$top/$build_dir/src/energy" ]; then
    out=$(cd "$top" && "$check" -I kernels -B "$build_dir" src 2>&1); rc=$?
    if [ "$rc" = 0 ] && ! has "$out" "no current object"; then
        ok "the project's seams hold on $build_dir/ (the sampler from tb_energy_plan_make alone, the feed from plan.c alone)"
    elif [ "$rc" = 0 ]; then
        echo "$name: skipped: no objects (the project's seams: none current under $build_dir/)"
    else
        bad "the project's seams on $build_dir/ (exit $rc): $out"
    fi
else
    echo "$name: skipped: no objects (the project's seams: no ${build_dir:-BUILD}/src/energy; give the build folder: call-check-test.sh BUILD)"
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
