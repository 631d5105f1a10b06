#!/bin/sh
# meter-grid.sh: build/meter-sim over issue #57's grid with the truth hidden: the chips' true
# time constants a factor F of what update_interval claims (0.8 0.9 1.0 1.1 1.25), a dead
# time of 0, 10 or 30 ms, conversion noise 0, 0.5 or 1%, one chip (430 ms) or two (430 + 215,
# 500 + 300), true ratios 0.8, 1.1 and 1.5: one meter-sim line per cell on stdout.
# Usage: tests/sim/meter-grid.sh [NIGHTS [JOBS]] (200 nights, 2 jobs). Not in `make test`.
set -eu
nights=${1:-200}
jobs=${2:-2}
sim=${SIM:-build/meter-sim}
[ -x "$sim" ] || { echo "meter-grid: no $sim (make meter-sim)" >&2; exit 2; }
# each cell its own seeds (cell k: nights from seed 1000 k + 1), so that no two cells share
# their noise
k=0
for chips in "430 0" "430 215" "500 300"; do
    set -- $chips
    for f in 0.8 0.9 1.0 1.1 1.25; do
        for d in 0 10 30; do
            for nz in 0 0.5 1; do
                for r in 0.8 1.1 1.5; do
                    k=$((k + 1))
                    t1=$(awk "BEGIN { print $1 * $f }")
                    if [ "$2" = 0 ]; then
                        echo "--tau-ms $t1 --claim-tau-ms $1"
                    else
                        t2=$(awk "BEGIN { print $2 * $f }")
                        echo "--tau-ms $t1 --claim-tau-ms $1 --tau2-ms $t2 --claim-tau2-ms $2"
                    fi | sed "s/\$/ --delay-ms $d --noise-pct $nz --ratio $r --nights $nights --seed $((1000 * k + 1))/"
                done
            done
        done
    done
done | xargs -P "$jobs" -I{} sh -c "$sim {}"
