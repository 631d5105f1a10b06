#!/bin/sh
# dist.sh BOARD: builds dist/transpose-bench-<board>.tar.gz, everything one board needs:
# the executable, boards/, conf/, the man page and INSTALL; LICENSE, the licenses of the
# libraries linked in (licenses/: libconfig's LGPL-2.1 and zlib's, from Debian's copyright
# files) and what LGPL-2.1 section 6 asks of a static link: our own object files (relink/:
# main.o, libtb.a) and the command that links them against another libconfig
# (relink/README; tests/dist-relink.sh runs it). The executable is built for the
# board's CPU (board.cpu) against glibc 2.27, the oldest a board runs (JetPack 4, Ubuntu
# 18.04), with `zig cc` (PyPI's ziglang 0.14.1 in the project's venv, build-tools/venv, which
# `scripts/ensure-deps.sh dist` makes; zig's cache in build-dist-zig-cache/), and links
# libconfig and zlib statically: on the board it needs glibc and the driver, nothing else.
# Reproducible: the same source at the same revision gives the same bytes on any x86 host,
# from any checkout path, as root or not: build paths mapped out of the debug info and the
# shipped executable without DWARF (zig's start files carry the working directory), INSTALL
# dated and the members timed by the commit (SOURCE_DATE_EPOCH when set), members sorted and
# owned by 0:0, gzip without name or time. make dist-check builds twice in two paths and
# compares.
# The kernel images (scripts/kernel-images.sh): for a Jetson, clang's PTX at the board's PTX ISA
# (board.ptx_isa; clang installed by ensure-deps.sh when missing), cubins only from an nvcc no
# newer than the board's CUDA; the same on any host.
#   GLIBC=2.27    the glibc version to build against
#   ZIG=CMD       a zig to use instead (e.g. "zig" from a package); its version is checked
#   SOURCE_DATE_EPOCH   the tarball's time (default: the commit's date, else 0)
set -eu
board_file=${1:?usage: dist.sh boards/<board>.cfg}
[ -f "$board_file" ] || { echo "make dist: no board file '$board_file'" >&2; exit 2; }
setting() { sed -n "s/^[[:space:]]*$1[[:space:]]*=[[:space:]]*\"\\([^\"]*\\)\".*/\\1/p" "$board_file" | head -n 1; }
name=$(setting name)
cpu=$(setting cpu)
[ -n "$cpu" ] || cpu=$(uname -m)
glibc=${GLIBC:-2.27}
case $cpu in
aarch64) multiarch=aarch64-linux-gnu; pkgarch=arm64 ;;
x86_64) multiarch=x86_64-linux-gnu; pkgarch=amd64 ;;
*) echo "make dist: $board_file: board.cpu '$cpu' is not aarch64 or x86_64" >&2; exit 2 ;;
esac
top=$(pwd)
# one build folder a CPU: the boards of one CPU share their objects; the image table and the
# link are made again for each board (below) (the Makefile keeps the images' flags apart, .imgflags;
# #59: the five Jetson boards compiled the same 119 objects five times)
build=build-dist-$multiarch
stage=dist/transpose-bench-$name

# zig: ZIG, else the project's venv (scripts/ensure-deps.sh dist installs it, no root, PEP 668
# safe); a zig on PATH is not taken unasked. 0.14.1 exactly: 0.13's linker put stdout, stderr
# and environ at one address in x86 binaries that link Debian's non-PIC libconfig.a (copy
# relocations), which crashed in getenv; another version makes other bytes.
ZIG_VERSION=0.14.1
if [ -z "${ZIG:-}" ]; then
    if [ "$(build-tools/venv/bin/python3 -m ziglang version 2>/dev/null)" != "$ZIG_VERSION" ]; then
        scripts/ensure-deps.sh dist || { echo "make dist: no zig $ZIG_VERSION; run: scripts/ensure-deps.sh dist" >&2; exit 1; }
    fi
    ZIG="$top/build-tools/venv/bin/python3 -m ziglang"
