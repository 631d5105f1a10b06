#!/bin/sh
# native-build.sh: what a native `make` chooses, proved without a board or NVIDIA compiler
# (issue #30): the board from a fake device tree (TB_ROOT), JetPack 4's nvcc 10.2 (a stand-in,
# tests/native/nvcc-10.2: no --list-gpu-arch, refuses sm_75+) asked only for the SMs it builds,
# clang (a stand-in) for the rest, a clang other than the pinned one said loudly, JetPack 3
# refused, the revision taken from this tree only, and the image cache (each image compiled
# once for every build folder, never taken from a folder another may write). Run by `make test`
# (a few seconds).
set -u
unset MAKEFLAGS MFLAGS MAKELEVEL   # its makes are its own, not jobs of make test's
# nor do they take make test's knobs (make passes command-line variables in the environment:
# CUDA=0 from `make test CUDA=0` would leave every image out of the builds checked here)
unset CUDA BUILD BIN SMS SMS_STRICT KERNEL_CC KERNEL_FLAGS PTX_ISA BOARD BOARD_CUDA SAN OPT
# and no image cache (empty: each stand-in compile happens, as the logs below expect) but
# case 9's own
export IMAGE_CACHE=
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
t=$(mktemp -d "${TMPDIR:-/tmp}/tb-native.XXXXXX")
trap 'rm -rf "$t"' EXIT
# this machine's GPUs are never asked: the cases below give their own nvidia-smi (none here)
export NVIDIA_SMI="$t/no-nvidia-smi"
fails=0; passes=0
ok() { passes=$((passes + 1)); echo "native-build: ok: $*"; }
bad() { fails=$((fails + 1)); echo "native-build: FAILED: $*"; }
has() { printf '%s\n' "$1" | grep -q -- "$2"; }
fakeroot_of() {   # dir model l4t-line
    mkdir -p "$1/proc/device-tree" "$1/etc"
    printf '%s\000' "$2" > "$1/proc/device-tree/model"
    [ -n "$3" ] && echo "$3" > "$1/etc/nv_tegra_release"
    return 0
}
nvcc=$top/tests/native/nvcc-10.2
clang=$top/tests/native/clang-19
# kernel images only (the step that failed on the board), into its own build folder
images() {   # build-dir make-args...
    b=$1; shift
    make --no-print-directory BUILD="$b" NVCC="$nvcc" CLANG="$clang" "$@" "$b/kernel_images.c" 2>&1
}

# 1. A Nano on JetPack 4 (L4T R32.7): its board file, its SM, CUDA 10.2, PTX 6.5
nano=$t/nano
fakeroot_of "$nano" "NVIDIA Jetson Nano Developer Kit" "# R32 (release), REVISION: 7.1, GCID: 29818004, BOARD: t210ref, EABI: aarch64, DATE: Sat Feb 19 17:05:08 UTC 2022"
out=$(make --no-print-directory TB_ROOT="$nano" board-info 2>&1)
if has "$out" "board: boards/jetson-nano.cfg (detected)" && has "$out" "sms: 53$" &&
   has "$out" "cuda: 10.2" && has "$out" "ptx_isa: 6.5"; then ok "a Nano's device tree: $(echo $out)"
else bad "a Nano's device tree gave: $out"; fi

# 2. ... and its images: nvcc 10.2 builds sm_53's cubin, no SM it refuses is compiled
: > "$t/nvcc.log"; : > "$t/clang.log"
out=$(FAKE_NVCC_LOG=$t/nvcc.log FAKE_CLANG_LOG=$t/clang.log images "$t/b-nano" TB_ROOT="$nano"); rc=$?
if [ $rc = 0 ] && has "$out" "sm_53 cubin by nvcc 10.2"; then ok "JetPack 4 images: $(printf '%s\n' "$out" | grep '^kernel-images: sm_' | tr '\n' ' ')"
else bad "JetPack 4 images (rc $rc): $out"; fi
asked=$(grep cuda_transpose.cu "$t/nvcc.log" | grep -o 'arch=[a-z]*_[0-9]*' | sort -u | tr '\n' ' ')
[ "$asked" = "arch=compute_53 arch=sm_53 " ] && ok "nvcc 10.2 was asked for sm_53 only: $asked" || bad "nvcc 10.2 was asked for: $asked"
grep -q cuda-gpu-arch "$t/clang.log" && bad "clang compiled on a Nano with nvcc 10.2: $(cat "$t/clang.log")" || ok "no clang compile on a Nano with nvcc 10.2"

