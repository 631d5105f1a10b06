#!/bin/sh
# dist-repro.sh [BOARD]: the tarball is the same bytes wherever it is built (issue #30): the
# committed HEAD built in two checkouts of different paths, `make dist BOARD=boards/<board>.cfg`
# (default jetson-nano) in each, the second as another user when run as root (nobody, whose
# $HOME does not exist: zig's cache must not need one), each with its own venv and zig cache;
# the two tarballs' sha256 compared, and on a difference the members that differ named.
# The first is this checkout's own tarball when one is here built from HEAD as committed (its
# INSTALL's revision HEAD's, not -dirty: what make dist-check has just built, the build a
# clone would repeat, #59), else HEAD cloned into a path of its own; the second always a
# clone, in a longer path. Run by make dist-check and make dist-repro. Uncommitted changes
# are not in the clones.
set -u
board=${1:-jetson-nano}
top=$(cd "$(dirname "$0")/.." && pwd)
base=$(mktemp -d "${TMPDIR:-/tmp}/tb-repro.XXXXXX")
chmod 755 "$base"
trap '[ "${fails:-1}" = 0 ] && rm -rf "$base" || echo "dist-repro: kept $base (both checkouts, their logs)"' EXIT
a=$base/a
b=$base/a-much-longer-checkout-path/transpose-bench
mkdir -p "$(dirname "$b")"
name=$(sed -n 's/^[[:space:]]*name[[:space:]]*=[[:space:]]*"\([^"]*\)".*/\1/p' "$top/boards/$board.cfg" | head -n 1)
head=$(git -C "$top" rev-parse --short=12 HEAD) || { echo "dist-repro: FAILED: no git HEAD in $top"; exit 1; }
own=$top/dist/transpose-bench-$name.tar.gz
own_rev=$(tar -xzOf "$own" "transpose-bench-$name/INSTALL" 2>/dev/null | sed -n '1s/.*, git \([^ ,]*\), dated .*/\1/p')
[ "$own_rev" = "$head" ] || {
    [ -f "$own" ] && echo "dist-repro: the first is a fresh clone (this checkout's $(basename "$own") is at '${own_rev:-?}', not $head)"
    own=""; }
git clone -q --no-hardlinks "$top" "$b" || { echo "dist-repro: FAILED: git clone"; exit 1; }
[ -n "$own" ] || git clone -q --no-hardlinks "$top" "$a" || { echo "dist-repro: FAILED: git clone"; exit 1; }
# (asked before b changes owner: git, as root, refuses a repository another user owns)
[ "$(git -C "$b" rev-parse HEAD)" = "$(git -C "$top" rev-parse HEAD)" ] || { echo "dist-repro: FAILED: the clone is not at HEAD"; exit 1; }
as_b=""
if [ "$(id -u)" = 0 ] && command -v runuser >/dev/null 2>&1; then
    chown -R nobody "$base/a-much-longer-checkout-path"
    chmod 755 "$base/a-much-longer-checkout-path"
    as_b="runuser -u nobody -- env HOME=/nonexistent"
fi
build() {   # dir runner...
    d=$1; shift
    (cd "$d" && "$@" make --no-print-directory dist BOARD=boards/$board.cfg) > "$d.log" 2>&1
}
fails=1
# the first takes its images from this checkout's cache (build-images/, where dist-check
# just compiled them), the second compiles its own in its own path: the images too must be
# the same bytes from two paths, and one compile of them is spared (#59)
if [ -n "$own" ]; then
    ta=$own
    echo "dist-repro: the first is this checkout's $(basename "$own") (built at $head, as committed)"
else
    build "$a" env IMAGE_CACHE="$top/build-images" || { tail -n 20 "$a.log"; echo "dist-repro: FAILED: make dist in $a"; exit 1; }
    ta=$a/dist/transpose-bench-$name.tar.gz
fi
build "$b" $as_b || { tail -n 20 "$b.log"; echo "dist-repro: FAILED: make dist in $b${as_b:+ as nobody}"; exit 1; }
tb=$b/dist/$(basename "$ta")
sa=$(sha256sum < "$ta" | cut -c1-64); sb=$(sha256sum < "$tb" | cut -c1-64)
echo "dist-repro: $ta: $sa"
echo "dist-repro: $tb${as_b:+ (as nobody)}: $sb"
if [ "$sa" = "$sb" ]; then
    fails=0
    echo "dist-repro: ok: the two tarballs are the same bytes ($(wc -c < "$ta") bytes, revision $(git -C "$top" rev-parse --short=12 HEAD))"
else
    mkdir -p "$base/xa" "$base/xb"
    tar xzf "$ta" -C "$base/xa" && tar xzf "$tb" -C "$base/xb"
    diff -r "$base/xa" "$base/xb" | head -n 10
    tar tvzf "$ta" > "$base/la"; tar tvzf "$tb" > "$base/lb"; diff "$base/la" "$base/lb" | head -n 10
    for f in $(cd "$base/xa" && find . -type f); do
        cmp -s "$base/xa/$f" "$base/xb/$f" || {
            echo "dist-repro: differs: $f"
            case $f in *transpose-bench) strings "$base/xa/$f" | grep -F "$base" | head -n 5 ;; esac; }
    done
    grep -h '^kernel-images: sm_\|^make dist: wrote' "$b.log" $([ -n "$own" ] || echo "$a.log")
    echo "dist-repro: FAILED: the tarballs differ"
fi
[ "$fails" = 0 ]