fi
# zig's caches in the checkout, never $HOME (a board user's or cron's $HOME may be read-only or
# missing: zig said a bare "error: AccessDenied"); one cache for every board of this checkout:
# zig builds its runtime for a target there (the start files, glibc 2.27's stubs, compiler_rt:
# most of what a board's build cost beside our objects) and keys it by its inputs, so the
# boards of one CPU build it once (#59); our own objects (`zig cc -c` runs clang itself, no
# cache) are shared through the build folder of that CPU (below). make dist-check builds
# jetson-nano last, its objects and runtime from the boards before it, and dist-repro
# compares it with a fresh clone's. The cache is used only where it
# is this user's, no link and writable by no one else (as the image cache,
# scripts/kernel-images.sh); else a private one for this build, said (root's cache in a
# checkout also blocked every other user's make dist, AccessDenied)
. "$(dirname "$0")/owned.sh"   # owned PATH: ours, no link, writable by no one else
zig_cache=$top/build-dist-zig-cache
(umask 022; mkdir -p "$zig_cache/include-$multiarch") 2>/dev/null
if ! owned "$zig_cache" || ! owned "$zig_cache/include-$multiarch"; then
    priv=$(mktemp -d "${TMPDIR:-/tmp}/tb-dist-zig-XXXXXX") ||
        { echo "make dist: cannot make a private folder for zig's cache in ${TMPDIR:-/tmp}" >&2; exit 1; }
    trap 'rm -rf "$priv"' EXIT
    echo "make dist: zig's cache '$zig_cache' not used (not a folder of $(id -un) that no one else may write): a private one, $priv" >&2
    zig_cache=$priv
    mkdir -p "$zig_cache/include-$multiarch"
fi
export ZIG_GLOBAL_CACHE_DIR=$zig_cache/global ZIG_LOCAL_CACHE_DIR=$zig_cache/local
zv=$($ZIG version 2>&1) || { echo "make dist: '$ZIG version' failed: $zv; run: scripts/ensure-deps.sh dist" >&2; exit 1; }
[ "$zv" = "$ZIG_VERSION" ] || {
    echo "make dist: zig $zv is not $ZIG_VERSION (0.13 mislinks; another version builds other bytes); run: unset ZIG; scripts/ensure-deps.sh dist" >&2
    exit 1; }
# the time every date in the tarball is: the commit's, unless given
if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
    if [ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$top" ]; then
        SOURCE_DATE_EPOCH=$(git log -1 --format=%ct HEAD 2>/dev/null || echo 0)
    else SOURCE_DATE_EPOCH=0; fi
fi
case $SOURCE_DATE_EPOCH in ''|*[!0-9]*) echo "make dist: SOURCE_DATE_EPOCH='$SOURCE_DATE_EPOCH' is not a number of seconds" >&2; exit 2 ;; esac
export SOURCE_DATE_EPOCH
# the board's static libconfig and zlib: Debian's -dev packages of that architecture
libdir=/usr/lib/$multiarch
if [ ! -f "$libdir/libconfig.a" ] || [ ! -f "$libdir/libz.a" ]; then
    if [ "$pkgarch" = arm64 ]; then scripts/ensure-deps.sh cross; else scripts/ensure-deps.sh; fi
fi
for f in "$libdir/libconfig.a" "$libdir/libz.a"; do
    [ -f "$f" ] || { echo "make dist: $f missing (libconfig-dev:$pkgarch, zlib1g-dev:$pkgarch)" >&2; exit 1; }
