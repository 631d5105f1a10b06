#!/bin/sh
# structure-check-test.sh: scripts/structure-check.sh on throwaway trees whose answer is known:
# a clean tree passes with its floors; a circle across folders, a back-arrow between folders,
# a circle of two top-level modules, a circle inside one folder and a private header
# (internal.h, NAME_internal.h, NAME_int.h) included from outside each fail naming the include;
# a comment or a doc naming a src/ file that does not exist fails naming the line (a doc
# folder's -X part is not read; a longer path that ends in src/... is not such a name), and
# so does a stale name of another spelling (sub/gone.c, tests/gone.c, a bare gone.c);
# includes resolve as the compiler does (the including file's folder before the root), comments and strings do not
# count, a -I folder that includes a host header back is caught, every spelling of an include
# that gcc follows is an edge and what gcc does not follow is none (gcc -MM as the ground
# truth), and a macro include the check cannot expand is an error; with -M, the build's .d
# files: none (skipped, said), agreeing (hand-written and, where gcc is, gcc's own), naming a
# header the check does not reach (fails naming the .d and the header), stale or of a source
# gone (skipped), a private header read from outside through its folder's public header
# (fails naming the way), a test's .d (not read), and a .d without a rule (fails). Run by
# `make structure-check` before the real tree (under a second).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
check=$top/scripts/structure-check.sh
name=structure-check-test
. "$top/tests/check-test-lib.sh"

# put TREE PATH LINE...: writes TREE/PATH with the lines
put() {
    f=$1/$2; shift 2
    mkdir -p "$(dirname "$f")"
    printf '%s\n' "$@" > "$f"
}
# a tree whose src/ has: util (floor 1), sub/x (uses util), top (uses sub/x); clean
base() {
    rm -rf "$t/$1"; mkdir -p "$t/$1"
    put "$t/$1" src/util.h '/* util */'
    put "$t/$1" src/util.c '#include "util.h"'
    put "$t/$1" src/sub/x.h '#include "util.h"'
    put "$t/$1" src/sub/x.c '#include "sub/x.h"' '#include "util.h"'
    put "$t/$1" src/top.h '/* top */'
    put "$t/$1" src/top.c '#include "top.h"' '#include "sub/x.h"'
}
# run TREE [ARGS...]: out and rc of the check run in TREE
run() {
    d=$1; shift
    out=$(cd "$t/$d" && "$check" "$@" 2>&1); rc=$?
}

# 1. clean, with the default root (src); comments and strings do not count
base clean
put "$t/clean" src/util.c '#include "util.h"' '/* #include "top.h" in a comment' \
    '#include "sub/x.h" still in it */' '// #include "top.h"' \
    "static const char c = '\"';"
put "$t/clean" src/top.c '#include "top.h"' 'static const char *g = "src/*.c";  // not a comment' \
    '#include "sub/x.h"'
run clean
expect "a clean tree" 0 "3 modules in 2 folders" "3 nodes (1 folders)" "3 floors, 0 back-arrows" \
    "circles: 0" "floor  3: src/top" "floor  2: src/sub/" "floor  1: src/util" "structure-check: ok"

# 2. a circle across folders: src/top.h -> sub/x, sub/x.c -> top.h
base across
put "$t/across" src/sub/x.c '#include "sub/x.h"' '#include "top.h"'
run across src
expect "a circle across folders" 1 "circle across folders (src src/sub): src/sub/x src/top" \
    'src/sub/x -> src/top: src/sub/x.c:2: #include "top.h"' \
    'src/top -> src/sub/x: src/top.c:2: #include "sub/x.h"' "1 circles across folders"

# 3. a back-arrow without a circle of modules: top -> sub/x, sub/y -> top
base back
put "$t/back" src/sub/y.c '#include "top.h"'
run back src
expect "a back-arrow" 1 "2 back-arrows" "0 circles across folders" \
    'back-arrow src/sub/ -> src/top' 'src/sub/y -> src/top: src/sub/y.c:1: #include "top.h"' \
    'back-arrow src/top -> src/sub/' 'src/top.c:2: #include "sub/x.h"'

# 4. a circle inside one folder: an error too (a private header that includes the public one
# its module's .c includes it from is such a circle)
base room
put "$t/room" src/sub/p.h '/* p */'
put "$t/room" src/sub/p.c '#include "sub/q.h"'
put "$t/room" src/sub/q.h '#include "p.h"'
run room src
expect "a circle inside one folder" 1 "circles: 1 (0 across folders, 1 inside one)" \
    "a circle inside src/sub: src/sub/p src/sub/q" 'src/sub/p -> src/sub/q: src/sub/p.c:1: #include "sub/q.h"' \
    'src/sub/q -> src/sub/p: src/sub/q.h:1: #include "p.h"' "1 inside one, 0 back-arrows"
