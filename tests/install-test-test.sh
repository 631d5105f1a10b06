#!/bin/sh
# install-test-test.sh BIN: install-test.sh's check that `make install` writes nothing into the
# checkout, itself tested on a stand-in for the user's checkout (a copy of this one, made
# here): it passes while another process writes a build folder and a tarball into that
# checkout meanwhile (as .ci/run's dist-check and fleet-test beside it did, #59), and it still
# fails when install writes into the checkout it runs from ("dir/" and "prefix/" in its
# working folder, as the old install did with a blank in PREFIX). Each write is made by a
# `make` on PATH that writes before it runs the real one: by order, never by timing. First,
# the copy itself (tests/check-test-lib.sh's tree_copy) on a small checkout: git's list (no
# ignored file, a deleted one left out), a checkout git refuses (an error, nothing copied),
# and tar failing (the copy fails, tar's message shown; a stand-in tar that fails after the
# real one wrote its archive, as tar does on a file it cannot read: root reads every file).
# Run by test_e2e_commands (make test).
set -u
top=$(cd -P "$(dirname "$0")/.." && pwd -P)
name=install-test-test
. "$top/tests/check-test-lib.sh"
bin=${1:?usage: install-test-test.sh BIN}
case $bin in /*) ;; *) bin=$top/$bin ;; esac
real_make=$(command -v make) || { bad "no make on PATH"; done_tests; exit; }
tree=$t/user-checkout
tree_copy "$top" "$tree" || { bad "could not copy $top to $tree"; done_tests; exit; }

# tree_copy's own cases, on a small checkout: tracked, untracked, ignored and deleted files
repo=$t/repo
mkdir -p "$repo/logs" && git init -q "$repo" &&
    printf 'all:\n' > "$repo/Makefile" && printf 'logs/*\n' > "$repo/.gitignore" &&
    echo kept > "$repo/gone.txt" && git -C "$repo" add Makefile .gitignore gone.txt &&
    rm "$repo/gone.txt" && echo new > "$repo/new.txt" && echo night > "$repo/logs/night.csv.gz" ||
    bad "could not make the small checkout"
tree_copy "$repo" "$t/copy-plain" 2> "$t/err"; rc=$?; out=$(cat "$t/err")
[ -f "$t/copy-plain/new.txt" ] && [ ! -e "$t/copy-plain/logs/night.csv.gz" ] && [ ! -e "$t/copy-plain/gone.txt" ]
present=$?
expect "tree_copy: tracked and untracked files, no ignored one, a deleted one left out quietly" 0
[ "$present" = 0 ] && ok "tree_copy: what the copy holds" || bad "tree_copy: the copy holds: $(cd "$t/copy-plain" && find . | sort | tr '\n' ' ')"
# a checkout git refuses (root in another user's: git's own refusal, through its test knob)
GIT_TEST_ASSUME_DIFFERENT_OWNER=1 tree_copy "$repo" "$t/copy-refused" 2> "$t/err"; rc=$?; out=$(cat "$t/err")
expect "tree_copy: a checkout git refuses to read is an error" 1 \
    "tree_copy: git cannot list the files of '$repo': not copied" "dubious ownership"
[ -e "$t/copy-refused/logs/night.csv.gz" ] && bad "tree_copy: a refused checkout's ignored files were copied" ||
    ok "tree_copy: nothing of a refused checkout copied"
# tar failing while it writes the archive (as on a file it cannot read: the archive written
# without it, exit 2): a `tar` on PATH that says so after the real one
real_tar=$(command -v tar)
mkdir -p "$t/badtar"
printf '%s\n' '#!/bin/sh' 'case " $* " in *" -cf "*)' "    '$real_tar' \"\$@\" || exit" \
    '    echo "tar: ./Makefile: Cannot open: Permission denied" >&2; exit 2;; esac' \
    "exec '$real_tar' \"\$@\"" > "$t/badtar/tar"
chmod 755 "$t/badtar/tar"
for how in "a git checkout" "no git checkout"; do   # git's list, then tar's own walk
    [ "$how" = "no git checkout" ] && rm -rf "$repo/.git" "$t/copy-badtar"
    PATH="$t/badtar:$PATH" tree_copy "$repo" "$t/copy-badtar" 2> "$t/err"; rc=$?; out=$(cat "$t/err")
    expect "tree_copy, $how: tar's failure fails the copy, its message shown" 1 \
        "tree_copy: tar could not copy '$repo' to '$t/copy-badtar' (exit 2):" "./Makefile: Cannot open: Permission denied"
done

# a `make` that runs the shell command WRITE first, then make
wrapper() {   # DIR WRITE
    mkdir -p "$1"
    printf '%s\n' '#!/bin/sh' "$2 &&" "exec '$real_make' \"\$@\"" > "$1/make"
    chmod 755 "$1/make"
}

# another process writes into the user's checkout while its install test runs: a build
# folder and a tarball, as dist-check does
wrapper "$t/beside" "mkdir -p '$tree/build-dist-planted' && echo planted > '$tree/dist-planted.tar.gz'"
out=$(PATH="$t/beside:$PATH" "$tree/tests/install-test.sh" "$bin" 2>&1); rc=$?
[ -d "$tree/build-dist-planted" ] && [ -f "$tree/dist-planted.tar.gz" ] &&
    ok "the other writer wrote into the checkout" || bad "the other writer wrote nothing: the case proves nothing"
expect "install-test passes beside another writer of the checkout" 0 \
    "install-test: ok: install: nothing written into the checkout" \
    "install-test: ok: install and uninstall, twice: nothing written into the checkout"

# install itself writes into the checkout it runs from
rm -rf "$tree/build-dist-planted" "$tree/dir" "$tree/prefix" "$tree/dist-planted.tar.gz"
wrapper "$t/inside" "mkdir -p dir prefix"
out=$(PATH="$t/inside:$PATH" "$tree/tests/install-test.sh" "$bin" 2>&1); rc=$?
expect "install-test fails when install writes into its checkout" 1 \
    "install-test: FAILED: install: the checkout changed:" "./prefix" "./dir"
done_tests
