#!/bin/sh
# A stand-in for `nvpmodel -m ID` (TB_NVPMODEL points at it, or the test's sudo runs it as
# /usr/sbin/nvpmodel): reads $TB_ROOT/etc/nvpmodel.conf as nvpmodel does and writes where
# L4T's nvpmodel writes on the release $TB_ROOT/etc/nv_tegra_release names
# (../shared/fixtures/nvpmodel/README.md):
#   R32: the PARAM's MAX_FREQ files; R35, R36: its MAX_FREQ_KNEXT file where it has one.
#   GPU: the cap rounded up to a clock of the available_frequencies beside max_freq; -1 (or
#        none) the top of that table.
#   EMC: R32/R35's emc_iso_cap gets the value (-1: 0, no cap); R36's nvpmodel_clk_cap/emc
#        reads the EMC's top rate: the cap, or $FAKE_EMC_TOP_HZ (3199000000) uncapped, never
#        above $FAKE_EMC_HOLD_HZ when set (firmware holding the EMC lower, R36.4.3).
#   the status file: "pmode:000N fmode:quiet".
# Faults, by $FAKE_NVPM_FAULT (words):
#   refuse:ID   exits 1 ("not allowed")          reboot:ID   asks for a reboot, changes nothing
#   ignore:ID   says nothing, exits 0, changes nothing (a switch that fails silently)
#   status:ID   writes the status file only, exits 0 (the clocks stay at the last mode's)
#   hang:ID     starts a child that sleeps (its pid into $FAKE_NVPM_CHILD) and waits for it
#   pause:ID:start, pause:ID:mid   writes its pid to the FIFO $FAKE_NVPM_NOTIFY, then waits on
#               the FIFO $FAKE_NVPM_GATE, before any write (start) or after the status file
#               and before the clocks (mid): a switch caught half way
#   detach:ID   leaves a child that switches once $FAKE_NVPM_GATE opens, and exits 1
#   setsid:ID   leaves a child in a session of its own (setsid(1): out of nvpmodel's process
#               group) that switches once $FAKE_NVPM_GATE opens, and exits 0 as soon as the
#               child is out of its group
# Each call is appended to $FAKE_NVPM_LOG when set.
root=${TB_ROOT:?TB_ROOT must name the fake root}
[ "$1" = "-m" ] && [ -n "$2" ] || { echo "usage: nvpmodel -m ID" >&2; exit 2; }
id=$2
[ -n "$FAKE_NVPM_LOG" ] && echo "-m $id" >> "$FAKE_NVPM_LOG"
pause=
for f in $FAKE_NVPM_FAULT; do
    case "$f" in
    "refuse:$id") echo "NVPM ERROR: failed to set power mode $id: Permission denied"; exit 1 ;;
    "reboot:$id") echo "NVPM WARN: Reboot required for changing to this power mode: $id"
                  echo "NVPM WARN: DO YOU WANT TO REBOOT NOW? enter YES/yes to confirm:"
                  exit 0 ;;
    "ignore:$id") exit 0 ;;
    "status:$id") printf 'pmode:%04d fmode:quiet\n' "$id" > "$root/var/lib/nvpmodel/status"; exit 0 ;;
    "hang:$id") sleep 300 & echo $! > "${FAKE_NVPM_CHILD:-/dev/null}"; wait; exit 0 ;;
    "pause:$id:start") pause=start ;;
    "pause:$id:mid") pause=mid ;;
    "setsid:$id") ready=$(mktemp -u "${TMPDIR:-/tmp}/fake-nvpm.XXXXXX") && mkfifo -m 600 "$ready" || exit 1
                  FAKE_ID=$id READY=$ready setsid sh -c 'echo out > "$READY"
                    read x < "$FAKE_NVPM_GATE"
                    printf "pmode:%04d fmode:quiet\n" "$FAKE_ID" > "$TB_ROOT/var/lib/nvpmodel/status"' \
                    </dev/null >/dev/null 2>&1 &
                  read x < "$ready"; rm -f "$ready"   # the child is out of the group: then exit
                  exit 0 ;;
    "detach:$id") ( read x < "$FAKE_NVPM_GATE"
                    printf 'pmode:%04d fmode:quiet\n' "$id" > "$root/var/lib/nvpmodel/status" ) &
                  echo "NVPM ERROR: failed to set power mode $id"; exit 1 ;;
    esac
done
gate() { [ "$pause" = "$1" ] || return 0; echo $$ > "$FAKE_NVPM_NOTIFY"; read x < "$FAKE_NVPM_GATE"; }
gate start
rel=$(sed -n 's/^# R\([0-9]*\) .*/\1/p' "$root/etc/nv_tegra_release" 2>/dev/null)
# the table's words for the mode first: `set -- $(awk ...)` alone would take set's status, not
# awk's, and an unknown mode would pass for one that has no caps
vals=$(awk -v id="$id" -v knext=$([ "${rel:-36}" -ge 35 ] && echo 1 || echo 0) '
    /^< *PARAM/ { param = ""; if (match($0, /NAME=[^ >]+/)) param = substr($0, RSTART + 5, RLENGTH - 5); inmode = 0; next }
    /^< *POWER_MODEL/ { inmode = ($0 ~ ("ID=" id " ")); param = ""; if (inmode) found = 1; next }
    /^</ { inmode = 0; param = ""; next }
    param == "GPU" && $1 == "MAX_FREQ" { gp = $2 }
    param == "GPU" && $1 == "MAX_FREQ_KNEXT" && knext { gk = $2 }
    param == "EMC" && $1 == "MAX_FREQ" { ep = $2 }
    param == "EMC" && $1 == "MAX_FREQ_KNEXT" && knext { ek = $2 }
    inmode && $1 == "GPU" && $2 == "MAX_FREQ" { g = $3 }
    inmode && $1 == "EMC" && $2 == "MAX_FREQ" { e = $3 }
    END { if (!found) exit 1; if (gk) gp = gk; if (ek) ep = ek
          print (gp ? gp : "-"), (ep ? ep : "-"), (g ? g : "-1"), (e ? e : "-1") }' "$root/etc/nvpmodel.conf") ||
    { echo "NVPM ERROR: invalid power mode $id"; exit 1; }
set -- $vals
gp=$1 ep=$2 g=$3 e=$4
printf 'pmode:%04d fmode:quiet\n' "$id" > "$root/var/lib/nvpmodel/status"
gate mid
if [ "$gp" != - ] && [ -d "$root$(dirname "$gp")" ]; then
    table="$root$(dirname "$gp")/available_frequencies"
    g=$(tr ' ' '\n' < "$table" | sort -n | awk -v want="$g" 'NF { top = $1; if (want > 0 && !pick && $1 >= want) pick = $1 }
        END { print (pick ? pick : top) }')
    echo "$g" > "$root$gp"
fi
if [ "$ep" != - ] && [ -d "$root$(dirname "$ep")" ]; then
    case "$ep" in
    */nvpmodel_clk_cap/*)
        [ "$e" -le 0 ] 2>/dev/null && e=${FAKE_EMC_TOP_HZ:-3199000000}
        [ -n "$FAKE_EMC_HOLD_HZ" ] && [ "$e" -gt "$FAKE_EMC_HOLD_HZ" ] && e=$FAKE_EMC_HOLD_HZ ;;
    *)  [ "$e" -lt 0 ] 2>/dev/null && e=0 ;;
    esac
    echo "$e" > "$root$ep"
fi
echo "NVPM VERB: power mode is set to $id"
exit 0
