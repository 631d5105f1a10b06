#!/bin/sh
# dist-check.sh: what CI checks of the board tarballs (issues: a binary that runs on every
# Jetson; kernel images every Jetson driver loads). For the Nano, TX2, Xavier NX, AGX Orin and
# Orin Nano, and the desktop H100 file where nvcc is here: `make dist` from this tree; the
# executable is of the board's CPU, needs no GLIBC_ symbol newer than 2.27 and no library
# beyond glibc's own, carries the board's kernel images (PTX within the board's ISA, assembled
# by ptxas 11.8), and `list` runs (under qemu-aarch64 for the Jetsons). Also: the plain x86
# build links neither libcudart nor libcublas, and no test uses a cmocka API newer than
# JetPack 4's 1.1.1. --version and INSTALL carry the same images' sha256; the tarball carries
# doc/nightly.md and doc/power.md (which it sends readers to). Reproducibility (two checkouts, the same bytes) is tests/dist-repro.sh.
set -u
fails=0; passes=0
ok() { passes=$((passes + 1)); echo "dist-check: ok: $*"; }
bad() { fails=$((fails + 1)); echo "dist-check: FAILED: $*"; }

allowed='libc.so.6 libm.so.6 libdl.so.2 libpthread.so.0 librt.so.1 ld-linux-aarch64.so.1 ld-linux-x86-64.so.2'
check_binary() {   # board cpu objdump runner image (the start of one of list's "  image N: " lines)
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
    *"kernel images:"*": $sms"*) ok "$board: list runs and shows: $(printf '%s\n' "$out" | grep '^  image ' | tr '\n' ';')" ;;
    *) bad "$board: list said: $(printf '%s\n' "$out" | tail -n 5)" ;;
    esac
    v=$($runner "$b" --version 2>&1 | sed -n 's/^kernel images: sha256 \([0-9a-f]*\)$/\1/p')
    i=$(sed -n 's/^kernel images sha256: \([0-9a-f]*\) .*/\1/p' "dist/transpose-bench-$board/INSTALL")
    [ ${#v} = 64 ] && [ "$v" = "$i" ] && ok "$board: --version and INSTALL carry the images' sha256 $v" ||
        bad "$board: images' sha256: --version '$v', INSTALL '$i'"
    for f in boards/jetson-nano.cfg conf/default.cfg transpose-bench.1 INSTALL doc/nightly.md doc/power.md; do
        [ -f "dist/transpose-bench-$board/$f" ] || bad "$board: $f not in the tarball"
    done
}

# Every Jetson's tarball builds here, with no NVIDIA compiler needed (clang's PTX at the board's
# ISA): each PTX image is checked against the board file (.version at or below ptx_isa,
# .target its SM) and assembled for that SM by ptxas 11.8 (PyPI's nvidia-cuda-nvcc-cu11,
# which refuses an instruction newer than the declared ISA). The images are taken out of the
# aarch64 executable by its own `list --images` under qemu.
scripts/ensure-deps.sh clang 87 || bad "could not install a clang that targets sm_87"
ptxas=build-tools/ptxas-11.8/nvidia/cuda_nvcc/bin/ptxas
if [ ! -x "$ptxas" ]; then
    rm -rf build-tools/ptxas-11.8 && mkdir -p build-tools/ptxas-11.8
    python3 -m pip download -q --no-deps --disable-pip-version-check -d build-tools/ptxas-11.8 \
        nvidia-cuda-nvcc-cu11==11.8.89 >/dev/null 2>&1 &&
        (cd build-tools/ptxas-11.8 && python3 -m zipfile -e nvidia_cuda_nvcc_cu11-*.whl .) &&
        chmod +x "$ptxas" || bad "could not fetch ptxas 11.8 (pip download nvidia-cuda-nvcc-cu11==11.8.89)"
fi
check_images() {   # board sm isa
    board=$1; sm=$2; isa=$3
    d=build-dist-check/$board; rm -rf "$d"; mkdir -p build-dist-check
    out=$(qemu-aarch64 "dist/transpose-bench-$board/transpose-bench" list --images "$d" 2>&1) ||
        { bad "$board: list --images failed: $out"; return; }
    n=0
    for f in "$d"/*.ptx; do
        [ -f "$f" ] || continue
        n=$((n + 1))
        v=$(sed -n 's/^\.version \([0-9.]*\).*/\1/p' "$f" | head -n 1)
        t=$(sed -n 's/^\.target \([a-z0-9_]*\).*/\1/p' "$f" | head -n 1)
        if awk -v v="$v" -v m="$isa" 'BEGIN { exit !(v + 0 <= m + 0) }' && [ "$t" = "sm_$sm" ]; then
            ok "$board: $(basename "$f"): .version $v (ceiling $isa), .target $t"
        else bad "$board: $(basename "$f"): .version $v .target $t (want <= $isa, sm_$sm)"; fi
        if [ -x "$ptxas" ] && "$ptxas" -arch=sm_$sm "$f" -o "$d/out.cubin" 2> "$d/ptxas.err"; then
            ok "$board: ptxas 11.8 assembles it for sm_$sm"
        else bad "$board: ptxas 11.8 refused it: $(head -3 "$d/ptxas.err" 2>/dev/null)"; fi
    done
    [ $n -gt 0 ] || bad "$board: no PTX image in the executable ($out)"
    ls "$d"/*.cubin 2>/dev/null | grep -v out.cubin | grep -q . &&
        bad "$board: a cubin in a Jetson tarball built with this host's nvcc (outside NVIDIA's rules)"
}
# each make dist's output in this check's own folder, never a fixed name under /tmp (root runs
# this in CI: a name another user could plant as a link, or a second check at once, #59)
logs=build-dist-check/logs; mkdir -p "$logs"
setting() { sed -n "s/^[[:space:]]*$2[[:space:]]*=[[:space:]]*\"\([^\"]*\)\".*/\1/p" "boards/$1.cfg" | head -n 1; }
# jetson-nano last: its objects (the build folder the boards of one CPU share) and zig's
# runtime for it (start files, glibc stubs, compiler_rt: zig's cache) then come from the boards
# before it (scripts/dist.sh), and dist-repro (REPRO_BOARD, the Makefile) compares that
# tarball with a fresh clone's
for board in jetson-tx2 jetson-xavier-nx jetson-agx-orin jetson-orin-nano jetson-nano; do
    sm=$(setting $board sms); isa=$(setting $board ptx_isa)
    if make --no-print-directory dist BOARD=boards/$board.cfg > "$logs/dist-$board.log" 2>&1; then
        check_binary $board aarch64 aarch64-linux-gnu-objdump qemu-aarch64 "PTX sm_$sm ISA $isa"
        # INSTALL names the board's image (empty when the image table of a board before it
        # was kept in the build folder the boards share, #59's review)
        if tar -xzOf "dist/transpose-bench-$board.tar.gz" "transpose-bench-$board/INSTALL" 2>/dev/null |
            grep -q "^kernel images: sm_$sm ptx ISA $isa "; then ok "$board: INSTALL names its image, sm_$sm ptx ISA $isa"
        else bad "$board: INSTALL's 'kernel images:' line does not name sm_$sm ptx ISA $isa"; fi
        check_images $board "$sm" "$isa"
    else tail -20 "$logs/dist-$board.log"; bad "make dist BOARD=boards/$board.cfg failed"; fi
done
if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
    make --no-print-directory dist BOARD=boards/desktop-h100.cfg >"$logs/dist-h100.log" 2>&1 ||
        { tail -20 "$logs/dist-h100.log"; bad "make dist BOARD=boards/desktop-h100.cfg failed"; }
    check_binary h100-sxm x86-64 objdump "" "cubin sm_90 (CUDA"
fi

# TB_PLAIN_SMS=all (.ci/run): the plain build with every image, in build/ as the last stage's
# `make test SMS=all` builds it, so that no stage compiles build/ twice
make --no-print-directory ${TB_PLAIN_SMS:+SMS=$TB_PLAIN_SMS} transpose-bench >/dev/null 2>&1 ||
    bad "the plain build failed"
if objdump -p transpose-bench | grep NEEDED | grep -qE 'cudart|cublas|libcuda'; then
    bad "the x86 build links CUDA libraries: $(objdump -p transpose-bench | grep NEEDED | tr -s ' ')"
else ok "the x86 build needs no libcudart, libcublas or libcuda"; fi

newer=$(grep -nE 'assert_(float|double)_|expect_(float|double)|will_return_(float|double)|assert_u?int_(not_)?in_(range|set)|[^_]fail_msg\(|cmocka_filter|assert_[a-z_]*_msg\(' tests/*.c)
[ -z "$newer" ] && ok "tests use no cmocka API newer than 1.1.1" || bad "cmocka API newer than 1.1.1: $newer"

echo "dist-check: $passes passed, $fails failed"
[ "$fails" = 0 ]
