#!/bin/sh
# size-check-test.sh: scripts/size-check.sh on throwaway trees whose answer is known: a file
# of 700 lines and a function of 80 pass, 701 and 81 fail naming the file, the line and the
# function; a function is counted from the line naming it (a multi-line signature included)
# and found whether its '{' stands alone or ends the signature; initialisers, macros and
# kernels' .cu files are not functions or files it counts; src/ and tests/ are walked down,
# kernels/ not; with no folder named, tests/ is read too (#59);
# an allow-list entry (FILE or FILE:FUNCTION) lets an offender pass, an entry within the
# limits is noted, a bad entry is a usage error. Run by `make structure-check` (under a second).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
check=$top/scripts/size-check.sh
name=size-check-test
. "$top/tests/check-test-lib.sh"

# lines N: N lines of filler
lines() { i=0; while [ "$i" -lt "$1" ]; do echo "/* $i */"; i=$((i + 1)); done; }
# fn NAME TOTAL: a function of TOTAL lines (name line, '{', body, '}')
fn() { echo "static int $1(void)"; echo "{"; lines $(($2 - 3)); echo "}"; }
# tree NAME: an empty tree with an empty allow-list
tree() { rm -rf "$t/$1"; mkdir -p "$t/$1/src" "$t/$1/kernels" "$t/$1/tests"; : > "$t/$1/allow.txt"; }
# run TREE [ARGS...]: out and rc of the check run in TREE with TREE/allow.txt
run() {
    d=$1; shift
    out=$(cd "$t/$d" && "$check" -a allow.txt "$@" 2>&1); rc=$?
}
lacks() {    # what text: out must not hold text
    has "$out" "$2" && { bad "$1: '$2' in:"; printf '%s\n' "$out"; return; }
    ok "$1"
}

# 1. at the limits: a file of 700 lines, a function of 80, in a sub-folder of src/
tree edge
mkdir -p "$t/edge/src/sub"
{ fn eighty 80; lines 620; } > "$t/edge/src/sub/a.c"
run edge
expect "700 lines, a function of 80" 0 "1 files, 1 functions" "longest file src/sub/a.c (700 lines)" \
    "longest function src/sub/a.c:1: eighty() (80 lines)" "size-check: ok"

# 2. one over: 701 lines, 81 lines; named with file, line and function
tree over
{ lines 5; fn long_one 81; lines 615; } > "$t/over/src/a.c"
run over
expect "701 lines, a function of 81" 1 "error: src/a.c: 701 lines (over 700)" \
    "error: src/a.c:6: long_one(): 81 lines (over 80)" "FAILED: 2 over the limits"

# 3. a multi-line signature counts from its name; a '{' ending the signature line is found
tree shapes
{ echo "static const struct tb_x *"; echo "two_lines(int a,"; echo "          int b)"; echo "{"
  lines 77; echo "}"
  echo "int same_line(int a) {"; lines 79; echo "}"; } > "$t/shapes/src/a.c"
run shapes
expect "a multi-line signature, a brace on the signature line" 1 \
    "error: src/a.c:2: two_lines(): 81 lines" "error: src/a.c:83: same_line(): 81 lines"

# 4. not functions: an initialiser, a struct, a macro, one-liners; a .cu file is not read
tree other
{ echo "static const int t[] = {"; lines 90; echo "};"
  echo "struct s {"; lines 90; echo "};"
  echo "#define M(x) \\"; echo "{ \\"; lines 90 | sed 's/$/ \\/'; echo "}"
  echo "int f(void) { return 0; }"; } > "$t/other/src/a.c"
{ echo "__global__ void k(void)"; echo "{"; lines 900; echo "}"; } > "$t/other/kernels/k.cu"
run other
expect "initialisers, structs, macros, .cu" 0 "1 files, 0 functions" "size-check: ok"

# 5. src/ and tests/ are walked down, kernels/ only its own files; .h files count; with no
#    folder named, src, kernels and tests are read
tree where
mkdir -p "$t/where/src/a/b" "$t/where/kernels/deep" "$t/where/tests/sim"
lines 701 > "$t/where/src/a/b/deep.h"
lines 701 > "$t/where/kernels/top.c"
lines 701 > "$t/where/kernels/deep/skip.c"
lines 701 > "$t/where/tests/test_long.c"
fn long_test 81 > "$t/where/tests/sim/sim.c"
run where
expect "src/ and tests/ walked down, kernels/ not" 1 "error: src/a/b/deep.h: 701 lines" \
    "error: kernels/top.c: 701 lines" "error: tests/test_long.c: 701 lines" \
    "error: tests/sim/sim.c:1: long_test(): 81 lines (over 80)"
lacks "kernels/deep not read" "skip.c"

# 6. the allow-list: a file and a function allowed; a stale entry noted; a comment ignored
tree allow
{ fn long_one 81; lines 620; } > "$t/allow/src/a.c"
fn fine 10 > "$t/allow/src/b.c"
printf '%s\n' "# offenders for now" "src/a.c   # the long file" "src/a.c:long_one" "src/b.c" > "$t/allow/allow.txt"
run allow
expect "offenders allowed" 0 "allowed for now (allow.txt): src/a.c: 701 lines" \
    "allowed for now (allow.txt): src/a.c:1: long_one(): 81 lines" \
    "allow.txt:4: \"src/b.c\" is within the limits now (or gone): remove it" "2 allowed" "size-check: ok"
printf '%s\n' "src/a.c" > "$t/allow/allow.txt"
run allow
expect "a file allowed, not its function" 1 "error: src/a.c:1: long_one(): 81 lines" "FAILED: 1 over"

# 7. usage: a bad allow-list line, a missing allow-list, a missing folder, a limit given
printf '%s\n' "src/a.c long_one" > "$t/allow/allow.txt"
run allow
expect "a bad allow-list line" 2 'allow.txt:1: expected FILE or FILE:FUNCTION, got "src/a.c long_one"'
rm "$t/allow/allow.txt"
run allow
expect "no allow-list" 2 "no allow-list 'allow.txt'"
tree usage
run usage nothere
expect "a missing folder" 2 "no folder 'nothere'"
fn mid 30 > "$t/usage/src/a.c"
run usage -f 29 src
expect "-f sets the function limit" 1 "error: src/a.c:1: mid(): 30 lines (over 29)"

done_tests