# ... and cut: the private header names the public one's types instead of including it
put "$t/room" src/sub/q.h 'struct p_thing;'
put "$t/room" src/sub/p.c '#include "sub/p.h"' '#include "sub/q.h"'
run room src
expect "that circle cut" 0 "circles: 0 (0 across folders, 0 inside one)" "structure-check: ok"

# 5. a circle of two top-level modules: one folder, but two nodes of the folder view
rm -rf "$t/flat"
put "$t/flat" src/a.h '/* a */'
put "$t/flat" src/a.c '#include "a.h"' '#include "b.h"'
put "$t/flat" src/b.h '#include "a.h"'
run flat src
expect "a circle of top-level modules" 1 "a circle inside src: src/a src/b" \
    'back-arrow src/a -> src/b' 'src/a.c:2: #include "b.h"' \
    'back-arrow src/b -> src/a' 'src/b.h:1: #include "a.h"' "0 circles across folders, 1 inside one, 2 back-arrows"

# 6. the folder of the including file first: sub/x.c's "top.h" is sub/top.h, not src/top.h
base near
put "$t/near" src/sub/top.h '/* sub top */'
put "$t/near" src/sub/x.c '#include "sub/x.h"' '#include "top.h"'
run near src
expect "the including file's folder first" 0 "0 back-arrows" "4 modules"

# 7. a folder's internal.h included from outside it
base private
put "$t/private" src/sub/internal.h '/* sub only */'
put "$t/private" src/sub/x.c '#include "sub/internal.h"'
put "$t/private" src/top.c '#include "top.h"' '#include "sub/x.h"' '#include "sub/internal.h"'
run private src
expect "a private header from outside" 1 "src/sub/internal.h is private to src/sub/" \
    'src/top.c:3: #include "sub/internal.h"' "included by 2 files, 1 outside src/sub/"

# 7b. the other private names: NAME_internal.h and NAME_int.h
base private2
put "$t/private2" src/sub/x_internal.h '/* sub only */'
put "$t/private2" src/sub/y_int.h '/* sub only */'
put "$t/private2" src/sub/x.c '#include "sub/x.h"' '#include "sub/x_internal.h"' '#include "sub/y_int.h"'
run private2 src
expect "private headers by name, used inside" 0 "room: src/sub/x_internal.h included by 1 files, 0 outside" \
    "structure-check: ok"
put "$t/private2" src/top.c '#include "top.h"' '#include "sub/x.h"' '#include "sub/y_int.h"'
run private2 src
expect "NAME_int.h from outside" 1 "src/sub/y_int.h is private to src/sub/" \
    'src/top.c:3: #include "sub/y_int.h"' "1 private headers included from outside"

# 7c. a comment or a doc naming a source file that does not exist
base names
put "$t/names" src/top.c '#include "top.h"' '/* as src/sub/x.c does, and src/sub/gone.c did */' \
    '#include "sub/x.h"' 'static const char *p = "/usr/src/linux/k.c";   /* not ours */'
mkdir -p "$t/names/doc/results"
put "$t/names" doc/tour.md 'Start with `src/top.c` and `src/util.h`.' 'Then src/old/room.h.'
put "$t/names" doc/results/2025.md 'Back then src/old/room.h held it.'
run names -D doc -X doc/results src
expect "names of files that do not exist" 1 \
    "src/top.c:2: names src/sub/gone.c, which does not exist" \
    "doc/tour.md:2: names src/old/room.h, which does not exist" \
    "2 names of files that do not exist"
case $out in *results*|*linux*|*x.c,*) bad "names: a -X file, a longer path or an existing file was named: $out" ;; esac
put "$t/names" src/top.c '#include "top.h"' '/* as src/sub/x.c does */' '#include "sub/x.h"'
put "$t/names" doc/tour.md 'Start with `src/top.c` and `src/util.h`.'
run names -D doc -X doc/results src
expect "names that exist" 0 "structure-check: ok"

