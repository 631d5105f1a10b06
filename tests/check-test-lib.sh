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
# it (tracked files that are there, and untracked ones not ignored: an uncommitted change is
# copied) when FROM is a git checkout of its own (FROM/.git), else everything but the build
# outputs (.gitignore's names). Never FROM's build folders, which other processes may be
# writing. A checkout git will not list (root in another user's checkout: "dubious
# ownership") is an error, not a copy of everything: its ignored folders would come too, and
# root runs no git over a checkout another user owns. tar's errors fail the copy, shown.
tree_copy() {
    mkdir "$2" || return 1
    tc_tmp=$(mktemp -d "${TMPDIR:-/tmp}/tb-tree-copy-XXXXXX") || return 1
    if [ -e "$1/.git" ] &&
       ! (cd "$1" && git ls-files -z -c -o --exclude-standard) > "$tc_tmp/list" 2> "$tc_tmp/err"; then
        echo "tree_copy: git cannot list the files of '$1': not copied (without git's list its" \
             "ignored build folders would come too; another user's checkout: run as its owner):" >&2
        cat "$tc_tmp/err" >&2; rm -rf "$tc_tmp"; return 1
    fi
    if [ -e "$1/.git" ]; then
        # a tracked file deleted in the work tree is left out (the tree as it is), quietly
        (cd "$1" && xargs -0 -r sh -c 'for f; do if [ -e "$f" ] || [ -L "$f" ]; then
            printf "%s\0" "$f"; fi; done' sh < "$tc_tmp/list" | tar --null -T - -cf "$tc_tmp/tree.tar")
    else
        (cd "$1" && tar --exclude=./.git --exclude=./build --exclude='./build-*' --exclude=./dist \
            --exclude=./transpose-bench --exclude=./.deps --exclude=./fleet-logs -cf "$tc_tmp/tree.tar" .)
    fi 2> "$tc_tmp/err" && tar -C "$2" -xf "$tc_tmp/tree.tar" 2>> "$tc_tmp/err"
    tc_rc=$?
    [ "$tc_rc" = 0 ] || { echo "tree_copy: tar could not copy '$1' to '$2' (exit $tc_rc):" >&2; cat "$tc_tmp/err" >&2; }
    rm -rf "$tc_tmp"
    [ "$tc_rc" = 0 ] || return 1
    [ -f "$2/Makefile" ] || { echo "tree_copy: '$2' has no Makefile: '$1' is no checkout of this project" >&2; return 1; }
}
