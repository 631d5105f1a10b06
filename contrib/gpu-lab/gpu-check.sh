#!/bin/sh
# gpu-check: everything the lent GPU is for, in one call (a lab script, not part of the tool:
# run from the top of the tree, `make -f contrib/gpu-lab/Makefile gpu-check` or directly). Builds for SMS (default 90),
# runs the correctness matrix (conf/gpu-check.cfg), times the bench (conf/gpu-bench.cfg),
# measures GB/s per watt (conf/gpu-power.cfg) and prints a short table last.
#   STEPS="build bench check power cold"   which steps, run in this order
#                                           (default: build check bench table)
#   OUT=DIR                                 where logs go (default /tmp/gpu-check)
#   CHECK_ARGS, BENCH_ARGS                  more `run` options, e.g. "--kernels tiled,memcpy"
#   RT_BIN                                  a runtime-API build, for the rtcompare step
#   TB=PATH                                 the executable the run steps use (default the
#                                           one `build` makes, ./transpose-bench)
#   NANO_BIN, CLANG_BIN                     x86 builds carrying the Nano's images (PTX sm_53
#                                           ISA 6.5) and clang's PTX for this GPU, made on a
#                                           host with clang by `make gpu-prep` (default
#                                           build-gpu/nano/ and build-gpu/clang/): steps
#                                           nanocheck, nanoel, clangbench
# Steps: build check bench cold power table profile oom elements elbench fault rtcompare
# vcheck targets small elpower ab nanocheck nanoel clangbench binab energy hotcold r2 memcheck t41
# dcheck tune memall checkparts
# (each one's comment says what
# it does and reads).
# Where libconfig/zlib are not installed (the device machine), headers and static
# libraries bundled by `make deps-bundle` into .deps/ are used. Logs are read back only
# through the tool's own reader (`compare --format json`, fields by name: best below);
# python3 reads the JSON.
set -u
OUT=${OUT:-/tmp/gpu-check}
TB=${TB:-./transpose-bench}
NANO_BIN=${NANO_BIN:-build-gpu/nano/transpose-bench}
CLANG_BIN=${CLANG_BIN:-build-gpu/clang/transpose-bench}
STEPS=${STEPS:-build check bench table}
SMS=${SMS:-90}
BOARD=${BOARD:-boards/desktop-h100.cfg}
mkdir -p "$OUT"
say() { printf '\n=== %s\n' "$*"; }
rc=0

