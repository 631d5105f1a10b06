#!/bin/sh
# meter-grid.sh: build/meter-sim over issue #57's grid with the truth hidden: one chip (430 ms)
# or two (430 + 215, 500 + 300), their true time constants a factor F of what update_interval
# claims, a dead time, the register's step, slow reads, conversion noise and the true ratio:
# one meter-sim line per cell on stdout. Each axis is a list in the environment; the defaults
# are the whole grid (4,860 cells):
#   CHIPS="430 430+215 500+300" F="0.8 0.9 1.0 1.1 1.25" DELAY="0 10 30" LSB="0 0.5 2"
#   LATENCY="0 100 430" NOISE="0 0.5 1 5" RATIO="0.8 1.1 1.5"
# Usage: [AXIS=...] tests/sim/meter-grid.sh [NIGHTS [JOBS]] (200 nights, 2 jobs). Not in
# `make test`. Cell k (counted over the whole grid, whichever axes are chosen) takes its
# nights from seed 1000 k + 1, so that no two cells share their noise and a reduced grid's
# cell reads as the full grid's would.
set -eu
nights=${1:-200}
jobs=${2:-2}
sim=${SIM:-build/meter-sim}
[ -x "$sim" ] || { echo "meter-grid: no $sim (make meter-sim)" >&2; exit 2; }
in_list() { case " $2 " in *" $1 "*) return 0 ;; esac; return 1; }
k=0
for chips in 430 430+215 500+300; do
    for f in 0.8 0.9 1.0 1.1 1.25; do
        for d in 0 10 30; do
            for q in 0 0.5 2; do
                for lat in 0 100 430; do
                    for nz in 0 0.5 1 5; do
                        for r in 0.8 1.1 1.5; do
                            k=$((k + 1))
                            in_list "$chips" "${CHIPS:-430 430+215 500+300}" &&
                            in_list "$f" "${F:-0.8 0.9 1.0 1.1 1.25}" &&
                            in_list "$d" "${DELAY:-0 10 30}" && in_list "$q" "${LSB:-0 0.5 2}" &&
                            in_list "$lat" "${LATENCY:-0 100 430}" &&
                            in_list "$nz" "${NOISE:-0 0.5 1 5}" &&
                            in_list "$r" "${RATIO:-0.8 1.1 1.5}" || continue
                            c1=${chips%+*}
                            t1=$(awk "BEGIN { print $c1 * $f }")
                            printf -- '--tau-ms %s --claim-tau-ms %s' "$t1" "$c1"
                            if [ "$chips" != "$c1" ]; then
                                c2=${chips#*+}
                                t2=$(awk "BEGIN { print $c2 * $f }")
                                printf -- ' --tau2-ms %s --claim-tau2-ms %s' "$t2" "$c2"
                            fi
                            printf -- ' --delay-ms %s --lsb-pct %s --read-latency-ms %s' \
                                "$d" "$q" "$lat"
                            printf -- ' --noise-pct %s --ratio %s --nights %s --seed %s\n' \
                                "$nz" "$r" "$nights" "$((1000 * k + 1))"
                        done
                    done
                done
            done
        done
    done
done | xargs -P "$jobs" -I{} sh -c "$sim {}"
