#!/bin/sh
# readme-picture: draws doc/img/pareto-front.png, the README's picture of `compare --pareto
# --html`'s chart. No Jetson here: the night is tests/test_modes_e2e.c's three-mode sweep
# (15W, 25W, MAXN_SUPER) on the CPU backend, with tests/fake-nvpmodel.sh over a fake Orin Nano
# Super root and a fake INA3221 whose watts follow the mode (idle + dynamic x how busy the
# load kept the device): the test-only executable's driver (tests/fake_ina_driver.c), on the
# tool's virtual clock, so a busy machine cannot garble the watts. The picture shows the
# page's layout, not a measurement of a board.
# The first chart's heading and SVG are cut out of the page into a page of their own, with a
# line saying what the data are, and shot by headless Chromium at the chart's size (x2).
#   BIN=build/tests/transpose-bench-hooks  OUT=doc/img/pareto-front.png (defaults in the
#   checkout; given, they are taken from where it is run)  KEEP=1 (keep the temporary folder)
set -eu
here=$PWD
cd "$(dirname "$0")/.."
case ${BIN:-} in '') BIN=$PWD/build/tests/transpose-bench-hooks ;; /*) ;; *) BIN=$here/$BIN ;; esac
case ${OUT:-} in '') OUT=$PWD/doc/img/pareto-front.png ;; /*) ;; *) OUT=$here/$OUT ;; esac
[ -x "$BIN" ] || { echo "readme-picture: no '$BIN' (make build/tests/transpose-bench-hooks)" >&2; exit 1; }
command -v chromium >/dev/null 2>&1 ||
    { echo "readme-picture: chromium not found (scripts/ensure-deps.sh html)" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/tb-readme-picture-XXXXXX")
cleanup() {
    if [ "${KEEP:-0}" = 1 ]; then echo "readme-picture: kept $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# ---- the fake Orin Nano Super in MAXN_SUPER, laid out as L4T R36 lays it out
# (tests/modes_boards.h: R36_SUPER; tests/fixtures/nvpmodel/README.txt): the GPU's devfreq and
# the EMC top rate where R36's nvpmodel writes them (the conf's MAX_FREQ_KNEXT paths) ----
r=$tmp/root
gpu=sys/devices/platform/17000000.gpu/devfreq_dev
hwmon=sys/bus/i2c/drivers/ina3221/1-0040/hwmon/hwmon1
mkdir -p "$r/etc" "$r/var/lib/nvpmodel" "$r/$gpu" "$r/sys/kernel/nvpmodel_clk_cap" \
    "$r/proc/device-tree" "$tmp/logs"
cp tests/fixtures/nvpmodel/orin-nano-super.conf "$r/etc/nvpmodel.conf"
printf '# R36 (release), REVISION: 4.3\n' > "$r/etc/nv_tegra_release"
echo "pmode:0000" > "$r/var/lib/nvpmodel/status"
echo "306000000 408000000 510000000 612000000 714000000 816000000 918000000 1020000000" \
    > "$r/$gpu/available_frequencies"
echo 0 > "$r/$gpu/max_freq"
echo 0 > "$r/sys/kernel/nvpmodel_clk_cap/emc"
printf 'NVIDIA Jetson Orin Nano Engineering Reference Developer Kit Super' \
    > "$r/proc/device-tree/model"
# the INA3221 fixture's files (tests/helpers.c: th_build_sysfs), hwmon<N> as hwmon1
scripts/fixture-root.sh tests/fixtures/ina3221/orin-nano.txt "$r"
echo 50 > "$r/$hwmon/update_interval"
export TB_ROOT="$r" TB_NVPMODEL="$PWD/tests/fake-nvpmodel.sh" TB_MODE_STATE="$r/modes.state" \
    TB_MODE_SETTLE_MS=20000 TB_LOCK_FILE="$tmp/lock"
unset FAKE_NVPM_FAULT
tests/fake-nvpmodel.sh -m 2 > /dev/null

# ---- the night: three modes, one kernel, one size (test_modes_e2e.c's sweep) ----
night() {   # the log's path in $log; 1 when the sweep failed (said)
    rm -rf "$tmp/logs" && mkdir -p "$tmp/logs"
    rc=0
    TB_TEST_INA_DRIVER="$r,modes" TB_FAKE_CLOCK=1 TB_FAKE_CLOCK_WORK=10 \
    "$BIN" run --quiet --device cpu -b boards/jetson-orin-nano.cfg --sizes 512x512 \
        --kernels copy_row --set sweep.stop.min_time_ms=1 \
        --set 'sweep.power_modes=["15W", "25W", "MAXN_SUPER"]' \
        --set power.interval_ms=10 --set power.window_ms=100 --set power.idle_ms=100 \
        --set power.max_rel_ci=0.5 --set power.rounds=1 --set power.settle_s=0 \
        --set power.sysfs_root="$r" -o "$tmp/logs" > "$tmp/run.txt" 2>&1 || rc=$?
    if [ "$rc" != 0 ]; then
        cat "$tmp/run.txt" >&2
        echo "readme-picture: the sweep failed (exit $rc)" >&2
        return 1
    fi
    log=$(ls "$tmp"/logs/*.csv.gz)
}

# ---- the page, as the README's command makes it. The picture is to show every part of the
# chart (three points with their intervals, a front of two or more joined, the knee ringed);
# the CPU's GB/s wanders between modes, so a night whose page lacks one of these is run again
# (three nights at most), and the figures are whatever that night gave. ----
for try in 1 2 3; do
    echo "readme-picture: night $try: three modes on the CPU backend (fake nvpmodel, fake sensor)"
    night || exit 1
    "$BIN" compare --pareto --html "$tmp/front.html" "$log" > "$tmp/front.txt"
    dots=$(grep -o 'r="4"' "$tmp/front.html" | wc -l)
    if [ "$dots" = 3 ] && grep -q '<polyline' "$tmp/front.html" &&
        grep -q 'r="9" fill="none"' "$tmp/front.html"; then
        break
    fi
    if [ "$try" = 3 ]; then
        cat "$tmp/front.txt"
        echo "readme-picture: no night's chart had every part" >&2
        exit 1
    fi
done
cat "$tmp/front.txt"

# ---- its first chart alone: the front's heading and SVG (the tool's own markup, escaped
# there), and a line saying what the data are, in a page of a fixed size ----
title=$(sed -n 's|^<h2>\(.*\)</h2>$|\1|p' "$tmp/front.html" | head -1)
awk '/<svg/ { on = 1 } on { print } on && /<\/svg>/ { exit }' "$tmp/front.html" > "$tmp/chart.svg"
grep -q '</svg>' "$tmp/chart.svg" || { echo "readme-picture: no chart on the page" >&2; exit 1; }
w=$(sed -n '1s/.*<svg[^>]* width="\([0-9]*\)".*/\1/p' "$tmp/chart.svg")
h=$(sed -n '1s/.*<svg[^>]* height="\([0-9]*\)".*/\1/p' "$tmp/chart.svg")
{
    printf '%s\n' '<!DOCTYPE html>' '<html lang="en"><head><meta charset="utf-8"><style>' \
        'html,body{margin:0;background:#fff;color:#111;font-family:sans-serif}' \
        '.t{height:40px;padding:0 16px;font:bold 18px/44px sans-serif;white-space:nowrap}' \
        'svg{display:block;margin:0 16px}' \
        '.c{height:32px;padding:0 16px;font:12px/24px sans-serif;color:#555;white-space:nowrap}' \
        '</style></head><body>'
    printf '<div class="t">%s</div>\n' "$title"
    cat "$tmp/chart.svg"
    printf '%s\n' '<div class="c">Drawn from a CPU-backend sweep with a fake nvpmodel and a fake sensor whose watts follow the mode: the page'"'"'s layout, not a Jetson measurement.</div>' \
        '</body></html>'
} > "$tmp/chart.html"
timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --force-device-scale-factor=2 --window-size="$((w + 32)),$((40 + h + 32))" \
    --screenshot="$tmp/chart.png" "file://$tmp/chart.html" > "$tmp/chromium.log" 2>&1 ||
    { cat "$tmp/chromium.log" >&2; echo "readme-picture: chromium drew nothing" >&2; exit 1; }
size=$(wc -c < "$tmp/chart.png")
[ "$size" -le 153600 ] ||
    { echo "readme-picture: $size bytes: more than the README's 150 KB" >&2; exit 1; }
mkdir -p "$(dirname "$OUT")"
cp "$tmp/chart.png" "$OUT"
echo "readme-picture: $OUT ($size bytes, drawn twice the CSS size for sharp text)"
