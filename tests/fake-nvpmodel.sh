#!/bin/sh
# A fake `nvpmodel -m ID` for tests (TB_NVPMODEL points at it): reads $TB_ROOT/etc/nvpmodel.conf
# as nvpmodel does, writes the status file, the GPU devfreq max_freq and the EMC cap file the
# mode's PARAM sections name, all under $TB_ROOT. Faults, by $FAKE_NVPM_FAULT (words):
#   refuse:ID   exits 1 ("not allowed")          reboot:ID   asks for a reboot, changes nothing
#   ignore:ID   says nothing, exits 0, changes nothing (a switch that fails silently)
#   hang:ID     starts a child that sleeps (its pid into $FAKE_NVPM_CHILD) and waits for it:
#               a nvpmodel that never returns
# Each call is appended to $FAKE_NVPM_LOG when set.
root=${TB_ROOT:?TB_ROOT must name the fake root}
[ "$1" = "-m" ] && [ -n "$2" ] || { echo "usage: nvpmodel -m ID" >&2; exit 2; }
id=$2
[ -n "$FAKE_NVPM_LOG" ] && echo "-m $id" >> "$FAKE_NVPM_LOG"
for f in $FAKE_NVPM_FAULT; do
    case "$f" in
    "refuse:$id") echo "NVPM ERROR: failed to set power mode $id: Permission denied"; exit 1 ;;
    "reboot:$id") echo "NVPM WARN: Reboot required for changing to this power mode: $id"
                  echo "NVPM WARN: DO YOU WANT TO REBOOT NOW? enter YES/yes to confirm:"
                  exit 0 ;;
    "ignore:$id") exit 0 ;;
    "hang:$id") sleep 300 & echo $! > "${FAKE_NVPM_CHILD:-/dev/null}"; wait; exit 0 ;;
    esac
done
# the table's words for the mode first: `set -- $(awk ...)` alone would take set's status, not
# awk's, and an unknown mode would pass for one that has no caps
vals=$(awk -v id="$id" '
    /^< *PARAM/ { param = ""; if (match($0, /NAME=[^ >]+/)) param = substr($0, RSTART + 5, RLENGTH - 5); inmode = 0; next }
    /^< *POWER_MODEL/ { inmode = ($0 ~ ("ID=" id " ")); param = ""; if (inmode) found = 1; next }
    /^</ { inmode = 0; param = ""; next }
    param == "GPU" && $1 == "MAX_FREQ" { gp = $2 }
    param == "EMC" && $1 == "MAX_FREQ" { ep = $2 }
    inmode && $1 == "GPU" && $2 == "MAX_FREQ" { g = $3 }
    inmode && $1 == "EMC" && $2 == "MAX_FREQ" { e = $3 }
    END { if (!found) exit 1; print (gp ? gp : "-"), (ep ? ep : "-"), (g ? g : "-1"), (e ? e : "-1") }' "$root/etc/nvpmodel.conf") ||
    { echo "NVPM ERROR: invalid power mode $id"; exit 1; }
set -- $vals
gp=$1 ep=$2 g=$3 e=$4
printf 'pmode:%04d fmode:quiet\n' "$id" > "$root/var/lib/nvpmodel/status"
if [ "$gp" != - ] && [ -d "$root$(dirname "$gp")" ]; then
    if [ "$g" -le 0 ] 2>/dev/null; then   # uncapped: the highest clock of the table
        g=$(tr ' ' '\n' < "$root$(dirname "$gp")/available_frequencies" | sort -n | tail -1)
    fi
    echo "$g" > "$root$gp"
fi
if [ "$ep" != - ] && [ -d "$root$(dirname "$ep")" ]; then
    [ "$e" -lt 0 ] 2>/dev/null && e=0
    echo "$e" > "$root$ep"
fi
echo "NVPM VERB: power mode is set to $id"
exit 0
