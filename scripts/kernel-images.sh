#!/bin/sh
# kernel-images.sh OUTDIR: compiles kernels/cuda_transpose.cu into the kernel images the
# executable embeds, and writes OUTDIR/kernel_images.c, their table (src/cuda/images.h):
# one row per image {sm, cubin or PTX, PTX ISA, compiler, bytes}, each image gzipped and
# placed in the executable with the assembler's .incbin. No NVIDIA packing tool is needed.
#
# Which images (doc/cross-compile.md says why):
#   cubins  nvcc, one per SM, only when nvcc's CUDA major is not newer than the board's
#           (BOARD_CUDA; a driver loads no cubin of a newer CUDA major);
#   PTX     clang (Debian's clang-N, CUDA device-only, no CUDA install) at the board's PTX
#           ISA ceiling (PTX_ISA) for each SM of SMS; without clang (or KERNEL_CC=nvcc), nvcc's
#           PTX for the newest SM, only when no ceiling forbids it.
# nvcc is asked only for the SMs it can build: those `nvcc --list-gpu-arch` lists, or, with
# an nvcc that lacks that option (CUDA 10.2 and older: JetPack 4), those a one-line probe
# compiles; the others go to clang.
# Clang: the pinned clang 19 (CLANG_PIN) builds the release images; clang 14 to 19 are known
# to build correct Jetson PTX (16 or newer for sm_87+); any other clang is said loudly: its PTX
# differs (registers, speed), so its images are not the release ones.
# Environment: SMS="53 87", PTX_ISA=6.5 (empty: the lowest ISA each SM needs), BOARD_CUDA=10.2
# (empty: any), NVCC=path, NVCC_CCBIN=g++, CLANG=clang-19 (empty: clang-19, else the newest
# clang-N, N >= 14), KERNEL_CC=auto|clang|nvcc, KERNEL_FLAGS (more -D flags for both compilers,
# for an A/B on the GPU), V=1.
# TB_IMAGE_CACHE=DIR (the Makefile sets build-images/ of the checkout): each image compiled
# once per compiler, command line and source, and reused by every build folder (build,
# build-san, build-aarch64, a board's dist build: the images depend on none of the host's
# flags). An entry is named by the image and the sha256 of the compiler (its path and
# --version), the command line (the output path left out) and the kernel sources (the .cu and
# every header gcc -MM finds it reads, and clang_cuda.h); a cache folder or entry not owned by
# this user, writable by another or a link is not used (said once; the image is compiled).
# Writes also OUTDIR/images.sha256: each image's sha256 (as `list --images` writes it out) and
# the images' checksum (sha256 of the images in table order), which kernel_images.c carries
# (tb_images_sha256, shown by --version).
set -eu
out=${1:?usage: kernel-images.sh OUTDIR}
src=kernels/cuda_transpose.cu
SMS=${SMS:-}
PTX_ISA=${PTX_ISA:-}
BOARD_CUDA=${BOARD_CUDA:-}
NVCC=${NVCC:-nvcc}
KERNEL_CC=${KERNEL_CC:-auto}
say() { [ "${V:-0}" = 1 ] && echo "$*" >&2; "$@"; }
die() { echo "kernel-images: $*" >&2; exit 2; }

# the lowest PTX ISA (x10) each SM needs; 60 is our floor (the _sync shuffles)
min_isa() { case $1 in 5*|6*) echo 60 ;; 70|72) echo 61 ;; 75) echo 63 ;; 80) echo 70 ;;
            86) echo 71 ;; 87) echo 74 ;; 89|90) echo 78 ;; *) echo 0 ;; esac; }
# the oldest clang major that targets the SM (measured: clang-14 stops at sm_86)
min_clang() { case $1 in 87|89|90) echo 16 ;; *) echo 14 ;; esac; }
CLANG_PIN=19; CLANG_LO=14; CLANG_HI=19
# the newest PTX ISA (x10) a clang major writes
max_clang_isa() { if [ "$1" -ge 19 ]; then echo 85; elif [ "$1" -ge 17 ]; then echo 81;
                  elif [ "$1" -ge 16 ]; then echo 78; elif [ "$1" -ge 15 ]; then echo 75;
                  else echo 75; fi; }
isa10() { echo "$1" | awk -F. '{ printf "%d\n", $1 * 10 + ($2 == "" ? 0 : substr($2, 1, 1)) }'; }
major_of() { echo "$1" | cut -d. -f1; }