done
# LICENSE, the linked libraries' licenses, and the relink material (LGPL-2.1 section 6: the
# work that uses the library as object files, so that a user can relink it against a modified
# libconfig): main.o and libtb.a of this very build, their debug info stripped as the
# executable's is; relink/README holds the command, which tests/dist-relink.sh runs.
notices() {   # STAGE BUILD REV
    mkdir -p "$1/licenses" "$1/relink"
    cp LICENSE "$1/LICENSE"
    for pair in "libconfig libconfig-dev libconfig9 libconfig11" "zlib zlib1g zlib1g-dev"; do
        lib=${pair%% *}; found=""
        for pkg in ${pair#* }; do
            f=/usr/share/doc/$pkg/copyright
            [ -f "$f" ] && { found=$f; break; }
        done
        [ -n "$found" ] || { echo "make dist: no Debian copyright file for $lib (/usr/share/doc/${pair#* }/copyright): install its -dev package" >&2; exit 1; }
        cp "$found" "$1/licenses/$lib.copyright"
    done
    [ -f /usr/share/common-licenses/LGPL-2.1 ] || { echo "make dist: /usr/share/common-licenses/LGPL-2.1 missing (base-files)" >&2; exit 1; }
    cp /usr/share/common-licenses/LGPL-2.1 "$1/licenses/LGPL-2.1"
    cfgv=$(dpkg-query -W -f '${Version}' "libconfig-dev:$pkgarch" 2>/dev/null || echo unknown)
    zv=$(dpkg-query -W -f '${Version}' "zlib1g-dev:$pkgarch" 2>/dev/null || echo unknown)
    cat > "$1/licenses/README" <<EOT
transpose-bench is under the MIT license (../LICENSE). Its executable links two libraries
statically, from Debian's packages (libconfig-dev:$pkgarch $cfgv, zlib1g-dev:$pkgarch $zv):
  libconfig (Mark A Lindner): GNU LGPL 2.1 or later; libconfig.copyright, the license's text
    in LGPL-2.1. Its source: https://hyperrealm.github.io/libconfig/ (or apt-get source
    libconfig). To relink transpose-bench against another libconfig: ../relink/README.
  zlib (Jean-loup Gailly and Mark Adler): the zlib license, in zlib.copyright.
EOT
    "$objcopy" --strip-debug "$2/src/main.o" "$1/relink/main.o" &&
        "$objcopy" --enable-deterministic-archives --strip-debug "$2/libtb.a" "$1/relink/libtb.a" ||
        { echo "make dist: $objcopy could not copy the relink objects" >&2; exit 1; }
    cross=""
    [ "$cpu" = aarch64 ] && cross="From an x86 host: aarch64-linux-gnu-gcc in place of gcc, with Debian's
libconfig-dev:arm64 and zlib1g-dev:arm64 (tests/dist-relink.sh runs it so, under qemu-aarch64)."
    cat > "$1/relink/README" <<EOT
Relinking transpose-bench against another libconfig (GNU LGPL 2.1, section 6)

../transpose-bench links libconfig and zlib statically (../licenses/). Here is the rest of
it as object files from the same build (git $3, $target): main.o (the
program's entry) and libtb.a (everything else, the kernel images included). To link them
against another libconfig, on a $cpu Linux with gcc and glibc $glibc or later (on a board:
gcc, and the libconfig-dev and zlib1g-dev packages, or your own builds of them), here:

    gcc -o transpose-bench main.o libtb.a -lconfig -lz -lpthread -ldl -lm

(the system's libconfig), or with a libconfig you built yourself:

    gcc -o transpose-bench main.o libtb.a /path/to/libconfig.a -lz -lpthread -ldl -lm

then ./transpose-bench --version says the same revision and kernel images as
../transpose-bench. To use it in the shipped one's place (it finds boards/ and conf/ next to
itself): mv transpose-bench ..
$cross
EOT
}

# The build folder: no link; one make dist in it at a time (boards of one CPU share it: a
# second waits, said); emptied when zig's version differs from the one that built it (the
# toolchain is not in the flags make compares); zig's cache, a folder of its own, survives
[ -L "$build" ] && { echo "make dist: $build is a link: not built through it; run: rm $build" >&2; exit 1; }
mkdir -p "$build"
exec 9< "$build"
if command -v flock > /dev/null 2>&1; then
    flock -n 9 || { echo "make dist: another make dist is building in $build; waiting for it" >&2; flock 9; }
else echo "make dist: no flock here (util-linux): two make dist at once in $build would meet" >&2; fi
# the folder opened and locked is the one built in, and this user's alone (objects are kept
# in it from board to board: one planted by another user would be linked in)
{ owned "$build" && [ "$build" -ef "/proc/$$/fd/9" ]; } || {
    echo "make dist: $build is not a folder of $(id -un) that no one else may write; run: rm -rf $build" >&2; exit 1; }
if [ "$(cat "$build/.zig-version" 2>/dev/null)" != "$ZIG_VERSION" ]; then
    find "$build" -mindepth 1 -maxdepth 1 -exec rm -rf {} +
    t=$(mktemp "$build/.zig-version.XXXXXX") && echo "$ZIG_VERSION" > "$t" && mv -f "$t" "$build/.zig-version"
fi
# what is this board's own made again each time: its image table (kernel-images.sh runs, its
# images from the image cache, and says which in INSTALL's line below), the link (the
# libraries of this system as they are now), the log; the objects are kept
rm -rf "$build/transpose-bench" "$build/kernel_images.c" "$build/images" "$build/images.all" \
    "$build/images.log" "$build/make.failed"
# their headers alone, so that the host's glibc headers never mix with zig's 2.27 ones
# (in zig's cache folder, one per CPU; each header replaced by a rename only when it changed,
# never half-written for a compile beside)
inc=$zig_cache/include-$multiarch
for h in libconfig.h zlib.h zconf.h; do
    src=/usr/include/$multiarch/$h; [ -f "$src" ] || src=/usr/include/$h
    cmp -s "$src" "$inc/$h" && continue
    t=$(mktemp "$inc/.$h.XXXXXX") && cp "$src" "$t" && chmod 644 "$t" && mv -f "$t" "$inc/$h" ||
        { echo "make dist: cannot copy $src into $inc" >&2; rm -f "${t:-}"; exit 1; }
done

# a clang for the board's SM (a Jetson needs one unless this nvcc is as old as its CUDA)
[ -n "$(setting ptx_isa)" ] && { scripts/ensure-deps.sh clang "$(setting sms)" ||
    echo "make dist: no clang for sm_$(setting sms) here: the images need one (see above)" >&2; }
target=$cpu-linux-gnu.$glibc
echo "make dist: $board_file -> $stage.tar.gz ($target, static libconfig and zlib)"
# paths out of the debug info: the checkout (compile dirs), zig's cache and its lib folder
zig_lib=$($ZIG env 2>/dev/null | sed -n 's/.*"lib_dir": *"\([^"]*\)".*/\1/p' | head -n 1)
map="-fdebug-prefix-map=$zig_cache=/zig-cache -fdebug-prefix-map=$top=."
[ -n "$zig_lib" ] && map="-fdebug-prefix-map=$zig_lib=/zig-lib $map"
# (make's status kept past the pipe: a failed make never ships an executable of before)
{ make --no-print-directory BOARD="$board_file" BUILD="$build" BIN="$build/transpose-bench" \
    CC="$ZIG cc -target $target -fno-sanitize=undefined" AR="$ZIG ar" CROSS_COMPILE= \
    DEP_CFLAGS="-I$inc" DEP_LIBS="$libdir/libconfig.a $libdir/libz.a" \
    CFLAGS="$map" \
    "$build/transpose-bench" 9<&- 2>&1 || echo failed > "$build/make.failed"; } | tee "$build/images.all"
grep '^kernel-images: ' "$build/images.all" > "$build/images.log" || true
[ ! -e "$build/make.failed" ] && [ -x "$build/transpose-bench" ] || { echo "make dist: the build failed" >&2; exit 1; }

rm -rf "$stage"
mkdir -p "$stage/boards" "$stage/conf"
# shipped without DWARF (symbols kept): zig builds its own start files (crt) with the build's
# working directory in their debug info, out of reach of our -fdebug-prefix-map; the full
# executable stays in $build/transpose-bench, our own build paths mapped out of it. Binutils'
# objcopy: zig's keeps the debug sections' local symbols ($d), whose values still differ
case $cpu in aarch64) objcopy=aarch64-linux-gnu-objcopy; objpkg=binutils-aarch64-linux-gnu ;; *) objcopy=objcopy; objpkg=binutils ;; esac
"$objcopy" --strip-debug "$build/transpose-bench" "$stage/transpose-bench" ||
    { echo "make dist: $objcopy --strip-debug failed; run: sudo apt-get install -y $objpkg" >&2; exit 1; }