# 3. No board (an x86 host) with nvcc 10.2, every architecture asked for (SMS=all, as make
#    all-images): 53 62 72 from nvcc, 75 and newer from clang
gen=$t/x86; mkdir -p "$gen"
: > "$t/nvcc.log"; : > "$t/clang.log"
out=$(FAKE_NVCC_LOG=$t/nvcc.log FAKE_CLANG_LOG=$t/clang.log images "$t/b-x86" TB_ROOT="$gen" SMS=all); rc=$?
nv=$(grep cuda_transpose.cu "$t/nvcc.log" | grep -o 'arch=sm_[0-9]*' | sed 's/arch=sm_//' | sort -n | tr '\n' ' ')
cl=$(grep -o 'cuda-gpu-arch=sm_[0-9]*' "$t/clang.log" | sed 's/.*sm_//' | sort -n | tr '\n' ' ')
if [ $rc = 0 ] && [ "$nv" = "53 62 72 " ] && [ "$cl" = "75 80 86 87 89 90 " ]; then
    ok "every SM with nvcc 10.2: cubins by nvcc for $nv, PTX by clang for $cl"
else bad "every SM with nvcc 10.2 (rc $rc): nvcc compiled [$nv], clang [$cl]: $(printf '%s\n' "$out" | tail -n 5)"; fi
has "$out" "nvcc 10.2 cannot build sm_75: not asked for it" && ok "the SMs nvcc cannot build are said" || bad "no word on the SMs nvcc cannot build: $out"
has "$out" "WARNING" && bad "the pinned clang was warned about: $out" || ok "the pinned clang (19) builds without a warning"

# 3b. No board and no GPU (no nvidia-smi): no image compiled, the reason in the table and
#     said once; a stand-in nvidia-smi's GPUs are built for, each SM once; an nvidia-smi
#     without compute_cap (a driver older than R510) that lists a GPU: every SM
: > "$t/nvcc.log"; : > "$t/clang.log"
out=$(FAKE_NVCC_LOG=$t/nvcc.log FAKE_CLANG_LOG=$t/clang.log images "$t/b-nogpu" TB_ROOT="$gen"); rc=$?
if [ $rc = 0 ] && [ ! -s "$t/nvcc.log" ] && [ ! -s "$t/clang.log" ] &&
   [ "$(printf '%s\n' "$out" | grep -c 'make: no kernel images: no GPU on the build machine')" = 1 ] &&
   grep -q 'tb_images_none_why\[\] = "no GPU on the build machine (nvidia-smi found none): make all-images' "$t/b-nogpu/kernel_images.c"; then
    ok "no GPU here: no image compiled, said once: $(printf '%s\n' "$out" | grep 'make: no kernel')"
else bad "no GPU here (rc $rc): nvcc [$(cat "$t/nvcc.log")] clang [$(cat "$t/clang.log")]: $out"; fi
again=$(images "$t/b-nogpu" TB_ROOT="$gen")
has "$again" "no kernel images" && bad "the no-image word again on a second make: $again" || ok "a second make says nothing more"
smi=$t/nvidia-smi
printf '#!/bin/sh\ncase "$*" in *compute_cap*) printf "9.0\\n8.6\\n9.0\\n" ;; *) echo "GPU 0: H100" ;; esac\n' > "$smi"; chmod +x "$smi"
out=$(NVIDIA_SMI=$smi make --no-print-directory TB_ROOT="$gen" board-info 2>&1)
has "$out" "sms: 86 90$" && has "$out" "sms from: this machine's GPUs" && ok "two GPU kinds here: $(echo $out | grep -o 'sms: [0-9 ]*')" ||
    bad "a stand-in nvidia-smi with 9.0, 8.6, 9.0 gave: $out"
printf '#!/bin/sh\ncase "$*" in *compute_cap*) echo "Field \\"compute_cap\\" is not a valid field to query."; exit 2 ;; *) echo "GPU 0: Tesla T4 (UUID: GPU-1)" ;; esac\n' > "$smi"
out=$(NVIDIA_SMI=$smi make --no-print-directory TB_ROOT="$gen" board-info 2>&1)
has "$out" "sms: 53 62 72 75 80 86 87 89 90$" && ok "an nvidia-smi without compute_cap: every SM" ||
    bad "an nvidia-smi without compute_cap gave: $out"