mkdir -p "$out"
rm -f "$out"/img-* "$out/kernel_images.c.tmp"
[ -n "$SMS" ] || die "no SMS: name the GPU architectures (SMS=\"53 87\" or BOARD=boards/<board>.cfg)"
ceiling=""
[ -n "$PTX_ISA" ] && ceiling=$(isa10 "$PTX_ISA")

# ---- nvcc: usable, and allowed for this board? ----
nvcc_ok=0; nvcc_ver=""; nvcc_archs=""
if [ "$KERNEL_CC" != clang ] && command -v "$NVCC" >/dev/null 2>&1; then
    nvcc_ver=$("$NVCC" --version | sed -n 's/.*release \([0-9.]*\),.*/\1/p')
    # CUDA 11+: the list; 10.2 has no such option (its answer is an error, not a list)
    nvcc_archs=$("$NVCC" --list-gpu-arch 2>/dev/null | sed -n 's/^compute_\([0-9]*\)$/\1/p' | tr '\n' ' ') || nvcc_archs=""
    if [ -n "$BOARD_CUDA" ] && [ "$(major_of "$nvcc_ver")" -gt "$(major_of "$BOARD_CUDA")" ]; then
        echo "kernel-images: nvcc $nvcc_ver is newer than the board's CUDA $BOARD_CUDA: no cubins" \
             "from it (its driver would refuse them)" >&2
    else nvcc_ok=1; fi
fi
[ "$KERNEL_CC" = nvcc ] && [ "$nvcc_ok" = 0 ] && die "KERNEL_CC=nvcc but no usable nvcc ($NVCC)"

# nvcc can build sm_$1: listed, or (no list) a probe compiles for it
nvcc_can() {
    if [ -n "$nvcc_archs" ]; then echo " $nvcc_archs " | grep -q " $1 "; return; fi
    [ -f "$out/probe.cu" ] || printf '__global__ void tb_probe(void) {}\n' > "$out/probe.cu"
    "$NVCC" -ccbin "${NVCC_CCBIN:-g++}" -cubin -arch=sm_$1 -o "$out/probe_$1.cubin" "$out/probe.cu" >/dev/null 2>&1
}

# ---- clang: CLANG, else the pinned clang-19, else the newest clang-N on PATH (14 or newer) ----
clang=""; clang_major=0
if [ "$KERNEL_CC" != nvcc ]; then
    for c in ${CLANG:-clang-19 clang-18 clang-17 clang-16 clang-15 clang-14 clang}; do
        command -v "$c" >/dev/null 2>&1 || { [ -n "${CLANG:-}" ] && die "CLANG=$CLANG: not found"; continue; }
        v=$("$c" --version | sed -n 's/.*clang version \([0-9]*\)\..*/\1/p' | head -n 1)
        if [ -z "$v" ] || [ "$v" -lt "$CLANG_LO" ]; then
            [ -n "${CLANG:-}" ] && die "CLANG=$CLANG is clang ${v:-of no known version}: Jetson PTX needs clang $CLANG_LO to $CLANG_HI (pinned: $CLANG_PIN)"
            continue
        fi
        clang=$c; clang_major=$v; break
    done
fi
[ "$KERNEL_CC" = clang ] && [ -z "$clang" ] &&
    die "KERNEL_CC=clang but no clang 14 or newer (scripts/ensure-deps.sh clang installs one)"
if [ -z "$clang" ] && [ "$nvcc_ok" = 0 ]; then
    die "no compiler for sm_$(echo $SMS | tr ' ' ,): clang (scripts/ensure-deps.sh clang installs it)," \
        "or an nvcc no newer than CUDA ${BOARD_CUDA:-any}"
fi
clang_full=""
[ -n "$clang" ] && clang_full="clang $("$clang" --version | sed -n 's/.*clang version \([0-9.]*\).*/\1/p' | head -n 1)"
# loud, once, before the compiles: not the clang the release images come from
clang_warn() {
    [ -n "$clang" ] && [ "$clang_major" != "$CLANG_PIN" ] || return 0
    if [ "$clang_major" -gt "$CLANG_HI" ]; then why="untested: outside clang $CLANG_LO-$CLANG_HI, the range known to build correct Jetson PTX"
    else why="within the range known to work (clang $CLANG_LO-$CLANG_HI)"; fi
    {
        echo "kernel-images: ======================================================================"
        echo "kernel-images: WARNING: PTX by $clang ($clang_full), not the pinned clang $CLANG_PIN ($why)."
        echo "kernel-images: WARNING: its kernels differ from the release images (registers, speed): logs of"
        echo "kernel-images: WARNING: this build are not comparable with theirs (kernel_image says which)."
        echo "kernel-images: WARNING: scripts/ensure-deps.sh clang installs clang-$CLANG_PIN; CLANG=clang-$CLANG_PIN picks it."
        echo "kernel-images: ======================================================================"
    } >&2
}