# 7d. stale names of any spelling (#59): a path without src/ (sub/gone.c), a path under a
#     folder beside src/ (tests/gone.c), a bare name no file has (gone.c), in a comment of src/
#     or of a -I folder and in a doc; what passes: a bare name some file has (x.c), a system
#     header (stdio.h), another project's path (linux/drivers/k.c), an absolute one, <x.h>,
#     a name -O gives, and an include line (the include check's: not found, left out)
base stale
mkdir -p "$t/stale/tests" "$t/stale/kern"
put "$t/stale" tests/t.c '/* a test */'
put "$t/stale" kern/k.h '/* kernels: see sub/gone.c and src/sub/x.c */'
put "$t/stale" src/top.c '#include "top.h"' '#include "sub/x.h"' '#include "gone.h"' \
    '/* switched by sub/gone.c (as x.c does), tested by tests/gone.c and tests/t.c */' \
    '/* gone.c holds the lock; stdio.h, linux/drivers/k.c, /usr/src/k.c and <vendor.h> are not ours */' \
    '/* vendor_api.h is NVIDIA'"'"'s */'
put "$t/stale" doc/tour.md 'Modes: `sub/gone.c`; then ./sub/x.c and ../other/y.c.'
run stale -I kern -D doc src
expect "stale names of any spelling" 1 \
    "src/top.c:4: names sub/gone.c, which does not exist" \
    "src/top.c:4: names tests/gone.c, which does not exist" \
    "src/top.c:5: names gone.c, which no file of the project has" \
    "src/top.c:6: names vendor_api.h, which no file of the project has" \
    "kern/k.h:1: names sub/gone.c, which does not exist" \
    "doc/tour.md:1: names sub/gone.c, which does not exist" "6 names of files that do not exist"
case $out in *"names x.c"*|*stdio.h*|*linux*|*/usr/src*|*vendor.h*|*tests/t.c*|*"names gone.h"*|*y.c*|*"names src/sub/x.c"*)
    bad "stale names: a name that exists, is not ours or is in an include was named: $out" ;; esac
printf '%s\n' '# names not ours' 'vendor_api.h   # NVIDIA'"'"'s' > "$t/stale/outside.txt"
run stale -I kern -D doc -O outside.txt src
expect "a name -O gives passes" 1 "5 names of files that do not exist"
has "$out" "vendor_api.h" && bad "-O: vendor_api.h still named: $out" || ok "-O: vendor_api.h not named"
put "$t/stale" src/top.c '#include "top.h"' '#include "sub/x.h"' '/* as x.c does, tested by tests/t.c */'
put "$t/stale" kern/k.h '/* kernels: see src/sub/x.c */'
put "$t/stale" doc/tour.md 'Modes: `sub/x.c`.'
run stale -I kern -D doc -O outside.txt src
expect "names of any spelling that exist" 0 "structure-check: ok"

# 8. -I: a second folder whose file includes a host header back; clean without that include
base extra
put "$t/extra" kern/k.h '/* kernels */'
put "$t/extra" kern/k.c '#include "k.h"'
put "$t/extra" src/top.c '#include "top.h"' '#include "k.h"'
run extra -I kern src
expect "a -I folder, clean" 0 "src (+ kern)" "floor  1: kern/ src/util" "0 back-arrows"
put "$t/extra" kern/k.c '#include "k.h"' '#include "top.h"'
run extra -I kern src
expect "a -I folder including a host header" 1 "circle across folders (kern src): kern/k src/top" \
    'kern/k -> src/top: kern/k.c:2: #include "top.h"'

# 9. usage
run clean nothere
expect "a missing root" 2 "no folder 'nothere'"