# 4. The images' checksum: in the table (for --version) and per image
s_all=$(tail -n 1 "$t/b-x86/images/images.sha256" | cut -c1-64)
s_tab=$(sed -n 's/^const char tb_images_sha256\[\] = "\([0-9a-f]*\)";/\1/p' "$t/b-x86/kernel_images.c")
n_img=$(($(wc -l < "$t/b-x86/images/images.sha256") - 1))
if [ ${#s_all} = 64 ] && [ "$s_all" = "$s_tab" ] && [ "$n_img" = 10 ]; then ok "images checksum $s_all in the table, $n_img images listed"
else bad "images checksum: file '$s_all', table '$s_tab', $n_img images listed"; fi

# 5. Another clang than the pinned one: said loudly, and its images say which clang
out=$(FAKE_CLANG_VERSION=16.0.6 images "$t/b-16" TB_ROOT="$gen" KERNEL_CC=clang SMS="53 87"); rc=$?
if [ $rc = 0 ] && has "$out" "WARNING: PTX by .* (clang 16.0.6), not the pinned clang 19" && has "$out" "sm_87 ptx ISA 7.4 by clang 16.0.6"; then
    ok "clang 16 is warned about: $(printf '%s\n' "$out" | grep -m1 'WARNING: PTX')"
else bad "clang 16 (rc $rc): $out"; fi
out=$(FAKE_CLANG_VERSION=13.0.1 images "$t/b-13" TB_ROOT="$gen" KERNEL_CC=clang SMS=53); rc=$?
[ $rc != 0 ] && has "$out" "is clang 13: Jetson PTX needs clang 14 to 19" && ok "clang 13 refused: $(printf '%s\n' "$out" | grep -m1 'clang 13')" ||
    bad "clang 13 (rc $rc): $out"

# 6. JetPack 3 (L4T R28) refused, with the reason
tx1=$t/tx1
fakeroot_of "$tx1" "NVIDIA Jetson TX1" "# R28 (release), REVISION: 2.1, GCID: 11272647, BOARD: t210ref, EABI: aarch64, DATE: Thu May 17 07:29:06 UTC 2018"
out=$(make --no-print-directory TB_ROOT="$tx1" board-info 2>&1); rc=$?
if [ $rc != 0 ] && has "$out" "L4T R28 (JetPack 3 or older)" && has "$out" "nv_tegra_release"; then ok "JetPack 3 refused: rc $rc"
else bad "JetPack 3 (rc $rc): $out"; fi
# a board file given by hand skips detection (a cross build on such a host is not refused)
out=$(make --no-print-directory TB_ROOT="$tx1" BOARD=boards/jetson-nano.cfg board-info 2>&1) &&
    has "$out" "board: boards/jetson-nano.cfg (given)" && ok "BOARD= given: no detection" || bad "BOARD= given: $out"

# 7. The revision: this tree's own; a source tree inside another repository says it has none
want=$(git rev-parse --short=12 HEAD 2>/dev/null)
out=$(make --no-print-directory version)
case $out in *"(git $want"*) ok "make version in this checkout: $out" ;; *) bad "make version: '$out', HEAD $want" ;; esac
#    an untracked file where the build or the tarball takes files from makes the tree dirty
stray=kernels/zz-native-build-untracked.txt
if [ -d .git ] && ! has "$out" "-dirty"; then
    echo stray > "$stray"
    out2=$(make --no-print-directory version)
    rm -f "$stray"
    if has "$out2" "-dirty"; then ok "an untracked file in kernels/: $out2"
    else bad "an untracked file in kernels/ left the version clean: $out2"; fi
fi
outer=$t/outer
mkdir -p "$outer/src-tree"
git init -q "$outer" && (cd "$outer" && echo x > f && git add f &&
    git -c user.name=t -c user.email=t@t commit -qm outer) >/dev/null 2>&1
mkdir -p "$outer/src-tree/scripts" && cp Makefile "$outer/src-tree/" && cp scripts/detect-board.sh scripts/detect-sms.sh "$outer/src-tree/scripts/"
outer_rev=$(git -C "$outer" rev-parse --short=12 HEAD)
out=$(make --no-print-directory -C "$outer/src-tree" version 2>&1)
if has "$out" "none: not a git checkout" && ! has "$out" "$outer_rev"; then ok "a tree inside another repository: $out"
else bad "a tree inside another repository (outer HEAD $outer_rev): $out"; fi