# ---- the image cache: a hit copies the image, a miss compiles it and stores it ----
cache=${TB_IMAGE_CACHE:-}
. "$(dirname "$0")/owned.sh"   # owned PATH: ours, no link, writable by no one else
if [ -n "$cache" ]; then
    (umask 022; mkdir -p "$cache") 2>/dev/null
    if ! owned "$cache"; then
        echo "kernel-images: image cache '$cache' not used (not a folder of $(id -un) that no one else" \
             "may write): every image compiled" >&2
        cache=""
    fi
fi
srchash=""
if [ -n "$cache" ]; then
    heads=$(gcc -MM -x c++ -Isrc -Ikernels "$src" 2>/dev/null | tr -d '\\' | cut -d: -f2-) ||
        heads=$(ls kernels/*.h)
    # shellcheck disable=SC2086
    srchash=$(sha256sum "$src" kernels/clang_cuda.h $heads | sort -u | sha256sum | cut -c1-64)
fi
ident() {   # COMPILER: its path and version text
    printf '%s\n' "$(command -v "$1")"; "$1" --version 2>&1
    [ "$1" = "$NVCC" ] && "${NVCC_CCBIN:-g++}" --version 2>&1 | head -n 1
    return 0
}
# cached OUT [say] COMPILER ARG...: OUT from the cache, else the compile (which writes OUT), stored
cached() {
    o=$1; shift
    [ -n "$cache" ] || { "$@"; return; }
    c=$1; [ "$c" = say ] && c=$2
    key=$({ echo "tb-image-cache 1 $srchash"; ident "$c"; printf '%s\n' "$@" |
           awk -v o="$o" '$0 == o { print "OUT"; next } { print }'; } | sha256sum | cut -c1-64)
    e=$cache/$(basename "$o")-$key
    if [ -f "$e" ] && owned "$e"; then
        # said as "from the cache: NAME", never "NAME ...": dist.sh tables the lines that begin
        # with an image's name into INSTALL, and a cache hit must not change a tarball's bytes
        cp "$e" "$o" && { echo "kernel-images: from the cache: $(basename "$o") ($e)" >&2; return 0; }
    fi
    "$@" || return
    (umask 022; cp "$o" "$e.tmp.$$" && mv -f "$e.tmp.$$" "$e") 2>/dev/null ||
        { rm -f "$e.tmp.$$"; echo "kernel-images: could not store $(basename "$o") in $cache" >&2; }
    return 0
}

n=0
rows=""
add() {   # file sm kind isa cuda compiler
    gzip -9 -n -c "$1" > "$out/img-$n.gz"
    raw=$(wc -c < "$1")
    rows="$rows$2 $3 $4 $5 $raw $6
"
    n=$((n + 1))
}

# Compiles run side by side (one per SM); each writes its image, then `add` tables them in
# SMS order. Each job leaves a marker with its exit status when it ends, so that join can
# say "image N of M" as they finish (a minute or more each on a small host: #33); the
# markers are no input of any image.
jobs=""; njobs=0; labels=""
spawn() {   # label command...
    label=$1; shift
    njobs=$((njobs + 1))
    labels="$labels$njobs $label
"
    rm -f "$out/.done-$njobs"
    idx=$njobs
    # set -e ends a failing command's subshell at once: the status is taken in an `if`, and
    # the marker appears whole (renamed), never read half written
    ( if "$@"; then rc=0; else rc=$?; fi
      echo "$rc" > "$out/.rc-$idx" && mv "$out/.rc-$idx" "$out/.done-$idx" ) &
    jobs="$jobs $!"
}
join() {
    [ "$njobs" -gt 0 ] || return 0
    echo "kernel-images: compiling $njobs image$( [ "$njobs" -gt 1 ] && echo s) side by side:" \
         "$(printf '%s' "$labels" | cut -d' ' -f2- | tr '\n' ',' | sed 's/,$//; s/,/, /g')" >&2
    t0=$(date +%s); done_n=0; reported=" "
    while [ "$done_n" -lt "$njobs" ]; do
        i=1
        while [ "$i" -le "$njobs" ]; do
            case $reported in *" $i "*) ;; *)
                if [ -f "$out/.done-$i" ]; then
                    done_n=$((done_n + 1)); reported="$reported$i "
                    label=$(printf '%s' "$labels" | sed -n "s/^$i //p")
                    rc=$(cat "$out/.done-$i")
                    [ "$rc" = 0 ] || { for j in $jobs; do wait "$j"; done; die "the compile of $label failed (V=1 shows the command)"; }
                    echo "kernel-images: image $done_n of $njobs done: $label ($(( $(date +%s) - t0 )) s)" >&2
                fi ;;
            esac
            i=$((i + 1))
        done
        [ "$done_n" -lt "$njobs" ] && sleep 1
    done
    for j in $jobs; do wait "$j"; done
    i=1; while [ "$i" -le "$njobs" ]; do rm -f "$out/.done-$i"; i=$((i + 1)); done
    jobs=""; njobs=0; labels=""
}

# ---- cubins (nvcc) ----
cubin_sms=""; clang_sms=""
if [ "$nvcc_ok" = 1 ]; then
    for sm in $SMS; do
        if ! nvcc_can "$sm"; then
            echo "kernel-images: nvcc $nvcc_ver cannot build sm_$sm: not asked for it" >&2
            clang_sms="$clang_sms $sm"; continue
        fi
        cubin_sms="$cubin_sms $sm"
        spawn "sm_$sm cubin (nvcc)" cached "$out/sm_$sm.cubin" say "$NVCC" -ccbin "${NVCC_CCBIN:-g++}" -std=c++14 -O3 -lineinfo -Isrc -Ikernels ${KERNEL_FLAGS:-} \
            -cubin -arch=sm_$sm -o "$out/sm_$sm.cubin" "$src"
    done
else
    clang_sms=$SMS
fi
[ "$KERNEL_CC" = clang ] && clang_sms=$SMS
# SMs that clang is too old for: an error when the board or the user named them
# (SMS_STRICT=1), else left out with a word (the default list of every SM we know)
if [ -n "$clang" ] && [ -n "$clang_sms" ]; then
    keep=""
    for sm in $clang_sms; do
        m=$(min_clang "$sm")
        if [ "$clang_major" -ge "$m" ]; then keep="$keep $sm"
        elif [ "${SMS_STRICT:-1}" = 1 ]; then
            die "sm_$sm needs clang $m or newer, $clang is $clang_major (scripts/ensure-deps.sh clang $sm installs one)"
        else echo "kernel-images: $clang ($clang_major) cannot target sm_$sm (needs $m): left out" >&2; fi
    done
    clang_sms=$keep
fi
if [ -z "$clang" ] && [ -n "$clang_sms" ] && [ "$nvcc_ok" = 1 ]; then
    echo "kernel-images: nvcc $nvcc_ver cannot target sm_$(echo $clang_sms | tr ' ' ,) and no clang" \
         "is here: no image for them" >&2
    clang_sms=""
fi

# ---- PTX: clang's for every SM nvcc may not serve (a board's older driver, an SM this nvcc
# dropped) or with KERNEL_CC=clang; nvcc's for the newest SM, which newer GPUs' drivers
# compile ----
if [ -n "$clang" ] && [ -n "$clang_sms" ]; then
    clang_warn
    res=$("$clang" -print-resource-dir)
    maxc=$(max_clang_isa "$clang_major")
    for sm in $clang_sms; do
        lo=$(min_isa "$sm")
        isa=${ceiling:-$lo}
        [ "$isa" -lt "$lo" ] && die "sm_$sm needs PTX ISA $((lo / 10)).$((lo % 10)), above the board's ceiling $PTX_ISA"
        [ "$isa" -gt "$maxc" ] && isa=$maxc
        [ "$isa" -lt "$lo" ] && die "$clang writes PTX ISA $((maxc / 10)).$((maxc % 10)) at most; sm_$sm needs $((lo / 10)).$((lo % 10))"
        echo "$isa" > "$out/sm_$sm.isa"
        spawn "sm_$sm PTX (clang)" cached "$out/sm_$sm.ptx" say "$clang" -x cuda --cuda-device-only -nocudainc -nocudalib --cuda-path=/nonexistent \
            -std=c++14 -O3 -S --cuda-gpu-arch=sm_$sm -Xclang -target-feature -Xclang +ptx$isa \
            -isystem "$res/include" -include kernels/clang_cuda.h -Ikernels -Isrc ${KERNEL_FLAGS:-} \
            -o "$out/sm_$sm.ptx" "$src"
    done
fi
top=""
if [ "$nvcc_ok" = 1 ] && [ "$KERNEL_CC" != clang ] && [ -n "$cubin_sms" ]; then
    top=$(printf '%s\n' $cubin_sms | sort -n | tail -n 1)
    spawn "compute_$top PTX (nvcc)" cached "$out/compute_$top.ptx" say "$NVCC" -ccbin "${NVCC_CCBIN:-g++}" -std=c++14 -O3 -lineinfo -Isrc -Ikernels ${KERNEL_FLAGS:-} -ptx \
        -arch=compute_$top -o "$out/compute_$top.ptx" "$src"
fi
join

cuda10=0
[ -n "$nvcc_ver" ] && cuda10=$(isa10 "$nvcc_ver")
for sm in $cubin_sms; do add "$out/sm_$sm.cubin" "$sm" cubin 0 "$cuda10" "nvcc $nvcc_ver"; done
if [ -n "$clang" ]; then
    for sm in $clang_sms; do add "$out/sm_$sm.ptx" "$sm" ptx "$(cat "$out/sm_$sm.isa")" 0 "$clang_full"; done
fi
if [ -n "$top" ]; then
    isa=$(isa10 "$(sed -n 's/^\.version \([0-9.]*\).*/\1/p' "$out/compute_$top.ptx" | head -n 1)")
    if [ -n "$ceiling" ] && [ "$isa" -gt "$ceiling" ]; then
        echo "kernel-images: nvcc's PTX is ISA $((isa / 10)).$((isa % 10)), above the board's $PTX_ISA: left out" >&2
    else add "$out/compute_$top.ptx" "$top" ptx "$isa" 0 "nvcc $nvcc_ver"; fi
fi
[ "$n" -gt 0 ] || die "no kernel image was built for sm_$(echo $SMS | tr ' ' ,)"

# ---- the checksum: each image as `list --images` writes it (raw), then all of them ----
: > "$out/images.raw"
i=0
printf '%s' "$rows" | while read -r sm kind isa cuda raw compiler; do
    gzip -dc "$out/img-$i.gz" > "$out/raw-$i"
    echo "$(sha256sum < "$out/raw-$i" | cut -c1-64)  sm_$sm.$kind ($compiler)"
    cat "$out/raw-$i" >> "$out/images.raw"
    rm -f "$out/raw-$i"
    i=$((i + 1))
done > "$out/images.sha256.tmp"
sum=$(sha256sum < "$out/images.raw" | cut -c1-64)
rm -f "$out/images.raw"
echo "$sum  all images, in table order" >> "$out/images.sha256.tmp"
mv "$out/images.sha256.tmp" "$out/images.sha256"

# ---- the table ----
c=$out/kernel_images.c.tmp
{
    echo "/* Generated by scripts/kernel-images.sh: the embedded kernel images (src/cuda/images.h). */"
    echo "#include \"cuda/images.h\""
    i=0
    while [ $i -lt $n ]; do
        printf '__asm__(".section .rodata\\n.balign 16\\n.globl tb_img_%d\\ntb_img_%d:\\n.incbin \\"%s/img-%d.gz\\"\\n.globl tb_img_%d_end\\ntb_img_%d_end:\\n.previous\\n");\n' \
            "$i" "$i" "$(cd "$out" && pwd)" "$i" "$i" "$i"
        echo "extern const unsigned char tb_img_$i[], tb_img_${i}_end[];"
        i=$((i + 1))
    done
    echo "const struct tb_image tb_images[] = {"
    i=0
    printf '%s' "$rows" | while read -r sm kind isa cuda raw compiler; do
        k=TB_IMAGE_PTX; [ "$kind" = cubin ] && k=TB_IMAGE_CUBIN
        echo "    { $sm, $k, $isa, $cuda, \"$compiler\", tb_img_$i, tb_img_${i}_end, $raw },"
        i=$((i + 1))
    done
    echo "    { 0, TB_IMAGE_PTX, 0, 0, NULL, NULL, NULL, 0 },"
    echo "};"
    echo "const char tb_images_sha256[] = \"$sum\";"
    echo "const char tb_images_none_why[] = \"\";"
} > "$c"
mv "$c" "$out/kernel_images.c"
printf '%s' "$rows" | while read -r sm kind isa cuda raw compiler; do
    echo "kernel-images: sm_$sm $kind$( [ "$kind" = ptx ] && echo " ISA $((isa / 10)).$((isa % 10))") by $compiler, $raw bytes" >&2
done
echo "kernel-images: sha256 $sum (all images; $out/images.sha256 has each)" >&2
