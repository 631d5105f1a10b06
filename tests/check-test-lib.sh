# check-test-lib.sh: what the checkers' own tests (structure-check-test.sh, size-check-test.sh)
# share, sourced with `name` set to the test's name: a scratch folder $t removed at exit, the
# ok/bad counters, has, expect (on the out and rc a test's own run() sets), done_tests, the
# summary line and the exit status, and tree_copy (install-test.sh, install-test-test.sh).
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
# tree_copy FROM TO: the source tree FROM copied into the new folder TO: the tree as git sees
# it (tracked files, and untracked ones not ignored: an uncommitted change is copied) when
# FROM is a git checkout of its own, else everything but the build outputs (.gitignore's
# names). Never FROM's build folders, which other processes may be writing.
tree_copy() {
    mkdir "$2" || return 1
    if [ "$(git -C "$1" rev-parse --show-toplevel 2>/dev/null)" = "$1" ]; then
        (cd "$1" && git ls-files -z -c -o --exclude-standard | tar --null -T - --ignore-failed-read -cf -)
    else
        (cd "$1" && tar --exclude=./.git --exclude=./build --exclude='./build-*' --exclude=./dist \
            --exclude=./transpose-bench --exclude=./.deps --exclude=./fleet-logs -cf - .)
    fi 2>/dev/null | tar -C "$2" -xf - && [ -f "$2/Makefile" ]
}