#    a commit changes the revision alone: its own small file is rebuilt, never the kernel
#    images nor any other object (the revision was once in every object's flags)
revb=$t/b-rev
revmake() {   # GIT_REV: kernel images, one unrelated object and the revision's, built
    make --no-print-directory BUILD="$revb" NVCC="$nvcc" CLANG="$clang" TB_ROOT="$gen" SMS=53 \
        GIT_REV="$1" "$revb/kernel_images.o" "$revb/src/lib/util.o" "$revb/version_rev.o" 2>&1
}
first=$(revmake 111111111111); rc=$?
out=$(revmake 222222222222-dirty); rc2=$?
steps() { printf '%s\n' "$1" | grep -E '^  [A-Z]+ ' | tr -s ' ' | tr '\n' ';'; }
built=$(steps "$out"); again=$(steps "$(revmake 222222222222-dirty)")
if [ $rc = 0 ] && [ $rc2 = 0 ] && has "$first" "IMAGES" && has "$first" "util.c" &&
   [ "$built" = " CC $revb/version_rev.c;" ] && [ -z "$again" ] &&
   grep -q '^const char tb_git_rev\[\] = "222222222222-dirty";' "$revb/version_rev.c"; then
    ok "a new revision rebuilds its own file only: $built"
else bad "a new revision (rc $rc, $rc2) rebuilt: '$built' (then again: '$again'; first: $(printf '%s\n' "$first" | tail -n 3))"; fi

# 8. The Makefile's list of targets at its top names every .PHONY target (FORCE aside), and
#    nothing else
listed=$(sed -n '/^# Targets:/,/^#   (/p' Makefile | sed 's/^# Targets://; s/^#//; s/([^)]*)//g' |
    tr ',. ' '\n\n\n' | grep -v '^$' | sort -u)
phony=$(sed -n 's/^\.PHONY://p' Makefile | tr ' ' '\n' | grep -v -e '^$' -e '^FORCE$' | sort -u)
if [ "$listed" = "$phony" ]; then ok "the Makefile's target list is its .PHONY targets ($(echo $phony | wc -w))"
else bad "the Makefile's target list and .PHONY differ: $(printf '%s\n' "$listed" "$phony" | sort | uniq -u | tr '\n' ' ')"; fi

# 9. The image cache (IMAGE_CACHE, scripts/kernel-images.sh): a second build folder takes
#    every image from it (no compile) and embeds the same images; other flags compile again;
#    a cache folder another may write is not used, and says so
cache=$t/image-cache
cached_images() {   # build-dir make-args...: images() with the cache
    b=$1; shift
    make --no-print-directory BUILD="$b" NVCC="$nvcc" CLANG="$clang" IMAGE_CACHE="$cache" \
        TB_ROOT="$gen" KERNEL_CC=clang "$@" "$b/kernel_images.c" 2>&1
}
compiles() { grep -c cuda-gpu-arch "$t/clang.log"; }
sum_of() { sed -n 's/^const char tb_images_sha256\[\] = "\([0-9a-f]*\)";/\1/p' "$1/kernel_images.c"; }
: > "$t/clang.log"
out1=$(FAKE_CLANG_LOG=$t/clang.log cached_images "$t/b-c1" SMS="53 87"); rc1=$?; n1=$(compiles)
out2=$(FAKE_CLANG_LOG=$t/clang.log cached_images "$t/b-c2" SMS="53 87" SAN=1); rc2=$?; n2=$(compiles)
if [ $rc1 = 0 ] && [ $rc2 = 0 ] && [ "$n1" = 2 ] && [ "$n2" = 2 ] && has "$out2" "from the cache: sm_87.ptx" &&
   [ -n "$(sum_of "$t/b-c1")" ] && [ "$(sum_of "$t/b-c1")" = "$(sum_of "$t/b-c2")" ]; then
    ok "a second build folder takes both images from the cache (2 compiles in all), the same sha256"
else bad "the image cache (rc $rc1 $rc2, compiles $n1 then $n2): $(printf '%s\n' "$out2" | tail -n 4)"; fi
out=$(FAKE_CLANG_LOG=$t/clang.log cached_images "$t/b-c3" SMS="53 87" KERNEL_FLAGS=-DTB_X=1); rc=$?
[ $rc = 0 ] && [ "$(compiles)" = 4 ] && ok "other kernel flags compile again" ||
    bad "other kernel flags (rc $rc): $(compiles) compiles in all, expected 4"
chmod g+w "$cache"
out=$(FAKE_CLANG_LOG=$t/clang.log cached_images "$t/b-c4" SMS="53 87"); rc=$?
[ $rc = 0 ] && [ "$(compiles)" = 6 ] && has "$out" "image cache '$cache' not used" &&
    ok "a cache folder the group may write is not used: $(printf '%s\n' "$out" | grep -m1 'not used')" ||
    bad "a group-writable cache (rc $rc, $(compiles) compiles): $out"

echo "native-build: $passes passed, $fails failed"
[ "$fails" = 0 ]
