#!/bin/sh
# dist-key.sh BOARD [MAKE-ARGS...]: one sha256 over what `make dist BOARD=... MAKE-ARGS` is built
# from: the revision, the uncommitted changes, every file of src, kernels, boards, conf,
# scripts, the Makefile and the docs the tarball carries, the board file and the arguments. The
# fleet's deploy (doc/fleet/) rebuilds a tarball only when this changes (content, not mtimes: a
# checkout or a copy that touches files rebuilds nothing, an edit with an old mtime does), and
# deploys it only when the tarball's own sha256 changed. Run in the source tree.
set -eu
b=${1:?usage: dist-key.sh BOARD [MAKE-ARGS...]}
shift
{
    if [ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$(pwd -P)" ]; then
        git rev-parse HEAD
        git diff HEAD -- 2>/dev/null | sha256sum
    else echo "no git"; fi
    find src kernels boards conf scripts Makefile doc/nightly.md doc/power.md doc/transpose-bench.1 -type f \
        ! -name '*.pyc' -print | LC_ALL=C sort | while IFS= read -r f; do sha256sum -- "$f"; done
    echo "board: $(sha256sum < "$b")"
    echo "args: $*"
} | sha256sum | cut -c1-64
