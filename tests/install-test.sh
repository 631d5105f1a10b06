#!/bin/sh
# install-test.sh: make install and make uninstall with a blank in PREFIX (and in DESTDIR):
# install writes only under the prefix, never into the checkout; uninstall removes what
# install installed (its list, DATADIR/installed-files) and nothing else: an unrelated file
# named by the prefix's first word, a file of the user's beside the installed ones, a name
# planted in the list. Usage: tests/install-test.sh BIN (a built binary; never rebuilt: -o).
# Run by test_e2e_commands (make test).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
name=install-test
. "$top/tests/check-test-lib.sh"
bin=${1:?usage: install-test.sh BIN}

# the checkout's top entries and git's view (empty folders, which git does not show, were
# what the old install left there: "dir/" and "prefix/")
before=$(ls -A "$top"; cd "$top" && git status --porcelain --ignored 2>/dev/null | sort)
echo "not ours" > "$t/my"                      # what "$t/my prefix" split at the blank names
mkdir -p "$t/dest dir"
echo "not ours either" > "$t/dest"
prefix="$t/my prefix/opt"
data="$t/dest dir$prefix/share/transpose-bench"
out=$(cd "$top" && make -s -o "$bin" install BIN="$bin" DESTDIR="$t/dest dir" PREFIX="$prefix" 2>&1); rc=$?
expect "install with blanks in PREFIX and DESTDIR" 0
for f in "$t/dest dir$prefix/bin/transpose-bench" "$data/boards/jetson-nano.cfg" \
         "$data/conf/default.cfg" "$t/dest dir$prefix/share/man/man1/transpose-bench.1" \
         "$data/installed-files"; do
    [ -f "$f" ] && ok "installed: $f" || bad "not installed: $f"
done
after=$(ls -A "$top"; cd "$top" && git status --porcelain --ignored 2>/dev/null | sort)
[ "$before" = "$after" ] && ok "nothing written into the checkout" ||
    bad "the checkout changed: $(printf '%s\n' "$after" | grep -vxF "$before")"
grep -qxF "$prefix/bin/transpose-bench" "$data/installed-files" && ok "the list names the binary" ||
    bad "the list lacks the binary"

echo "mine" > "$data/boards/mine.cfg"           # the user's own file beside ours
printf '%s\n' "$t/my" "$prefix/share/transpose-bench/../../../../my" >> "$data/installed-files"
out=$(cd "$top" && make -s uninstall DESTDIR="$t/dest dir" PREFIX="$prefix" 2>&1); rc=$?
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
out=$(cd "$top" && make -s -o "$bin" install BIN="$bin" DESTDIR="$t/dest dir" PREFIX="$prefix" 2>&1 &&
      make -s uninstall DESTDIR="$t/dest dir" PREFIX="$prefix" 2>&1); rc=$?
expect "install then uninstall" 0
[ -e "$data" ] && bad "$data left" || ok "the data folder removed when it holds nothing else"
[ -d "$t/dest dir$prefix/bin" ] && ok "bin/ kept (other programs' folder)" || bad "bin/ removed"
done_tests