# 10. every spelling of an include that gcc -std=c11 follows (the Makefile's flags) is an edge:
# each one is src/sub/y.c including src/top.h, a back-arrow (as in 3) when seen. gcc -MM is
# the ground truth: where gcc is here, it must follow the include too (else the case is wrong).
# gcc_follows TREE FILE HEADER: 0 when gcc -MM lists HEADER among FILE's includes
gcc_follows() {
    (cd "$t/$1" && ${CC:-gcc} -std=c11 -MM -MG -Isrc "$2" 2>/dev/null) | tr -d '\\\n' |
        tr ' ' '\n' | grep -qx "$3"
}
have_gcc=0; command -v "${CC:-gcc}" >/dev/null 2>&1 && have_gcc=1
# spelled CASE LINE...: y.c holds the lines; the check must see the edge, as gcc does
spelled() {
    what=$1; shift
    base spell
    put "$t/spell" src/sub/y.c "$@"
    if [ "$have_gcc" = 1 ] && ! gcc_follows spell src/sub/y.c src/top.h; then
        bad "$what: gcc does not follow it (the case is wrong)"; return
    fi
    run spell src
    expect "$what" 1 'back-arrow src/sub/ -> src/top' 'src/sub/y -> src/top: src/sub/y.c:'
}
spelled "a digraph %:include" '%:include "top.h"'
spelled "%: with spaces and a comment before" '/* c */ %:  include "top.h"'
spelled "a backslash-newline inside #include" '#inc\' 'lude "top.h"'
spelled "a backslash-newline before the name" '#include \' '"top.h"'
spelled "#import" '#import "top.h"'
spelled "#include_next" '#include_next "top.h"'
spelled "a trigraph ??=include" '??=include "top.h"'
spelled "a macro naming the header" '#define H "top.h"' '#include H'
spelled "a macro naming a macro" '#define H2 <top.h>' '#define H H2' '#include H'
spelled "angle brackets naming a project header" '#include <top.h>'
spelled "a directive after a block comment line" '/* a' '*/ #include "top.h"'
spelled "the line of the include named" 'int x;' '#include "top.h"'
expect "the line of the include named" 1 'src/sub/y.c:2: #include "top.h"'

# 11. what gcc does not follow is no edge: a // comment ended by a backslash swallows the next
# line (phase 2 before phase 3), ??/ is that backslash, <stdio.h> is the system's, and a
# macro defined after its last use changes nothing. (Under #if 0 an include still counts, on
# purpose: every branch does, see the checker's header; gcc would not follow it.)
base unseen
put "$t/unseen" src/sub/y.c '// a note \' '#include "top.h"' '/* ??/' '*/' \
    '// and ??/' '#include "top.h"' '#include <stdio.h>' '#define Q "top.h" /* later */'
if [ "$have_gcc" = 1 ] && gcc_follows unseen src/sub/y.c src/top.h; then
    bad "a // comment continued by a backslash: gcc follows it (the case is wrong)"
else
    run unseen src
    expect "a // comment continued by a backslash, and a system header" 0 "0 back-arrows" \
        "structure-check: ok"
fi

# 12. a macro this check cannot expand (defined elsewhere, or function-like): an error
base computed
put "$t/computed" src/sub/y.c '#include "sub/x.h"' '#include HDR'
run computed src
expect "an include through a macro not defined in the file" 1 \
    'src/sub/y.c:2: #include HDR: a computed include this check cannot follow' \
    "1 includes not followed"
put "$t/computed" src/sub/y.c '#define F(x) #x' '#include F(top.h)'
run computed src
expect "an include through a function-like macro" 1 'src/sub/y.c:2: #include F(top.h): a computed'

# 13. -M BUILD: the build's .d files (gcc -MMD -MP), what gcc read for each source, held
# against this check's own reading. dep TREE SOURCE HEADER...: TREE/build/SOURCE's .d as gcc
# writes it (the rule over two lines, then -MP's empty rule for each header)
dep() {
    d=$1/build/${2%.*}.d; o=build/${2%.*}.o; src=$2; shift 2
    mkdir -p "$(dirname "$d")"
    { printf '%s: %s \\\n' "$o" "$src"; printf ' %s' "$@"; printf '\n'
      for h in "$@"; do printf '%s:\n' "$h"; done; } > "$d"
}
# 13a. no .d files (a fresh clone; CI's structure-check before its build): one line, skipped
base gccview
run gccview -M build src
expect "no build folder" 0 "gcc's view: no .d file under build (no build there yet): skipped" \
    "structure-check: ok"
mkdir -p "$t/gccview/build/src"
run gccview -M build src
expect "a build folder without .d files" 0 "no .d file under build" "structure-check: ok"
# 13b. .d files that agree: top.c read sub/x.h and, through it, util.h (transitive, as gcc lists)
dep "$t/gccview" src/top.c src/top.h src/sub/x.h src/util.h
dep "$t/gccview" src/sub/x.c src/sub/x.h src/util.h
dep "$t/gccview" src/util.c src/util.h
run gccview -M build src
expect "a .d that agrees" 0 "gcc's view (build): 3 .d files of src, 6 headers read, 0 not reached" \
    "0 private ones from outside" "structure-check: ok"
