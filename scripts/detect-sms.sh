#!/bin/sh
# detect-sms.sh: the GPU architectures this machine has, as a native `make` builds them by
# default (#52): nvidia-smi's compute capability of each GPU (8.7 -> 87), once each, in one
# line ("86 90"). Prints nothing where there is no nvidia-smi or it lists no GPU (a laptop, a
# CI host): no image is built there. A driver whose nvidia-smi lacks the compute_cap field
# (older than R510) but lists a GPU prints "all": every architecture, as before.
# NVIDIA_SMI=PATH picks the nvidia-smi (tests give a stand-in). A Jetson has no nvidia-smi:
# scripts/detect-board.sh names its board, whose file has the SM.
set -u
smi=${NVIDIA_SMI:-nvidia-smi}
command -v "$smi" >/dev/null 2>&1 || exit 0
caps=$(timeout 20 "$smi" --query-gpu=compute_cap --format=csv,noheader 2>/dev/null) ||
    caps=""
sms=$(printf '%s\n' "$caps" | sed -n 's/^[[:space:]]*\([0-9]\{1,2\}\)\.\([0-9]\)[[:space:]]*$/\1\2/p' |
      sort -un | tr '\n' ' ' | sed 's/ $//')
if [ -n "$sms" ]; then echo "$sms"; exit 0; fi
# no compute_cap: a GPU listed all the same means an older driver, not no GPU
timeout 20 "$smi" -L 2>/dev/null | grep -q '^GPU [0-9]' && echo all
exit 0
