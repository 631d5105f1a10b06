#!/bin/sh
# install-test.sh: make install and make uninstall with a blank in PREFIX (and in DESTDIR):
# install writes only under the prefix, never into the checkout; uninstall removes what
# install installed (its list, DATADIR/installed-files) and nothing else: an unrelated file
# named by the prefix's first word, a file of the user's beside the installed ones, a name
# planted in the list. Usage: tests/install-test.sh BIN (a built binary; never rebuilt: -o).
# Run by test_e2e_commands (make test); tests/install-test-test.sh tests this check itself.
#
# make install and uninstall run in a copy of this checkout, made here, and the copy is
# compared whole (every entry: type, mode, size, time) before and after: what the old install
# left in the checkout it ran from ("dir/" and "prefix/", a PREFIX split at its blank) lands in
# the copy and is caught, wherever in the tree it lands. Comparing the checkout itself could
# not tell install's writes from those of another process working there at the same time
# (.ci/run's stages side by side: dist-check's build-dist-*/ and tarballs failed this test,
# #59), and a test that passes or fails by another's timing asserts nothing.
set -u
top=$(cd -P "$(dirname "$0")/.." && pwd -P)
name=install-test
. "$top/tests/check-test-lib.sh"
bin=${1:?usage: install-test.sh BIN}
case $bin in /*) ;; *) bin=$top/$bin ;; esac     # the checkout's own, run from the copy

# the copy (tests/check-test-lib.sh: the tree as git sees it, or without git all but the
# build outputs)
src=$t/checkout
tree_copy "$top" "$src" || { bad "could not copy $top to $src"; done_tests; exit; }
snapshot() { (cd "$src" && find . -printf '%y %m %s %T@ %p\n' | LC_ALL=C sort); }
before=$(snapshot)
echo "not ours" > "$t/my"                      # what "$t/my prefix" split at the blank names
mkdir -p "$t/dest dir"
echo "not ours either" > "$t/dest"
prefix="$t/my prefix/opt"
data="$t/dest dir$prefix/share/transpose-bench"
out=$(cd "$src" && make -s -o "$bin" install BIN="$bin" DESTDIR="$t/dest dir" PREFIX="$prefix" 2>&1); rc=$?
expect "install with blanks in PREFIX and DESTDIR" 0
for f in "$t/dest dir$prefix/bin/transpose-bench" "$data/boards/jetson-nano.cfg" \
         "$data/conf/default.cfg" "$t/dest dir$prefix/share/man/man1/transpose-bench.1" \
         "$data/installed-files"; do
    [ -f "$f" ] && ok "installed: $f" || bad "not installed: $f"
done
unchanged() {   # WHAT: the copy as it was before install
    after=$(snapshot)
    [ "$before" = "$after" ] && ok "$1: nothing written into the checkout" ||
        bad "$1: the checkout changed: $(printf '%s\n' "$after" | grep -vxF -- "$before" | sed 's/^[^ ]* [^ ]* [^ ]* [^ ]* //')"
}
unchanged install
grep -qxF "$prefix/bin/transpose-bench" "$data/installed-files" && ok "the list names the binary" ||
    bad "the list lacks the binary"

echo "mine" > "$data/boards/mine.cfg"           # the user's own file beside ours
printf '%s\n' "$t/my" "$prefix/share/transpose-bench/../../../../my" >> "$data/installed-files"
out=$(cd "$src" && make -s uninstall DESTDIR="$t/dest dir" PREFIX="$prefix" 2>&1); rc=$?
expect "uninstall with blanks" 0 "removed $t/dest dir$prefix/bin/transpose-bench" \
    "'$t/my' left (not a file install installs)" "/../../../../my' left"
[ "$(cat "$t/my")" = "not ours" ] && ok "the unrelated file the prefix's first word names is kept" ||
    bad "$t/my was removed or changed"
[ "$(cat "$t/dest")" = "not ours either" ] && ok "the unrelated file DESTDIR's first word names is kept" ||
    bad "$t/dest was removed or changed"
[ -f "$data/boards/mine.cfg" ] && ok "the user's file in boards/ is kept" || bad "boards/mine.cfg removed"
for f in "$t/dest dir$prefix/bin/transpose-bench" "$data/boards/jetson-nano.cfg" \
         "$data/conf/default.cfg" "$t/dest dir$prefix/share/man/man1/transpose-bench.1" \
         "$data/installed-files"; do
    [ -e "$f" ] && bad "left installed: $f" || ok "removed: $f"
done
rm -f "$data/boards/mine.cfg"

# again with nothing of the user's: the data folder goes whole; bin/ and man1/ (shared) stay
out=$(cd "$src" && make -s -o "$bin" install BIN="$bin" DESTDIR="$t/dest dir" PREFIX="$prefix" 2>&1 &&
      make -s uninstall DESTDIR="$t/dest dir" PREFIX="$prefix" 2>&1); rc=$?
expect "install then uninstall" 0
[ -e "$data" ] && bad "$data left" || ok "the data folder removed when it holds nothing else"
[ -d "$t/dest dir$prefix/bin" ] && ok "bin/ kept (other programs' folder)" || bad "bin/ removed"
unchanged "install and uninstall, twice"
done_tests
