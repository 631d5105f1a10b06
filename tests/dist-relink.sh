#!/bin/sh
# dist-relink: what LGPL-2.1 section 6 asks of a tarball that links libconfig statically, done
# as a user would: the tarball unpacked, relink/README's first command run as written (gcc,
# the shipped main.o and libtb.a, this system's libconfig), and the relinked executable's
# --version the same as the shipped one's; LICENSE and the licenses of libconfig (with the
# LGPL's text) and zlib inside. An x86_64 tarball with this host's gcc, an aarch64 one with
# aarch64-linux-gnu-gcc against Debian's arm64 libconfig, run under qemu-aarch64 (said and
# skipped when those are not here). make dist-check runs it on every tarball it builds.
# usage: tests/dist-relink.sh TARBALL...
set -u
[ $# -gt 0 ] || { echo "usage: tests/dist-relink.sh dist/transpose-bench-<board>.tar.gz..."; exit 2; }
T=$(mktemp -d /tmp/tb-relink-XXXXXX)
trap 'rm -rf "$T"' EXIT
fails=0
ok() { echo "dist-relink: ok: $(basename "$tgz"): $*"; }
bad() { fails=$((fails + 1)); echo "dist-relink: FAILED: $(basename "$tgz"): $*"; }

# the notices: each file there, each the text it claims to be
notices() {   # DIR
    for f in LICENSE licenses/README licenses/libconfig.copyright licenses/LGPL-2.1 \
             licenses/zlib.copyright relink/README relink/main.o relink/libtb.a; do
        [ -s "$1/$f" ] || bad "lacks $f"
    done
    { grep -q 'GNU LESSER GENERAL PUBLIC LICENSE' "$1/licenses/LGPL-2.1" &&
      grep -q 'Version 2.1' "$1/licenses/LGPL-2.1"; } 2>/dev/null || bad "licenses/LGPL-2.1 is not the LGPL 2.1's text"
    grep -q 'MIT License' "$1/LICENSE" 2>/dev/null || bad "LICENSE is not ours"
    grep -q 'Mark A Lindner' "$1/licenses/libconfig.copyright" 2>/dev/null || bad "libconfig.copyright names not its author"
    grep -q 'Jean-loup Gailly' "$1/licenses/zlib.copyright" 2>/dev/null || bad "zlib.copyright names not its authors"
}

# the README's first command, run in relink/ as written (the cross gcc for aarch64)
relink() {   # DIR
    cmd=$(sed -n 's/^    \(gcc -o transpose-bench .*\)$/\1/p' "$1/relink/README" 2>/dev/null | head -n 1)
    [ -n "$cmd" ] || { bad "relink/README has no gcc command"; return; }
    run=""
    case $(file -b "$1/transpose-bench") in
    *aarch64*)
        if ! command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 || ! command -v qemu-aarch64 >/dev/null 2>&1 ||
           [ ! -e /usr/lib/aarch64-linux-gnu/libconfig.so ]; then
            echo "dist-relink: $(basename "$tgz"): no aarch64 gcc, qemu-aarch64 or arm64 libconfig here: its relink not tried"
            return
        fi
        cmd=$(echo "$cmd" | sed 's/^gcc /aarch64-linux-gnu-gcc /'); run="qemu-aarch64 -L /usr/aarch64-linux-gnu" ;;
    esac
    out=$(cd "$1/relink" && sh -c "$cmd" 2>&1) || { bad "'$cmd' failed: $out"; return; }
    mine=$(cd "$1" && $run relink/transpose-bench --version 2>&1)
    theirs=$(cd "$1" && $run ./transpose-bench --version 2>&1)
    if [ -n "$mine" ] && [ "$mine" = "$theirs" ]; then ok "relinked by '$cmd': --version '$(echo "$mine" | head -n 1)'"
    else bad "the relinked --version '$mine' differs from the shipped '$theirs'"; fi
    lib=$(readelf -d "$1/relink/transpose-bench" 2>/dev/null | grep -o 'libconfig\.so[^]]*')
    [ -n "$lib" ] && ok "it loads the system's libconfig: $lib" || bad "the relinked executable does not load a shared libconfig"
}

for tgz in "$@"; do
    [ -f "$tgz" ] || { bad "no such tarball"; continue; }
    tgz=$(cd "$(dirname "$tgz")" && pwd)/$(basename "$tgz")
    rm -rf "$T/u" && mkdir -p "$T/u"
    tar xzf "$tgz" -C "$T/u" || { bad "cannot unpack it"; continue; }
    d=$(ls -d "$T"/u/transpose-bench-*/ | head -n 1)
    notices "$d"
    relink "$d"
done
echo "dist-relink: $# tarball(s), $fails failed"
[ "$fails" = 0 ]