# The best point per kernel and size of the logs in DIR, as the tool reads them (`compare
# --format json`: doc/log-format.md), FIELD... by name, one row a line, tab between, "-"
# for a missing figure: best DIR FIELD... ("block" is block_x x block_y, "shape" rows x
# cols). With LEAD set, each line starts with it.
best() {
    dir=$1; shift
    $TB compare "$dir"/*.csv.gz --format json | LEAD="${LEAD:-}" python3 -c '
import json, os, sys
def cell(r, f):
    if f == "block":
        return "-" if not r.get("block_x") else "%sx%s" % (r["block_x"], r["block_y"])
    if f == "shape":
        return "%sx%s" % (r["rows"], r["cols"])
    if f == "energy_ratio_rerun_ci95" and f not in r:   # compare before #59 named it so
        f = "energy_ratio_ci95"
    return "-" if r.get(f) is None else str(r[f])
for r in json.load(sys.stdin)["best"]:
    print(os.environ["LEAD"] + "\t".join(cell(r, f) for f in sys.argv[1:]))' "$@"
}

step_build() {
    say "build (SMS=$SMS)"
    nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
    cuda=$(dirname "$(dirname "$nvcc")")
    set -- SMS="$SMS" CUDA_PATH="$cuda"
    # the device gets a copy of the tree without .git: pass GIT_REV=$(git rev-parse --short HEAD)
    [ -n "${GIT_REV:-}" ] && set -- "$@" GIT_REV="$GIT_REV"
    if ! pkg-config --exists libconfig zlib 2>/dev/null; then
        [ -d .deps ] || { echo "gpu-check: libconfig missing and no .deps/ (run make deps-bundle)"; exit 1; }
        set -- "$@" DEP_CFLAGS="-I$PWD/.deps/include" DEP_LIBS="$PWD/.deps/lib/libconfig.a $PWD/.deps/lib/libz.a"
    fi
    make -j"$(nproc)" "$@" transpose-bench > "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
    set --
    tail -3 "$OUT/build.log"
    $TB list | sed -n '/^kernel images/,/^GPU/p'
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv 2>/dev/null
}

step_check() {
    say "correctness matrix (conf/gpu-check.cfg)"
    start=$(date +%s)
    $TB run --device cuda -c conf/gpu-check.cfg -b "$BOARD" --set power.source=none \
        -o "$OUT/check" ${CHECK_ARGS:-} > "$OUT/check.txt" 2> "$OUT/check.err"
    c=$?
    echo "exit $c after $(( $(date +%s) - start )) s; $(tail -2 "$OUT/check.txt" | head -1)"
    grep -E 'FAIL|error' "$OUT/check.err" | head -20
    [ $c = 0 ] || rc=1
    # the kernels that take no floats (#41): the same matrix with their element types
    # (CHECK_EL="" leaves them out: a matrix split over two GPUs runs them once)
    for e in ${CHECK_EL-u8 f16}; do
        k=bperm16; [ $e = u8 ] && k=$k,bperm16w,strip8   # bperm16w and strip8 take bytes only
        $TB run --device cuda -c conf/gpu-check.cfg -b "$BOARD" --set power.source=none \
            --set sweep.element=$e --kernels $k \
            --blocks 64x1,128x1,256x1,64x2,128x2,256x2,512x1 -o "$OUT/check-$e" \
            > "$OUT/check-$e.txt" 2>&1
        c=$?
        echo "bperm16 $e: exit $c; $(tail -2 "$OUT/check-$e.txt" | head -1)"
        grep -E 'FAIL|error' "$OUT/check-$e.txt" | head -5
        [ $c = 0 ] || rc=1
    done
}

step_bench() {
    say "bench (conf/gpu-bench.cfg)"
    start=$(date +%s)
    $TB run --device cuda -c conf/gpu-bench.cfg -b "$BOARD" --set power.source=none \
        -o "$OUT/bench" ${BENCH_ARGS:-} > "$OUT/bench.txt" 2> "$OUT/bench.err"
    c=$?
    echo "exit $c after $(( $(date +%s) - start )) s"
    grep -E 'error' "$OUT/bench.err" | head -10
    [ $c = 0 ] || rc=1
}

step_cold() {
    say "warm against cold L2 at 8192x8192 and 2048x2048"
    $TB run --device cuda -b "$BOARD" -c conf/gpu-bench.cfg --set power.source=none \
        --kernels memcpy,tiled --blocks 32x8 --sizes 8192x8192,2048x2048 --set sweep.cache=cold \
        -o "$OUT/cold" --quiet || rc=1
}

step_power() {
    say "power (conf/gpu-power.cfg)"
    $TB list -b "$BOARD" | sed -n '/power sources/,$p'
    $TB power -b "$BOARD" --seconds 1 --format csv | head -5
    $TB run --device cuda -c conf/gpu-power.cfg -b "$BOARD" -o "$OUT/power" \
        > "$OUT/power.txt" 2> "$OUT/power.err" || rc=1
    cat "$OUT/power.txt"
}

step_table() {
    say "bench: best block per kernel, GB/s and fraction of memcpy (same size, same run)"
    $TB compare "$OUT"/bench/*.csv.gz --format markdown > "$OUT/bench.md"
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' shape kernel "best GB/s" block "of peak" "of memcpy"
    best "$OUT/bench" shape kernel gbps block frac_peak frac_copy
}
# 1, 2 and 8-byte elements: every kernel that takes them, every allowed block, on the
# awkward shapes (not the 1 GiB ones: the float matrix has those), then timings at 8192x8192.
step_elements() {
    for e in u8 f16 double; do
        say "element $e: correctness"
        $TB run --device cuda -c conf/gpu-check.cfg -b "$BOARD" \
            --set power.source=none --set sweep.element=$e \
            --sizes 1x1,1x4099,4099x1,31x33,33x31,300007x7,7x300007,1031x2053 \
            -o "$OUT/el-check-$e" > "$OUT/el-check-$e.txt" 2>&1
        echo "exit $?; $(tail -2 "$OUT/el-check-$e.txt" | head -1)"
    done
}

step_elbench() {
    for e in u8 f16 float double; do
        k=memcpy,copy_row,naive_row,naive_col,unroll4_col,smem_pad,smem_unroll_pad,tiled
        [ $e = float ] && k=$k,aligned64,cublas_geam
        $TB run --device cuda -c conf/gpu-bench.cfg -b "$BOARD" \
            --set power.source=none --set sweep.element=$e --sizes 8192x8192 --kernels $k \
            -o "$OUT/el-bench-$e" --quiet
    done
    say "8192x8192 by element type: element, kernel, best GB/s, fraction of memcpy"
    for e in u8 f16 float double; do
        best "$OUT/el-bench-$e" elem kernel gbps frac_copy
    done
}

# A size that passes the configuration's memory check (2 x 42.4 GB < 85.5 GB) but cannot
# be allocated next to the context: its row must say oom, and the next size must run.
step_oom() {
    say "out of memory for one size, then the sweep goes on"
    $TB run --device cuda -b "$BOARD" --kernels memcpy,aligned64 --blocks 64x8 \
        --sizes 103000x103000,4096x4096 --set sweep.verify=false --set power.source=none \
        -o "$OUT/oom" > "$OUT/oom.txt" 2>&1
    echo "exit $?"; grep -E 'oom|ok  |error' "$OUT/oom.txt" | head -6
}

# A launch that breaks the context (TB_CUDA_FAULT: naive_row writes through a bad pointer
# once): its row is recorded, the device is reset, the points after it run and verify.
step_fault() {
    say "a launch that breaks the CUDA context, then the sweep goes on"
    TB_CUDA_FAULT=naive_row $TB run --device cuda -b "$BOARD" \
        --kernels naive_row,tile2x2 --blocks 32x8 --sizes 1024x1024,2048x2048 \
        --set power.source=none -o "$OUT/fault" > "$OUT/fault.txt" 2>&1
    echo "exit $?"; cat "$OUT/fault.txt"
}

# The driver-API build (this tree) against a runtime-API build of the last commit before it
# (RT_BIN, built beforehand and carried), timed one after the other on the same sizes.
step_rtcompare() {
    say "runtime API ($RT_BIN) then driver API (this build): best GB/s per kernel and size"
    for tag in rt drv; do
        b=./transpose-bench; [ $tag = rt ] && b=$RT_BIN
        "$b" run --device cuda -c conf/gpu-bench.cfg -b "$BOARD" --set power.source=none \
            --sizes 8192x8192,8191x12289 -o "$OUT/cmp-$tag" --quiet || rc=1
        best "$OUT/cmp-$tag" shape kernel gbps > "$OUT/cmp-$tag.txt"
    done
    awk -F'\t' 'NR == FNR { rt[$1 " " $2] = $3; next }
             ($1 " " $2) in rt {
                 k = $1 " " $2; r = rt[k] > 0 ? $3 / rt[k] : 0
                 printf "%-28s rt %8.1f  drv %8.1f  drv/rt %.3f\n", k, rt[k], $3, r
                 s += r; n++ }
             END { if (n) printf "mean drv/rt over %d kernel-size pairs: %.4f\n", n, s / n }' \
        "$OUT/cmp-rt.txt" "$OUT/cmp-drv.txt"
}

# One kernel (VKERNEL, default vec16) on every element type, every block it takes, on the
# awkward shapes: a quick check while a kernel is being written (check/elements do all).
step_vcheck() {
    for e in u8 f16 float double; do
        say "${VKERNEL:-vec16}, element $e: correctness on the awkward shapes"
        $TB run --device cuda -c conf/gpu-check.cfg -b "$BOARD" \
            --set power.source=none --set sweep.element=$e --kernels "${VKERNEL:-vec16}" \
            -o "$OUT/vcheck-$e" > "$OUT/vcheck-$e.txt" 2>&1
        echo "exit $?; $(tail -2 "$OUT/vcheck-$e.txt" | head -1)"
        grep -E 'FAIL|error' "$OUT/vcheck-$e.txt" | head -5
    done
}

# One bench run (no power) into DIR: el_run DIR ELEMENT SIZES KERNELS [BLOCKS].
el_run() {
    $TB run --device cuda -c conf/gpu-bench.cfg -b "$BOARD" \
        --set power.source=none --set sweep.element="$2" --sizes "$3" --kernels "$4" \
        ${5:+--blocks "$5"} -o "$1" --quiet || rc=1
}

# Its rows, best point per kernel: el_rows DIR ELEMENT [LEAD] prints LEAD, shape, element,
# kernel, best block, GB/s, fraction of memcpy (same run).
el_rows() {
    LEAD="${3:-}" best "$1" shape elem kernel block gbps frac_copy
}

# The element-type targets (doc/results): each element type and shape in one run with
# memcpy and cuBLAS beside; best GB/s and fraction of memcpy per kernel.
step_targets() {
    for e in u8 f16 float double; do
        k=memcpy,tiled,vec16 sizes=8192x8192,8191x12289
        [ $e = float ] && k=$k,tile2x2,aligned64,cublas_geam \
            sizes=8192x8192,16384x16384,4096x65536,8191x12289,8192x12289
        el_run "$OUT/targets-$e" $e $sizes $k
    done
    say "targets: shape, element, kernel, best block, GB/s, fraction of memcpy (same run)"
    for e in u8 f16 float double; do el_rows "$OUT/targets-$e" $e; done | tee "$OUT/targets.txt"
}

# A measurement knob both ways on the same machine: AB_VAR (an environment variable the
# build reads, e.g. one left in a launcher while a kernel change is measured) set to each of
# AB_VALUES in turn, each its own run with memcpy (and cuBLAS for floats) beside.
step_ab() {
    for v in ${AB_VALUES:-0 1}; do
        export "${AB_VAR:?set AB_VAR}=$v"
        for e in ${AB_ELEMENTS:-u8 f16 float double}; do
            k=memcpy,vec16; [ $e = float ] && k=$k,tile2x2,cublas_geam
            el_run "$OUT/ab$v-$e" $e "${AB_SIZES:-8192x8192,8191x12289}" "${AB_KERNELS:-$k}"
        done
    done
    unset "$AB_VAR"
    say "ab: $AB_VAR, shape, element, kernel, best block, GB/s, fraction of memcpy"
    for v in ${AB_VALUES:-0 1}; do for e in ${AB_ELEMENTS:-u8 f16 float double}; do
        el_rows "$OUT/ab$v-$e" $e "$(printf '%-4s' "$v")"
    done; done | tee "$OUT/ab.txt"
}

# Small matrices (what a Nano holds) with a warm and a cold L2, u8 and float: a desktop's
# warm numbers there are partly cache numbers.
step_small() {
    for e in u8 float; do
        k=memcpy,tiled,vec16; [ $e = float ] && k=$k,tile2x2
        for c in warm cold; do
            $TB run --device cuda -c conf/gpu-bench.cfg -b "$BOARD" \
                --set power.source=none --set sweep.element=$e --set sweep.cache=$c \
                --sizes 1024x1024,2048x2048,4096x4096 --kernels $k \
                --set sweep.stop.max_time_ms=300 -o "$OUT/small-$e-$c" --quiet || rc=1
        done
    done
    say "small sizes: size, element, cache, kernel, best GB/s, fraction of memcpy (same cache)"
    for e in u8 float; do for c in warm cold; do
        LEAD="$c	" best "$OUT/small-$e-$c" shape elem kernel gbps frac_copy
    done; done | tee "$OUT/small.txt"
}

# GB/s per watt by element type at 8192x8192 (conf/gpu-power.cfg, NVML).
step_elpower() {
    for e in u8 f16 float double; do
        k=memcpy,vec16,tiled; [ $e = float ] && k=$k,tile2x2,aligned64,cublas_geam
        $TB run --device cuda -c conf/gpu-power.cfg -b "$BOARD" \
            --set sweep.element=$e --kernels $k -o "$OUT/power-$e" --quiet || rc=1
    done
    say "GB/s per W at 8192x8192: element, kernel, block, GB/s, fraction of memcpy, GB/s per W +-95%, dynamic pJ/B +-95%"
    for e in u8 f16 float double; do
        best "$OUT/power-$e" elem kernel block gbps frac_copy gbps_per_w gbps_per_w_ci95 \
            dyn_pj_per_byte dyn_pj_per_byte_ci95
    done | tee "$OUT/elpower.txt"
}

# Nsight Compute on PROFILE_KERNELS, each "kernel:block[:element[:size]]" (e.g. "aligned64:64x8
# vec16:256x1:f16 aligned64:64x8:float:8191x12289"); size defaults to PROFILE_SIZE.
step_profile() {
    for spec in ${PROFILE_KERNELS:-aligned64:64x8 tiled:64x8}; do
        k=$(echo "$spec" | cut -d: -f1); b=$(echo "$spec" | cut -d: -f2)
        e=$(echo "$spec:" | cut -d: -f3); size=$(echo "$spec::" | cut -d: -f4)
        e=${e:-float}; size=${size:-${PROFILE_SIZE:-8192x8192}}
        say "profile $k $b $e at $size"
        ncu --clock-control none --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy \
            --section WarpStateStats --section LaunchStats -c 2 -k "regex:^tb_${k}" \
            --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,smsp__warp_issue_stalled_barrier_per_warp_active.pct,smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct \
            $TB run --device cuda -b "$BOARD" --kernels "$k" --blocks "$b" \
            --sizes "$size" --set sweep.element="$e" --set sweep.verify=false --set sweep.warmup=0 \
            --set sweep.stop.max_reps=1 --set sweep.stop.min_reps=1 --set power.source=none \
            -o "$OUT/profile" --quiet > "$OUT/ncu-$k-$b-$e-$size.txt" 2>&1
        grep -E 'tb_[a-z]|dram__|lts__|l1tex__|smsp__|DRAM Throughput|Memory Throughput|Duration|Achieved Occupancy|Registers Per|Bank Conflicts|Stall|L2 Hit|L1/TEX Hit|Mem Busy|Max Bandwidth|warp.*cycles|One or More|No Eligible|Theoretical Occupancy|Block Limit' \
            "$OUT/ncu-$k-$b-$e-$size.txt" | grep -v '^==PROF' | head -40
    done
    cuobjdump -sass build/images/sm_90.cubin 2>/dev/null | awk "/Function : /{f=/tb_aligned64_8_4/} f" \
        | grep -E 'STG|LDS|STS|LDG' > "$OUT/sass-aligned64.txt"
    echo "sass: $(grep -c STG "$OUT/sass-aligned64.txt") STG, $(grep -c 'STG.*128' "$OUT/sass-aligned64.txt") of them 128-bit"
}

# The correctness matrix with the Nano's kernel images (PTX sm_53 at ISA 6.5 from clang,
# JIT-compiled by this GPU's driver entry by entry), bit for bit.
step_nanocheck() {
    say "correctness matrix with the Nano's images ($NANO_BIN)"
    $NANO_BIN list -b "$BOARD" | sed -n '/^kernel images/,/why that image/p'
    start=$(date +%s)
    $NANO_BIN run --device cuda -c conf/gpu-check.cfg -b "$BOARD" --set power.source=none \
        -o "$OUT/nanocheck" > "$OUT/nanocheck.txt" 2> "$OUT/nanocheck.err"
    c=$?
    echo "exit $c after $(( $(date +%s) - start )) s; $(tail -2 "$OUT/nanocheck.txt" | head -1)"
    zcat "$OUT"/nanocheck/*.csv.gz | grep -E '^# (kernel_images|kernel_image|kernel_load|jit_cache):'
    grep -E 'FAIL|error' "$OUT/nanocheck.err" | head -20
    [ $c = 0 ] || rc=1
}

# The other element types with the Nano's images, on the awkward shapes.
step_nanoel() {
    for e in u8 f16 double; do
        $NANO_BIN run --device cuda -c conf/gpu-check.cfg -b "$BOARD" --set power.source=none \
            --set sweep.element=$e --sizes 1x1,1x4099,4099x1,64x4099,31x33,33x31,300007x7,7x300007,1031x2053 \
            -o "$OUT/nanoel-$e" > "$OUT/nanoel-$e.txt" 2>&1
        echo "nano images, $e: exit $?; $(tail -2 "$OUT/nanoel-$e.txt" | head -1)"
    done
}

# The blocks of the fast kernels (tiled, tile2x2, vec16 and #41's rows: vec16d's depth and
# bperm16's slabs are the block's y), and those kernels by element type, memcpy first.
FAST_BLOCKS=32x8,32x16,64x8,128x1,256x1,512x1,64x2,128x2,256x2,512x2,64x4,128x4,256x4
fast_kernels() {
    case $1 in
    u8) echo memcpy,tiled,vec16,bperm16,bperm16w,strip8 ;;
    f16) echo memcpy,tiled,vec16,bperm16 ;;
    float) echo memcpy,tiled,vec16,tile2x2,aligned64,vec16d,vec16w ;;
    *) echo memcpy,tiled,vec16,vec16d,vec16w ;;
    esac
}

# clang's images against nvcc's in one session: per element type and shape, each build's
# fast kernels (fast_kernels, CB_BLOCKS: default FAST_BLOCKS) with memcpy beside (its own
# run), then the best kernel of each build and the ratio clang / nvcc. Builds: nvcc (TB,
# default ./transpose-bench), clang (CLANG_BIN: PTX for this SM), nano (NANO_BIN: the Nano's
# PTX, sm_53 ISA 6.5).
step_clangbench() {
    sizes=${CB_SIZES:-8192x8192,16384x16384,8191x12289,8192x12289,4096x65536,3840x2160}
    for b in nvcc clang nano; do
        case $b in nvcc) bin=$TB ;; clang) bin=$CLANG_BIN ;; nano) bin=$NANO_BIN ;; esac
        for e in ${CB_ELEMENTS:-u8 f16 float double}; do
            tb_was=$TB; TB=$bin
            el_run "$OUT/cb-$b-$e" $e "$sizes" "$(fast_kernels $e)" "${CB_BLOCKS:-$FAST_BLOCKS}"
            TB=$tb_was
        done
    done
    say "clangbench: shape, element, best kernel and GB/s per build (fraction of memcpy, same run); clang/nvcc"
    for e in ${CB_ELEMENTS:-u8 f16 float double}; do
        for b in nvcc clang nano; do
            best "$OUT/cb-$b-$e" shape kernel block gbps frac_copy | awk -F'\t' -v b=$b -v e=$e '
                $2 != "memcpy" { k = $1
                    if ($4 + 0 > top[k] + 0) { top[k] = $4; who[k] = $2 " " $3; fr[k] = $5 } }
                END { for (k in top) printf "%s %s %s %s %s %s\n", k, e, b, who[k], top[k], fr[k] }'
        done
    done | sort > "$OUT/clangbench.txt"
    awk '{ key = $1 " " $2; g[key, $3] = $6; w[key, $3] = $4 " " $5 " " $6 " (" $7 ")"; keys[key] = 1 }
         END { printf "%-12s %-6s | %-34s | %-34s | %-34s | clang/nvcc nano/nvcc\n", "shape", "elem", "nvcc", "clang sm_90", "nano sm_53";
               for (k in keys) { split(k, p, " ");
                 printf "%-12s %-6s | %-34s | %-34s | %-34s | %.3f %.3f\n", p[1], p[2], w[k, "nvcc"], w[k, "clang"], w[k, "nano"],
                        g[k, "clang"] / g[k, "nvcc"], g[k, "nano"] / g[k, "nvcc"] } }' "$OUT/clangbench.txt" | sort | tee "$OUT/clangbench-table.txt"
}

# Issue #41's table: the 1 and 2-byte kernels with memcpy and vec16 beside, warm, on the
# issue's shapes (R2_SIZES), then the 4K frame with a cold L2 (fractions of memcpy, same run).
step_r2() {
    for e in u8 f16; do
        k=memcpy,vec16,bperm16; [ $e = u8 ] && k=$k,bperm16w,strip8
        $TB run --device cuda -c conf/gpu-bench.cfg -b "$BOARD" --set power.source=none \
            --set sweep.element=$e --kernels $k --blocks 128x1,256x1,512x1,64x2,128x2,256x2 \
            --sizes "${R2_SIZES:-8192x8192,8191x12289,8192x12289,3840x2160,16384x16384,4096x65536}" \
            -o "$OUT/r2-$e" --quiet || rc=1
        $TB run --device cuda -c conf/gpu-bench.cfg -b "$BOARD" --set power.source=none \
            --set sweep.element=$e --set sweep.cache=cold --sizes 3840x2160 --kernels $k \
            --blocks 128x1,256x1,512x1,64x2,128x2,256x2 -o "$OUT/r2cold-$e" --quiet || rc=1
    done
    say "r2: shape, element, kernel, best block, GB/s, fraction of memcpy (warm, then cold 3840x2160)"
    for e in u8 f16; do el_rows "$OUT/r2-$e" $e; done | tee "$OUT/r2.txt"
    for e in u8 f16; do el_rows "$OUT/r2cold-$e" $e "cold "; done | tee -a "$OUT/r2.txt"
}

# Issue #41's whole table in one call: u8 and f16 as r2 does, then floats and doubles with
# their kernels (tile2x2, aligned64, vec16, vec16d, cuBLAS), memcpy beside in each run, warm,
# and the 4K frame cold; rows as el_rows prints them (fractions of memcpy, same run).
step_t41() {
    step_r2
    bl=$FAST_BLOCKS
    k=memcpy,tiled,tile2x2,aligned64,vec16,vec16d,vec16w,cublas_geam
    $TB run --device cuda -c conf/gpu-bench.cfg -b "$BOARD" --set power.source=none \
        --set sweep.element=float --kernels $k --blocks $bl \
        --sizes "${T41_FSIZES:-8192x8192,8191x12289,8192x12289,16384x16384,3840x2160,4096x65536}" \
        -o "$OUT/t41-float" --quiet || rc=1
    $TB run --device cuda -c conf/gpu-bench.cfg -b "$BOARD" --set power.source=none \
        --set sweep.element=float --set sweep.cache=cold --sizes 3840x2160 --kernels $k \
        --blocks $bl -o "$OUT/t41cold-float" --quiet || rc=1
    $TB run --device cuda -c conf/gpu-bench.cfg -b "$BOARD" --set power.source=none \
        --set sweep.element=double --kernels memcpy,tiled,vec16,vec16d,vec16w --blocks $bl \
        --sizes "${T41_DSIZES:-8192x8192,8191x12289,16384x16384}" -o "$OUT/t41-double" \
        --quiet || rc=1
    say "t41 floats and doubles: shape, element, kernel, best block, GB/s, fraction of memcpy"
    { el_rows "$OUT/t41-float" float; el_rows "$OUT/t41cold-float" float "cold ";
      el_rows "$OUT/t41-double" double; } | tee "$OUT/t41.txt"
}

# Kernels (VKERNEL, default vec16d,vec16w) through the correctness matrix on the float and double passes, with
# this build and, where NANO_BIN exists, the Nano's images (PTX sm_53 ISA 6.5), then
# compute-sanitizer memcheck on the small awkward shapes, every block its rule allows.
step_dcheck() {
    DBLOCKS=${DBLOCKS:-128x1,256x1,512x1,64x2,128x2,256x2,512x2,64x4,128x4,256x4}
    for e in ${DCHECK_ELEMENTS:-float double}; do
        for b in "$TB" "$NANO_BIN"; do
            [ -x "$b" ] || { echo "dcheck: no $b"; continue; }
            n=$(basename "$(dirname "$b")")
            "$b" run --device cuda -c conf/gpu-check.cfg -b "$BOARD" --set power.source=none \
                --set sweep.element=$e --kernels "${VKERNEL:-vec16d,vec16w}" \
                --blocks "$DBLOCKS" -o "$OUT/dcheck-$n-$e" \
                > "$OUT/dcheck-$n-$e.txt" 2>&1
            c=$?
            echo "dcheck ${VKERNEL:-vec16d,vec16w} $e ($b): exit $c; $(tail -2 "$OUT/dcheck-$n-$e.txt" | head -1)"
            grep -E 'FAIL|error' "$OUT/dcheck-$n-$e.txt" | head -5
            [ $c = 0 ] || rc=1
        done
        compute-sanitizer --tool memcheck --print-limit 5 $TB run --device cuda \
            -c conf/gpu-check.cfg -b "$BOARD" --set power.source=none --set sweep.element=$e \
            --kernels "${VKERNEL:-vec16d,vec16w}" --blocks "$DBLOCKS" \
            --sizes 1x1,1x4099,4099x1,31x33,33x31,30x34,1031x2053,300007x7,7x300007 \
            -o "$OUT/dmemcheck-$e" > "$OUT/dmemcheck-$e.txt" 2>&1
        echo "memcheck $e: exit $?; $(grep 'ERROR SUMMARY' "$OUT/dmemcheck-$e.txt" | tail -1)"
    done
}

# The correctness matrix in parts (#61): the whole float matrix no longer ran within one
# device call of 10 minutes. One part a run, each timed: CHECK_PARTS (default every part, in
# this order): float-seeds (the seeds' kernels and the bounds), float-fast (the fast kernels
# and cuBLAS), double, u8, f16 (every kernel that takes the element). Each is
# conf/gpu-check.cfg's sizes with every block in it and the slab blocks of the fast kernels;
# `list` names the kernels of each element. PART/GROUP runs a part on some of the sizes only:
# wide (4096x65536), tall (65536x4096), rest (the other fifteen). The two 268 M-element sizes
# hold most of a part's time (the host verifies 1-2 GB a point): on an H100 alone, f16's took
# 199 and 192 s of its 517, double's 273 s and over 172 s, and double whole did not finish in
# 530 s (doc/results/h100-2026-12-07-perf61c.md); so double and float-seeds run in three.
CHECK_SEEDS=copy_row,copy_col,copy_smem,naive_row,naive_col,unroll4_row,unroll4_col,diagonal_row,diagonal_col,smem,smem_pad,smem_rect,smem_rect_pad,smem_unroll_pad
CHECK_FAST=tiled,aligned64,tile2x2,vec16,vec16d,vec16w,strip,cublas_geam
step_checkparts() {
    say "correctness matrix in parts (conf/gpu-check.cfg)"
    slabs=16x16,32x8,32x32,256x1,128x1,512x1,8x32,64x4,64x8,64x16,32x4,32x16,1x1,64x1,64x2,128x2,256x2,512x2,128x4,256x4
    rest=1x1,1x4099,4099x1,64x4099,31x33,33x31,1x70001,70001x1,300007x7,7x300007,8191x12289
    rest=$rest,30x34,4194306x2,2x4194306,8190x12290
    for part in ${CHECK_PARTS:-float-seeds/rest float-seeds/wide float-seeds/tall float-fast double/rest double/wide double/tall u8 f16}; do
        case ${part%%/*} in
        float-seeds) e=float; k=$CHECK_SEEDS ;;
        float-fast) e=float; k=$CHECK_FAST ;;
        double|u8|f16) e=${part%%/*}; k= ;;   # the file's "*": every kernel
        *) echo "gpu-check: unknown part '$part'"; rc=1; continue ;;
        esac
        case $part in
        */wide) sz=4096x65536 ;;
        */tall) sz=65536x4096 ;;
        */rest) sz=$rest ;;
        */*) echo "gpu-check: unknown size group in '$part' (wide, tall or rest)"; rc=1; continue ;;
        *) sz= ;;   # the file's sizes, all seventeen
        esac
        o="$OUT/check-$(echo "$part" | tr / -)"
        start=$(date +%s)
        $TB run --device cuda -c conf/gpu-check.cfg -b "$BOARD" --set power.source=none \
            --set sweep.element=$e ${k:+--kernels $k} --blocks $slabs ${sz:+--sizes $sz} ${CHECK_ARGS:-} \
            -o "$o" > "$o.txt" 2>&1
        c=$?
        echo "part $part: exit $c after $(( $(date +%s) - start )) s;" \
             "$(grep -E '[0-9]+ ok, ' "$o.txt" | tail -1)"
        grep -E 'FAIL|wrong' "$o.txt" | head -5
        [ $c = 0 ] || rc=1
    done
}

# compute-sanitizer memcheck on the 1 and 2-byte kernels, every block, small awkward shapes.
step_memcheck() {
    for e in u8 f16; do
        k=bperm16; [ $e = u8 ] && k=$k,bperm16w,strip8   # bperm16w and strip8 take bytes only
        compute-sanitizer --tool memcheck --print-limit 5 $TB run --device cuda \
            -c conf/gpu-check.cfg -b "$BOARD" --set power.source=none --set sweep.element=$e \
            --kernels $k --blocks 64x1,128x1,256x1,64x2,128x2,256x2,512x1 --sizes 1x1,1x4099,4099x1,31x33,33x31,30x34,1031x2053,300007x7,7x300007 \
            -o "$OUT/memcheck-$e" > "$OUT/memcheck-$e.txt" 2>&1
        echo "memcheck $e: exit $?; $(grep 'ERROR SUMMARY' "$OUT/memcheck-$e.txt" | tail -1)"
    done
}

# compute-sanitizer memcheck on every kernel that takes each element type (MEM_ELEMENTS),
# every block of the correctness matrix and the slab blocks of #41's rows, the small
# awkward shapes (MEM_SIZES).
step_memall() {
    bl=16x16,32x8,32x32,256x1,128x1,512x1,8x32,64x4,64x8,64x16,32x4,32x16,1x1,64x1,64x2,128x2
    for e in ${MEM_ELEMENTS:-u8 f16 float double}; do
        compute-sanitizer --tool memcheck --print-limit 5 $TB run --device cuda \
            -c conf/gpu-check.cfg -b "$BOARD" --set power.source=none --set sweep.element=$e \
            --blocks $bl,256x2,512x2,128x4,256x4 \
            --sizes "${MEM_SIZES:-1x1,1x4099,4099x1,64x4099,31x33,33x31,30x34,1031x2053,300007x7,7x300007}" \
            -o "$OUT/memall-$e" > "$OUT/memall-$e.txt" 2>&1
        c=$?
        echo "memcheck, every kernel, $e: exit $c; $(grep 'ERROR SUMMARY' "$OUT/memall-$e.txt" | tail -1);" \
             "$(grep -E '[0-9]+ ok, ' "$OUT/memall-$e.txt" | tail -1)"
        [ $c = 0 ] || rc=1
    done
}

# `tune` (#41) on the issue's shapes (TUNE_SIZES_<element> overrides): one tuned file per
# element type (TUNE_ELEMENTS) with memcpy, cuBLAS for floats and fast_kernels over tune's
# own candidate blocks, TUNE_SECONDS each (default 120); then each size's kernels with the
# block tune picked, GB/s and fraction of memcpy (same run), the best kernel marked *.
step_tune() {
    for e in ${TUNE_ELEMENTS:-u8 f16 float double}; do
        case $e in double) s=8191x12289,16384x16384 ;; *) s=8192x8192,8191x12289,3840x2160 ;; esac
        eval "s=\${TUNE_SIZES_$e:-$s}"
        k=$(fast_kernels $e); [ $e = float ] && k=$k,cublas_geam
        t0=$(date +%s)
        $TB tune --device cuda -c conf/gpu-bench.cfg -b "$BOARD" --set power.source=none \
            --set sweep.element=$e --sizes "$s" --kernels "$k" --seconds "${TUNE_SECONDS:-120}" \
            --out "$OUT/tuned-$e.cfg" -o "$OUT/tune-$e" > "$OUT/tune-$e.txt" 2>&1
        c=$?
        echo "tune $e: exit $c after $(( $(date +%s) - t0 )) s; $(tail -1 "$OUT/tune-$e.txt")"
        [ $c = 0 ] || rc=1
    done
    say "tune: shape, element, kernel, block tune picked, GB/s, fraction of memcpy; * best kernel"
    for e in ${TUNE_ELEMENTS:-u8 f16 float double}; do
        [ -f "$OUT/tuned-$e.cfg" ] && tuned_rows "$OUT/tuned-$e.cfg" $e
    done | tee "$OUT/tune.txt"
}

# A tuned file's points as rows: shape, element, kernel, block, GB/s, fraction of memcpy,
# "*" on the fastest kernel of each shape that is not memcpy.
tuned_rows() {
    sed -n 's/.*kernel = "\([^"]*\)"; size = \[ \([0-9]*\)L*, \([0-9]*\)L* \]; block = \[ \([0-9]*\), \([0-9]*\) \]; }  # \([0-9.]*\) GB\/s, \([0-9.]*\) of copy/\2x\3 \1 \4x\5 \6 \7/p' "$1" |
        awk -v e="$2" '{ row[NR] = $0; if ($2 != "memcpy" && $4 + 0 > best[$1] + 0) { best[$1] = $4 + 0; who[$1] = NR } }
            END { for (i = 1; i <= NR; i++) { split(row[i], f, " ")
                      printf "%-12s %-6s %-12s %-7s %8s %s%s\n", f[1], e, f[2], f[3], f[4], f[5], who[f[1]] == i ? " *" : "" } }'
}

# Executables both ways on one machine: AB_BINS="name:path ..." (builds that differ in their
# kernel images, e.g. KERNEL_FLAGS), each its own run per round (AB_ROUNDS, default 2) with
# memcpy beside (AB_BLOCKS: the blocks, default the bench's); rows as el_rows prints them, led
# by the build's name and round.
step_binab() {
    for r in $(seq 1 "${AB_ROUNDS:-2}"); do
        for nb in ${AB_BINS:?set AB_BINS}; do
            tb_was=$TB; TB=${nb#*:}
            el_run "$OUT/binab-${nb%%:*}-$r" "${AB_ELEMENTS:-float}" "${AB_SIZES:-8191x12289}" \
                "${AB_KERNELS:-memcpy,vec16}" "${AB_BLOCKS:-}"
            TB=$tb_was
        done
    done
    say "binab: build round, shape, element, kernel, best block, GB/s, fraction of memcpy"
    for r in $(seq 1 "${AB_ROUNDS:-2}"); do for nb in $AB_BINS; do
        tb_was=$TB; TB=${nb#*:}          # each build reads its own logs (no ./transpose-bench needed)
        el_rows "$OUT/binab-${nb%%:*}-$r" "${AB_ELEMENTS:-float}" "$(printf '%-8s' "${nb%%:*}$r")"
        TB=$tb_was
    done; done | tee "$OUT/binab.txt"
}

# Energy a rerun reproduces (#39): conf/energy-check.cfg (memcpy, tile2x2, vec16 at 8192x8192
# float, the power defaults: blocks interleaved with the copy, cycles until 1% or the budget),
# ENERGY_RUNS runs (default 3) back to back into $OUT/TAG-N (TAG: the first argument, default
# energy), each its own process, its wall time printed; ENERGY_ARGS added to each run. With
# ENERGY_DIR every run logs into that one folder instead, so that each learns the run-to-run
# spread from the runs before it, as a board's nights do. Per kernel, as compare reads the
# log: GB/s, the energy ratio to the copy +- its 95%, GB/s per W +- 95%, J/GB +-, dynamic
# pJ/B +-; and each run's power_plan, power_cadence, power_idle and power_rerun lines (the
# rerun interval, the temperature, the cycles and the note are in the log's rows: compare
# does not show them).
step_energy() {
    tag=${1:-energy}
    for r in $(seq 1 "${ENERGY_RUNS:-3}"); do
        t0=$(date +%s)
        $TB run --device cuda -c conf/energy-check.cfg -b "$BOARD" ${ENERGY_ARGS:-} \
            -o "${ENERGY_DIR:-$OUT/$tag-$r}" > "$OUT/$tag-$r.txt" 2>&1 || rc=1
        echo "$tag run $r: exit $? after $(( $(date +%s) - t0 )) s"
    done
    say "$tag: run, kernel, block, GB/s, ratio +-95%, GB/s/W +-95%, J/GB +-, dyn pJ/B +-"
    for r in $(seq 1 "${ENERGY_RUNS:-3}"); do
        log=$(sed -n 's/^log: //p' "$OUT/$tag-$r.txt" | tail -1)
        [ -n "$log" ] || log=$(ls "$OUT"/$tag-$r/*.csv.gz 2>/dev/null | head -1)
        [ -n "$log" ] || { echo "$tag run $r: no log"; continue; }
        # the meter's lines of the log's preamble and end, then its rows as the tool reads them
        zcat "$log" | grep -E '^# (power_(plan|cadence|idle|rerun)|gpu_conditions)' | sed "s/^/  run $r /"
        LEAD="$r	" best "$(dirname "$log")" kernel block gbps energy_ratio energy_ratio_rerun_ci95 \
            gbps_per_w gbps_per_w_ci95 j_per_gb j_per_gb_ci95 dyn_pj_per_byte dyn_pj_per_byte_ci95
    done | tee "$OUT/$tag.txt"
}

# A rerun hot or cold (#39): the energy check ENERGY_RUNS times from the card as it is
# (tag cold), HEAT_S seconds (default 90) of torch matmuls, then ENERGY_RUNS times more (tag
# hot). On a machine of several GPUs, one such call per GPU at once, each with its own
# CUDA_VISIBLE_DEVICES and OUT, after one build.
step_hotcold() {
    step_energy cold
    say "heat: torch matmuls for ${HEAT_S:-90} s"
    python3 -c "
import time, torch
a = torch.randn(8192, 8192, device='cuda'); t = time.time(); n = 0
while time.time() - t < ${HEAT_S:-90}:
    b = a @ a; n += 1
torch.cuda.synchronize(); print('matmuls', n)" 2>&1 | tail -1
    nvidia-smi -i "${CUDA_VISIBLE_DEVICES:-0}" --format=csv,noheader \
        --query-gpu=power.draw,temperature.gpu,clocks_event_reasons.active 2>/dev/null
    step_energy hot
}

for step in $STEPS; do
    case $step in
    build|check|bench|cold|power|table|profile|oom|elements|elbench|fault|rtcompare|vcheck|targets|small|elpower|ab|nanocheck|nanoel|clangbench|binab|energy|hotcold|r2|memcheck|t41|dcheck|tune|memall|checkparts) "step_$step" ;;
    *) echo "gpu-check: unknown step '$step'"; exit 2 ;;
    esac
done
exit $rc
