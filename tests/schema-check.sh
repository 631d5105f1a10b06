#!/bin/sh
# schema-check: --format json of real nights validated against doc/schema/night.schema.json
# by python3's jsonschema (Debian's python3-jsonschema: scripts/ensure-deps.sh schema): a CPU
# night run here (compare, history), an H200 night's logs measured with energy figures
# (doc/results/logs/energy-2026-11-26d: compare, --pareto, --baseline, history), a failed
# night (tests/fixtures). Each document must validate and hold the tables asked for; and a
# document whose figure is flattened back to a bare number (the /1 shape) must not.
#   BIN=./transpose-bench
set -u
BIN=${BIN:-./transpose-bench}
case $BIN in */*) ;; *) BIN=./$BIN ;; esac
python3 -c 'import jsonschema' 2>/dev/null ||
    { echo "schema-check: no python3 jsonschema; run: scripts/ensure-deps.sh schema"; exit 1; }
T=$(mktemp -d /tmp/tb-schema-XXXXXX)
trap 'rm -rf "$T"' EXIT
export TB_LOCK_FILE="$T/lock"
"$BIN" run --device cpu -b boards/generic.cfg --set power.source=none --quiet \
    --set sweep.stop.min_time_ms=2 --sizes 128x128,96x160 --kernels copy_row,naive_row \
    -o "$T/logs" || { echo "schema-check: the CPU night failed"; exit 1; }
h200=doc/results/logs/energy-2026-11-26d
fails=0
# check NAME TABLE COMMAND...: the command's JSON (exit 0 or 1) validates and holds TABLE
check() {
    name=$1 table=$2; shift 2
    "$@" > "$T/$name.json" 2> "$T/$name.err"; rc=$?
    if [ $rc -gt 1 ]; then echo "schema-check: FAILED: $name: exit $rc: $(cat "$T/$name.err")"; fails=$((fails + 1)); return; fi
    if out=$(python3 - "$T/$name.json" "$table" doc/schema/night.schema.json <<'PY'
import json, sys, jsonschema
doc = json.load(open(sys.argv[1]), parse_constant=lambda c: sys.exit("constant " + c))
schema = json.load(open(sys.argv[3]))
jsonschema.Draft7Validator.check_schema(schema)
errors = sorted(jsonschema.Draft7Validator(schema).iter_errors(doc), key=lambda e: list(e.path))
for e in errors[:5]:
    print(list(e.path), e.message[:300])
if errors:
    sys.exit(1)
rows = doc.get(sys.argv[2])
if not rows:
    sys.exit("no rows in table " + sys.argv[2])
figs = [k for r in rows for k, v in r.items() if isinstance(v, dict) and v["lower"] is not None]
print("%d %s rows, %d figures with bounds" % (len(rows), sys.argv[2], len(figs)))
PY
    ); then echo "schema-check: ok: $name: $out"
    else echo "schema-check: FAILED: $name: $out"; fails=$((fails + 1)); fi
}
check cpu-compare best "$BIN" compare --format json "$T"/logs/*.csv.gz
check cpu-history nights "$BIN" history --format json "$T"/logs/*.csv.gz
check h200-compare best "$BIN" compare --format json "$h200/hot10.csv.gz"
check h200-pareto pareto "$BIN" compare --pareto --format json "$h200/hot10.csv.gz"
check h200-baseline baseline "$BIN" compare --format json "$h200/hot10.csv.gz" --baseline "$h200/after.csv.gz"
check h200-history nights "$BIN" history --format json "$h200"/*.csv.gz
check failed-night failed_nights "$BIN" compare --format json tests/fixtures/logs/failed-night.csv.gz "$T"/logs/*.csv.gz
# the schema can fail: a figure flattened back to a bare number, and its _ci95 key beside it
python3 - "$T/h200-compare.json" doc/schema/night.schema.json <<'PY' || { echo "schema-check: FAILED: a flattened figure was accepted"; fails=$((fails + 1)); }
import json, sys, jsonschema
doc = json.load(open(sys.argv[1])); schema = json.load(open(sys.argv[2]))
r = doc["best"][0]
r["energy_ratio_ci95"] = r["energy_ratio"]["ci95"]; r["energy_ratio"] = r["energy_ratio"]["value"]
sys.exit(0 if list(jsonschema.Draft7Validator(schema).iter_errors(doc)) else 1)
PY
echo "schema-check: $((7 - fails)) of 7 documents valid$( [ $fails = 0 ] && echo ', a flattened figure refused')"
[ "$fails" = 0 ]
