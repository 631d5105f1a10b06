#!/bin/sh
# detect-board.sh [ROOT]: the board file a native `make` builds for, by the rule `run` uses
# (src/measure/board.c): the longest `match.model` substring of ROOT/proc/device-tree/model among
# boards/*.cfg. Prints "FILE CUDA ISA": the board file (boards/<board>.cfg), then the CUDA
# version and PTX ISA of this machine's driver as its L4T release says (ROOT/etc/nv_tegra_release:
# R32 10.2 6.5, R35 11.4 7.4, R36 12.2 8.2, R36.4+ 12.6 8.5; "-" when not known: the board
# file's then apply). Prints nothing when there is no device tree or no board file names the
# model (not a Jetson: every SM is built). Not the GPU's name: make opens no driver.
# Refuses (exit 2, with the reason) an L4T older than R32 (JetPack 3 and older: glibc 2.23,
# CUDA 9.0, PTX ISA 6.0 at most), which this tool's executable and kernels cannot run on.
set -u
root=${1:-}
model_file=$root/proc/device-tree/model
rel_file=$root/etc/nv_tegra_release
# the model: a NUL-terminated string; a FIFO or device there is not read (never block make)
model=""
[ -f "$model_file" ] && model=$(head -c 255 "$model_file" 2>/dev/null | tr -d '\000' | head -n 1)
[ -n "$model" ] || exit 0

# "# R28 (release), REVISION: 2.1, ..." on L4T 28 (JetPack 3.x); "# R36 (release), REVISION: 4.3"
cuda=-; isa=-
if [ -f "$rel_file" ]; then
    line=$(head -c 200 "$rel_file" | head -n 1)
    major=$(echo "$line" | sed -n 's/^# R\([0-9]*\) .*/\1/p')
    rev=$(echo "$line" | sed -n 's/.*REVISION: \([0-9]*\).*/\1/p')
    if [ -n "$major" ] && [ "$major" -lt 32 ]; then
        # stdout, one line: make 4.1 (JetPack 4's) has no .SHELLSTATUS to see an exit code by
        echo "refused: $rel_file says L4T R$major (JetPack 3 or older), which this tool does not" \
             "support: glibc 2.23 and CUDA 9.0 (PTX ISA 6.0 at most) there; it needs JetPack 4" \
             "(L4T R32: glibc 2.27, CUDA 10.2) or newer (doc/cross-compile.md, JetPack 3)"
        exit 2
    fi
    case $major in
    32) cuda=10.2; isa=6.5 ;;
    35) cuda=11.4; isa=7.4 ;;
    36) if [ "${rev:-0}" -ge 4 ]; then cuda=12.6; isa=8.5; else cuda=12.2; isa=8.2; fi ;;
    esac
fi

dir=$(dirname "$0")/../boards
best=""; best_len=0
for f in "$dir"/*.cfg; do
    # match = { model = [ "A", "B" ]; } or model = "A"
    cands=$(sed -n 's/.*match[[:space:]]*=[[:space:]]*{[^}]*model[[:space:]]*=[[:space:]]*\(\[[^]]*\]\|"[^"]*"\).*/\1/p' "$f" |
            head -n 1 | grep -o '"[^"]*"' | tr -d '"')
    [ -n "$cands" ] || continue
    old_ifs=$IFS; IFS='
'
    for c in $cands; do
        case $model in *"$c"*)
            if [ ${#c} -gt "$best_len" ]; then best_len=${#c}; best=boards/$(basename "$f"); fi ;;
        esac
    done
    IFS=$old_ifs
done
[ -n "$best" ] && echo "$best $cuda $isa"
exit 0
