#!/bin/sh
# dist.sh BOARD: builds dist/transpose-bench-<board>.tar.gz, everything one board needs:
# the executable, boards/, conf/, the man page and INSTALL. The executable is built for the
# board's CPU (board.cpu) against glibc 2.27, the oldest a board runs (JetPack 4, Ubuntu
# 18.04), with `zig cc` (PyPI's ziglang, installed into build-tools/ when missing), and links
# libconfig and zlib statically: on the board it needs glibc and the driver, nothing else.
# The kernel images (scripts/kernel-images.sh): for a Jetson, clang's PTX at the board's PTX ISA
# (board.ptx_isa; clang installed by ensure-deps.sh when missing), cubins only from an nvcc no
# newer than the board's CUDA; the same on any host.
#   GLIBC=2.27    the glibc version to build against
#   ZIG=CMD       a zig to use instead (e.g. "zig" from a package)
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
build=build-dist-$name
stage=dist/transpose-bench-$name

# zig: given, on PATH, or installed from PyPI into build-tools/ (no root needed). 0.14.1:
# 0.13's linker put stdout, stderr and environ at one address in x86 binaries that link
# Debian's non-PIC libconfig.a (copy relocations), which crashed in getenv.
ZIG_VERSION=0.14.1
if [ -z "${ZIG:-}" ]; then
    if command -v zig >/dev/null 2>&1; then ZIG=zig
    else
        if [ "$(PYTHONPATH=$top/build-tools/pip python3 -m ziglang version 2>/dev/null)" != "$ZIG_VERSION" ]; then
            echo "make dist: installing zig $ZIG_VERSION (PyPI ziglang) into build-tools/pip"
            rm -rf "$top/build-tools/pip"
            python3 -m pip install -q --disable-pip-version-check --target "$top/build-tools/pip" \
                "ziglang==$ZIG_VERSION" || {
                echo "make dist: could not install ziglang; run: python3 -m pip install ziglang==$ZIG_VERSION" >&2
                exit 1; }
        fi
        ZIG="env PYTHONPATH=$top/build-tools/pip python3 -m ziglang"
    fi
fi
# the board's static libconfig and zlib: Debian's -dev packages of that architecture
libdir=/usr/lib/$multiarch
if [ ! -f "$libdir/libconfig.a" ] || [ ! -f "$libdir/libz.a" ]; then
    if [ "$pkgarch" = arm64 ]; then scripts/ensure-deps.sh cross; else scripts/ensure-deps.sh; fi
fi
for f in "$libdir/libconfig.a" "$libdir/libz.a"; do
    [ -f "$f" ] || { echo "make dist: $f missing (libconfig-dev:$pkgarch, zlib1g-dev:$pkgarch)" >&2; exit 1; }
done
# a fresh build each time: the toolchain (zig's version) is not in the flags make compares
rm -rf "$build"
# their headers alone, so that the host's glibc headers never mix with zig's 2.27 ones
mkdir -p "$build/include"
for h in libconfig.h zlib.h zconf.h; do
    src=/usr/include/$multiarch/$h; [ -f "$src" ] || src=/usr/include/$h
    cp "$src" "$build/include/$h"
done

# a clang for the board's SM (a Jetson needs one unless this nvcc is as old as its CUDA)
[ -n "$(setting ptx_isa)" ] && { scripts/ensure-deps.sh clang "$(setting sms)" ||
    echo "make dist: no clang for sm_$(setting sms) here: the images need one (see above)" >&2; }
target=$cpu-linux-gnu.$glibc
echo "make dist: $board_file -> $stage.tar.gz ($target, static libconfig and zlib)"
make --no-print-directory BOARD="$board_file" BUILD="$build" BIN="$build/transpose-bench" \
    CC="$ZIG cc -target $target -fno-sanitize=undefined" AR="$ZIG ar" CROSS_COMPILE= \
    DEP_CFLAGS="-I$top/$build/include" DEP_LIBS="$libdir/libconfig.a $libdir/libz.a" \
    "$build/transpose-bench" 2>&1 | tee "$build/images.all"
grep '^kernel-images: ' "$build/images.all" > "$build/images.log" || true
[ -x "$build/transpose-bench" ] || { echo "make dist: the build failed" >&2; exit 1; }

rm -rf "$stage"
mkdir -p "$stage/boards" "$stage/conf"
cp "$build/transpose-bench" "$stage/"
cp boards/*.cfg "$stage/boards/"
# the sweep files we ship: tracked ones only (a tuned-*.cfg of this checkout stays here)
for f in conf/*.cfg; do
    case $(basename "$f") in tuned-*) continue ;; esac
    cp "$f" "$stage/conf/"
done
cp doc/transpose-bench.1 "$stage/"
cat > "$stage/INSTALL" <<EOF
transpose-bench for $name ($board_file), built $(date -u +%Y-%m-%dT%H:%MZ)
executable: $cpu, glibc $glibc or later (JetPack 4, 5, 6), libconfig and zlib inside
kernel images: $(sed -n 's/^kernel-images: //p' "$build/images.log" | tr '\n' ';')
  (./transpose-bench list shows them and the one the GPU runs; list --images DIR writes them out)

Install: copy this folder anywhere on the board and run from it (no root needed):
    scp transpose-bench-$name.tar.gz board:
    ssh board 'tar xzf transpose-bench-$name.tar.gz && cd transpose-bench-$name && ./transpose-bench list'
The tool finds boards/ and conf/ next to the executable. A first sweep:
    ./transpose-bench run -b boards/$(basename "$board_file") -o ~/transpose-logs
Nightly runs: man ./transpose-bench.1 and doc/nightly.md of the source tree.
The GPU needs the driver of the board's JetPack (libcuda.so.1); \`list\` says why it cannot be used.
EOF
mkdir -p dist
tar czf "$stage.tar.gz" -C dist "transpose-bench-$name"
echo "make dist: wrote $stage.tar.gz"