# the board and sweep files we ship: in a git checkout, tracked ones only (a tuned-*.cfg or a
# stray file of this checkout stays here, as --version calls such a tree dirty)
shipped() {
    case $(basename "$1") in tuned-*) return 1 ;; esac
    git rev-parse --is-inside-work-tree > /dev/null 2>&1 || return 0
    git ls-files --error-unmatch -- "$1" > /dev/null 2>&1 ||
        { echo "make dist: '$1' is not tracked: left out" >&2; return 1; }
}
for f in boards/*.cfg; do shipped "$f" && cp "$f" "$stage/boards/"; done
for f in conf/*.cfg; do shipped "$f" && cp "$f" "$stage/conf/"; done
cp doc/transpose-bench.1 "$stage/"
scripts/dist-docs.sh "$stage" "$name"   # nightly.md with this board's names; power.md
rev=$(sed -n 's/^const char tb_git_rev\[\] = "\(.*\)";$/\1/p' "$build/version_rev.c" | head -n 1)
built=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%dT%H:%MZ 2>/dev/null || echo "epoch $SOURCE_DATE_EPOCH")
cat > "$stage/INSTALL" <<EOF
transpose-bench for $name ($board_file), git ${rev:-unknown}, dated $built (the commit's date)
executable: $cpu, glibc $glibc or later (JetPack 4, 5, 6; not JetPack 3), libconfig and zlib inside
kernel images: $(sed -n 's/^kernel-images: \(sm_.*\)/\1/p' "$build/images.log" | tr '\n' ';')
$(if [ -f "$build/images/images.sha256" ]; then
    echo "kernel images sha256: $(tail -n 1 "$build/images/images.sha256" | cut -c1-64) (./transpose-bench --version says the same)"
    sed '$d' "$build/images/images.sha256" | sed 's/^/  /'
  else echo "  none: $board_file names no sms (the CPU backend only)"; fi)
  (./transpose-bench list shows them and the one the GPU runs; list --images DIR writes them out)

Install: copy this folder anywhere on the board and run from it (no root needed):
    scp transpose-bench-$name.tar.gz board:
    ssh board 'tar xzf transpose-bench-$name.tar.gz && cd transpose-bench-$name && ./transpose-bench list'
The tool finds boards/ and conf/ next to the executable. A first sweep:
    ./transpose-bench run -b boards/$(basename "$board_file") -o ~/transpose-logs
Nightly runs (cron), the JIT cache (CUDA_CACHE_PATH, the first night's JIT time) and the
EMC clock (needs root): doc/nightly.md here (doc/power.md for the sensors, modes and
caps), and man ./transpose-bench.1.
The GPU needs the driver of the board's JetPack (libcuda.so.1); \`list\` says why it cannot be used.
EOF
notices "$stage" "$build" "$rev"
# members sorted, owned by 0:0, timed by SOURCE_DATE_EPOCH; gzip stores no name and no time
mkdir -p dist
LC_ALL=C tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$SOURCE_DATE_EPOCH" \
    --mode=go-w,u+rw,a+rX --format=gnu -C dist -cf - "transpose-bench-$name" | gzip -9 -n > "$stage.tar.gz.tmp"
mv "$stage.tar.gz.tmp" "$stage.tar.gz"
echo "make dist: wrote $stage.tar.gz (sha256 $(sha256sum < "$stage.tar.gz" | cut -c1-64))"
