#!/bin/sh
# dist-docs: the pages a board's tarball carries, as that board's reader needs them (#58):
# doc/power.md as it is, and doc/nightly.md with the board's own folder and tarball names
# (the page's examples are the Orin Nano's: jetson-orin-nano becomes NAME) and every doc/...
# it names that the tarball lacks said to be in the source tree, not here. dist.sh calls it;
# tests/test_dist_docs.c runs it on a scratch folder. Not here: the rest of the tarball.
# usage: scripts/dist-docs.sh STAGE NAME   (STAGE: the tarball's folder; NAME: the board's)
set -eu
stage=${1:?usage: scripts/dist-docs.sh STAGE NAME}
name=${2:?usage: scripts/dist-docs.sh STAGE NAME}
mkdir -p "$stage/doc"
cp doc/power.md "$stage/doc/power.md"   # nightly.md sends readers to it
awk -v stage="$stage" -v name="$name" '
{
    gsub(/jetson-orin-nano/, name)
    out = ""; s = $0
    while (match(s, /doc\/[A-Za-z0-9_.\/-]*[A-Za-z0-9_\/]/)) {
        ref = substr(s, RSTART, RLENGTH)
        out = out substr(s, 1, RSTART + RLENGTH - 1)
        if (ref != "doc/nightly.md" && system("test -e \"" stage "/" ref "\"") != 0)
            out = out ", in the source tree only"
        s = substr(s, RSTART + RLENGTH)
    }
    print out s
}' doc/nightly.md > "$stage/doc/nightly.md"
