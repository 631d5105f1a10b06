#!/bin/sh
# docs-gen-test: scripts/docs-gen.sh --check fails when a generated part of the README or the
# man page differs from what the tool prints (an option row added, a line edited by hand) or
# its markers are gone, and passes once docs-gen has rewritten it; it fails when a TB_*
# variable the code reads has no entry in the man page's ENVIRONMENT section; the tree's own
# documents pass. usage: tests/docs-gen-test.sh BIN
set -u
bin=${1:?usage: tests/docs-gen-test.sh BIN}
top=$(cd "$(dirname "$0")/.." && pwd)
gen=$top/scripts/docs-gen.sh
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tb-docs-test-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { echo "docs-gen-test: ok: $1"; pass=$((pass + 1)); }
bad() { echo "docs-gen-test: FAIL: $1" >&2; fail=$((fail + 1)); }
fresh() { rm -rf "$tmp/t"; mkdir -p "$tmp/t/doc"; cp "$top/README.md" "$tmp/t/"; cp "$top/doc/transpose-bench.1" "$tmp/t/doc/"; }

fresh
"$gen" --check "$bin" "$tmp/t" > /dev/null 2>&1 && ok "the tree's documents are what the tool prints" \
    || bad "the tree's documents differ from the tool (run make docs-gen)"

# a row of the README's table edited by hand (an option dropped): check fails naming the part
fresh
sed -i 's/^| `transpose-bench list \[--columns\] \[--images DIR\]/| `transpose-bench list [--columns]/' "$tmp/t/README.md"
if cmp -s "$top/README.md" "$tmp/t/README.md"; then bad "the README edit did not apply"; fi
out=$("$gen" --check "$bin" "$tmp/t" 2>&1); rc=$?
[ "$rc" = 1 ] && printf '%s' "$out" | grep -q "README.md: the readme part is not what the tool prints" \
    && ok "a README row edited by hand fails the check" || bad "README drift not caught (rc $rc): $out"
# docs-gen writes it back, then the check passes
"$gen" "$bin" "$tmp/t" > /dev/null && "$gen" --check "$bin" "$tmp/t" > /dev/null 2>&1 \
    && cmp -s "$top/README.md" "$tmp/t/README.md" && ok "docs-gen rewrites the part" || bad "docs-gen did not restore the README"

# the man page's options missing an option (power --set, as #40 found)
fresh
awk '/^\.SS power$/ { p = 1 } p && /^\\fB\\-\\-set\\fR/ { skip = 2 } skip > 0 { skip--; next } { print }' \
    "$top/doc/transpose-bench.1" > "$tmp/t/doc/transpose-bench.1"
if cmp -s "$top/doc/transpose-bench.1" "$tmp/t/doc/transpose-bench.1"; then bad "the man page edit did not apply"; fi
out=$("$gen" --check "$bin" "$tmp/t" 2>&1); rc=$?
[ "$rc" = 1 ] && printf '%s' "$out" | grep -q "transpose-bench.1: the man-options part" \
    && ok "the man page missing an option fails the check" || bad "man page drift not caught (rc $rc): $out"

# a TB_* variable the code reads with no entry in the man page's ENVIRONMENT section: one the
# tree's code reads, its entry taken out; one a source file names that the page never had
fresh
awk '$0 == ".B TB_SETTLE_TIMEOUT_S" { skip = 1; next } skip && /^\.TP$/ { skip = 0 } !skip { print }' \
    "$top/doc/transpose-bench.1" > "$tmp/t/doc/transpose-bench.1"
grep -q '^\.B TB_SETTLE_TIMEOUT_S$' "$tmp/t/doc/transpose-bench.1" && bad "the man page edit did not apply"
out=$("$gen" --check "$bin" "$tmp/t" 2>&1); rc=$?
[ "$rc" = 1 ] && printf '%s' "$out" | grep -q "TB_SETTLE_TIMEOUT_S (read by src/jetson/child.c:[0-9]*) has no entry in the ENVIRONMENT" \
    && ok "a variable the code reads, its man page entry gone, fails the check" || bad "missing TB_SETTLE_TIMEOUT_S not caught (rc $rc): $out"
fresh
mkdir "$tmp/t/src"
printf '%s\n' '#include <stdlib.h>' 'const char *knob(void) { return getenv("TB_NEW_KNOB"); }' > "$tmp/t/src/knob.c"
out=$("$gen" --check "$bin" "$tmp/t" 2>&1); rc=$?
[ "$rc" = 1 ] && printf '%s' "$out" | grep -q "TB_NEW_KNOB (read by src/knob.c:2) has no entry" \
    && ok "a new variable in the code without a man page entry fails the check" || bad "TB_NEW_KNOB not caught (rc $rc): $out"

# a marker gone: an error, nothing written
fresh
sed -i '/^<!-- end of generated: readme -->$/d' "$tmp/t/README.md"
cp "$tmp/t/README.md" "$tmp/before"
out=$("$gen" "$bin" "$tmp/t" 2>&1); rc=$?
[ "$rc" = 1 ] && printf '%s' "$out" | grep -q "expected one" && cmp -s "$tmp/before" "$tmp/t/README.md" \
    && ok "a missing marker is an error, nothing written" || bad "missing marker (rc $rc): $out"

# a README of 120 lines or more fails the check
fresh
i=0; while [ $i -lt 120 ]; do echo >> "$tmp/t/README.md"; i=$((i + 1)); done
"$gen" --check "$bin" "$tmp/t" > "$tmp/out" 2>&1; rc=$?
[ "$rc" = 1 ] && grep -q "120 at most" "$tmp/out" && ok "a README over 120 lines fails" || bad "long README passed (rc $rc)"

echo "docs-gen-test: $pass passed, $fail failed"
[ "$fail" = 0 ]
