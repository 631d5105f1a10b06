#!/bin/sh
# dist-check.sh: what CI checks of the board tarballs (issue: a binary that runs on every
# Jetson). For the AGX Orin (sm_87, which this nvcc targets) and the desktop H100 file:
# `make dist` from this tree; the executable is of the board's CPU, needs no GLIBC_ symbol
# newer than 2.27 and no library beyond glibc's own, carries the board's kernel image, and
# `list` runs (under qemu-aarch64 for the Jetson). Also: the plain x86 build links neither
# libcudart nor libcublas, and no test uses a cmocka API newer than JetPack 4's 1.1.1.
set -u
fails=0; passes=0
ok() { passes=$((passes + 1)); echo "dist-check: ok: $*"; }
bad() { fails=$((fails + 1)); echo "dist-check: FAILED: $*"; }

allowed='libc.so.6 libm.so.6 libdl.so.2 libpthread.so.0 librt.so.1 ld-linux-aarch64.so.1 ld-linux-x86-64.so.2'
check_binary() {   # board cpu objdump runner sms
    board=$1; cpu=$2; objdump=$3; runner=$4; sms=$5
    b=dist/transpose-bench-$board/transpose-bench
    [ -f "dist/transpose-bench-$board.tar.gz" ] && ok "$board: dist/transpose-bench-$board.tar.gz written" ||
        { bad "$board: no tarball"; return; }
    case $(file -b "$b") in *"$cpu"*) ok "$board: executable is $cpu" ;; *) bad "$board: $(file -b "$b")" ;; esac
    max=$($objdump -T "$b" | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -n 1)
    if [ "$(printf '%s\nGLIBC_2.27\n' "$max" | sort -V | tail -n 1)" = GLIBC_2.27 ]; then
        ok "$board: newest glibc symbol $max (JetPack 4 has 2.27)"
    else bad "$board: needs $max"; fi
    libs=$($objdump -p "$b" | sed -n 's/^ *NEEDED *//p' | tr '\n' ' ')
    extra=""
    for l in $libs; do case " $allowed " in *" $l "*) ;; *) extra="$extra $l" ;; esac; done
    [ -z "$extra" ] && ok "$board: needs only $libs" || bad "$board: needs$extra"
    out=$($runner "$b" list 2>&1)
    case $out in
    *"kernel images: sm_$sms + PTX compute_$sms"*) ok "$board: list runs and shows: $(printf '%s\n' "$out" | grep '^kernel images')" ;;
    *) bad "$board: list said: $(printf '%s\n' "$out" | tail -n 5)" ;;
    esac
    for f in boards/jetson-nano.cfg conf/default.cfg transpose-bench.1 INSTALL; do
        [ -f "dist/transpose-bench-$board/$f" ] || bad "$board: $f not in the tarball"
    done
}

if ! command -v nvcc >/dev/null 2>&1 && [ ! -x /usr/local/cuda/bin/nvcc ]; then
    bad "no nvcc here: the tarball would carry no kernel images"
else
    make --no-print-directory dist BOARD=boards/jetson-agx-orin.cfg >/tmp/dist-orin.log 2>&1 ||
        { tail -20 /tmp/dist-orin.log; bad "make dist BOARD=boards/jetson-agx-orin.cfg failed"; }
    check_binary jetson-agx-orin aarch64 aarch64-linux-gnu-objdump qemu-aarch64 87
    make --no-print-directory dist BOARD=boards/desktop-h100.cfg >/tmp/dist-h100.log 2>&1 ||
        { tail -20 /tmp/dist-h100.log; bad "make dist BOARD=boards/desktop-h100.cfg failed"; }
    check_binary h100-sxm x86-64 objdump "" 90
    # a board whose SM this nvcc cannot target stops, naming a toolkit that can
    if make --no-print-directory -n BOARD=boards/jetson-nano.cfg >/tmp/dist-nano.log 2>&1; then
        bad "a Nano build with nvcc $(nvcc --version 2>/dev/null | sed -n 's/.*release //p') did not stop"
    elif grep -q 'cannot build for sm_53.*NVCC=/usr/local/cuda-10.2/bin/nvcc' /tmp/dist-nano.log; then
        ok "a Nano build with this nvcc stops and names CUDA 10.2"
    else bad "the Nano build stopped without naming a toolkit: $(cat /tmp/dist-nano.log)"; fi
fi

make --no-print-directory transpose-bench >/dev/null 2>&1 || bad "the plain build failed"
if objdump -p transpose-bench | grep NEEDED | grep -qE 'cudart|cublas|libcuda'; then
    bad "the x86 build links CUDA libraries: $(objdump -p transpose-bench | grep NEEDED | tr -s ' ')"
else ok "the x86 build needs no libcudart, libcublas or libcuda"; fi

newer=$(grep -nE 'assert_(float|double)_|expect_(float|double)|will_return_(float|double)|assert_u?int_(not_)?in_(range|set)|[^_]fail_msg\(|cmocka_filter|assert_[a-z_]*_msg\(' tests/*.c)
[ -z "$newer" ] && ok "tests use no cmocka API newer than 1.1.1" || bad "cmocka API newer than 1.1.1: $newer"

echo "dist-check: $passes passed, $fails failed"
[ "$fails" = 0 ]