# ... and where gcc is here, the .d files gcc itself writes for the tree agree
if [ "$have_gcc" = 1 ]; then
    rm -rf "$t/gccview/build"; mkdir -p "$t/gccview/build/src/sub"
    for c in src/top.c src/sub/x.c src/util.c; do
        (cd "$t/gccview" && ${CC:-gcc} -std=c11 -MM -MP -Isrc -MT "build/${c%.c}.o" \
            -MF "build/${c%.c}.d" "$c") || bad "gcc -MM $c"
    done
    run gccview -M build src
    expect "the .d files gcc -MM writes" 0 "3 .d files of src, 6 headers read, 0 not reached" \
        "structure-check: ok"
fi
# 13c. an edge gcc recorded that this check did not see (as a misread include would leave):
# util.c read top.h; named with the .d file; the circle it makes on gcc's edges too
dep "$t/gccview" src/top.c src/top.h src/sub/x.h src/util.h
dep "$t/gccview" src/util.c src/util.h src/top.h
run gccview -M build src
expect "a .d naming an include this check did not see" 1 \
    "build/src/util.d: gcc read src/top.h for src/util.c, which this check's reading of the includes does not reach" \
    "gcc's edges make a circle (not one of this check's): src/sub/x src/top src/util" \
    "gcc's edges make a back-arrow src/util -> src/top (not one of this check's)" \
    "build/src/util.d: src/util.c read src/top.h" "1 headers not reached here"
# 13d. a stale .d (its source edited since the build) is skipped, not held against the tree;
# so is one whose source is gone
touch -t 200001010000 "$t/gccview/build/src/util.d"
run gccview -M build src
expect "a .d older than its source" 0 "2 .d files of src, 5 headers read" \
    "1 stale ones (a file they name is newer or gone" "structure-check: ok"
dep "$t/gccview" src/gone.c src/top.h src/util.h
run gccview -M build src
expect "a .d of a source that is gone" 0 "2 stale ones" "structure-check: ok"
rm -f "$t/gccview/build/src/gone.d" "$t/gccview/build/src/util.d"
# 13e. a private header reached from outside its folder through the folder's public header:
# the includes, one by one, are allowed (x.h is in sub/); what top.c reads is not
put "$t/gccview" src/sub/internal.h '/* sub only */'
put "$t/gccview" src/sub/x.h '#include "util.h"' '#include "internal.h"'
run gccview src
expect "a private header behind a public one, without -M" 0 "structure-check: ok"
dep "$t/gccview" src/top.c src/top.h src/sub/x.h src/util.h src/sub/internal.h
dep "$t/gccview" src/sub/x.c src/sub/x.h src/util.h src/sub/internal.h
run gccview -M build src
expect "a private header gcc read from outside its folder" 1 \
    "build/src/top.d: src/sub/internal.h is private to src/sub/, but gcc read it for src/top.c (src/top.c -> src/sub/x.h -> src/sub/internal.h)" \
    "1 private ones from outside"
case $out in *x.d:*) bad "gcc's view: sub/x.c, inside the folder, was named: $out" ;; esac
# ... included directly from outside: said once, at the include (rooms), not again from the .d
put "$t/gccview" src/sub/x.h '#include "util.h"'
put "$t/gccview" src/top.c '#include "top.h"' '#include "sub/x.h"' '#include "sub/internal.h"'
dep "$t/gccview" src/top.c src/top.h src/sub/x.h src/util.h src/sub/internal.h
run gccview -M build src
expect "a private header included from outside, with -M" 1 \
    'src/sub/internal.h is private to src/sub/, but src/top.c:3: #include "sub/internal.h"' \
    "0 private ones from outside"
# 13f. a source outside ROOT and the -I folders (a test, a generated file) is not read: its
# .d is counted, not checked (tests open a room on purpose)
put "$t/gccview" src/top.c '#include "top.h"' '#include "sub/x.h"'
dep "$t/gccview" src/top.c src/top.h src/sub/x.h src/util.h
put "$t/gccview" tests/t.c '#include "sub/internal.h"'
dep "$t/gccview" tests/t.c src/sub/internal.h
run gccview -M build src
expect "a .d of a test" 0 "1 .d files of other sources (tests, generated) not read" "structure-check: ok"
# 13g. a file under BUILD named .d that gcc did not write: an error naming it; -M twice: usage
printf 'not a rule\n' > "$t/gccview/build/src/odd.d"
run gccview -M build src
expect "a .d without a rule" 1 "build/src/odd.d:1: no rule \"OBJECT: SOURCE HEADER...\"" "1 .d files not read"
run gccview -M build -M other src
expect "-M twice" 2 "-M given twice ('build', 'other')"

done_tests
