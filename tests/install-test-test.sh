#!/bin/sh
# install-test-test.sh BIN: install-test.sh's check that `make install` writes nothing into the
# checkout, itself tested on a stand-in for the user's checkout (a copy of this one, made
# here): it passes while another process writes a build folder and a tarball into that
# checkout meanwhile (as .ci/run's dist-check and fleet-test beside it did, #59), and it still
# fails when install writes into the checkout it runs from ("dir/" and "prefix/" in its
# working folder, as the old install did with a blank in PREFIX). Each write is made by a
# `make` on PATH that writes before it runs the real one: by order, never by timing.
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
