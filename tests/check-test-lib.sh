# check-test-lib.sh: what the checkers' own tests (structure-check-test.sh, size-check-test.sh)
# share, sourced with `name` set to the test's name: a scratch folder $t removed at exit, the
# ok/bad counters, has, expect (on the out and rc a test's own run() sets), and done_tests,
# the summary line and the exit status.
t=$(mktemp -d "${TMPDIR:-/tmp}/tb-$name.XXXXXX")
trap 'rm -rf "$t"' EXIT
fails=0; passes=0
ok() { passes=$((passes + 1)); echo "$name: ok: $*"; }
bad() { fails=$((fails + 1)); echo "$name: FAILED: $*"; }
has() { printf '%s\n' "$1" | grep -q -F -- "$2"; }
expect() {   # what rc text...: out must hold every text, rc must be rc
    what=$1; want=$2; shift 2
    if [ "$rc" != "$want" ]; then bad "$what: exit $rc, expected $want"; printf '%s\n' "$out"; return; fi
    for s in "$@"; do
        has "$out" "$s" || { bad "$what: no '$s' in:"; printf '%s\n' "$out"; return; }
    done
    ok "$what"
}
done_tests() {
    echo "$name: $passes passed, $fails failed"
    [ "$fails" = 0 ]
}
